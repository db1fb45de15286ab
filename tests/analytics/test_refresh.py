"""A post's "Refresh now": one sync of its metrics through the sandbox, at most once per post in
ANALYTICS_REFRESH_SECONDS, for every member of the team and no one else."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.utils import timezone

from analytics import services
from analytics.models import MetricsSample, PostMetrics
from publishing.models import Publish

pytestmark = pytest.mark.django_db

LIST = "/dashboard/analytics/"


def _refresh(client, persona, publish_id, capture):
    client.force_login(persona.user)
    with capture(execute=True) as callbacks:
        response = client.post(f"{LIST}{publish_id}/refresh/", {"team": str(persona.team.pk)}, follow=True)
    return response, callbacks


def _message(response):
    return re.search(r'<ul class="messages" role="status"><li class="\w+">([^<]*)</li>', response.content.decode())[1]


@pytest.fixture
def synced(posts, accounts):
    """An X post whose metrics were read a moment ago (so not due), and then changed."""
    publish_id = posts.publish(accounts.x)
    posts.set_metrics(publish_id, "x", views=10, likes=1)
    services.metrics_sync()
    posts.set_metrics(publish_id, "x", views=250, likes=7)
    return publish_id


def test_refresh_now_reads_the_posts_metrics_at_once(client, member, synced, django_capture_on_commit_callbacks):
    response, callbacks = _refresh(client, member, synced, django_capture_on_commit_callbacks)

    assert response.status_code == 200
    assert response.redirect_chain[-1][0] == f"{LIST}{synced}/?team={member.team.pk}"
    assert _message(response) == "Refreshing: the figures update within a minute."
    assert len(callbacks) == 1  # one sync, enqueued after commit
    metrics = PostMetrics.objects.get(target__publish_id=synced)
    assert (metrics.views, metrics.likes) == (250, 7)
    assert MetricsSample.objects.filter(target__publish_id=synced).count() == 2


def _minute_up(moment):
    whole = moment.replace(second=0, microsecond=0)
    return whole if whole == moment else whole + dt.timedelta(minutes=1)


def test_a_second_refresh_within_the_window_is_refused(
    client, owner, posts, synced, django_capture_on_commit_callbacks
):
    before = timezone.now()
    _refresh(client, owner, synced, django_capture_on_commit_callbacks)
    after = timezone.now()
    posts.set_metrics(synced, "x", views=999, likes=99)

    response, callbacks = _refresh(client, owner, synced, django_capture_on_commit_callbacks)

    message = _message(response)
    assert message.startswith("Refreshed less than a minute ago: try again at ")
    # The first whole minute once the window (a minute from the first refresh) has passed.
    window = dt.timedelta(seconds=60)
    assert message.endswith(tuple(f"at {_minute_up(t + window):%H:%M} UTC." for t in (before, after)))
    assert callbacks == []
    assert PostMetrics.objects.get(target__publish_id=synced).likes == 7  # not read again


def test_each_post_has_its_own_window(client, owner, posts, accounts, synced, django_capture_on_commit_callbacks):
    other = posts.publish(accounts.x, content="another post")
    _refresh(client, owner, synced, django_capture_on_commit_callbacks)

    response, callbacks = _refresh(client, owner, other, django_capture_on_commit_callbacks)

    assert _message(response).startswith("Refreshing")
    assert len(callbacks) == 1


def test_refresh_reads_only_the_posts_own_targets_when_nothing_else_is_due(posts, accounts, synced):
    other = posts.publish(accounts.x, content="not refreshed")
    services.metrics_sync()
    posts.set_metrics(other, "x", likes=50)

    assert services.metrics_refresh(publish=Publish.objects.get(pk=synced)).started

    assert PostMetrics.objects.get(target__publish_id=other).likes == 0


def test_another_teams_post_cannot_be_refreshed(client, owner, outsider, other_posts):
    theirs, their_accounts = other_posts
    their_post = theirs.publish(their_accounts.x)
    client.force_login(owner.user)

    assert client.post(f"{LIST}{their_post}/refresh/", {"team": str(owner.team.pk)}).status_code == 404
    assert client.post(f"{LIST}{their_post}/refresh/", {"team": str(outsider.team.pk)}).status_code == 404


def test_refresh_is_a_post_only_button(client, owner, synced):
    client.force_login(owner.user)
    page = client.get(f"{LIST}{synced}/").content.decode()

    assert client.get(f"{LIST}{synced}/refresh/").status_code == 405
    assert re.search(rf'<form method="post" action="{LIST}{synced}/refresh/"', page)
    assert '<button class="quiet" id="refresh-now">Refresh now</button>' in page

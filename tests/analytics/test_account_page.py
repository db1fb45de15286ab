"""An account's analytics page: its published posts' totals at the end of each day over the last
30 or 90 days, with charts and a table, and its recent posts with their latest figures; found
from the analytics list and the accounts page, and only in the account's team."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from analytics import services
from analytics.models import MetricsSample, PostMetrics

pytestmark = pytest.mark.django_db

PAGE = "/dashboard/analytics/accounts/{}/"


def _page(client, persona, account, **params):
    client.force_login(persona.user)
    response = client.get(PAGE.format(account.pk), {"team": str(persona.team.pk), **params})
    assert response.status_code == 200
    return response.content.decode()


def _days(page):
    """The table of daily totals: {day: (views, likes)}."""
    table = page.split('<details class="chart-data">', 1)[1].split("</details>", 1)[0]
    rows = re.findall(
        r'data-label="Taken">([^<]+)</th>\s*<td class="num" data-label="Views">([^<]*)</td>\s*'
        r'<td class="num" data-label="Likes">([^<]*)</td>',
        table,
    )
    return {day: (views, likes) for day, views, likes in rows}


def _day(moment):
    return f"{moment:%Y-%m-%d}"


def test_the_page_sums_the_accounts_posts_at_the_end_of_each_day(client, owner, posts, accounts):
    first = posts.publish(accounts.x, content="first")
    second = posts.publish(accounts.x, accounts.bluesky, content="second")
    now = timezone.now()
    # At noon, so that the half-hour between two readings never crosses midnight.
    two_days_ago = (now - dt.timedelta(days=2)).replace(hour=12, minute=0, second=0, microsecond=0)
    yesterday = two_days_ago + dt.timedelta(days=1)
    posts.set_metrics(first, "x", views=10, likes=1)
    posts.set_metrics(second, "x", views=20, likes=2)
    posts.set_metrics(second, "bluesky", likes=500)  # another account: not counted
    services.metrics_sync(now=two_days_ago)
    posts.set_metrics(first, "x", views=12, likes=1)
    services.metrics_sync(now=two_days_ago + dt.timedelta(minutes=30))  # the day's last reading counts
    # Yesterday only the first post is read: the second counts with its last reading.
    PostMetrics.objects.filter(target=posts.target(second, "x")).update(next_sync_at=now + dt.timedelta(days=9))
    posts.set_metrics(first, "x", views=40, likes=5)
    services.metrics_sync(now=yesterday)

    page = _page(client, owner, accounts.x)

    assert _days(page) == {_day(two_days_ago): ("32", "3"), _day(yesterday): ("60", "7")}
    assert '<h1 class="account-name">X: ' in page
    assert re.search(r'<polyline data-metric="views" points="[^"]+"', page)
    assert re.search(r'<polyline data-metric="likes" points="[^"]+"', page)


def test_the_period_is_the_last_30_or_90_days(client, owner, posts, accounts):
    publish_id = posts.publish(accounts.x)
    old = timezone.now() - dt.timedelta(days=40)
    posts.set_metrics(publish_id, "x", views=3, likes=1)
    services.metrics_sync(now=old)

    month = _page(client, owner, accounts.x)
    quarter = _page(client, owner, accounts.x, days="90")
    unknown = _page(client, owner, accounts.x, days="7000")

    assert 'id="no-samples"' in month
    assert _days(quarter) == {_day(old): ("3", "1")}
    assert '<option value="90" selected>Last 90 days</option>' in quarter
    assert "Over the last 30 days" in unknown  # an unknown period is the default one


def test_the_recent_posts_show_their_latest_figures(client, owner, posts, accounts):
    publish_id = posts.publish(accounts.x, content="A post with figures")
    unsynced = posts.publish(accounts.x, content="Not read yet")
    posts.set_metrics(publish_id, "x", views=1234, likes=56, comments=7, shares=8)
    services.metrics_sync()
    PostMetrics.objects.filter(target__publish_id=unsynced).delete()
    target = posts.target(publish_id, "x")

    page = _page(client, owner, accounts.x)
    row = re.search(rf'<tr id="target-{target.pk}">(.*?)</tr>', page, re.S)[1]
    cells = dict(re.findall(r'data-label="(\w+)">(.*?)</td>', row, re.S))

    assert "A post with figures" in cells["Post"]
    assert f'href="/dashboard/analytics/{publish_id}/?team={owner.team.pk}"' in cells["Post"]
    assert [cells[name] for name in ("Views", "Likes", "Comments", "Shares")] == ["1,234", "56", "7", "8"]
    assert "Not read yet" in page  # listed, with dashes for figures not read yet


def test_the_account_is_linked_from_the_analytics_list_and_the_accounts_page(client, owner, accounts):
    account = accounts.x
    client.force_login(owner.user)
    link = f'href="{PAGE.format(account.pk)}?team={owner.team.pk}"'

    assert link in client.get("/dashboard/analytics/").content.decode()
    assert link in client.get("/dashboard/").content.decode()


def test_another_teams_account_is_not_found(client, owner, outsider, other_posts):
    _, their_accounts = other_posts
    client.force_login(owner.user)

    assert client.get(PAGE.format(their_accounts.x.pk)).status_code == 404
    assert client.get(PAGE.format(their_accounts.x.pk), {"team": str(outsider.team.pk)}).status_code == 404


def test_a_member_reads_the_account_page(client, member, accounts):
    assert "Recent posts" in _page(client, member, accounts.x)


def test_the_page_takes_the_same_queries_for_1_or_100_syncs(client, owner, posts, accounts):
    publish_id = posts.publish(accounts.x)
    services.metrics_sync()
    client.force_login(owner.user)

    def queries():
        with CaptureQueriesContext(connection) as context:
            assert client.get(PAGE.format(accounts.x.pk)).status_code == 200
        return len(context)

    one = queries()
    target = posts.target(publish_id, "x")
    start = timezone.now() - dt.timedelta(days=20)
    MetricsSample.objects.bulk_create(
        [MetricsSample(target=target, taken_at=start + dt.timedelta(hours=h), likes=h) for h in range(100)]
    )

    assert queries() == one

"""Recording a post found gone from its platform (`publishing.removals`): once, with its event in
the same transaction, and only for a published target."""

from __future__ import annotations

import pytest
from django.utils import timezone

from publishing import inputs, lifecycle
from publishing.models import Target
from publishing.removals import target_removed_on_platform
from webhooks.models import Event

pytestmark = pytest.mark.django_db


def _target(owner, account, mode="immediate"):
    publish = lifecycle.publish_create(
        team=owner.team,
        caller=inputs.Caller(user=owner.user, can_approve=True),
        content="Here today",
        media_ids=[],
        targets=[inputs.TargetInput(account_id=str(account.pk))],
        publish_mode=mode,
        scheduled_at=None,
    )
    return Target.objects.get(publish_id=publish.pk)


def test_a_removal_is_recorded_and_said_once(owner, accounts, sandbox):
    target = _target(owner, accounts.bluesky)
    now = timezone.now()

    assert target_removed_on_platform(target_id=target.pk, now=now) is True
    assert target_removed_on_platform(target_id=target.pk) is False

    target.refresh_from_db()
    assert (target.state, target.removed_at, target.removed_by) == ("published", now, "platform")
    [event] = Event.objects.filter(team=owner.team, type="post.removed")
    assert event.data["publish_id"] == str(target.publish_id)
    assert event.data["removed_by"] == "platform"
    assert [t["id"] for t in event.data["targets"]] == [str(target.pk)]


def test_a_target_that_was_never_published_is_not_removed(owner, accounts):
    target = _target(owner, accounts.bluesky, mode="draft")

    assert target_removed_on_platform(target_id=target.pk) is False

    assert Target.objects.get(pk=target.pk).removed_at is None
    assert not Event.objects.filter(type="post.removed").exists()

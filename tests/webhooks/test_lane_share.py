"""Each team holds at most its share of the webhooks lane (LANE_TEAM_SHARES["webhooks"]): a
delivery of a team already holding it is handed back to the broker, still pending, with no
attempt counted, and another team's delivery goes through meanwhile. On PostgreSQL this is the
claim of `statements`, elsewhere the ORM's: both sit behind the share."""

from __future__ import annotations

from contextlib import ExitStack

import pytest

from config import lanes
from tests.webhooks.helpers import delivery_of, emit, subscribe
from webhooks import services, tasks
from webhooks.models import Delivery, DeliveryAttempt

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _share_of_two(settings):
    settings.LANE_TEAM_SHARES = {**settings.LANE_TEAM_SHARES, "webhooks": 2}
    settings.LANE_RETRY_SECONDS = 0  # eager tasks run a handed-back message at once anyway


def _holding_the_share(stack, team):
    for _ in range(2):
        assert stack.enter_context(lanes.team_share("webhooks", team.pk, lease_seconds=tasks.DELIVER_TIME_LIMIT))


def test_a_team_over_its_share_waits_while_another_team_is_delivered(
    owner, outsider, receiver, django_capture_on_commit_callbacks
):
    subscribe(owner.team, receiver.url)
    subscribe(outsider.team, f"{receiver.base}/other")
    waiting = delivery_of(emit(owner.team))
    other = delivery_of(emit(outsider.team))

    with ExitStack() as stack, django_capture_on_commit_callbacks() as handed_back:
        _holding_the_share(stack, owner.team)  # two of the team's deliveries are under way
        tasks.deliver(str(waiting.pk), str(owner.team.pk))
        tasks.deliver(str(other.pk), str(outsider.team.pk))

        waiting.refresh_from_db()
        assert (waiting.state, waiting.attempts) == ("pending", 0)  # not attempted, not counted
        assert not DeliveryAttempt.objects.filter(delivery=waiting).exists()
        assert [post.path for post in receiver.posts] == ["/other"]
        assert Delivery.objects.get(pk=other.pk).state == "succeeded"

    assert len(handed_back) == 1  # back to the broker, after commit
    # The share is free again: the message handed back delivers it, as its first attempt.
    handed_back[0]()
    waiting.refresh_from_db()
    assert (waiting.state, waiting.attempts) == ("succeeded", 1)
    assert [post.path for post in receiver.posts] == ["/other", "/hook"]


def test_a_handed_back_delivery_is_not_sent_twice_by_the_sweep(owner, receiver, settings):
    settings.LANE_RETRY_SECONDS = 60
    subscribe(owner.team, receiver.url)
    waiting = delivery_of(emit(owner.team))

    with ExitStack() as stack:
        _holding_the_share(stack, owner.team)
        tasks.deliver(str(waiting.pk), str(owner.team.pk))

    # Its message is on the way back: the sweep does not queue a second one meanwhile.
    assert services.deliveries_sweep() == []
    waiting.refresh_from_db()
    assert (waiting.state, waiting.attempts) == ("pending", 0)
    assert receiver.posts == []


def test_the_share_is_free_again_after_each_delivery(owner, receiver):
    subscribe(owner.team, receiver.url)
    deliveries = [delivery_of(emit(owner.team)) for _ in range(3)]

    for delivery in deliveries:
        tasks.deliver(str(delivery.pk), str(owner.team.pk))

    assert len(receiver.posts) == 3
    assert lanes.held("webhooks", owner.team.pk) == 0


def test_a_message_queued_before_messages_named_their_team_counts_against_its_team(owner, receiver):
    subscribe(owner.team, receiver.url)
    waiting = delivery_of(emit(owner.team))

    with ExitStack() as stack:
        _holding_the_share(stack, owner.team)
        tasks.deliver(str(waiting.pk))  # an older worker's message: the delivery id alone

        assert Delivery.objects.get(pk=waiting.pk).attempts == 0
    tasks.deliver(str(waiting.pk))
    assert Delivery.objects.get(pk=waiting.pk).state == "succeeded"

"""The outbox: an event and its deliveries exist if and only if the change committed; the task
sends after commit; the sweeper sends what a lost message or a dead worker left behind; and
nothing is ever sent twice or after the subscription is deleted."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connections, transaction
from django.utils import timezone

from tests.webhooks.helpers import PUBLISHED, attempt, delivery_of, emit, make_due, subscribe
from tests.webhooks.receiver import Answer
from webhooks import services, tasks
from webhooks.models import Delivery, DeliveryAttempt, Event, Subscription

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("hot_path")]  # the fixed statements and the ORM


class _ChangeFailed(Exception):
    pass


def _emit_then_fail(team):
    with transaction.atomic():
        services.emit(team=team, event_type=PUBLISHED, data={"publish_id": "p-1"})
        raise _ChangeFailed("the change the event describes failed")


def test_the_task_sends_only_after_commit(owner, receiver, django_capture_on_commit_callbacks):
    subscribe(owner.team, receiver.url)

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        event = emit(owner.team)
        assert delivery_of(event).state == "pending"
        assert receiver.posts == []

    assert len(callbacks) == 1
    assert len(receiver.posts) == 1
    assert delivery_of(event).state == "succeeded"


def test_a_rolled_back_event_leaves_nothing_and_queues_nothing(owner, receiver, django_capture_on_commit_callbacks):
    subscribe(owner.team, receiver.url)

    with django_capture_on_commit_callbacks(execute=True) as callbacks, pytest.raises(_ChangeFailed):
        _emit_then_fail(owner.team)

    assert callbacks == []
    assert not Event.objects.exists()
    assert not Delivery.objects.exists()
    assert services.deliveries_sweep() == []
    assert receiver.posts == []


@pytest.mark.django_db(transaction=True)
def test_with_real_commits_a_rolled_back_event_is_never_sent_and_a_committed_one_is(owner, receiver):
    subscribe(owner.team, receiver.url)

    with pytest.raises(_ChangeFailed):
        _emit_then_fail(owner.team)
    assert not Event.objects.exists()
    assert not Delivery.objects.exists()
    assert services.deliveries_sweep() == []
    assert receiver.posts == []

    event = emit(owner.team)  # commits: its on_commit callback queues the (eager) task

    assert len(receiver.posts) == 1
    assert receiver.posts[0].headers["webhook-id"] == str(event.pk)
    assert delivery_of(event).state == "succeeded"
    assert services.deliveries_sweep() == []
    assert len(receiver.posts) == 1


def test_an_event_whose_message_was_lost_is_sent_by_the_sweep(owner, receiver):
    subscribe(owner.team, receiver.url)
    event = emit(owner.team)  # the test never commits, so its on_commit callback never runs
    assert receiver.posts == []

    sent = services.deliveries_sweep()

    assert sent == [str(delivery_of(event).pk)]
    assert len(receiver.posts) == 1
    assert delivery_of(event).state == "succeeded"


def test_the_sweep_task_sends_what_is_due(owner, receiver):
    subscribe(owner.team, receiver.url)
    emit(owner.team)
    emit(owner.team)

    assert tasks.sweep() == 2
    assert tasks.sweep() == 0
    assert len(receiver.posts) == 2


def test_the_sweep_leaves_deliveries_that_are_not_due(owner, receiver):
    subscribe(owner.team, receiver.url)
    delivery = delivery_of(emit(owner.team))
    Delivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now() + dt.timedelta(minutes=1))

    assert services.deliveries_sweep() == []
    services.delivery_attempt(delivery_id=str(delivery.pk))
    assert receiver.posts == []


def test_a_duplicate_task_message_sends_once(owner, receiver, django_capture_on_commit_callbacks):
    subscribe(owner.team, receiver.url)
    with django_capture_on_commit_callbacks(execute=True):
        event = emit(owner.team)
    delivery_id = str(delivery_of(event).pk)

    tasks.deliver.delay(delivery_id, str(owner.team.pk))
    tasks.deliver(delivery_id, str(owner.team.pk))
    services.delivery_attempt(delivery_id=delivery_id)

    assert len(receiver.posts) == 1
    assert delivery_of(event).attempts == 1


def test_a_duplicate_message_of_a_retry_sends_once(owner, receiver, no_retry_delay):
    subscribe(owner.team, receiver.url)
    receiver.answer(500)
    delivery = attempt(delivery_of(emit(owner.team)))
    make_due(delivery)

    services.delivery_attempt(delivery_id=str(delivery.pk))
    services.delivery_attempt(delivery_id=str(delivery.pk))
    services.deliveries_sweep()

    assert len(receiver.posts) == 2
    delivery.refresh_from_db()
    assert (delivery.state, delivery.attempts) == ("succeeded", 2)


def _claimed(delivery, *, ago, attempts):
    claimed_at = timezone.now() - ago
    Delivery.objects.filter(pk=delivery.pk).update(state="sending", claimed_at=claimed_at, attempts=attempts)


def test_a_claim_left_by_a_dead_worker_is_taken_back_by_the_sweep_and_sent(owner, receiver):
    subscribe(owner.team, receiver.url)
    delivery = delivery_of(emit(owner.team))
    _claimed(delivery, ago=dt.timedelta(hours=1), attempts=1)

    sent = services.deliveries_sweep()

    assert sent == [str(delivery.pk)]
    assert len(receiver.posts) == 1
    delivery.refresh_from_db()
    assert (delivery.state, delivery.attempts) == ("succeeded", 2)


def test_a_recent_claim_is_left_to_its_worker(owner, receiver):
    subscribe(owner.team, receiver.url)
    delivery = delivery_of(emit(owner.team))
    _claimed(delivery, ago=dt.timedelta(seconds=5), attempts=1)

    assert services.deliveries_sweep() == []
    assert receiver.posts == []
    assert Delivery.objects.get(pk=delivery.pk).state == "sending"


def test_a_worker_lost_on_the_last_attempt_ends_the_delivery_as_failed(owner, receiver):
    subscribe(owner.team, receiver.url)
    delivery = delivery_of(emit(owner.team))
    _claimed(delivery, ago=dt.timedelta(hours=1), attempts=services.MAX_ATTEMPTS)

    assert services.deliveries_sweep() == []

    delivery.refresh_from_db()
    assert delivery.state == "failed"
    assert delivery.last_error.startswith("WORKER_LOST")
    assert receiver.posts == []


def test_deleting_the_subscription_before_the_sweep_sends_nothing(api, owner, receiver):
    subscription = subscribe(owner.team, receiver.url)
    never_tried = delivery_of(emit(owner.team))
    receiver.answer(500)
    retrying = attempt(delivery_of(emit(owner.team)))
    make_due(retrying)

    deleted = api.as_(owner.key).delete(f"/api/v1/webhooks/{subscription.pk}")
    sent = services.deliveries_sweep()
    for delivery in (never_tried, retrying):
        services.delivery_attempt(delivery_id=str(delivery.pk))

    assert deleted.status_code == 200
    assert sent == []
    assert len(receiver.posts) == 1  # only the attempt made before the deletion
    assert not Delivery.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_subscription_deleted_while_an_attempt_is_in_flight_ends_it_quietly(owner, receiver):
    subscription = subscribe(owner.team, receiver.url)
    receiver.answer(500)
    delivery = delivery_of(emit(owner.team))  # committed: its task ran at once, and got a 500
    assert delivery.state == "pending"

    def delete_it() -> None:  # the receiver's thread, while the attempt waits for the answer
        Subscription.objects.filter(pk=subscription.pk).delete()
        connections.close_all()

    receiver.answer(Answer(500, before=delete_it))
    make_due(delivery)
    services.delivery_attempt(delivery_id=str(delivery.pk))

    assert not Subscription.objects.exists()
    assert not Delivery.objects.exists()
    assert not DeliveryAttempt.objects.exists()
    assert services.deliveries_sweep() == []
    assert len(receiver.posts) == 2


def test_only_active_subscriptions_of_the_team_listing_the_event_type_get_a_delivery(owner, outsider, receiver):
    published = subscribe(owner.team, f"{receiver.base}/published", ["post.published"])
    failed = subscribe(owner.team, f"{receiver.base}/failed", ["post.failed"])
    both = subscribe(owner.team, f"{receiver.base}/both", ["post.failed", "post.published"])
    disabled = subscribe(owner.team, f"{receiver.base}/disabled", ["post.published"])
    disabled.disabled_at = timezone.now()
    disabled.save()
    subscribe(outsider.team, f"{receiver.base}/outsider", ["post.published"])

    event = emit(owner.team, "post.published")
    services.deliveries_sweep()

    assert set(Delivery.objects.values_list("subscription", flat=True)) == {published.pk, both.pk}
    assert sorted(post.path for post in receiver.posts) == ["/both", "/published"]
    assert failed.pk not in {d.subscription_id for d in Delivery.objects.filter(event=event)}


def test_an_event_without_subscribers_is_still_recorded(owner):
    event = emit(owner.team, "post.rejected", {"publish_id": "p-1", "reason": "off-brand"})

    assert Event.objects.get(pk=event.pk).data == {"publish_id": "p-1", "reason": "off-brand"}
    assert not Delivery.objects.exists()


def test_emit_refuses_an_unknown_event_type(owner):
    with pytest.raises(ValueError, match="unknown event type"):
        emit(owner.team, "post.deleted")

    assert not Event.objects.exists()

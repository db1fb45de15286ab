"""Failures and their retry schedule: statuses, redirects, connection errors, Retry-After, the
sixth and final attempt, and the attempt log."""

from __future__ import annotations

import datetime as dt
import os
from email.utils import format_datetime

import pytest
from django.utils import timezone

from tests.webhooks.helpers import DEFAULT_DELAYS, attempt, delivery_of, emit, exhaust, make_due, subscribe
from tests.webhooks.receiver import Answer
from webhooks import services
from webhooks.models import Delivery, DeliveryAttempt

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("hot_path")]  # the fixed statements and the ORM


@pytest.fixture
def default_delays(settings):
    settings.WEBHOOK_RETRY_DELAYS = list(DEFAULT_DELAYS)


def _pending(owner, url):
    subscribe(owner.team, url)
    return delivery_of(emit(owner.team))


def _timed_attempt(delivery):
    before = timezone.now()
    delivery = attempt(delivery)
    return delivery, before, timezone.now()


def _assert_scheduled(delivery, before, after, seconds):
    """Due after the delay plus at most 10 % jitter, counted from the attempt."""
    delay = dt.timedelta(seconds=seconds)
    assert delivery.state == "pending"
    assert before + delay <= delivery.next_attempt_at <= after + delay * 1.1


def _statuses(delivery):
    return list(DeliveryAttempt.objects.filter(delivery=delivery).values_list("number", "status_code"))


def test_a_500_leaves_the_delivery_pending_until_the_first_delay(owner, receiver, default_delays):
    receiver.answer(500)
    delivery = _pending(owner, receiver.url)

    delivery, before, after = _timed_attempt(delivery)

    _assert_scheduled(delivery, before, after, DEFAULT_DELAYS[0])
    assert (delivery.attempts, delivery.last_status_code, delivery.last_error) == (1, 500, "HTTP 500")
    assert services.deliveries_sweep() == []  # not due yet
    assert len(receiver.posts) == 1


def test_the_kth_retry_waits_for_the_kth_delay(owner, receiver, default_delays):
    receiver.always(500)
    delivery = _pending(owner, receiver.url)

    for k, seconds in enumerate(DEFAULT_DELAYS, start=1):
        delivery, before, after = _timed_attempt(delivery)
        assert delivery.attempts == k
        _assert_scheduled(delivery, before, after, seconds)
        make_due(delivery)

    delivery = attempt(delivery)
    assert (delivery.state, delivery.attempts, delivery.next_attempt_at) == ("failed", 6, None)
    assert len(receiver.posts) == 6


@pytest.mark.parametrize("status", [301, 400, 401, 404, 408, 429, 500, 502, 503, 504])
def test_any_status_outside_2xx_is_a_failure_that_is_retried(owner, receiver, default_delays, status):
    receiver.answer(status)

    delivery = attempt(_pending(owner, receiver.url))

    assert (delivery.state, delivery.last_status_code, delivery.last_error) == ("pending", status, f"HTTP {status}")
    assert delivery.next_attempt_at > timezone.now()


@pytest.mark.parametrize("status", [200, 201, 202, 204, 299])
def test_any_2xx_is_a_success(owner, receiver, status):
    receiver.answer(status)

    delivery = attempt(_pending(owner, receiver.url))

    assert (delivery.state, delivery.last_status_code, delivery.last_error) == ("succeeded", status, "")
    assert delivery.next_attempt_at is None
    assert delivery.delivered_at is not None


def test_retry_after_longer_than_the_delay_is_honoured(owner, receiver, default_delays):
    receiver.answer(Answer(503, {"Retry-After": "3600"}))

    delivery, before, after = _timed_attempt(_pending(owner, receiver.url))

    assert before + dt.timedelta(hours=1) <= delivery.next_attempt_at <= after + dt.timedelta(hours=1)


def test_retry_after_as_an_http_date_is_honoured(owner, receiver, default_delays):
    moment = timezone.now().replace(microsecond=0) + dt.timedelta(hours=2)
    receiver.answer(Answer(429, {"Retry-After": format_datetime(moment.astimezone(dt.UTC), usegmt=True)}))

    delivery = attempt(_pending(owner, receiver.url))

    assert moment - dt.timedelta(seconds=1) <= delivery.next_attempt_at <= moment + dt.timedelta(seconds=1)


def test_retry_after_shorter_than_the_delay_does_not_shorten_it(owner, receiver, default_delays):
    receiver.answer(Answer(503, {"Retry-After": "5"}))

    delivery, before, after = _timed_attempt(_pending(owner, receiver.url))

    _assert_scheduled(delivery, before, after, DEFAULT_DELAYS[0])


@pytest.mark.parametrize("value", [str(30 * 86400), "99999999999999999999"])
def test_retry_after_is_capped_at_a_day(owner, receiver, default_delays, value):
    receiver.answer(Answer(503, {"Retry-After": value}))

    delivery, before, after = _timed_attempt(_pending(owner, receiver.url))

    assert before + dt.timedelta(days=1) <= delivery.next_attempt_at <= after + dt.timedelta(days=1)


@pytest.mark.parametrize("value", ["Wed, 21 Oct 2015 07:28:00", "\u00b2", "soon", ""])
def test_an_unreadable_retry_after_is_ignored(owner, receiver, default_delays, value):
    receiver.answer(Answer(503, {"Retry-After": value}))
    delivery = _pending(owner, receiver.url)

    delivery, before, after = _timed_attempt(delivery)

    assert delivery.last_status_code == 503
    _assert_scheduled(delivery, before, after, DEFAULT_DELAYS[0])


def test_a_302_is_a_failure_and_its_location_is_never_requested(owner, receiver, default_delays):
    receiver.answer(Answer(302, {"Location": f"{receiver.base}/elsewhere"}))

    delivery = attempt(_pending(owner, receiver.url))

    assert (delivery.state, delivery.last_status_code, delivery.last_error) == ("pending", 302, "HTTP 302")
    assert [(r.method, r.path) for r in receiver.requests] == [("POST", "/hook")]


def test_a_connection_error_is_a_failure_that_is_retried(owner, down_receiver, default_delays):
    delivery, before, after = _timed_attempt(_pending(owner, down_receiver.url))

    _assert_scheduled(delivery, before, after, DEFAULT_DELAYS[0])
    assert delivery.last_status_code is None
    assert delivery.last_error.startswith("CONNECTION_FAILED")
    (logged,) = DeliveryAttempt.objects.filter(delivery=delivery)
    assert (logged.number, logged.status_code) == (1, None)
    assert logged.error.startswith("CONNECTION_FAILED")


def test_a_destination_refused_at_send_time_is_never_contacted(owner, receiver, settings, default_delays):
    """Created while private destinations were allowed; they no longer are when it is sent."""
    delivery = _pending(owner, receiver.url)
    settings.SSRF_ALLOW_PRIVATE = False

    delivery = attempt(delivery)

    assert delivery.state == "pending"
    assert delivery.last_status_code is None
    assert delivery.last_error.startswith("BLOCKED")
    assert receiver.requests == []


@pytest.mark.skipif(
    not os.environ.get("WEBHOOK_SLOW_TESTS"),
    reason="takes over 10 s: the attempt timeout is a fixed 10 s (services.ATTEMPT_TIMEOUT_SECONDS); "
    "set WEBHOOK_SLOW_TESTS=1 to run it",
)
def test_a_receiver_slower_than_the_timeout_is_a_failure(owner, receiver, default_delays):
    receiver.answer(Answer(200, delay=services.ATTEMPT_TIMEOUT_SECONDS + 1))

    delivery = attempt(_pending(owner, receiver.url))

    assert delivery.state == "pending"
    assert delivery.last_error.startswith("TIMEOUT")
    assert delivery.last_duration_ms < (services.ATTEMPT_TIMEOUT_SECONDS + 1) * 1000


def test_the_sixth_failure_is_final(owner, receiver, no_retry_delay):
    receiver.always(500)
    delivery = _pending(owner, receiver.url)

    delivery = exhaust(delivery)

    assert (delivery.state, delivery.attempts, delivery.next_attempt_at) == ("failed", 6, None)
    assert _statuses(delivery) == [(n, 500) for n in range(1, 7)]
    assert services.deliveries_sweep() == []
    services.delivery_attempt(delivery_id=str(delivery.pk))
    assert len(receiver.posts) == 6
    assert DeliveryAttempt.objects.filter(delivery=delivery).count() == 6


def test_a_receiver_that_is_down_then_up_gets_the_event_exactly_once(owner, down_receiver, default_delays):
    delivery = attempt(_pending(owner, down_receiver.url))
    assert delivery.state == "pending"

    down_receiver.start()
    make_due(delivery)
    sent = services.deliveries_sweep()
    services.deliveries_sweep()
    services.delivery_attempt(delivery_id=str(delivery.pk))

    assert sent == [str(delivery.pk)]
    assert len(down_receiver.posts) == 1
    delivery.refresh_from_db()
    assert (delivery.state, delivery.attempts) == ("succeeded", 2)
    assert _statuses(delivery) == [(1, None), (2, 200)]


def test_every_attempt_is_logged_with_its_status_and_health_follows(api, owner, receiver, no_retry_delay):
    receiver.answer(500, 503, 429, 204)
    delivery = _pending(owner, receiver.url)

    for _ in range(3):
        delivery = attempt(delivery)
    failing = api.as_(owner.key).get("/api/v1/webhooks").json()["data"][0]["health"]
    delivery = attempt(delivery)
    healthy = api.get("/api/v1/webhooks").json()["data"][0]["health"]

    assert _statuses(delivery) == [(1, 500), (2, 503), (3, 429), (4, 204)]
    assert all(a.duration_ms >= 0 for a in DeliveryAttempt.objects.filter(delivery=delivery))
    assert (failing["consecutive_failures"], failing["last_failure_reason"]) == (3, "HTTP 429")
    assert failing["last_failure_at"] is not None
    assert failing["last_success_at"] is None
    assert healthy["consecutive_failures"] == 0
    assert healthy["last_success_at"] is not None
    assert Delivery.objects.get(pk=delivery.pk).state == "succeeded"


def test_a_2xx_with_a_large_body_is_still_a_success(owner, receiver):
    receiver.answer(Answer(200, {"Content-Type": "text/html"}, b"<p>thanks</p>" * 10_000))

    delivery = attempt(_pending(owner, receiver.url))

    assert (delivery.state, delivery.last_status_code) == ("succeeded", 200)

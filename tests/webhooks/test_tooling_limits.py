"""Test events and redeliveries of one webhook share a limit (WEBHOOK_TEST_PER_MINUTE): each is
an attempt at the receiver, retried up to six times, so an unbounded stream of them would be an
unbounded stream of outside work. Past the limit the API answers 429 like every other limit."""

from __future__ import annotations

import pytest

from config.throttling import WINDOW_SECONDS
from tests.webhooks.helpers import emit, subscribe
from webhooks.models import Delivery, Event, EventType

pytestmark = pytest.mark.django_db

HOOK = "https://93.184.215.14/hooks/social"  # nothing is sent: the test's transaction never commits


@pytest.fixture(autouse=True)
def _limit(settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "webhook_test": 3}


def _test(api, key, subscription):
    return api.as_(key).post(f"/api/v1/webhooks/{subscription.pk}/test")


def _redeliver(api, key, subscription, delivery):
    return api.as_(key).post(f"/api/v1/webhooks/{subscription.pk}/deliveries/{delivery.pk}/redeliver")


def _in_one_window(team, burst):
    """`burst(subscription)` on a new webhook, all in one minute window: if a minute boundary
    passed meanwhile (the Reset header changed), it runs once more on another webhook."""
    for n in range(2):
        subscription = subscribe(team, f"{HOOK}/{n}")
        responses = burst(subscription)
        if len({response["X-RateLimit-Reset"] for response in responses}) == 1:
            return subscription, responses
    pytest.fail("a minute boundary passed during both bursts")


def _assert_rate_limited(response, limit):
    assert response.status_code == 429, response.content
    error = response.json()["error"]
    assert (error["type"], error["code"]) == ("rate_limited", "RATE_LIMITED")
    assert 1 <= int(response["Retry-After"]) <= WINDOW_SECONDS
    assert (response["X-RateLimit-Limit"], response["X-RateLimit-Remaining"]) == (str(limit), "0")


def test_a_webhook_takes_three_test_events_a_minute_then_429(api, owner):
    subscription, responses = _in_one_window(owner.team, lambda s: [_test(api, owner.key, s) for _ in range(4)])

    assert [r.status_code for r in responses] == [202, 202, 202, 429]
    assert [r["X-RateLimit-Remaining"] for r in responses[:3]] == ["2", "1", "0"]
    _assert_rate_limited(responses[-1], 3)
    # The refused request made nothing: no event, no delivery.
    assert Event.objects.filter(type=EventType.TEST).count() == 3
    assert Delivery.objects.filter(subscription=subscription).count() == 3


def test_redeliveries_count_against_the_same_limit(api, owner):
    def burst(subscription):
        delivery = Delivery.objects.get(event=emit(owner.team), subscription=subscription)
        return [
            _test(api, owner.key, subscription),
            _redeliver(api, owner.key, subscription, delivery),
            _redeliver(api, owner.key, subscription, delivery),
            _redeliver(api, owner.key, subscription, delivery),
            _test(api, owner.key, subscription),
        ]

    _, responses = _in_one_window(owner.team, burst)

    assert [r.status_code for r in responses] == [202, 202, 202, 429, 429]
    _assert_rate_limited(responses[3], 3)


def test_each_webhook_has_its_own_allowance(api, owner):
    _, responses = _in_one_window(owner.team, lambda s: [_test(api, owner.key, s) for _ in range(4)])
    other = subscribe(owner.team, f"{HOOK}/other")

    assert responses[-1].status_code == 429
    assert _test(api, owner.key, other).status_code == 202


def test_another_team_cannot_use_up_a_webhook_s_allowance(api, owner, outsider):
    subscription = subscribe(owner.team, f"{HOOK}/mine")

    refused = [_test(api, outsider.key, subscription).status_code for _ in range(5)]

    assert set(refused) <= {404, 429}  # counted as the outsider's own tries, never sent
    assert _test(api, owner.key, subscription).status_code == 202


def test_other_operations_on_the_webhook_are_not_counted(api, owner):
    subscription, responses = _in_one_window(owner.team, lambda s: [_test(api, owner.key, s) for _ in range(3)])

    assert [r.status_code for r in responses] == [202] * 3
    fetched = api.as_(owner.key).get(f"/api/v1/webhooks/{subscription.pk}")
    assert fetched.status_code == 200
    assert int(fetched["X-RateLimit-Remaining"]) > 0  # the key's own limit, not the exhausted one

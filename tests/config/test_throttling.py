"""Per-key rate limits (spec §8): 120/min by default, 30/min for create and for retry, each
bucket counted on its own, exactly, on a fixed one-minute window."""

from __future__ import annotations

import threading
import time

import pytest
from django.conf import settings
from django.urls import include, path
from rest_framework.response import Response
from rest_framework.views import APIView

from config.redis import get_redis
from config.throttling import WINDOW_SECONDS, _hit, _hit_local
from teams import keys
from teams.models import SCOPES, ApiKey

pytestmark = pytest.mark.django_db


# --- test-only views in the create and retry buckets, routed with @pytest.mark.urls(__name__) --


class _CreateView(APIView):
    required_scope = "posts:write"
    throttle_scope = "create_publish"

    def post(self, request):
        return Response({"data": {"ok": True}})


class _RetryView(_CreateView):
    throttle_scope = "retry"


urlpatterns = [
    path("api/v1/test-create", _CreateView.as_view()),
    path("api/v1/test-retry", _RetryView.as_view()),
    path("", include("config.urls")),
]
handler404 = "config.handlers.handler404"
handler500 = "config.handlers.handler500"

# How each bucket is reached: (method, path).
BUCKETS = {
    "default": ("get", "/api/v1/usage"),
    "create_publish": ("post", "/api/v1/test-create"),
    "retry": ("post", "/api/v1/test-retry"),
}


# --- helpers -----------------------------------------------------------------------------


def _request(api, key, bucket):
    method, url = BUCKETS[bucket]
    return getattr(api.as_(key), method)(url)


def _fresh_key(owner):
    return owner.key_with(*SCOPES)


def _counter_key(bucket, plaintext, window):
    api_key = ApiKey.objects.get(prefix=keys.parse_prefix(plaintext))
    return f"{settings.RATE_LIMIT_KEY_PREFIX}:{bucket}:{api_key.pk}:{window}"


def _exhaust(plaintext, bucket):
    """Use up the key's bucket in this window and the next, so its next request is over the
    limit even if a minute boundary passes meanwhile."""
    window = int(time.time() // WINDOW_SECONDS)
    for w in (window + 1, window):  # the in-process counter drops older windows: newest first
        counter = _counter_key(bucket, plaintext, w)
        for _ in range(settings.RATE_LIMITS[bucket]):
            _hit(counter)  # counted where requests are counted: Redis, or this process


def _burst_in_one_window(api, owner, bucket, count):
    """`count` requests of one new key, all in one window: if a minute boundary passed during
    the burst (the Reset header changed), it is run once more with another key."""
    for _ in range(2):
        key = _fresh_key(owner)
        responses = [_request(api, key, bucket) for _ in range(count)]
        if len({response["X-RateLimit-Reset"] for response in responses}) == 1:
            return responses
    pytest.fail("a minute boundary passed during both bursts")


def _rate_headers(response):
    return {name: int(response[name]) for name in ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")}


def _assert_rate_limited(response, limit):
    assert response.status_code == 429, response.content
    error = response.json()["error"]
    assert (error["type"], error["code"]) == ("rate_limited", "RATE_LIMITED")
    assert error["request_id"] == response["X-Request-ID"]
    assert response["Retry-After"].isdigit()
    assert 1 <= int(response["Retry-After"]) <= WINDOW_SECONDS
    headers = _rate_headers(response)
    assert (headers["X-RateLimit-Limit"], headers["X-RateLimit-Remaining"]) == (limit, 0)


# --- the default bucket ------------------------------------------------------------------


def test_default_bucket_allows_exactly_120_requests_a_minute_then_429(api, owner):
    responses = _burst_in_one_window(api, owner, "default", 121)

    assert [r.status_code for r in responses] == [200] * 120 + [429]
    _assert_rate_limited(responses[-1], 120)


def test_successful_responses_carry_rate_headers_counting_down(api, owner):
    started = time.time()

    responses = _burst_in_one_window(api, owner, "default", 120)

    headers = [_rate_headers(r) for r in responses]
    assert [h["X-RateLimit-Limit"] for h in headers] == [120] * 120
    assert [h["X-RateLimit-Remaining"] for h in headers] == list(range(119, -1, -1))
    reset = headers[0]["X-RateLimit-Reset"]
    assert reset % WINDOW_SECONDS == 0
    assert started < reset <= time.time() + WINDOW_SECONDS


def test_another_key_is_unaffected_by_an_exhausted_key(api, owner):
    exhausted, other = _fresh_key(owner), _fresh_key(owner)
    _exhaust(exhausted, "default")

    _assert_rate_limited(_request(api, exhausted, "default"), 120)
    response = _request(api, other, "default")

    assert response.status_code == 200
    assert _rate_headers(response)["X-RateLimit-Remaining"] == 119


def test_unauthenticated_requests_are_refused_before_any_rate_limit(api, db):
    response = api.get("/api/v1/usage")

    assert response.status_code == 401
    assert "X-RateLimit-Limit" not in response


# --- the create and retry buckets --------------------------------------------------------


@pytest.mark.urls(__name__)
@pytest.mark.parametrize("bucket", ["create_publish", "retry"])
def test_create_and_retry_buckets_allow_exactly_30_requests_a_minute(api, owner, bucket):
    responses = _burst_in_one_window(api, owner, bucket, 31)

    assert [r.status_code for r in responses] == [200] * 30 + [429]
    assert [_rate_headers(r)["X-RateLimit-Remaining"] for r in responses[:30]] == list(range(29, -1, -1))
    assert {_rate_headers(r)["X-RateLimit-Limit"] for r in responses} == {30}
    _assert_rate_limited(responses[-1], 30)


@pytest.mark.urls(__name__)
@pytest.mark.parametrize("exhausted", list(BUCKETS))
def test_an_exhausted_bucket_leaves_the_other_buckets_open(api, owner, exhausted):
    key = _fresh_key(owner)
    _exhaust(key, exhausted)

    _assert_rate_limited(_request(api, key, exhausted), settings.RATE_LIMITS[exhausted])
    for bucket in BUCKETS.keys() - {exhausted}:
        response = _request(api, key, bucket)
        assert response.status_code == 200, (bucket, response.content)
        limit = settings.RATE_LIMITS[bucket]
        assert _rate_headers(response)["X-RateLimit-Limit"] == limit
        assert _rate_headers(response)["X-RateLimit-Remaining"] == limit - 1


# --- the counter under concurrency -------------------------------------------------------


def _hit_from_threads(hit, counter, threads, per_thread):
    """Every count `_hit` returned, `threads` threads each hitting `counter` `per_thread` times
    at once."""
    start = threading.Barrier(threads)
    counts, lock = [], threading.Lock()

    def work():
        start.wait()
        mine = [hit(counter) for _ in range(per_thread)]
        with lock:
            counts.extend(mine)

    workers = [threading.Thread(target=work) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return counts


def _assert_exact_under_concurrency(hit):
    limit = settings.RATE_LIMITS["create_publish"]
    window = int(time.time() // WINDOW_SECONDS)
    counter = f"{settings.RATE_LIMIT_KEY_PREFIX}:create_publish:concurrency:{window}"

    counts = _hit_from_threads(hit, counter, threads=8, per_thread=10)

    assert sorted(counts) == list(range(1, 81))  # no hit lost, none counted twice
    assert sum(count <= limit for count in counts) == limit


@pytest.mark.redis
def test_redis_counter_is_exact_under_concurrency():
    assert get_redis() is not None

    _assert_exact_under_concurrency(lambda counter: _hit(counter)[0])


def test_in_process_counter_is_exact_under_concurrency():
    _assert_exact_under_concurrency(_hit_local)


@pytest.fixture
def redis_down(settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    get_redis.cache_clear()
    yield
    get_redis.cache_clear()


def test_a_redis_outage_keeps_answering_with_the_processs_share_of_the_limit(api, owner, settings, redis_down):
    settings.RATE_LIMIT_LOCAL_PROCESSES = 2

    first = api.as_(owner.key).get("/api/v1/accounts")
    second = api.get("/api/v1/accounts")

    assert (first.status_code, second.status_code) == (200, 200)
    assert (first["X-RateLimit-Limit"], first["X-RateLimit-Remaining"]) == ("60", "59")
    assert second["X-RateLimit-Remaining"] in ("58", "59")  # 59 only if a new minute began between


@pytest.mark.urls(__name__)
@pytest.mark.parametrize("processes", [1, 3])
def test_during_a_redis_outage_all_processes_together_allow_at_most_the_limit(
    api, owner, settings, redis_down, processes
):
    settings.RATE_LIMIT_LOCAL_PROCESSES = processes
    share = settings.RATE_LIMITS["create_publish"] // processes

    statuses = [r.status_code for r in _burst_in_one_window(api, owner, "create_publish", share + 1)]

    # Each of `processes` web processes lets this many through: together, no more than 30.
    assert statuses == [200] * share + [429]
    assert share * processes <= settings.RATE_LIMITS["create_publish"]

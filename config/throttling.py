"""Per-API-key rate limits with an atomic counter (spec §8: create 30/min, retry 30/min, other 120/min),
and per-object limits on actions that make outside work (a webhook's test sends and redeliveries).

DRF's stock throttles read a history list, then write it back: two concurrent requests can both
pass the last free slot. Here each request is one Redis INCR (plus EXPIRE in the same MULTI) on a
fixed one-minute window, so the count is exact under any concurrency.

Without Redis (REDIS_URL unset, or Redis not answering) the count lives in each web process.
A Redis outage must not take the whole API down with it, so requests are not refused; but N
processes counting apart would let N times the limit through. So the local limit is the limit
divided by RATE_LIMIT_LOCAL_PROCESSES (the web processes that count apart, by default
WEB_CONCURRENCY or gunicorn's two workers of the Procfile): together they never allow more
than the documented limit, at the cost of a lower limit for one key whose requests all reach
one process. Responses then say the lower limit in X-RateLimit-Limit.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING, Any

import redis
from django.conf import settings
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from config.redis import get_redis

if TYPE_CHECKING:  # DRF imports this module while loading rest_framework.views
    from rest_framework.views import APIView

WINDOW_SECONDS = 60
logger = logging.getLogger(__name__)

_local_lock = threading.Lock()
_local_counts: dict[str, int] = {}


def _hit(key: str) -> tuple[int, bool]:
    """Count one request against `key`: (the count so far in its window, whether it was
    counted in this process only)."""
    client = get_redis()
    if client is not None:
        try:
            pipe = client.pipeline(transaction=True)
            pipe.incr(key)
            pipe.expire(key, WINDOW_SECONDS * 2)
            count, _ = pipe.execute()
            return int(count), False
        except redis.RedisError as exc:
            logger.warning("Redis unavailable for rate limits (%s); counting in this process", type(exc).__name__)
    return _hit_local(key), True


def local_limit(limit: int) -> int:
    """A process's share of `limit` while every process counts on its own."""
    processes: int = settings.RATE_LIMIT_LOCAL_PROCESSES
    return max(1, limit // max(1, processes))


def _hit_local(key: str) -> int:
    with _local_lock:
        window = int(key.rsplit(":", 1)[1])
        for stale in [k for k in _local_counts if int(k.rsplit(":", 1)[1]) < window]:
            del _local_counts[stale]
        _local_counts[key] = _local_counts.get(key, 0) + 1
        return _local_counts[key]


def spend(bucket: str, ident: object) -> tuple[int, int, float, float]:
    """Count one request of `ident` in `bucket`'s current window: (its count, the limit, when
    the window ends, now). Over the limit once the count passes it."""
    limit = settings.RATE_LIMITS[bucket]
    now = time.time()
    window = int(now // WINDOW_SECONDS)
    count, local = _hit(f"{settings.RATE_LIMIT_KEY_PREFIX}:{bucket}:{ident}:{window}")
    return count, local_limit(limit) if local else limit, (window + 1) * WINDOW_SECONDS, now


def object_wait(bucket: str, team_id: object, object_id: object) -> float:
    """Count one action on an object outside the API (the dashboard's buttons), in the bucket
    and under the ident `ObjectRateThrottle` uses: seconds to wait when over the limit, else 0."""
    count, limit, reset_at, now = spend(bucket, f"{team_id}:{object_id}")
    return 0.0 if count <= limit else max(1.0, reset_at - now)


class _WindowThrottle(BaseThrottle):
    """Counts one request in a bucket's fixed window and says the bucket's X-RateLimit-* headers."""

    reset_at: float
    now: float

    def _allow(self, request: Request, bucket: str, ident: object) -> bool:
        count, limit, self.reset_at, self.now = spend(bucket, ident)
        headers = {
            "X-RateLimit-Limit": str(limit),
            "X-RateLimit-Remaining": str(max(0, limit - count)),
            "X-RateLimit-Reset": str(self.reset_at),
        }
        # Picked up by RequestIdMiddleware, so successes and 429s both carry the headers. When
        # two buckets count a request, the headers are the tighter one's (the one that refuses).
        shown = getattr(request._request, "rate_limit_headers", None)
        if shown is None or int(headers["X-RateLimit-Remaining"]) < int(shown["X-RateLimit-Remaining"]):
            request._request.rate_limit_headers = headers  # type: ignore[attr-defined]
        return count <= limit

    def wait(self) -> float:
        return max(1.0, self.reset_at - self.now)

    def get_ident(self, request: Any) -> str:  # pragma: no cover - unused, keyed by API key
        return ""


class KeyRateThrottle(_WindowThrottle):
    """Limits requests per API key and bucket. A view picks its bucket with `throttle_scope`
    (a key of settings.RATE_LIMITS); views without one count against `default`."""

    def allow_request(self, request: Request, view: APIView) -> bool:
        api_key = getattr(request, "auth", None)
        if api_key is None:  # unauthenticated requests are refused before throttling
            return True
        return self._allow(request, getattr(view, "throttle_scope", None) or "default", api_key.pk)


class ObjectRateThrottle(_WindowThrottle):
    """Limits an action on one object (the URL's `pk`), on top of the key's limit: a view maps
    its limited actions to buckets in `object_throttle_scopes` (a webhook's test sends and
    redeliveries). Counted per team, so another team's requests for the same id (a 404 to them)
    never use up the owner's allowance."""

    def allow_request(self, request: Request, view: APIView) -> bool:
        caller = getattr(request, "auth", None)
        scopes: dict[str, str] = getattr(view, "object_throttle_scopes", {})
        bucket = scopes.get(getattr(view, "action", None) or "")
        pk = view.kwargs.get("pk")
        if caller is None or bucket is None or pk is None:
            return True
        return self._allow(request, bucket, f"{caller.team.pk}:{pk}")

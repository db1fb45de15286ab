"""The one Redis client of a process (rate limits, health), or None when REDIS_URL is unset."""

from __future__ import annotations

import functools

import redis
from django.conf import settings


@functools.cache
def get_redis() -> redis.Redis | None:
    if not settings.REDIS_URL:
        return None
    # Short timeouts: a slow Redis must degrade a request, not hang it.
    return redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=2, socket_timeout=2)

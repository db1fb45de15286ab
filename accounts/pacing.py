"""Pacing: each account posts no faster than its platform allows (limits.POSTING_RATES), so a
campaign of many posts to one account waits its turn here rather than drawing 429s there.

Before a post goes out the sender takes a turn for its account (`turn`): one entry in a
sliding-window log per documented rate, kept in Redis so that every worker process counts the
same posts (an in-process log without Redis, where the development stack runs one dispatch
process). An account stays PACE_FRACTION under each documented figure: the platforms count
from their side of the network, and a post the service sent twice within the window's edge
must not tip it over. A turn refused says how long until one is free; the sender then gives
its claim back and the post waits that long in the outbox, holding no worker.

PACE_ACCOUNTS=false turns pacing off (benchmarks that send thousands of posts through a few
sandbox accounts, to measure the engine alone).
"""

from __future__ import annotations

import math
import secrets
import threading
import time
from collections import deque

import redis
from django.conf import settings

from accounts.platforms.limits import PostingRate, posting_rates
from config.redis import get_redis

PACE_FRACTION = 0.9

# For each window (KEYS[i], ARGV[3 + 2i - 1] posts in ARGV[3 + 2i] seconds): drop entries older
# than the window; if any window is full, answer the seconds until its oldest entry leaves it;
# otherwise log this post in every window and answer 0. Atomic in Redis.
_TAKE = """
local now = tonumber(ARGV[1])
local wait = 0
for i, key in ipairs(KEYS) do
  local cap, span = tonumber(ARGV[1 + 2 * i]), tonumber(ARGV[2 + 2 * i])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - span)
  if redis.call('ZCARD', key) >= cap then
    local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
    wait = math.max(wait, tonumber(oldest[2]) + span - now)
  end
end
if wait > 0 then return tostring(wait) end
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, now, ARGV[2] .. ':' .. i)
  redis.call('EXPIRE', key, tonumber(ARGV[2 + 2 * i]) + 1)
end
return '0'
"""

_local_lock = threading.Lock()
_local_log: dict[str, deque[float]] = {}


def allowance(rate: PostingRate) -> int:
    """Posts an account is given per window of `rate`: a little under the documented figure."""
    return max(1, math.floor(rate.posts * PACE_FRACTION))


def turn(*, account_id: object, platform: str) -> float:
    """Take a turn to post for the account: 0.0 when it may post now (the post is counted), or
    the seconds until a turn is free (nothing counted)."""
    rates = posting_rates(platform)
    if not rates or not settings.PACE_ACCOUNTS:
        return 0.0
    keys = [f"pace:{account_id}:{rate.seconds}" for rate in rates]
    client = get_redis()
    if client is not None:
        args: list[str | float] = [time.time(), secrets.token_hex(8)]
        for rate in rates:
            args += [allowance(rate), rate.seconds]
        try:
            return float(client.eval(_TAKE, len(keys), *keys, *args))
        except redis.RedisError:
            pass  # Redis away: this process's own log bounds it at least
    return _local_turn(keys, rates)


def _local_turn(keys: list[str], rates: tuple[PostingRate, ...]) -> float:
    now = time.monotonic()
    with _local_lock:
        logs = [_local_log.setdefault(key, deque()) for key in keys]
        wait = 0.0
        for log, rate in zip(logs, rates, strict=True):
            while log and log[0] <= now - rate.seconds:
                log.popleft()
            if len(log) >= allowance(rate):
                wait = max(wait, log[0] + rate.seconds - now)
        if wait > 0:
            return wait
        for log in logs:
            log.append(now)
    return 0.0

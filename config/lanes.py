"""Lanes: each kind of background work runs in its own Celery queue, served by its own worker
(Procfile), so a slow kind cannot starve another; inside a lane, `team_share` keeps one team
from taking more than its share of the lane's slots.

The lanes (queue names, CELERY_TASK_ROUTES) and what they carry:
- `control`: the scheduler's release, the outbox relay and reconciliation. Short tasks that
  everything else waits on, so nothing else ever queues ahead of them.
- `dispatch`: deliveries of text and image posts to the platforms (`publishing.deliver`,
  thread replies).
- `uploads`: deliveries of posts with a video (long uploads, processing polls) and the
  read-backs of open outcomes (`publishing.check`), so they never hold a slot a text post needs.
- `fetch`: `source_url` downloads from hosts we do not control.
- `media`: probing and fitting (ffprobe, ffmpeg and Pillow in bounded subprocesses).
- `webhooks`: deliveries to subscribers' endpoints.
- `analytics`: metrics reads from the platforms.
- `default`: the rest (purges, token refresh, sweeps, notification mails).

A team's share is a number of slots held at once in one lane (LANE_TEAM_SHARES). A slot is a
lease in Redis that ends when the work ends, or by itself after `lease_seconds` (a worker killed
mid-task frees it then). Without Redis (the development default), each lane runs in one worker
process, so a count kept in that process is the same bound.

A task that finds its team's share taken does not wait in a worker slot: it hands itself back
to the broker for a little later (`later`), and the database row it works on stays as it is, so
nothing is lost if that message is.
"""

from __future__ import annotations

import contextlib
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import redis
from django.conf import settings
from django.db import transaction

from config.redis import get_redis

# Frees expired leases, then takes one when fewer than the cap are held: atomic in Redis.
_ACQUIRE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
"""

_local_lock = threading.Lock()
_local_held: dict[str, int] = {}


def share_of(lane: str) -> int:
    """How many slots of `lane` one team may hold at once."""
    return int(settings.LANE_TEAM_SHARES[lane])


@contextmanager
def team_share(lane: str, team_id: object, *, lease_seconds: float) -> Iterator[bool]:
    """Hold one of the team's slots in `lane` while the block runs. Yields False (holding
    nothing) when the team already holds its share: the caller then hands the work back with
    `later` instead of doing it."""
    with _slot(f"lane:{lane}:{team_id}", share_of(lane), lease_seconds) as held:
        yield held


@contextmanager
def alone(name: str, *, lease_seconds: float) -> Iterator[bool]:
    """Run the block only where no other run of `name` is under way (yields False otherwise):
    a periodic task that may outlast its period (reconciliation) then never fills its lane."""
    with _slot(f"alone:{name}", 1, lease_seconds) as held:
        yield held


@contextmanager
def _slot(key: str, cap: int, lease_seconds: float) -> Iterator[bool]:
    client, token = get_redis(), secrets.token_hex(8)
    held = client is not None and _take(client, key, cap, lease_seconds, token)
    if held is None or client is None:  # no Redis, or Redis away: bound this process at least
        with _local_slot(key, cap) as held_here:
            yield held_here
        return
    try:
        yield held
    finally:
        if held:
            with contextlib.suppress(redis.RedisError):  # else the lease ends by itself
                client.zrem(key, token)


def _take(client: redis.Redis, key: str, cap: int, lease_seconds: float, token: str) -> bool | None:
    """Whether a lease was taken; None when Redis did not answer."""
    now, ttl_ms = time.time(), int(lease_seconds * 1000) + 1000
    try:
        return bool(client.eval(_ACQUIRE, 1, key, now, now + lease_seconds, cap, token, ttl_ms))
    except redis.RedisError:
        return None


@contextmanager
def _local_slot(key: str, cap: int) -> Iterator[bool]:
    with _local_lock:
        held = _local_held.get(key, 0) < cap
        if held:
            _local_held[key] = _local_held.get(key, 0) + 1
    try:
        yield held
    finally:
        if held:
            with _local_lock:
                _local_held[key] -= 1


def held(lane: str, team_id: object) -> int:
    """How many of the team's slots in `lane` are held now (for tests and the admin)."""
    key = f"lane:{lane}:{team_id}"
    client = get_redis()
    if client is None:
        return _local_held.get(key, 0)
    return int(client.zcount(key, time.time(), "+inf")) + _local_held.get(key, 0)


def later(task: Any, *args: object) -> None:
    """Hand `task(*args)` back to the broker to run again in LANE_RETRY_SECONDS (after commit
    when called inside a transaction). Short on purpose: a long countdown is held in a worker's
    memory, where the Redis broker would deliver it again past its visibility timeout."""
    transaction.on_commit(lambda: task.apply_async(args=args, countdown=settings.LANE_RETRY_SECONDS))

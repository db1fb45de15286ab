"""A warm cache of who an API key is, so an authenticated request costs no SQL query.

What authentication reads (the key, its user, the membership it acts through with the team
and its plan) is kept in the shared cache (Redis) under the key's public prefix, stamped with
the current *epoch*. Any write to a key, user, membership, team or plan moves the epoch on,
which retires every entry at once: such writes are rare, and a request never acts on what a
revoke, a role change or a plan change has replaced. One round trip (MGET) reads the epoch and
the entry together.

The epoch moves when the write happens and again after its transaction commits, so a request
racing the write cannot keep the old state cached past the commit. Writes that bypass model
signals (`QuerySet.update()`) call `forget_callers()` themselves. Without a shared cache
(REDIS_URL unset) nothing is cached: each web process would otherwise keep its own stale copy.
"""

from __future__ import annotations

import logging
import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import transaction
from django.db.models.signals import post_delete, post_save
from redis.exceptions import RedisError

from teams.models import ApiKey, Membership, Plan, Team

logger = logging.getLogger(__name__)

EPOCH_KEY = "caller:epoch"
ENTRY_SECONDS = 300
Entry = tuple[ApiKey, Membership | None]


def _enabled() -> bool:
    return bool(settings.REDIS_URL)


# What a cache that is down or unreachable raises (redis-py wraps socket errors in RedisError).
CACHE_DOWN = (RedisError, OSError)


def _entry_key(prefix: str) -> str:
    return f"caller:key:{prefix}"


def cached_caller(prefix: str) -> tuple[Any, Entry | None]:
    """(the epoch, the cached entry for `prefix` or None). The epoch goes back to `remember`."""
    if not _enabled():
        return None, None
    try:
        found = cache.get_many([EPOCH_KEY, _entry_key(prefix)])
    except CACHE_DOWN as exc:  # authenticate from the database
        logger.warning("Caller cache unavailable (%s)", type(exc).__name__)
        return None, None
    epoch, stamped = found.get(EPOCH_KEY), found.get(_entry_key(prefix))
    if epoch is None or stamped is None or stamped[0] != epoch:
        return epoch, None
    entry: Entry = stamped[1]
    return epoch, entry


def remember(prefix: str, epoch: Any, entry: Entry) -> None:
    """Cache `entry` as read under `epoch` (a later write has moved the epoch and retires it)."""
    if not _enabled():
        return
    try:
        if epoch is None:
            epoch = _start_epoch()
        cache.set(_entry_key(prefix), (epoch, entry), ENTRY_SECONDS)
    except CACHE_DOWN as exc:
        logger.warning("Caller cache unavailable (%s)", type(exc).__name__)


def _start_epoch() -> Any:
    # Random, so an epoch lost with Redis never comes back with the same value.
    cache.add(EPOCH_KEY, secrets.randbits(48), None)
    return cache.get(EPOCH_KEY)


def _advance() -> None:
    try:
        cache.incr(EPOCH_KEY)
    except ValueError:  # no epoch yet: nothing is cached under one either
        _start_epoch()
    except CACHE_DOWN as exc:
        logger.warning("Caller cache unavailable (%s); entries expire within %d s", type(exc).__name__, ENTRY_SECONDS)


def forget_callers() -> None:
    """Retire every cached caller, now and again after the current transaction commits."""
    if not _enabled():
        return
    _advance()
    transaction.on_commit(_advance)


def _on_write(sender: Any, **kwargs: Any) -> None:  # noqa: ARG001 - a signal receiver
    forget_callers()


def connect_signals() -> None:
    for model in (ApiKey, User, Membership, Team, Plan):
        post_save.connect(_on_write, sender=model, dispatch_uid=f"caller-cache-save-{model.__name__}")
        post_delete.connect(_on_write, sender=model, dispatch_uid=f"caller-cache-delete-{model.__name__}")

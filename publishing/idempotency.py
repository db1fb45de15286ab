"""Idempotency-Key on POST /publishes (DESIGN §4.5): 24 hours per team, keyed by a hash of
the body.

The first request inserts the key `in_flight` in its own committed transaction; the unique
constraint serializes concurrent duplicates (they see the row and get 409). The publish and
the key's `created` state commit together (`lifecycle.publish_create` records it), so a key
never points at a half-made publish.
Once the jobs reach the broker the response is stored and replayed; while they have not, a
repeat sends the same publish's jobs again and creates nothing.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from config.errors import Conflict, InvalidRequest
from publishing.models import IdempotencyKey, IdempotencyState, Publish
from teams.models import Team

LIFETIME = dt.timedelta(hours=24)
# An in-flight key whose request never committed a publish (its process died) is taken over
# after this long, rather than answering 409 for a day.
ABANDONED_AFTER = dt.timedelta(minutes=2)
MAX_KEY_LENGTH = 255


def body_hash(body: Any) -> str:
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def idempotency_begin(*, team: Team, key: str, digest: str) -> IdempotencyKey:
    """The key's record: new and in flight, or an earlier one this request repeats (`created`
    or `done`). 409 while another request with the key is in flight or for a different body."""
    if not key or len(key) > MAX_KEY_LENGTH or not key.isprintable():
        raise InvalidRequest(
            f"Idempotency-Key must be 1 to {MAX_KEY_LENGTH} printable characters.", code="INVALID_IDEMPOTENCY_KEY"
        )
    now = timezone.now()
    IdempotencyKey.objects.filter(team=team, key=key, expires_at__lte=now).delete()
    try:
        with transaction.atomic():
            return IdempotencyKey.objects.create(team=team, key=key, body_hash=digest, expires_at=now + LIFETIME)
    except IntegrityError:
        pass
    record = IdempotencyKey.objects.get(team=team, key=key)
    if record.body_hash != digest:
        raise Conflict("This Idempotency-Key was used with a different request body.", code="IDEMPOTENCY_KEY_REUSED")
    if record.state == IdempotencyState.IN_FLIGHT:
        taken = IdempotencyKey.objects.filter(
            pk=record.pk, state=IdempotencyState.IN_FLIGHT, updated_at__lt=now - ABANDONED_AFTER
        ).update(updated_at=now)
        if not taken:
            raise Conflict(
                "A request with this Idempotency-Key is still being processed.", code="IDEMPOTENCY_KEY_IN_USE"
            )
    return record


def idempotency_created(*, record: IdempotencyKey, publish: Publish) -> None:
    """Call inside the transaction that creates the publish."""
    record.state, record.publish = IdempotencyState.CREATED, publish
    record.save(update_fields=["state", "publish", "updated_at"])


def idempotency_finish(*, record: IdempotencyKey, status: int, body: Any) -> None:
    record.state, record.response_status, record.response_body = IdempotencyState.DONE, status, body
    record.save(update_fields=["state", "response_status", "response_body", "updated_at"])


def idempotency_abandon(*, record: IdempotencyKey) -> None:
    """The request failed before creating anything (a 400, a 429): free the key, so the
    corrected request may use it."""
    IdempotencyKey.objects.filter(pk=record.pk, state=IdempotencyState.IN_FLIGHT).delete()


def idempotency_purge() -> int:
    deleted, _ = IdempotencyKey.objects.filter(expires_at__lte=timezone.now()).delete()
    return deleted

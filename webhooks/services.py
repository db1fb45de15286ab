"""Webhook subscriptions, the event outbox and signed deliveries.

`emit()` runs inside the caller's transaction and writes the event and one delivery per
matching subscription, so an event exists if and only if the change it describes committed.
Deliveries are sent by a task after commit; when a message is lost (broker down, worker
killed) the sweeper finds the delivery by its `next_attempt_at` and sends it. The claim, the
sweep's take-back of a lost worker's claim and the hand-over (one round trip for a whole
sweep) are `config.jobs`', shared with publishing's jobs. Retry times live in the database,
never in a broker countdown. An attempt costs two statements on PostgreSQL
(`statements`: claim-and-load, then record the success), and deliveries to one receiver share a
keep-alive connection (`config.outbound`), which the address policy checks again every time.
A receiver that keeps timing out is circuit-broken (`circuit`): its deliveries wait, pending,
while the circuit is open. A test event (`subscription_send_test`, the dashboard's "Send test event", the API's
`POST /webhooks/{id}/test`) is the one event written outside `emit`: it has its own type and
goes to the subscription asked for, only. A secret rotation (`subscription_rotate_secret`) keeps
the replaced secret signing beside the new one for a day (`signing`). Every event `emit`
records is also told to the `listeners` the apps above registered (notifications mails people
about some).

Disabling rule: a subscription is disabled at once when its receiver answers 410 Gone, and
after DISABLE_AFTER_FAILED_DELIVERIES deliveries in a row whose every attempt failed (any
success resets the count). A disabled subscription gets no new deliveries; its pending ones
are cancelled.
"""

from __future__ import annotations

import datetime as dt
import logging
import random
import sys
import time
import uuid
from collections.abc import Iterable
from email.utils import parsedate_to_datetime
from typing import NamedTuple

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from config import jobs, outbound
from config.db import fixed_statements, purge
from config.errors import Conflict, InvalidRequest, NotFound
from config.ids import new_id
from teams.models import Team
from webhooks import circuit, listeners, signing, statements
from webhooks.models import (
    SUBSCRIBABLE_EVENTS,
    Delivery,
    DeliveryAttempt,
    DeliveryState,
    Event,
    EventType,
    Subscription,
)

logger = logging.getLogger(__name__)

MAX_ATTEMPTS = 6  # spec §6: the first try and five retries
ATTEMPT_TIMEOUT_SECONDS = 10.0  # spec §6
DISABLE_AFTER_FAILED_DELIVERIES = 5
MAX_SUBSCRIPTIONS_PER_TEAM = 25
STALE_CLAIM = dt.timedelta(seconds=ATTEMPT_TIMEOUT_SECONDS * 6)
MAX_RETRY_AFTER = dt.timedelta(hours=24)


# --- subscriptions ---------------------------------------------------------------------------


def _check_url(url: str) -> None:
    plain_http_allowed = settings.SSRF_ALLOW_PRIVATE or outbound.allow_listed(url)  # e.g. the sandbox's inbox
    if not url.lower().startswith("https://") and not plain_http_allowed:
        raise InvalidRequest("The webhook URL must use https.", code="INVALID_WEBHOOK_URL", details={"url": url})
    try:
        outbound.check_url(url)
    except outbound.OutboundError as exc:
        raise InvalidRequest(f"The webhook URL cannot be used: {exc}", code="INVALID_WEBHOOK_URL") from exc


def _check_secret(secret: str | None) -> None:
    """A caller-supplied secret (None: one is generated) must be a valid `whsec_` secret whose
    key is not guessable: a signature is only as strong as the key's entropy."""
    if secret is None:
        return
    if not signing.secret_is_valid(secret):
        raise InvalidRequest(
            "secret must be 'whsec_' followed by base64 of 24 to 64 random bytes.", code="INVALID_WEBHOOK_SECRET"
        )
    if signing.secret_is_weak(secret):
        raise InvalidRequest(
            f"secret is too predictable (under {signing.MIN_SECRET_BITS} bits of entropy): use random bytes, "
            "or omit it to have one generated.",
            code="WEAK_WEBHOOK_SECRET",
        )


def subscription_create(*, team: Team, url: str, events: Iterable[str], secret: str | None = None) -> Subscription:
    """Subscribe `url` to `events`. The secret is generated unless a valid one is supplied."""
    _check_url(url)
    _check_secret(secret)
    if Subscription.objects.filter(team=team).count() >= MAX_SUBSCRIPTIONS_PER_TEAM:
        raise InvalidRequest(
            f"A team can have at most {MAX_SUBSCRIPTIONS_PER_TEAM} webhooks.", code="TOO_MANY_WEBHOOKS"
        )
    return Subscription.objects.create(
        team=team, url=url, events=list(dict.fromkeys(events)), secret=secret or signing.new_secret()
    )


def subscription_delete(*, team: Team, subscription_id: str) -> None:
    """Delete a subscription; its pending deliveries go with it, so nothing more is sent."""
    deleted, _ = Subscription.objects.filter(team=team, pk=subscription_id).delete()
    if not deleted:
        raise NotFound("No such webhook.", code="WEBHOOK_NOT_FOUND")


def move_to_team(*, source: Team, target: Team) -> dict[str, int]:  # noqa: ARG001 - the mover signature
    """A team deletion (`teams.moves`) moves no webhooks: each points at the deleted team's own
    receiver, so the subscriptions, with their pending deliveries and events, go with the team
    (its delete cascades to them). This counts them for the deletion's answer."""
    return {"removed_webhooks": Subscription.objects.filter(team=source).count()}


def subscription_enable(*, subscription: Subscription) -> None:
    Subscription.objects.filter(pk=subscription.pk).update(
        disabled_at=None,
        disabled_reason="",
        failed_deliveries_in_row=0,
        consecutive_failures=0,
        consecutive_timeouts=0,
        circuit_open_until=None,
        circuit_opens=0,
    )


def subscription_rotate_secret(*, subscription: Subscription, secret: str | None = None) -> Subscription:
    """Give the subscription a new secret (generated unless a valid one is supplied) and keep the
    replaced one signing beside it for WEBHOOK_SECRET_OVERLAP_SECONDS, so the receiver can switch
    without refusing a delivery. Rotating again within the overlap drops the older secret: only
    the one just replaced keeps signing."""
    _check_secret(secret)
    with transaction.atomic():
        locked = _locked(subscription)
        new_secret = secret or signing.new_secret()
        if new_secret == locked.secret:
            raise InvalidRequest("The new secret must differ from the current one.", code="INVALID_WEBHOOK_SECRET")
        locked.previous_secret, locked.secret = locked.secret, new_secret
        overlap = dt.timedelta(seconds=settings.WEBHOOK_SECRET_OVERLAP_SECONDS)
        locked.previous_secret_expires_at = timezone.now() + overlap
        locked.save(update_fields=["secret", "previous_secret", "previous_secret_expires_at", "updated_at"])
    return locked


def _locked(subscription: Subscription) -> Subscription:
    """The subscription's row, locked for the transaction; NotFound once it is deleted."""
    locked = Subscription.objects.select_for_update().filter(pk=subscription.pk).first()
    if locked is None:
        raise NotFound("No such webhook.", code="WEBHOOK_NOT_FOUND")
    return locked


def _disable(subscription_id: uuid.UUID, reason: str) -> None:
    Subscription.objects.filter(pk=subscription_id, disabled_at__isnull=True).update(
        disabled_at=timezone.now(), disabled_reason=reason[:300]
    )
    Delivery.objects.filter(subscription_id=subscription_id, state=DeliveryState.PENDING).update(
        state=DeliveryState.CANCELLED, next_attempt_at=None
    )


# --- the outbox ----------------------------------------------------------------------------


def emit(*, team: Team, event_type: str, data: dict[str, object]) -> Event:
    """Record an event and its deliveries. Call it inside the transaction of the change it
    describes: a rollback takes the event with it, and nothing is sent before commit."""
    if event_type not in SUBSCRIBABLE_EVENTS:  # a test event goes to one subscription only
        raise ValueError(f"unknown event type {event_type}")
    if fixed_statements():  # one statement (`statements`)
        now = timezone.now()
        event = Event(team=team, type=event_type, data=data, created_at=now, updated_at=now)
        subscriptions = statements.record_event(event)
        event._state.adding = False
    else:
        event = Event.objects.create(team=team, type=event_type, data=data)
        subscriptions = [(s.pk, s.events) for s in Subscription.objects.filter(team=team, disabled_at__isnull=True)]
    deliveries = Delivery.objects.bulk_create(
        [
            Delivery(subscription_id=pk, event=event, next_attempt_at=event.created_at)
            for pk, types in subscriptions
            if event_type in types
        ]
    )
    queued = [(d.pk, team.pk) for d in deliveries]
    if queued:
        transaction.on_commit(lambda: _enqueue(queued))
    listeners.recorded(event)
    return event


def subscription_send_test(*, subscription: Subscription) -> Delivery:
    """Record a `webhook.test` event and its one delivery, to this subscription only, and send
    it after commit by the path every delivery takes: signed, retried and logged the same way.
    A deleted subscription is NotFound; a disabled one is refused (enable it first)."""
    with transaction.atomic():
        # The lock keeps a concurrent delete or disable from slipping in before the insert.
        locked = _locked(subscription)
        if locked.disabled_at is not None:
            raise Conflict("The webhook is disabled: enable it before sending a test event.", code="WEBHOOK_DISABLED")
        event = Event.objects.create(team_id=locked.team_id, type=EventType.TEST, data=_test_data(locked))
        delivery = Delivery.objects.create(subscription=locked, event=event, next_attempt_at=event.created_at)
        transaction.on_commit(lambda: _enqueue([(delivery.pk, locked.team_id)]))
    return delivery


def _test_data(subscription: Subscription) -> dict[str, object]:
    return {"test": True, "subscription_id": str(subscription.pk), "message": "A test event: nothing happened."}


def _enqueue(deliveries: Iterable[tuple[object, object]]) -> None:
    """Queue deliveries, given as (delivery id, team id), all in one round trip to the broker
    (`config.jobs.hand_over`). Each message names its team, so a worker can see whether the
    team holds its share of the lane before it claims anything. When the broker is down this
    is logged and nothing else: the deliveries stay pending and due, and the sweep sends them."""
    from webhooks.tasks import deliver

    messages = [jobs.Message(str(uuid.uuid4()), (str(pk), str(team_id))) for pk, team_id in deliveries]
    try:
        jobs.hand_over(deliver, messages)
    except Exception:
        logger.warning("Could not enqueue %d webhook deliveries; the sweep will", len(messages), exc_info=True)


def envelope(event: Event) -> dict[str, object]:
    return {
        "id": str(event.pk),
        "type": event.type,
        "created_at": event.created_at.isoformat().replace("+00:00", "Z"),
        "team_id": str(event.team_id),
        "data": event.data,
    }


# --- sending -----------------------------------------------------------------------------------


def _claim(delivery_id: str) -> Delivery | None:
    """Claim the delivery if it is pending and due (the one gate against sending it twice) and
    return it with its subscription and event; None when it is not claimable."""
    if fixed_statements():
        return statements.claim(delivery_id, timezone.now())
    return _claim_with_orm(delivery_id)


def _claim_with_orm(delivery_id: str) -> Delivery | None:
    now = timezone.now()
    changes = {"claimed_at": now, "attempts": F("attempts") + 1}
    pending, sending = DeliveryState.PENDING, DeliveryState.SENDING
    if not jobs.claim(
        Delivery,
        delivery_id,
        from_state=pending,
        to_state=sending,
        due_field="next_attempt_at",
        now=now,
        changes=changes,
    ):
        return None
    return Delivery.objects.select_related("subscription", "event").get(pk=delivery_id)


class _Reply(NamedTuple):
    status: int | None
    error: str  # empty for a 2xx
    headers: dict[str, str]
    unreachable: bool = False  # timed out or could not connect (the circuit breaker counts these)


def _post(delivery: Delivery) -> _Reply:
    """What one POST got; never raises for network failures."""
    subscription, event = delivery.subscription, delivery.event
    raw = signing.body(envelope(event))
    headers = signing.headers(subscription.signing_secrets(timezone.now()), str(event.pk), int(time.time()), raw)
    try:
        # The status decides; the receiver's body is never read, whatever its size.
        with outbound.stream(
            subscription.url,
            method="POST",
            headers=headers,
            body=raw,
            read_timeout=ATTEMPT_TIMEOUT_SECONDS,
            deadline_seconds=ATTEMPT_TIMEOUT_SECONDS,
            max_bytes=sys.maxsize,
            max_redirects=0,
            keep_alive=True,  # one connection carries many deliveries to the same receiver
        ) as response:
            status, response_headers = response.status_code, dict(response.headers)
    except outbound.OutboundError as exc:
        unreachable = isinstance(exc, outbound.OutboundTimeout | outbound.OutboundConnectionError)
        return _Reply(None, f"{exc.code}: {exc}", {}, unreachable)
    return _Reply(status, "" if 200 <= status < 300 else f"HTTP {status}", response_headers)


def _retry_after(headers: dict[str, str]) -> dt.timedelta | None:
    """The receiver's Retry-After (seconds or an HTTP date), capped; None when unreadable.
    The header comes from an untrusted server, so nothing in it may raise."""
    value = next((v for k, v in headers.items() if k.lower() == "retry-after"), "").strip()
    cap = MAX_RETRY_AFTER.total_seconds()
    if value.isascii() and value.isdigit():
        return dt.timedelta(seconds=min(int(value), cap) if len(value) <= 12 else cap)
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)  # HTTP dates are GMT
    seconds = min(max((moment - timezone.now()).total_seconds(), 0), cap)
    return dt.timedelta(seconds=seconds)


def _next_attempt_at(attempts: int, headers: dict[str, str]) -> dt.datetime:
    delays: list[float] = list(settings.WEBHOOK_RETRY_DELAYS)
    base = dt.timedelta(seconds=delays[min(attempts, len(delays)) - 1])
    jittered = base * (1 + random.uniform(0, 0.1))  # noqa: S311 - spreading load, not security
    return timezone.now() + max(jittered, _retry_after(headers) or dt.timedelta(0))


def _log_attempt(delivery: Delivery, status: int | None, error: str, duration_ms: int) -> None:
    DeliveryAttempt.objects.create(
        delivery=delivery, number=delivery.attempts, status_code=status, error=error[:300], duration_ms=duration_ms
    )


def _record_success(delivery: Delivery, status: int, duration_ms: int) -> None:
    """Log the attempt, mark the delivery succeeded and reset the subscription's failure counts,
    atomically."""
    if fixed_statements():
        statements.record_success(delivery, new_id(), status, duration_ms, timezone.now())
        return
    _record_success_with_orm(delivery, status, duration_ms)


def _record_success_with_orm(delivery: Delivery, status: int, duration_ms: int) -> None:
    now = timezone.now()
    with transaction.atomic():
        _log_attempt(delivery, status, "", duration_ms)
        Delivery.objects.filter(pk=delivery.pk).update(
            state=DeliveryState.SUCCEEDED,
            delivered_at=now,
            next_attempt_at=None,
            last_status_code=status,
            last_error="",
            last_duration_ms=duration_ms,
        )
        Subscription.objects.filter(pk=delivery.subscription_id).update(
            last_success_at=now,
            consecutive_failures=0,
            failed_deliveries_in_row=0,
            consecutive_timeouts=0,
            circuit_open_until=None,
            circuit_opens=0,
        )


def _record_failure(delivery: Delivery, reply: _Reply, duration_ms: int, *, probe: bool) -> None:
    """Log the attempt, schedule the next one or fail the delivery, count the failure against the
    subscription (its circuit too) and disable it when the rules say so, atomically."""
    with transaction.atomic():
        _log_attempt(delivery, reply.status, reply.error, duration_ms)
        _count_failure(delivery, reply.status, reply.error, reply.headers, duration_ms)
        circuit.failed(delivery, unreachable=reply.unreachable, probe=probe)


def _count_failure(
    delivery: Delivery, status: int | None, error: str, headers: dict[str, str], duration_ms: int
) -> None:
    final = status == 410 or delivery.attempts >= MAX_ATTEMPTS
    Delivery.objects.filter(pk=delivery.pk).update(
        state=DeliveryState.FAILED if final else DeliveryState.PENDING,
        next_attempt_at=None if final else _next_attempt_at(delivery.attempts, headers),
        last_status_code=status,
        last_error=error[:300],
        last_duration_ms=duration_ms,
    )
    Subscription.objects.filter(pk=delivery.subscription_id).update(
        last_failure_at=timezone.now(),
        last_failure_reason=error[:300],
        consecutive_failures=F("consecutive_failures") + 1,
        failed_deliveries_in_row=F("failed_deliveries_in_row") + (1 if final else 0),
    )
    if status == 410:
        _disable(delivery.subscription_id, "The receiver answered 410 Gone.")
    elif (
        final
        and Subscription.objects.filter(
            pk=delivery.subscription_id, failed_deliveries_in_row__gte=DISABLE_AFTER_FAILED_DELIVERIES
        ).exists()
    ):
        _disable(
            delivery.subscription_id, f"{DISABLE_AFTER_FAILED_DELIVERIES} deliveries in a row failed every attempt."
        )


def delivery_attempt(*, delivery_id: str) -> None:
    """Send one attempt of a due delivery. Idempotent: only a pending, due delivery is claimed,
    so a duplicate task message or a sweep racing a task sends nothing twice."""
    delivery = _claim(delivery_id)
    if delivery is None:
        return
    if delivery.subscription.disabled_at is not None:
        Delivery.objects.filter(pk=delivery.pk).update(state=DeliveryState.CANCELLED, next_attempt_at=None)
        return
    goes, probe_held_until = circuit.gate(delivery)
    if not goes:
        return
    started = time.monotonic()
    reply = _post(delivery)
    duration_ms = int((time.monotonic() - started) * 1000)
    try:
        if not reply.error and reply.status is not None:
            _record_success(delivery, reply.status, duration_ms)
            if probe_held_until is not None:
                _enqueue((pk, delivery.event.team_id) for pk in circuit.closed(delivery, probe_held_until))
        else:
            _record_failure(delivery, reply, duration_ms, probe=probe_held_until is not None)
    except IntegrityError:
        logger.info("Webhook %s was deleted while delivery %s was in flight", delivery.subscription_id, delivery.pk)


def delivery_team(*, delivery_id: str) -> str:
    """The team whose share of the webhooks lane a delivery counts against ("" when it is gone:
    the attempt then finds nothing to do)."""
    team_id = Delivery.objects.filter(pk=delivery_id).values_list("subscription__team_id", flat=True).first()
    return str(team_id or "")


def delivery_hand_back(*, delivery_id: str) -> None:
    """Its team holds its share of the webhooks lane: the delivery is not attempted now. It stays
    pending with its attempts unchanged, due again in LANE_RETRY_SECONDS, when the message handed
    back to the broker (`lanes.later`) comes round; until then the sweep leaves it alone, so a
    flood does not multiply its own messages. Were that message lost, the sweep sends it."""
    now = timezone.now()
    Delivery.objects.filter(pk=delivery_id, state=DeliveryState.PENDING, next_attempt_at__lte=now).update(
        next_attempt_at=now + dt.timedelta(seconds=settings.LANE_RETRY_SECONDS)
    )


def delivery_send_again(*, delivery: Delivery) -> bool:
    """Send the delivery again now, with a new series of attempts, whatever happened before (the
    admin's and dashboard's "send again", the API's redeliver). False, and nothing changes, while
    an attempt is under way."""
    queued = (
        Delivery.objects.filter(pk=delivery.pk)
        .exclude(state=DeliveryState.SENDING)
        .update(state=DeliveryState.PENDING, next_attempt_at=timezone.now(), attempts=0)
    )
    if queued:
        again = [(delivery.pk, delivery.subscription.team_id)]
        transaction.on_commit(lambda: _enqueue(again))
    return bool(queued)


def delivery_redeliver(*, subscription: Subscription, delivery_id: str) -> Delivery:
    """Send one of the subscription's deliveries again (`delivery_send_again`). NotFound for a
    delivery of another subscription; Conflict while the webhook is disabled (enable it first)
    or while an attempt of this delivery is under way."""
    with transaction.atomic():
        locked = _locked(subscription)  # a disable or delete waits for the redelivery, or wins
        delivery = Delivery.objects.filter(pk=delivery_id, subscription=locked).first()
        if delivery is None:
            raise NotFound("No such delivery of this webhook.", code="DELIVERY_NOT_FOUND")
        if locked.disabled_at is not None:
            raise Conflict("The webhook is disabled: enable it before redelivering.", code="WEBHOOK_DISABLED")
        if not delivery_send_again(delivery=delivery):
            raise Conflict(
                "An attempt of this delivery is under way; redeliver once it has finished.", code="DELIVERY_IN_FLIGHT"
            )
    return Delivery.objects.select_related("event").get(pk=delivery.pk)


def deliveries_sweep(*, limit: int = 500) -> list[str]:
    """Take back the claims of workers that died mid-attempt (`config.jobs.take_back`: due
    again, or failed once MAX_ATTEMPTS are spent), then send the deliveries that are due
    (retries, and first attempts whose message was lost), up to `limit`, in one round trip.
    Returns the ids sent to the queue."""
    now = timezone.now()
    jobs.take_back(
        Delivery.objects.all(),
        running=DeliveryState.SENDING,
        pending=DeliveryState.PENDING,
        failed=DeliveryState.FAILED,
        tries_field="attempts",
        max_tries=MAX_ATTEMPTS,
        older_than=STALE_CLAIM,
        now=now,
        back={"next_attempt_at": now},
        given_up={"next_attempt_at": None, "last_error": "WORKER_LOST: the last attempt never finished"},
    )
    due = Delivery.objects.filter(state=DeliveryState.PENDING, next_attempt_at__lte=now).order_by("next_attempt_at")
    found = list(due.values_list("pk", "subscription__team_id")[:limit])
    _enqueue(found)
    return [str(pk) for pk, _ in found]


PURGE_BUDGET_SECONDS = 30.0
FINAL_STATES = (DeliveryState.SUCCEEDED, DeliveryState.FAILED, DeliveryState.CANCELLED)


def deliveries_purge(*, now: dt.datetime | None = None) -> int:
    """Delete the delivery history made over WEBHOOK_DELIVERY_RETENTION_SECONDS ago: final
    deliveries (with their attempt logs), then events none of whose deliveries is left, within
    the time budget. Returns the rows of deliveries and events deleted."""
    before = (now or timezone.now()) - dt.timedelta(seconds=settings.WEBHOOK_DELIVERY_RETENTION_SECONDS)
    deadline = time.monotonic() + PURGE_BUDGET_SECONDS
    # A replaced secret is kept no longer than its overlap needs it.
    Subscription.objects.filter(previous_secret_expires_at__lt=now or timezone.now()).update(
        previous_secret="", previous_secret_expires_at=None
    )
    deliveries = purge(Delivery.objects.filter(state__in=FINAL_STATES, created_at__lt=before), deadline=deadline)
    return deliveries + purge(Event.objects.filter(created_at__lt=before, deliveries__isnull=True), deadline=deadline)

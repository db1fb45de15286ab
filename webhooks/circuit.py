"""The circuit breaker of a subscription: a receiver that keeps timing out or refusing
connections is left alone for a cool-down, instead of holding worker threads for nothing.

- Closed (`circuit_open_until` empty): deliveries go out. Each attempt that times out or cannot
  connect counts in `consecutive_timeouts`; any answer resets it. At WEBHOOK_CIRCUIT_TIMEOUTS
  in a row the circuit opens (`failed`) for WEBHOOK_CIRCUIT_COOLDOWN_SECONDS.
- Open (until `circuit_open_until`): a delivery that comes due is not attempted. It waits,
  pending, due again when the circuit half-opens; no attempt is counted and nothing is lost
  (`gate`).
- Half-open (`circuit_open_until` passed): the first delivery to come due is the probe. Taking
  it holds the circuit open again for the next cool-down, so the others keep waiting. A success
  closes the circuit (`statements` and the ORM's success reset it) and the waiting deliveries go
  out at once (`closed`); a failure opens it again for twice as long, up to
  WEBHOOK_CIRCUIT_MAX_COOLDOWN_SECONDS. A probe whose worker died counts as a failure when the
  held cool-down ends.

The disabling rules of `services` are apart from it: waiting deliveries are not failures.
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db.models import F
from django.utils import timezone

from webhooks.models import Delivery, DeliveryState, Subscription


def cooldown(opens: int) -> dt.timedelta:
    """How long the circuit stays open the `opens`-th time in a row (from 1)."""
    seconds = settings.WEBHOOK_CIRCUIT_COOLDOWN_SECONDS * 2 ** min(max(opens, 1) - 1, 20)
    return dt.timedelta(seconds=min(seconds, settings.WEBHOOK_CIRCUIT_MAX_COOLDOWN_SECONDS))


def gate(delivery: Delivery) -> tuple[bool, dt.datetime | None]:
    """For a claimed delivery: (whether its attempt goes on, until when the circuit is held open
    for it when it is the probe). A delivery that may not go on is put back to wait, its claim
    undone."""
    subscription = delivery.subscription
    open_until = subscription.circuit_open_until
    if open_until is None:
        return True, None
    now = timezone.now()
    if open_until <= now:
        held = now + cooldown(subscription.circuit_opens + 1)
        # Conditional on the value read: of two deliveries due at once, one is the probe.
        if Subscription.objects.filter(pk=subscription.pk, circuit_open_until=open_until).update(
            circuit_open_until=held
        ):
            return True, held
        open_until = Subscription.objects.filter(pk=subscription.pk).values_list("circuit_open_until", flat=True)[0]
        if open_until is None:  # a probe closed it meanwhile
            return True, None
    _wait(delivery, open_until)
    return False, None


def _wait(delivery: Delivery, until: dt.datetime) -> None:
    """Undo the claim: pending again, due when the circuit half-opens, the attempt not counted."""
    Delivery.objects.filter(pk=delivery.pk, state=DeliveryState.SENDING, attempts=delivery.attempts).update(
        state=DeliveryState.PENDING, attempts=F("attempts") - 1, next_attempt_at=until
    )


def failed(delivery: Delivery, *, unreachable: bool, probe: bool) -> None:
    """Count a failed attempt (inside its transaction): open the circuit at the threshold of
    timeouts in a row, or again, for longer, when the probe failed."""
    subscription_id = delivery.subscription_id
    Subscription.objects.filter(pk=subscription_id).update(
        consecutive_timeouts=F("consecutive_timeouts") + 1 if unreachable else 0
    )
    now = timezone.now()
    if probe:
        opens = delivery.subscription.circuit_opens + 1
        Subscription.objects.filter(pk=subscription_id).update(
            circuit_opens=opens, circuit_open_until=now + cooldown(opens)
        )
    elif unreachable:
        Subscription.objects.filter(
            pk=subscription_id,
            circuit_open_until__isnull=True,
            consecutive_timeouts__gte=settings.WEBHOOK_CIRCUIT_TIMEOUTS,
        ).update(circuit_opens=1, circuit_open_until=now + cooldown(1))


def closed(delivery: Delivery, held_until: dt.datetime) -> list[str]:
    """The probe succeeded (its success closed the circuit): the deliveries that waited for it
    are due now. Returns their ids, to be queued."""
    now = timezone.now()
    waiting = Delivery.objects.filter(
        subscription_id=delivery.subscription_id,
        state=DeliveryState.PENDING,
        next_attempt_at__gt=now,
        next_attempt_at__lte=held_until,
    )
    ids = [str(pk) for pk in waiting.values_list("pk", flat=True)]
    Delivery.objects.filter(pk__in=ids, state=DeliveryState.PENDING).update(next_attempt_at=now)
    return ids

"""Thin Celery tasks on the `default` lane; each calls one service and is safe to run twice
(a mail already sent is skipped). Only a temporary refusal of the mail server is retried."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from notifications import services
from notifications.errors import TransientMailError

# Each step of an SMTP conversation waits EMAIL_TIMEOUT at most; a task sends a team's few
# mails. A temporary refusal is tried again after about 1, 2, 4... minutes, six times at most.
MAILING: dict[str, Any] = {
    "autoretry_for": (TransientMailError,),
    "retry_backoff": 60,
    "retry_backoff_max": 3600,
    "max_retries": 6,
    "soft_time_limit": 120,
    "time_limit": 150,
}


@shared_task(name="notifications.mail_event", **MAILING)
def mail_event(event_id: str) -> int:
    return services.mail_event(event_id=event_id)


@shared_task(name="notifications.mail_account_expired", **MAILING)
def mail_account_expired(account_id: str, occurrence: str) -> int:
    return services.mail_account_expired(account_id=account_id, occurrence=occurrence)

"""Mail notifications: queued when what they tell of commits, sent once each.

Two listeners start everything: `event_recorded` (every event `webhooks.services.emit`
records: approval asked for, approved or rejected, failed or partial) and `account_expired`
(`accounts.services.account_mark_expired`). Each runs inside the change's transaction and only
queues a task after commit, so a rolled-back change mails no one and the broker is never
called inside a transaction. The task works out who gets what (`mails`) and sends each mail.

Sending once: a `SentMail` row is written before its mail goes out (the unique constraint
refuses a second), marked sent after. A refusal the server calls temporary (`errors`) deletes
the row and fails the task so it tries again later, skipping the mails already sent; a
permanent one is kept on the row with the server's words and never retried. A worker killed
mid-send leaves its row unsent and the mail unsent: at most once, never twice.
"""

from __future__ import annotations

import datetime as dt
import logging
import smtplib
from collections.abc import Iterable
from typing import Any

from django.contrib.auth.models import User
from django.core.mail import EmailMessage
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import AccountStatus, SocialAccount
from notifications import errors, mails
from notifications.models import Kind, Preference, SentMail
from webhooks.models import Event

logger = logging.getLogger(__name__)


# --- the listeners -------------------------------------------------------------------------


def event_recorded(event: Event) -> None:
    """Queue the event's mails after commit; an event that mails no one costs nothing more."""
    if mails.kind_of(event) is not None:
        _after_commit("mail_event", str(event.pk))


def account_expired(account: SocialAccount, *, expired_at: dt.datetime) -> None:
    _after_commit("mail_account_expired", str(account.pk), expired_at.isoformat())


def _after_commit(task_name: str, *args: str) -> None:
    transaction.on_commit(lambda: _enqueue(task_name, args))


def _enqueue(task_name: str, args: tuple[str, ...]) -> None:
    """Hand the task to the broker. The change has committed: when the broker refuses, the
    mails are lost (logged), never the change."""
    from notifications import tasks

    try:
        getattr(tasks, task_name).apply_async(args=args, retry=False)
    except Exception:  # whatever the broker raised, the caller's change stands
        logger.warning("Could not queue %s%s; these mails are not sent", task_name, args, exc_info=True)


# --- sending -------------------------------------------------------------------------------


def mail_event(*, event_id: str) -> int:
    """Send the mails an event causes; how many were sent by this run."""
    event = Event.objects.select_related("team").filter(pk=event_id).first()
    return 0 if event is None else _send(mails.for_event(event))


def mail_account_expired(*, account_id: str, occurrence: str) -> int:
    """Send the mails of an account's expiry, unless it was re-authorized since."""
    account = SocialAccount.objects.select_related("team").filter(pk=account_id, status=AccountStatus.EXPIRED).first()
    return 0 if account is None else _send(mails.for_expired_account(account, occurrence=occurrence))


def _send(to_send: Iterable[mails.Mail]) -> int:
    return sum(_deliver(mail) for mail in to_send)


def _deliver(mail: mails.Mail) -> bool:
    record = _claim(mail)
    if record is None:
        return False  # sent already, or being sent by another run
    try:
        EmailMessage(mail.subject, mail.body, to=[mail.user.email]).send()
    except (smtplib.SMTPException, OSError) as exc:
        return _refused(record, exc)
    SentMail.objects.filter(pk=record.pk).update(sent_at=timezone.now())
    return True


def _claim(mail: mails.Mail) -> SentMail | None:
    fields: dict[str, Any] = {"kind": mail.kind, "user": mail.user, "object_id": mail.object_id}
    try:
        with transaction.atomic():
            return SentMail.objects.create(
                **fields, occurrence=mail.occurrence, team=mail.team, to=mail.user.email, subject=mail.subject
            )
    except IntegrityError:
        return None


def _refused(record: SentMail, exc: BaseException) -> bool:
    if errors.is_transient(exc):
        record.delete()  # the next try claims it again
        raise errors.TransientMailError(f"The mail server could not take the mail to {record.to} now: {exc}") from exc
    logger.warning("The mail server refused the %s mail to user %s: %s", record.kind, record.user_id, exc)
    SentMail.objects.filter(pk=record.pk).update(error=str(exc)[:300])
    return False


# --- preferences ---------------------------------------------------------------------------


def preference_set(*, user: User, wanted: Iterable[str]) -> Preference:
    """Turn on the kinds in `wanted` for the user, and every other kind off."""
    on = set(wanted)
    unknown = on - set(Kind.values)
    if unknown:
        raise ValueError(f"unknown notification kinds {sorted(unknown)}")
    preference, _ = Preference.objects.update_or_create(user=user, defaults={k: k in on for k in Kind.values})
    return preference

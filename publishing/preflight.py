"""Preflight: each scheduled publish is checked against its accounts as they are now,
PREFLIGHT_SECONDS before its time, so that a problem shows while there is time to fix it.

`preflight_due()` (the beat task `publishing.preflight`) takes the publishes due within the
window that have no check for their current `scheduled_at` (a reschedule asks for a new one),
and those whose last check found problems (once fixed, the warning goes). Each scheduled
target is checked with the rules that already exist, never copies of them: its account still
usable (`validation.accounts_checked`), its token good at the post's time (renewed now by
`accounts.services.account_refresh` where it can be; a refusal is a problem), the live read of
the account's capabilities where its platform has one (a refused token expires the account),
its media still ready uploads of the team, and its effective post and thread as the create
validated them (`validation.problems_of`).

The findings are written on the publish (`preflight`) under its row lock, taken with SKIP
LOCKED: a publish a transition holds (or the release takes) is left for the next run. A check
that finds problems the previous check for the same time did not find emits `post.at_risk` in
that transaction, so each problem is told once.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.text import capfirst

from accounts.capabilities import account_capabilities
from accounts.models import AccountStatus, SocialAccount
from accounts.platforms.registry import NoClient, client_for
from accounts.services import account_refresh, account_renewable
from media.selectors import ready_media_by_ids
from publishing import validation
from publishing.models import Publish, PublishStatus, Target, TargetState
from publishing.status import event_data
from teams.models import Team
from webhooks.models import EventType
from webhooks.services import emit

# A problem as stored and told: {"target_id", "account_id", "platform", "code", "message"}.
Problem = dict[str, str]


def window() -> dt.timedelta:
    return dt.timedelta(seconds=settings.PREFLIGHT_SECONDS)


def _iso(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")


# --- reading ---------------------------------------------------------------------------------


def findings(publish: Publish) -> dict[str, Any] | None:
    """The publish's check for its current `scheduled_at`; None when it has none (never
    checked, or checked for a time it was moved from)."""
    found: dict[str, Any] | None = publish.preflight
    if not found or publish.scheduled_at is None or found.get("scheduled_at") != _iso(publish.scheduled_at):
        return None
    return found


def at_risk_problems(publish: Publish) -> list[Problem]:
    """The problems of a publish still waiting for its time: what there is to fix."""
    found = findings(publish)
    return list(found["problems"]) if found and publish.status == PublishStatus.SCHEDULED else []


def publishes_at_risk(*, team: Team) -> list[Publish]:
    """The team's scheduled publishes whose check found problems, soonest first. Only those
    within the window have a check, so few rows are read."""
    checked = Publish.objects.filter(team=team, status=PublishStatus.SCHEDULED, preflight__isnull=False)
    return [p for p in checked.order_by("scheduled_at", "id") if at_risk_problems(p)]


# --- checking --------------------------------------------------------------------------------


def preflight_due(*, now: dt.datetime | None = None) -> int:
    """Check every scheduled publish due within PREFLIGHT_SECONDS that needs it (see the module
    docstring). Returns how many checks were recorded."""
    now = now or timezone.now()
    due = (
        Publish.objects.filter(
            status=PublishStatus.SCHEDULED, release__due_at__gt=now, release__due_at__lte=now + window()
        )
        .select_related("team")
        .order_by("release__due_at")
    )
    wanted = [publish for publish in due if _needs_check(publish)]
    return sum(publish_preflight(publish=publish, now=now) for publish in wanted)


def _needs_check(publish: Publish) -> bool:
    found = findings(publish)
    return found is None or bool(found["problems"])


def publish_preflight(*, publish: Publish, now: dt.datetime | None = None) -> bool:
    """Check the publish's scheduled targets now and record the findings; False when it moved
    or was busy meanwhile (nothing recorded)."""
    if publish.scheduled_at is None:
        return False
    problems = publish_problems(publish)
    return _record(publish.pk, publish.scheduled_at, problems, now or timezone.now())


def publish_problems(publish: Publish) -> list[Problem]:
    """What would keep each scheduled target from going out at the publish's time. May renew
    tokens and read the platforms (through the accounts' services): never inside a transaction."""
    targets = list(publish.targets.filter(state=TargetState.SCHEDULED).order_by("created_at", "id"))
    account_ids = [str(t.account_id) for t in targets]
    accounts = {str(a.pk): a for a in SocialAccount.objects.filter(pk__in=account_ids)}
    _, refusals = validation.accounts_checked(team=publish.team, account_ids=account_ids, known=accounts)
    missing = _missing_media(publish, targets)
    problems: list[Problem] = []
    for index, target in enumerate(targets):
        if (refusal := refusals.get(index)) is not None:
            found = [(refusal.code, capfirst(refusal.message.removeprefix(f"targets[{index}]: ")))]
        else:
            found = _target_problems(publish, target, accounts[str(target.account_id)], missing)
        problems += [_problem(target, code, message) for code, message in found]
    return problems


def _problem(target: Target, code: str, message: str) -> Problem:
    return {
        "target_id": str(target.pk),
        "account_id": str(target.account_id),
        "platform": target.platform,
        "code": code,
        "message": message,
    }


def _target_problems(
    publish: Publish, target: Target, account: SocialAccount, missing: set[str]
) -> list[tuple[str, str]]:
    """An active account's target: its token (read live where it can be), and its media or,
    when every file is there, its post."""
    assert publish.scheduled_at is not None  # noqa: S101 - publish_preflight checked it
    found = _token_problems(account, publish.scheduled_at) or _live_problems(account)
    gone = [i for i in _media_of(publish, target) if i in missing]
    if gone:
        return [*found, ("MEDIA_NOT_FOUND", f"Media no longer in the library: {', '.join(gone)}. Choose other files.")]
    _, _, post, thread = validation.effective_posts_with_threads(publish, [target], accounts=_by_id(account))[0]
    return found + [(p.code, p.message) for p in validation.problems_of(account, post, thread)]


def _by_id(account: SocialAccount) -> dict[str, SocialAccount]:
    return {str(account.pk): account}


def _token_problems(account: SocialAccount, scheduled_at: dt.datetime) -> list[tuple[str, str]]:
    """A token that expires before the post's time: renewed now where it can be."""
    expires_at = account.token_expires_at
    if expires_at is None or expires_at > scheduled_at:
        return []
    if not account_renewable(account):
        when = expires_at.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
        message = f"The account's token expires at {when}, before the post's time, and cannot be renewed"
        return [("TOKEN_EXPIRES", f"{message}: re-authorize the account.")]
    if account_refresh(account=account):
        return []
    account.refresh_from_db(fields=["status", "status_reason"])
    if account.status != AccountStatus.ACTIVE:  # refused: account_refresh expired it
        return [("TOKEN_REFRESH_REFUSED", f"{account.platform} refused to renew the token: re-authorize the account.")]
    return []  # the platform could not be reached: the token refresh tries again on its own


def _live_problems(account: SocialAccount) -> list[tuple[str, str]]:
    """Where the platform has live options, reading them (or their cached copy) proves the
    token; one the platform refuses expires the account."""
    try:
        if not client_for(account.platform).has_options:
            return []
    except NoClient:
        return []  # validation's rules name the platform
    error = account_capabilities(account=account)["live"]["error"]
    if error is not None and error["code"] == "ACCOUNT_EXPIRED":
        return [("TOKEN_REFUSED", error["message"])]
    return []


def _media_of(publish: Publish, target: Target) -> list[str]:
    """The files the target sends: its own or the publish's, and its thread items'."""
    own = list(publish.media_ids if target.media_ids is None else target.media_ids)
    return own + [i for item in validation.thread_of(target) for i in item.media_ids]


def _missing_media(publish: Publish, targets: list[Target]) -> set[str]:
    wanted = list(dict.fromkeys(i for target in targets for i in _media_of(publish, target)))
    if not wanted:
        return set()
    _, missing = ready_media_by_ids(team=publish.team, media_ids=wanted)
    return set(missing)


# --- recording -------------------------------------------------------------------------------


def _told(problems: list[Problem]) -> set[tuple[str, str]]:
    return {(p["target_id"], p["code"]) for p in problems}


@transaction.atomic
def _record(publish_id: Any, scheduled_at: dt.datetime, problems: list[Problem], now: dt.datetime) -> bool:
    """Write the findings if the publish still waits for the time they were made for; emit
    `post.at_risk` when they hold a problem the previous check for that time did not."""
    publish = (
        Publish.objects.select_for_update(skip_locked=True, of=("self",))
        .select_related("team")
        .filter(pk=publish_id)
        .first()
    )
    if publish is None or publish.status != PublishStatus.SCHEDULED or publish.scheduled_at != scheduled_at:
        return False
    before = findings(publish)
    publish.preflight = {"checked_at": _iso(now), "scheduled_at": _iso(scheduled_at), "problems": problems}
    # Not an edit of the publish: its updated_at stays.
    Publish.objects.filter(pk=publish.pk).update(preflight=publish.preflight)
    if problems and not _told(problems) <= _told(before["problems"] if before else []):
        emit(team=publish.team, event_type=EventType.POST_AT_RISK, data=event_data(publish, problems=problems))
    return True

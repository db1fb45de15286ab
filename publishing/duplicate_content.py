"""Duplicate content: a new publish's text that one of its accounts already got, or is set to
get, within the team's window (`Team.duplicate_window_hours` before or after the new one goes).

Texts are compared after trimming and collapsing whitespace; an empty text (a post of media
only) is never a duplicate. What counts is a target still going out or gone: scheduled,
queued, sending, processing, unknown or published, and the draft targets of a submitted
publish waiting for approval. Failed targets, unconfirmed drafts, rejected publishes and
discarded ones (deleted) do not. An earlier target's instant is when it was published, else
its publish's time, else when that publish was made.

The create and its dry run (`checks.publish_check`) both ask `duplicates_of`; the create
refuses with 409 DUPLICATE_CONTENT when the team blocks duplicates (`check`), and otherwise
answers the list as warnings. (The dashboard's *Duplicate*, `publishing.duplicate`, copies a
publish into a new draft; this module finds repeats.)
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Q

from config.errors import Conflict
from publishing.models import ApprovalStatus, Publish, PublishMode, Target, TargetState
from teams.models import Team

CODE = "DUPLICATE_CONTENT"
# Every code a create's `warnings` may carry (the OpenAPI document's WarningCodeEnum).
WARNING_CODES = [CODE]

# Targets that are going out or went: the ones a repeat would follow.
_GOING = [
    TargetState.SCHEDULED,
    TargetState.QUEUED,
    TargetState.SENDING,
    TargetState.PROCESSING,
    TargetState.UNKNOWN,
    TargetState.PUBLISHED,
]


@dataclass(frozen=True)
class DuplicateWarning:
    """The new publish's target on `account_id` repeats the text of publish `publish_id`, which
    went or goes to that account at `at`."""

    account_id: str
    publish_id: str
    at: dt.datetime
    code: str = CODE

    def as_dict(self) -> dict[str, Any]:
        """The API's warning object."""
        return {"code": self.code, "account_id": self.account_id, "publish_id": self.publish_id}


def normalized(text: str) -> str:
    return " ".join(text.split())


def instant_of(publish: Publish, *, now: dt.datetime) -> dt.datetime:
    """When a new publish goes: now for an immediate one, its time for a scheduled one, and for
    a draft its planned time, else now."""
    if publish.publish_mode == PublishMode.IMMEDIATE or publish.scheduled_at is None:
        return now
    return publish.scheduled_at


def duplicates_of(*, team: Team, publish: Publish, rows: Sequence[Target], now: dt.datetime) -> list[DuplicateWarning]:
    """For each of `rows` (the new publish's targets, in order) whose effective text another
    publish of the team sent or sends to the same account within the window, one warning
    naming the most recently made such publish. One query for all the rows."""
    texts = {str(row.account_id): normalized(publish.content if row.content is None else row.content) for row in rows}
    texts = {account: text for account, text in texts.items() if text}
    if not texts:
        return []
    instant = instant_of(publish, now=now)
    window = dt.timedelta(hours=team.duplicate_window_hours)
    latest: dict[str, DuplicateWarning] = {}
    for earlier in _earlier(team, publish, list(texts), instant - window, instant + window):
        account = str(earlier["account_id"])
        text = earlier["content"] if earlier["content"] is not None else earlier["publish__content"]
        if normalized(text) == texts[account] and account not in latest:
            at = earlier["published_at"] or earlier["publish__scheduled_at"] or earlier["publish__created_at"]
            latest[account] = DuplicateWarning(account, str(earlier["publish_id"]), at)
    return [latest[str(row.account_id)] for row in rows if str(row.account_id) in latest]


def _earlier(
    team: Team, publish: Publish, account_ids: list[str], start: dt.datetime, end: dt.datetime
) -> list[dict[str, Any]]:
    """The team's targets on `account_ids` going out or gone between `start` and `end`, newest
    publish first. Each bound is on a plain column (no COALESCE), so the database can range over
    it; which column holds a target's instant is spelled out instead."""
    sent = Q(published_at__range=(start, end))
    planned = Q(published_at__isnull=True, publish__scheduled_at__range=(start, end))
    made = Q(published_at__isnull=True, publish__scheduled_at__isnull=True, publish__created_at__range=(start, end))
    waiting = Q(state=TargetState.DRAFT, publish__confirmed=True, publish__approval_status=ApprovalStatus.PENDING)
    found = (
        Target.objects.filter(
            Q(state__in=_GOING) | waiting, publish__team=team, account_id__in=[uuid.UUID(a) for a in account_ids]
        )
        .filter(sent | planned | made)
        .exclude(publish_id=publish.pk)
        .order_by("-publish__created_at", "-publish_id")
        .values(
            "account_id",
            "content",
            "published_at",
            "publish_id",
            "publish__content",
            "publish__scheduled_at",
            "publish__created_at",
        )
    )
    return [dict(row) for row in found]


def refusal(*, team: Team, found: Sequence[DuplicateWarning], rows: Sequence[Target]) -> Conflict | None:
    """The 409 a team that blocks duplicates answers for `found`, naming the first one."""
    if not team.block_duplicates or not found:
        return None
    first = found[0]
    index = next(i for i, row in enumerate(rows) if str(row.account_id) == first.account_id)
    return Conflict(
        f"targets[{index}]: this account already got the same text within {team.duplicate_window_hours} hours "
        f"(publish {first.publish_id}), and the team refuses duplicate posts.",
        code=CODE,
        details={"target": index, "account_id": first.account_id, "publish_id": first.publish_id},
    )


def check(*, team: Team, publish: Publish, rows: Sequence[Target], now: dt.datetime) -> list[DuplicateWarning]:
    """`duplicates_of`, raising the 409 instead when the team blocks duplicates."""
    found = duplicates_of(team=team, publish=publish, rows=rows, now=now)
    if (refused := refusal(team=team, found=found, rows=rows)) is not None:
        raise refused
    return found

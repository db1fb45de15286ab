"""Duplicate content: a new publish's text that one of its accounts already got, or is set to
get, within the team's window (`Team.duplicate_window_hours` before or after the new one goes).

Texts are compared after trimming and collapsing whitespace (`publishing.texts`), by the key
each target stores of its text, so a check reads only the repeats however many posts the
accounts have in the window; an empty text (a post of media only) is never a duplicate. What
counts is a target still going out or gone: scheduled, queued, sending, processing, unknown or
published, and the draft targets of a submitted publish waiting for approval. Failed targets,
unconfirmed drafts, rejected publishes and discarded ones (deleted) do not. An earlier
target's instant is when it was published, else its publish's time, else when that publish was
made.

The create and its dry run (`checks.publish_check`) both ask `duplicates_of`; the create
refuses with 409 DUPLICATE_CONTENT when the team blocks duplicates (`check`), and otherwise
answers the list as warnings. (The dashboard's *Duplicate*, `publishing.duplicate`, copies a
publish into a new draft; this module finds repeats.)
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from config.errors import Conflict
from publishing.models import ApprovalStatus, Publish, PublishMode, Target, TargetState
from publishing.texts import text_key
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


def instant_of(publish: Publish, *, now: dt.datetime) -> dt.datetime:
    """When a new publish goes: now for an immediate one, its time for a scheduled one, and for
    a draft its planned time, else now."""
    if publish.publish_mode == PublishMode.IMMEDIATE or publish.scheduled_at is None:
        return now
    return publish.scheduled_at


# What is read of an earlier target: account_id, text_key, state, published_at, publish_id, and
# its publish's team_id, confirmed, approval_status, scheduled_at and created_at.
_FIELDS = (
    "account_id",
    "text_key",
    "state",
    "published_at",
    "publish_id",
    "publish__team_id",
    "publish__confirmed",
    "publish__approval_status",
    "publish__scheduled_at",
    "publish__created_at",
)


class Known:
    """The earlier targets a batch of creates is compared with: read once for every account and
    text of the batch, then each publish the batch makes is added, so later rows see earlier
    ones and the batch asks the database once."""

    def __init__(self, *, team: Team, texts: Iterable[tuple[str, str | None]]) -> None:
        """`texts`: (account id, text) of every target of the batch."""
        pairs = {(account, text_key(text)) for account, text in texts}
        keys = {key for _, key in pairs if key}
        accounts = {account for account, key in pairs if key}
        self.team = team
        # By (account id, text key): the targets with that text on that account.
        self.rows: dict[tuple[str, str], list[tuple[Any, ...]]] = {}
        if keys:
            found = Target.objects.filter(
                publish__team=team, account_id__in=[uuid.UUID(a) for a in accounts], text_key__in=keys
            )
            for row in found.values_list(*_FIELDS):
                self.rows.setdefault((str(row[0]), row[1]), []).append(row)

    def matching(self, keys: dict[str, str]) -> list[tuple[Any, ...]]:
        """The targets on each account of `keys` with that account's key."""
        return [row for pair in keys.items() for row in self.rows.get(pair, ())]

    def add(self, publish: Publish, rows: Sequence[Target]) -> None:
        for row in rows:
            self.rows.setdefault((str(row.account_id), row.text_key), []).append(
                (
                    row.account_id,
                    row.text_key,
                    row.state,
                    row.published_at,
                    publish.pk,
                    publish.team_id,
                    publish.confirmed,
                    publish.approval_status,
                    publish.scheduled_at,
                    publish.created_at,
                )
            )


def duplicates_of(
    *, team: Team, publish: Publish, rows: Sequence[Target], now: dt.datetime, known: Known | None = None
) -> list[DuplicateWarning]:
    """For each of `rows` (the new publish's targets, in order) whose effective text another
    publish of the team sent or sends to the same account within the window, one warning
    naming the most recently made such publish. One query for all the rows, or none when a
    batch's `known` targets are given."""
    keys = {str(row.account_id): text_key(publish.content if row.content is None else row.content) for row in rows}
    keys = {account: key for account, key in keys.items() if key}
    if not keys:
        return []
    instant = instant_of(publish, now=now)
    window = dt.timedelta(hours=team.duplicate_window_hours)
    latest: dict[str, DuplicateWarning] = {}
    for earlier in _earlier(team, publish, keys, instant - window, instant + window, known):
        account = str(earlier["account_id"])
        if earlier["text_key"] == keys[account] and account not in latest:
            latest[account] = DuplicateWarning(account, str(earlier["publish_id"]), earlier["at"])
    return [latest[str(row.account_id)] for row in rows if str(row.account_id) in latest]


def _earlier(
    team: Team, publish: Publish, keys: dict[str, str], start: dt.datetime, end: dt.datetime, known: Known | None
) -> list[dict[str, Any]]:
    """The team's targets on the accounts of `keys` (account id to text key) with one of those
    keys, going out or gone between `start` and `end`, newest publish first. The database finds
    the targets of those accounts with those keys (an index holds both); which of them count,
    and when each goes, is decided here: they are the repeats alone, so few."""
    if known is None:
        query = Target.objects.filter(account_id__in=[uuid.UUID(a) for a in keys], text_key__in=set(keys.values()))
        found: Iterable[tuple[Any, ...]] = query.values_list(*_FIELDS)
    else:
        found = known.matching(keys)
    rows = []
    for account, key, state, published_at, publish_id, team_id, confirmed, approval, scheduled_at, created_at in found:
        if str(publish_id) == str(publish.pk) or keys.get(str(account)) != key:
            continue
        waiting = state == TargetState.DRAFT and confirmed and approval == ApprovalStatus.PENDING
        at = published_at or scheduled_at or created_at
        if team_id == team.pk and (state in _GOING or waiting) and start <= at <= end:
            rows.append(
                {"account_id": account, "text_key": key, "publish_id": publish_id, "at": at, "created_at": created_at}
            )
    return sorted(rows, key=lambda row: (row["created_at"], str(row["publish_id"])), reverse=True)


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


def check(
    *, team: Team, publish: Publish, rows: Sequence[Target], now: dt.datetime, known: Known | None = None
) -> list[DuplicateWarning]:
    """`duplicates_of`, raising the 409 instead when the team blocks duplicates."""
    found = duplicates_of(team=team, publish=publish, rows=rows, now=now, known=known)
    if (refused := refusal(team=team, found=found, rows=rows)) is not None:
        raise refused
    return found

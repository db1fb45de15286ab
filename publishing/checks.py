"""Check a create without doing it: what `lifecycle.publish_create` would refuse, every problem
of every target at once, and each target's text length as its platform counts it.

The dashboard's compose page asks this as the user types. It runs the create's own rules, never a copy of them: the
lifecycle's for the targets and the time, `validation`'s for the accounts, the media and each
target's effective post, `duplicate_content`'s for texts the accounts already got. Where those
raise at the first problem, this goes on, so a request's problems come out together. Nothing is
written, counted against the quota or sent.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from django.utils import timezone

from accounts.models import SocialAccount
from accounts.platforms.base import Post, Problem
from accounts.platforms.registry import NoClient, client_for
from config.errors import ApplicationError
from publishing import approval, duplicate_content, inputs, lifecycle, queue, validation
from publishing.duplicate_content import DuplicateWarning
from publishing.models import QUEUE_MODE, Id, Publish, PublishMode, Target
from teams.models import Team
from teams.services import quota_check


@dataclass(frozen=True)
class TargetCheck:
    """One target: its account's platform (None when there is no such account in the team),
    its effective text's length and limit as the platform counts them, and its problems.
    `text` is that effective text (None when unchecked), for the dashboard's preview; the API
    does not answer it."""

    account_id: str
    platform: str | None = None
    length: int | None = None
    limit: int | None = None
    problems: list[Problem] = field(default_factory=list)
    text: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "account_id": self.account_id,
            "platform": self.platform,
            "length": self.length,
            "limit": self.limit,
            "problems": [_problem_dict(p) for p in self.problems],
        }


@dataclass(frozen=True)
class CreateCheck:
    """The whole request: problems of no one target (field `targets`, `scheduled_at`,
    `media_ids`), each target's check in request order, whether the publish would wait for
    approval, and the targets repeating a text their account got within the team's window
    (in a team that blocks duplicates, each is also a problem of its target)."""

    problems: list[Problem]
    targets: list[TargetCheck]
    waits_for_approval: bool
    # The error the create would answer with (the first it meets, in the create's order), or
    # None when it would create the publish.
    refusal: ApplicationError | None = None
    # When a queue create would be scheduled: the first free slot now (None for other modes,
    # or when no slot suits).
    scheduled_at: dt.datetime | None = None
    warnings: list[DuplicateWarning] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and not any(t.problems for t in self.targets)

    def as_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "waits_for_approval": self.waits_for_approval,
            "problems": [_problem_dict(p) for p in self.problems],
            "targets": [t.as_dict() for t in self.targets],
            "warnings": [w.as_dict() for w in self.warnings],
        }


def _problem_dict(problem: Problem) -> dict[str, str]:
    return {"field": problem.field, "code": problem.code, "message": problem.message}


def publish_check(
    *,
    team: Team,
    caller: inputs.Caller,
    content: str,
    media_ids: list[str],
    targets: Sequence[inputs.TargetInput],
    publish_mode: str,
    scheduled_at: dt.datetime | None,
    reserved: Mapping[Any, Collection[dt.datetime]] | None = None,
    editing: Id | None = None,
) -> CreateCheck:
    """What `lifecycle.publish_create` with the same arguments would find wrong, all of it,
    without creating or counting anything. A problem the create reports for the request as a
    whole (no targets, the time, the month's quota used up, an account named twice, media
    that is not a ready upload)
    is in `problems`; an account's or a post's is in its target's. `reserved`: by account id,
    slot instants a queue create must not take (those of a batch's earlier rows). `editing` names the stored
    publish the request would become (the dashboard's edit page): it is no duplicate of itself,
    and its duplicates are warnings only, since an edit does not refuse them."""
    first = _First()
    problems = first.refused(lambda: lifecycle.require_targets(targets), "targets", rank=0)
    now = timezone.now()
    problems += first.refused(
        lambda: lifecycle.check_schedule(publish_mode=publish_mode, scheduled_at=scheduled_at, now=now),
        "scheduled_at",
        rank=1,
    )
    if publish_mode != PublishMode.DRAFT:  # a draft counts when it is confirmed; the create counts last
        problems += first.refused(lambda: quota_check(team=team), "quota", rank=9)
    waits = approval.waits_for_approval(team=team, caller=caller, publish_mode=publish_mode)
    try:
        found, refusals = validation.accounts_checked(team=team, account_ids=[t.account_id for t in targets])
    except ApplicationError as exc:
        first.note(exc, rank=2)
        unchecked = [TargetCheck(t.account_id) for t in targets]
        return CreateCheck([*problems, _problem(exc, "targets")], unchecked, waits, first.error)
    checks: list[TargetCheck] = []
    for index, target in enumerate(targets):
        refusal = refusals.get(index)
        if refusal is not None:
            first.note(refusal, rank=3)
        checks.append(TargetCheck(target.account_id, problems=[_problem(refusal, "account_id")] if refusal else []))
    usable = [(i, t) for i, t in enumerate(targets) if i not in refusals]
    try:
        posts = _effective_posts(team, content, media_ids, usable, found)
    except ApplicationError as exc:
        first.note(exc, rank=4)
        return CreateCheck([*problems, _problem(exc, "media_ids")], checks, waits, first.error)
    for index, account, post, thread in posts:
        checks[index] = _target_check(checks[index], account, post, thread)
    try:
        found_problems = [(index, account, checks[index].problems) for index, account, _, _ in posts]
        validation.raise_for_problems(found_problems, unsupported_media_is_422=False)
    except ApplicationError as exc:
        first.note(exc, rank=5)
    slot = None
    if publish_mode == QUEUE_MODE and not refusals and targets:
        try:
            slot = queue.first_free_slot(
                accounts=[found[t.account_id] for t in targets], now=now, reserved=reserved or {}
            )
        except ApplicationError as exc:
            first.note(exc, rank=6)
            problems.append(_problem(exc, "publish_mode"))
    # A queue create goes at its slot, as the create decides it before looking for duplicates.
    mode = PublishMode.SCHEDULED if slot is not None else publish_mode
    publish = Publish(team=team, content=content, publish_mode=mode, scheduled_at=slot or scheduled_at)
    if editing is not None:
        publish.pk = editing
    rows = [Target(publish=publish, account_id=t.account_id, content=t.content) for t in targets]
    warnings = duplicate_content.duplicates_of(team=team, publish=publish, rows=[rows[i] for i, _ in usable], now=now)
    if editing is None:
        _refuse_duplicates(first, team, checks, rows, warnings)
    return CreateCheck(problems, checks, waits, first.error, slot, warnings)


def _refuse_duplicates(
    first: _First, team: Team, checks: list[TargetCheck], rows: list[Target], warnings: list[DuplicateWarning]
) -> None:
    """In a team that blocks duplicates, the create's 409 and each repeating target's problem."""
    refusal = duplicate_content.refusal(team=team, found=warnings, rows=rows)
    if refusal is None:
        return
    first.note(refusal, rank=7)
    repeated = {w.account_id: w for w in warnings}
    for index, check in enumerate(checks):
        if (warning := repeated.get(check.account_id)) is not None:
            message = (
                f"This account already got the same text within {team.duplicate_window_hours} hours "
                f"(publish {warning.publish_id}), and the team refuses duplicate posts."
            )
            problem = Problem("content", refusal.code, message)
            checks[index] = replace(check, problems=[*check.problems, problem])


class _First:
    """The error the create would raise first: each one noted with the rank of the step of
    `lifecycle.publish_create` that raises it; the lowest rank wins, the first noted among equals."""

    def __init__(self) -> None:
        self._best: tuple[int, ApplicationError] | None = None

    @property
    def error(self) -> ApplicationError | None:
        return None if self._best is None else self._best[1]

    def note(self, exc: ApplicationError, *, rank: int) -> None:
        if self._best is None or rank < self._best[0]:
            self._best = (rank, exc)

    def refused(self, rule: Callable[[], None], field_name: str, *, rank: int) -> list[Problem]:
        try:
            rule()
        except ApplicationError as exc:
            self.note(exc, rank=rank)
            return [_problem(exc, field_name)]
        return []


def _effective_posts(
    team: Team,
    content: str,
    media_ids: list[str],
    usable: list[tuple[int, inputs.TargetInput]],
    accounts: dict[str, SocialAccount],
) -> list[tuple[int, SocialAccount, Post, list[Post]]]:
    """Each usable target's effective post and thread items, by its index in the request: unsaved rows, built
    as the create builds them, through the create's own validation."""
    publish = Publish(team=team, content=content, media_ids=media_ids)
    rows = [
        inputs.with_thread(
            Target(
                publish=publish,
                account=accounts[t.account_id],
                content=t.content,
                media_ids=t.media_ids,
                platform_settings=t.platform_settings or {},
            ),
            t,
        )
        for _, t in usable
    ]
    posts = validation.effective_posts_with_threads(publish, rows, accounts=accounts)
    return [(usable[position][0], account, post, thread) for position, account, post, thread in posts]


def _target_check(check: TargetCheck, account: SocialAccount, post: Post, thread: list[Post]) -> TargetCheck:
    problems = validation.problems_of(account, post, thread)
    try:
        client = client_for(account.platform)
    except NoClient:
        return TargetCheck(check.account_id, account.platform, problems=problems, text=post.text)
    length, limit = client.text_length(post.text), client.text_limit(post)
    return TargetCheck(check.account_id, account.platform, length, limit, problems, post.text)


def _problem(exc: ApplicationError, field_name: str) -> Problem:
    return Problem(field_name, exc.code, exc.message)

"""Reads of publishes for the API, the dashboard and the admin."""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from django.contrib.auth.models import User
from django.db import connection
from django.db.models import Exists, F, JSONField, OuterRef, Prefetch, Q, QuerySet, TextField
from django.db.models.expressions import RawSQL
from django.db.models.functions import Cast
from django.db.models.query import ModelIterable
from django.utils.dateparse import parse_datetime

from accounts.models import SocialAccount
from config.db import run
from publishing import outbox
from publishing.models import (
    CALENDAR_AT,
    ApprovalStatus,
    DeliveryAttempt,
    Id,
    Publish,
    PublishStatus,
    Target,
    TargetState,
    ThreadItem,
)
from teams.models import Membership, Role, Team

# The attempt fields a publish's representation shows; read with the targets, not apart.
ATTEMPT_FIELDS = (
    "number",
    "state",
    "tries",
    "error_code",
    "error_message",
    "http_status",
    "started_at",
    "finished_at",
)
_ATTEMPT_TIMES = ("started_at", "finished_at")
# The thread item fields a representation shows, read the same way.
THREAD_ITEM_FIELDS = (
    "kind",
    "position",
    "content",
    "media_ids",
    "state",
    "platform_post_id",
    "platform_post_url",
    "error_code",
    "error_message",
)


# The target's attempts as one JSON array, in SQL written once: composing it with the ORM on
# every request cost more than the query it saves.
_ATTEMPT_ROWS = {
    "postgresql": "SELECT JSONB_AGG(JSONB_BUILD_OBJECT({fields})) FROM {table} WHERE target_id = {target}",
    "sqlite": "SELECT JSON_GROUP_ARRAY(JSON_OBJECT({fields})) FROM {table} WHERE target_id = {target}",
}
# What an attempt's representation shows of its request: the files it sent (`media_sent`).
_MEDIA_SENT = {"postgresql": "request -> 'media'", "sqlite": "JSON_EXTRACT(request, '$.media')"}


def _attempt_rows(
    model: type[DeliveryAttempt | ThreadItem] = DeliveryAttempt, fields: tuple[str, ...] = ATTEMPT_FIELDS
) -> RawSQL:
    vendor = connection.vendor if connection.vendor in _ATTEMPT_ROWS else "postgresql"
    columns = [f"'{name}', {_column(model, name)}" for name in fields]
    target = f'"{Target._meta.db_table}"."id"'
    if model is DeliveryAttempt:
        columns.append(f"'media_sent', {_MEDIA_SENT[vendor]}")
        target += " AND item_id IS NULL"  # a reply's attempts are its own, not the target's
    sql = _ATTEMPT_ROWS[vendor].format(fields=", ".join(columns), table=model._meta.db_table, target=target)
    # Built from the model's own names and constants only: nothing of a request reaches it.
    return RawSQL(sql, (), output_field=JSONField())  # noqa: S611


def _column(model: type[DeliveryAttempt | ThreadItem], name: str) -> str:
    """The column as the JSON object takes it: SQLite keeps a JSON field as text, which
    JSON_OBJECT would quote as a string unless it is read as JSON."""
    if connection.vendor == "sqlite" and isinstance(model._meta.get_field(name), JSONField):
        return f"JSON({name})"
    return name


def _moment(value: str | None) -> dt.datetime | None:
    if value is None:
        return None
    moment = parse_datetime(value)
    if moment is not None and moment.tzinfo is None:  # SQLite keeps UTC without an offset
        moment = moment.replace(tzinfo=dt.UTC)
    return moment


def _attempt(target: Target, row: dict[str, Any]) -> DeliveryAttempt:
    values = {name: _moment(row[name]) if name in _ATTEMPT_TIMES else row[name] for name in ATTEMPT_FIELDS}
    attempt = DeliveryAttempt(target_id=target.pk, **values)
    attempt.media_sent = row.get("media_sent")  # type: ignore[attr-defined]
    return attempt


def media_sent(attempt: DeliveryAttempt) -> list[dict[str, Any]]:
    """The files an attempt sent: each upload, or the fitted rendition that went in its place
    (`publishing.sending` records them in the attempt's request)."""
    sent = getattr(attempt, "media_sent", None)  # attempts read with their targets carry it
    if sent is None and "request" not in attempt.get_deferred_fields():
        sent = (attempt.request or {}).get("media")
    return list(sent or [])


class _TargetsWithAttempts(ModelIterable[Target]):
    """Targets whose attempts came in the same query: `target.attempts.all()` reads them from
    memory (only the fields a representation shows are loaded)."""

    def __iter__(self) -> Iterator[Target]:
        for target in super().__iter__():
            rows = sorted(target.attempt_rows or (), key=lambda row: row["number"])  # type: ignore[attr-defined]
            items = sorted(target.thread_rows or (), key=lambda row: row["position"])  # type: ignore[attr-defined]
            target._prefetched_objects_cache = {  # type: ignore[attr-defined]
                "attempts": [_attempt(target, row) for row in rows],
                "thread_items": [ThreadItem(target_id=target.pk, **row) for row in items],
            }
            yield target


def targets_with_attempts() -> QuerySet[Target]:
    """Targets with their attempts and thread items, read in the same query."""
    items = _attempt_rows(ThreadItem, THREAD_ITEM_FIELDS)
    query = Target.objects.order_by("created_at", "id").annotate(attempt_rows=_attempt_rows(), thread_rows=items)
    query._iterable_class = _TargetsWithAttempts
    return query


class _PublishesWithTargets(ModelIterable[Publish]):
    """Publishes whose targets (with their attempts) are read in a second query, as
    `prefetch_related("targets")` reads them, but with nothing pointing back: the targets
    not at their publish, the list of them not at a queryset of it. With links both ways
    each publish is a cycle of objects that only the cyclic garbage collector frees, and its
    full collections stop the process's every thread (the tail of the latency)."""

    def __iter__(self) -> Iterator[Publish]:
        publishes = {publish.pk: publish for publish in super().__iter__()}
        targets: dict[Any, list[Target]] = {pk: [] for pk in publishes}
        if publishes:
            for target in targets_with_attempts().using(self.queryset.db).filter(publish_id__in=list(publishes)):
                targets[target.publish_id].append(target)
        for pk, publish in publishes.items():
            publish._prefetched_objects_cache = {"targets": targets[pk]}  # type: ignore[attr-defined]
        return iter(publishes.values())


def as_written(publish: Publish, targets: list[Target]) -> None:
    """Let a publish just written answer for its targets (and their attempts: none yet, and
    thread items) as `publishes_for` reads them, without reading them back. As there, the
    targets stop pointing back at the publish, so the graph is freed with the request rather
    than by the cyclic garbage collector."""
    publish._prefetched_objects_cache = {"targets": targets}  # type: ignore[attr-defined]
    for target in targets:
        items = [*(target.thread or []), *([target.comment] if target.comment else [])]
        target._prefetched_objects_cache = {"attempts": [], "thread_items": items}  # type: ignore[attr-defined]
        target._state.fields_cache.pop("publish", None)
        for item in items:
            item._state.fields_cache.pop("target", None)


def has_targets(publish: Publish) -> bool:
    """Whether the publish carries its targets as `publishes_for` or `as_written` loads them."""
    return "targets" in getattr(publish, "_prefetched_objects_cache", {})


def publishes_for(*, team: Team | None = None) -> QuerySet[Publish]:
    """Publishes with everything their representation reads, in two queries a page: the
    publishes with their users, then their targets with the targets' attempts."""
    query = Publish.objects.select_related("created_by", "approved_by", "rejected_by")
    query._iterable_class = _PublishesWithTargets
    return query if team is None else query.filter(team=team)


def publishes_using_media(*, team: Team, media_id: str) -> list[Publish]:
    """The team's publishes whose media, a target's own media or a thread item's name the
    upload, oldest first."""
    return publishes_using_each(team=team, media_ids=[media_id])[media_id]


def publishes_using_each(*, team: Team, media_ids: Sequence[str]) -> dict[str, list[Publish]]:
    """For each upload id, the team's publishes that name it (as `publishes_using_media`), in
    four queries however many ids. Matched on the JSON text, which holds each id as a quoted
    string: one plain query on SQLite and PostgreSQL alike, then checked on the parsed lists."""
    found: dict[str, list[Publish]] = {media_id: [] for media_id in media_ids}
    if not media_ids:
        return found
    naming = Q()
    for media_id in media_ids:
        naming |= Q(media_text__contains=f'"{media_id}"')
    rows = [
        *_naming_rows(Publish.objects.filter(team=team), "pk", naming),
        *_naming_rows(Target.objects.filter(publish__team=team), "publish_id", naming),
        *_naming_rows(ThreadItem.objects.filter(target__publish__team=team), "target__publish_id", naming),
    ]
    publishes = Publish.objects.in_bulk({publish_id for publish_id, _ in rows})
    for publish in sorted(publishes.values(), key=lambda p: (p.created_at, str(p.pk))):
        named = {str(i) for publish_id, ids in rows if publish_id == publish.pk for i in ids or []}
        for media_id in named & set(found):
            found[media_id].append(publish)
    return found


def _naming_rows(query: QuerySet[Any], publish_field: str, naming: Q) -> list[tuple[Any, list[Any]]]:
    annotated = query.annotate(media_text=Cast("media_ids", TextField())).filter(naming)
    return list(annotated.values_list(publish_field, "media_ids"))


def publishes_matching(
    *,
    team: Team,
    status: list[str] | None = None,
    platform: list[str] | None = None,
    account_id: Any = None,
    created_after: dt.datetime | None = None,
    created_before: dt.datetime | None = None,
    search: str | None = None,
) -> QuerySet[Publish]:
    """The team's publishes as `publishes_for` loads them, narrowed by the list's filters (each
    one given only when set): any of the statuses, a target on any of the platforms or on the
    account, created after and before a moment (both exclusive), the text in the content or in
    a target's override (case-insensitive)."""
    query = publishes_for(team=team)
    if status:
        query = query.filter(status__in=status)
    if created_after:
        query = query.filter(created_at__gt=created_after)
    if created_before:
        query = query.filter(created_at__lt=created_before)
    targets = Target.objects.filter(publish=OuterRef("pk"))
    if search:
        # icontains on both databases (SQLite folds ASCII case only); Django escapes % and _.
        query = query.filter(Q(content__icontains=search) | Exists(targets.filter(content__icontains=search)))
    if platform:
        query = query.filter(Exists(targets.filter(platform__in=platform)))
    if account_id:
        query = query.filter(Exists(targets.filter(account_id=account_id)))
    return query


def publish_by_id(*, team: Team, publish_id: str) -> Publish | None:
    """One of the team's publishes, loaded as `publishes_for` loads them (unordered: one row)."""
    return next(iter(publishes_for(team=team).filter(pk=publish_id).order_by()), None)


def with_accounts(publishes: Iterable[Publish]) -> None:
    """Give the targets of `publishes` (loaded as `publishes_for` loads them) their accounts,
    read in one query for all of them: pages that show each target's handle, or link a sandbox
    account's post to the sandbox, need them (the tokens are not read)."""
    targets = [target for publish in publishes for target in publish.targets.all()]
    accounts = SocialAccount.objects.defer("access_token", "refresh_token").in_bulk({t.account_id for t in targets})
    for target in targets:
        target.account = accounts[target.account_id]


def _falling_between(query: QuerySet[Publish], start: dt.datetime, end: dt.datetime) -> QuerySet[Publish]:
    """The publishes of `query` that fall in [start, end), annotated with `calendar_at` (when
    they fall, `CALENDAR_AT`: a range of its per-team index)."""
    return query.annotate(calendar_at=CALENDAR_AT).filter(calendar_at__gte=start, calendar_at__lt=end)


def publishes_between(*, team: Team, start: dt.datetime, end: dt.datetime) -> QuerySet[Publish]:
    """The team's publishes that fall in [start, end), as `publishes_for` loads them, in the
    order they fall. Each falls at `calendar_at`: when its first target was published, else when
    sending started, else its scheduled time (so a draft with a time is included, one without
    is not). `release_pending` says, for `outbox.is_waiting`, whether it still waits."""
    query = _falling_between(publishes_for(team=team), start, end).annotate(release_pending=outbox.release_pending())
    return query.order_by(F("calendar_at").asc(), "id")


# `publishes_by_day` on PostgreSQL, in one statement: each day a range of the calendar index
# (team, CALENDAR_AT, whose expression this is), counted no further than `count_up_to` and read
# no further than its first `per_day`.
_AT = "COALESCE(published_at, released_at, scheduled_at)"
_BY_DAY_SQL = f"""
SELECT d.n, counted.n, first.id
FROM unnest(%(starts)s::timestamptz[], %(ends)s::timestamptz[]) WITH ORDINALITY AS d(starts, ends, n)
CROSS JOIN LATERAL (
    SELECT count(*) AS n FROM (
        SELECT 1 FROM publishing_publish
        WHERE team_id = %(team)s AND {_AT} >= d.starts AND {_AT} < d.ends
        LIMIT %(count_up_to)s
    ) AS day
) AS counted
LEFT JOIN LATERAL (
    SELECT id, {_AT} AS at FROM publishing_publish
    WHERE team_id = %(team)s AND {_AT} >= d.starts AND {_AT} < d.ends
    ORDER BY {_AT}, id
    LIMIT %(per_day)s
) AS first ON true
ORDER BY d.n, first.at, first.id
"""  # noqa: S608 - no value in the text, every one bound


def publishes_by_day(
    *, team: Team, midnights: Sequence[dt.datetime], per_day: int, count_up_to: int
) -> tuple[list[Publish], list[int]]:
    """For each day between consecutive `midnights`, the first `per_day` of the team's
    publishes that fall on it (ordered as `publishes_between` orders them, all in one list,
    each with its targets' platforms: the page's entries need no more),
    and how many fall on it, counted up to `count_up_to`: a day with that many says only so.

    Each day is its own range of the per-team calendar index, read no further than those
    bounds, so what a week or a month reads grows with its days, not with how busy they are:
    one statement on PostgreSQL, two queries a day elsewhere."""
    if connection.vendor == "postgresql":
        params = {"starts": list(midnights[:-1]), "ends": list(midnights[1:]), "team": team.pk}
        rows = run(_BY_DAY_SQL, {**params, "per_day": per_day, "count_up_to": count_up_to})
        ids = [pk for _, _, pk in rows if pk is not None]
        counts = list({n: count for n, count, _ in rows}.values())
    else:
        ids, counts = _by_day(team, midnights, per_day, count_up_to)
    platforms = Prefetch("targets", queryset=Target.objects.only("id", "publish_id", "platform").order_by())
    shown = Publish.objects.filter(team=team, pk__in=ids).prefetch_related(platforms)  # their platforms, no history
    shown = shown.annotate(calendar_at=CALENDAR_AT, release_pending=outbox.release_pending())
    return list(shown.order_by(F("calendar_at").asc(), "id")), counts


def _by_day(team: Team, midnights: Sequence[dt.datetime], per_day: int, count_up_to: int) -> tuple[list[Id], list[int]]:
    """`_BY_DAY_SQL` through the ORM, a day at a time."""
    falling = Publish.objects.filter(team=team).annotate(calendar_at=CALENDAR_AT)
    ids: list[Id] = []
    counts = []
    for start, end in itertools.pairwise(midnights):
        day = falling.filter(calendar_at__gte=start, calendar_at__lt=end)
        ids += day.order_by("calendar_at", "id").values_list("pk", flat=True)[:per_day]
        counts.append(day[:count_up_to].count())
    return ids, counts


def approvals_for(*, team: Team, user: User | None) -> QuerySet[Publish]:
    """Publishes waiting for approval, oldest first; only `user`'s own when given."""
    query = publishes_for(team=team).filter(approval_status=ApprovalStatus.PENDING).order_by("created_at", "id")
    return query if user is None else query.filter(created_by=user)


# The home page: what is going out, what failed, what waits for the signed-in user.


def upcoming_between(*, team: Team, start: dt.datetime, end: dt.datetime) -> QuerySet[Publish]:
    """The team's scheduled publishes due in [start, end), as `publishes_for` loads them, soonest first."""
    due = Q(status=PublishStatus.SCHEDULED, scheduled_at__gte=start, scheduled_at__lt=end)
    return publishes_for(team=team).filter(due).order_by("scheduled_at", "id")


def retryable_since(*, team: Team, since: dt.datetime) -> QuerySet[Publish]:
    """The team's failed and partial publishes that settled since `since` and can be retried
    (not waiting for a decision nor rejected, as `actions.retryable` says), latest first."""
    settled = Q(status__in=[PublishStatus.FAILED, PublishStatus.PARTIAL], completed_at__gte=since)
    decided = Q(approval_status__in=[ApprovalStatus.PENDING, ApprovalStatus.REJECTED])
    return publishes_for(team=team).filter(settled).exclude(decided).order_by("-completed_at", "-id")


def removed_since(*, team: Team, since: dt.datetime) -> QuerySet[Target]:
    """The team's published targets taken down since `since` (by a person, or found gone from
    their platform), latest first, each with its publish and account."""
    query = Target.objects.filter(publish__team=team, removed_at__gte=since).select_related("publish", "account")
    return query.order_by("-removed_at", "-id")


def _memberships(user: User, *, approver: bool) -> QuerySet[Membership]:
    """The user's memberships where they approve (owner or admin), or where they do not."""
    approvers = Q(role__in=[Role.OWNER, Role.ADMIN])
    return Membership.objects.filter(approvers if approver else ~approvers, user=user)


def approvals_waiting_for(*, user: User) -> QuerySet[Publish]:
    """Publishes pending approval in every team where `user` approves (owner or admin), each
    with its team, oldest first: what waits for them, whichever team the page shows."""
    query = publishes_for().select_related("team").filter(team__in=_memberships(user, approver=True).values("team_id"))
    return query.filter(approval_status=ApprovalStatus.PENDING).order_by("created_at", "id")


def own_submissions_waiting(*, user: User) -> QuerySet[Publish]:
    """`user`'s own publishes pending approval in the teams where they are a member (who, as in
    GET /api/v1/approvals, follow only their own submissions), oldest first."""
    query = publishes_for().select_related("team").filter(team__in=_memberships(user, approver=False).values("team_id"))
    return query.filter(approval_status=ApprovalStatus.PENDING, created_by=user).order_by("created_at", "id")


def scheduled_instants_for(*, account: SocialAccount, after: dt.datetime) -> set[dt.datetime]:
    """When the account's scheduled targets, not yet sent, go out after `after`: the posting
    schedule slots they take."""
    targets = Target.objects.filter(account=account, state=TargetState.SCHEDULED, publish__scheduled_at__gt=after)
    return {at for at in targets.values_list("publish__scheduled_at", flat=True) if at is not None}


def scheduled_instants_by_account(
    *, accounts: Sequence[SocialAccount], start: dt.datetime
) -> dict[Any, set[dt.datetime]]:
    """By account id, the instants at or after `start` its scheduled targets, not yet sent,
    go out at: the posting schedule slots they take."""
    rows = Target.objects.filter(
        account__in=accounts, state=TargetState.SCHEDULED, publish__scheduled_at__gte=start
    ).values_list("account_id", "publish__scheduled_at")
    taken: dict[Any, set[dt.datetime]] = {}
    for account_id, instant in rows:
        if instant is not None:
            taken.setdefault(account_id, set()).add(instant)
    return taken

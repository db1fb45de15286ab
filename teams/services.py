"""Writes for teams, memberships, API keys and plan usage. Every caller (API, admin, commands,
later the dashboard) goes through these functions."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db import connection, transaction
from django.db.models import F, Field, Q
from django.utils import timezone

from config.errors import Forbidden, InvalidRequest, NotFound, QuotaExceeded
from config.ids import new_id
from teams import keys, moves, time_zones
from teams.caller_cache import forget_callers
from teams.models import (
    DUPLICATE_WINDOW_MAX_HOURS,
    SCOPES,
    ApiKey,
    ApiKeyKind,
    Membership,
    MonthlyUsage,
    Plan,
    Role,
    Team,
)

UNLIMITED_PLAN_CODE = "unlimited"
# last_used_at is informational: write it at most once a minute per key, not on every request.
LAST_USED_RESOLUTION = dt.timedelta(minutes=1)


def plan_default() -> Plan:
    plan, _ = Plan.objects.get_or_create(code=UNLIMITED_PLAN_CODE, defaults={"name": "Unlimited"})
    return plan


@transaction.atomic
def team_create(*, name: str, owner: User, plan: Plan | None = None, approval_required: bool = False) -> Team:
    team = Team.objects.create(name=name, plan=plan or plan_default(), approval_required=approval_required)
    Membership.objects.create(user=owner, team=team, role=Role.OWNER)
    return team


def membership_add(*, team: Team, user: User, role: Role) -> Membership:
    if role == Role.OWNER:
        raise InvalidRequest("A team has exactly one owner.", code="OWNER_EXISTS")
    return Membership.objects.create(team=team, user=user, role=role)


# --- changes an owner or admin makes from the dashboard's settings ----------------------------
# Each takes the acting `user` and checks their role in the team itself: the page hiding a
# button is not the protection.

MANAGING_ROLES = (Role.OWNER, Role.ADMIN)


def _require_role(*, team: Team, user: User, roles: tuple[Role, ...], message: str) -> None:
    role = Membership.objects.filter(team=team, user=user).values_list("role", flat=True).first()
    if role not in roles:
        raise Forbidden(message, code="NOT_TEAM_OWNER" if roles == (Role.OWNER,) else "NOT_TEAM_ADMIN")


def _assignable_role(role: str) -> Role:
    if role not in (Role.ADMIN, Role.MEMBER):
        raise InvalidRequest("A member's role is admin or member.", code="INVALID_ROLE", details={"field": "role"})
    return Role(role)


def team_rename(*, team: Team, user: User, name: str) -> Team:
    """Rename `team` (owner or admin). Surrounding spaces are dropped: deleting the team asks
    for its name exactly, and nobody should have to guess a trailing space."""
    _require_role(
        team=team, user=user, roles=MANAGING_ROLES, message="Only the team's owner or an admin can rename it."
    )
    name, longest = name.strip(), Team._meta.get_field("name").max_length
    if not name or len(name) > (longest or 0):
        raise InvalidRequest(
            f"A team name has 1 to {longest} characters.", code="INVALID_TEAM_NAME", details={"field": "name"}
        )
    team.name = name
    team.save(update_fields=["name", "updated_at"])
    return team


def team_set_approval(*, team: Team, user: User, required: bool) -> bool:
    """Turn approval of members' publishes on or off (owner or admin). False when unchanged."""
    _require_role(
        team=team, user=user, roles=MANAGING_ROLES, message="Only the team's owner or an admin can change approval."
    )
    changed = (
        Team.objects.filter(pk=team.pk)
        .exclude(approval_required=required)
        .update(approval_required=required, updated_at=timezone.now())
    )
    team.approval_required = required
    if changed:
        forget_callers()  # the caller cache holds the team row
    return bool(changed)


def team_set_duplicates(*, team: Team, user: User, block: bool, window_hours: int) -> bool:
    """Whether a post whose text an account already got within `window_hours` (before or after
    it) is refused rather than only warned of (owner or admin). False when unchanged."""
    _require_role(
        team=team,
        user=user,
        roles=MANAGING_ROLES,
        message="Only the team's owner or an admin can change the duplicate posts setting.",
    )
    if not 1 <= window_hours <= DUPLICATE_WINDOW_MAX_HOURS:
        raise InvalidRequest(
            f"The duplicate window is 1 to {DUPLICATE_WINDOW_MAX_HOURS} hours.",
            code="INVALID_DUPLICATE_WINDOW",
            details={"field": "duplicate_window_hours"},
        )
    changed = (
        Team.objects.filter(pk=team.pk)
        .exclude(block_duplicates=block, duplicate_window_hours=window_hours)
        .update(block_duplicates=block, duplicate_window_hours=window_hours, updated_at=timezone.now())
    )
    team.block_duplicates, team.duplicate_window_hours = block, window_hours
    if changed:
        forget_callers()  # the caller cache holds the team row
    return bool(changed)


def team_set_time_zone(*, team: Team, user: User, name: str) -> bool:
    """Set the zone the dashboard shows and reads the team's times in (owner or admin). Stored
    times do not move: a post scheduled for 12:00 UTC still goes out then, shown in the new zone.
    False when unchanged."""
    refusal = "Only the team's owner or an admin can change the time zone."
    _require_role(team=team, user=user, roles=MANAGING_ROLES, message=refusal)
    name = name.strip()
    if name not in time_zones.names():
        raise InvalidRequest(
            f"“{name}” is not a time zone name. Pick one from the list, such as Europe/Paris or America/New_York."
            if name
            else "Pick a time zone.",
            code="INVALID_TIME_ZONE",
            details={"field": "time_zone"},
        )
    changed = Team.objects.filter(pk=team.pk).exclude(time_zone=name).update(time_zone=name, updated_at=timezone.now())
    team.time_zone = name
    if changed:
        forget_callers()  # the caller cache holds the team row
    return bool(changed)


@transaction.atomic
def membership_add_by_username(*, team: Team, user: User, username: str, role: str) -> Membership:
    """Add the active user named `username` to `team` with `role` (admin or member); owner only."""
    _require_role(team=team, user=user, roles=(Role.OWNER,), message="Only the team's owner can add members.")
    chosen = _assignable_role(role)
    added = User.objects.filter(username=username.strip(), is_active=True).first()
    if added is None:
        raise InvalidRequest(
            f"No user is named “{username.strip()}”.", code="USER_NOT_FOUND", details={"field": "username"}
        )
    if Membership.objects.filter(team=team, user=added).exists():
        raise InvalidRequest(
            f"{added.username} is already a member of this team.",
            code="ALREADY_A_MEMBER",
            details={"field": "username"},
        )
    return membership_add(team=team, user=added, role=chosen)


def _member_to_change(*, team: Team, membership_id: uuid.UUID, refusal: str) -> Membership:
    """The team's membership `membership_id`, locked; never the owner's."""
    target = Membership.objects.select_for_update().select_related("user").filter(team=team, pk=membership_id).first()
    if target is None:
        raise NotFound("No such member of this team.", code="MEMBER_NOT_FOUND")
    if target.role == Role.OWNER:
        raise Forbidden(refusal, code="OWNER_UNCHANGEABLE")
    return target


@transaction.atomic
def membership_set_role(*, team: Team, user: User, membership_id: uuid.UUID, role: str) -> Membership:
    """Make a member an admin or a member again; owner only, and never the owner's own role."""
    _require_role(team=team, user=user, roles=(Role.OWNER,), message="Only the team's owner can change roles.")
    chosen = _assignable_role(role)
    target = _member_to_change(team=team, membership_id=membership_id, refusal="The owner's role cannot change.")
    target.role = chosen
    target.save(update_fields=["role", "updated_at"])
    return target


@transaction.atomic
def membership_remove(*, team: Team, user: User, membership_id: uuid.UUID) -> Membership:
    """Remove a member from `team`; owner only, and never the owner. Their team keys of `team`
    are revoked: they stop working with the membership anyway, but would come back to life if
    the user were added again. Their user keys stay theirs (they act in the user's own teams)."""
    _require_role(team=team, user=user, roles=(Role.OWNER,), message="Only the team's owner can remove members.")
    target = _member_to_change(
        team=team, membership_id=membership_id, refusal="The owner cannot be removed from the team."
    )
    now = timezone.now()
    ApiKey.objects.filter(kind=ApiKeyKind.TEAM, team=team, user=target.user, revoked_at__isnull=True).update(
        revoked_at=now, updated_at=now
    )
    target.delete()
    forget_callers()
    return target


@transaction.atomic
def team_set_default(*, user: User, team: Team) -> bool:
    """Select `team` as the user's default. Returns False when it already was."""
    memberships = Membership.objects.select_for_update().filter(user=user)
    chosen = next((m for m in memberships if m.team_id == team.pk), None)
    if chosen is None or chosen.role != Role.OWNER:
        raise Forbidden("Only the team's owner can make it the default team.", code="NOT_TEAM_OWNER")
    if chosen.is_default:
        return False
    memberships.filter(is_default=True).update(is_default=False)
    Membership.objects.filter(pk=chosen.pk).update(is_default=True)
    forget_callers()
    return True


def _validate_scopes(scopes: Iterable[str]) -> list[str]:
    scopes = list(dict.fromkeys(scopes))
    unknown = sorted(set(scopes) - set(SCOPES))
    if unknown:
        raise InvalidRequest(f"Unknown scopes: {', '.join(unknown)}.", code="UNKNOWN_SCOPE")
    return scopes


def api_key_create(
    *,
    user: User,
    name: str,
    scopes: Iterable[str],
    team: Team | None = None,
    active_team: Team | None = None,
    expires_at: dt.datetime | None = None,
) -> tuple[ApiKey, str]:
    """Create a team key (`team` given) or a user key. Returns the key and its plaintext, which
    is shown once and never stored."""
    for bound in (team, active_team):
        if bound is not None and not Membership.objects.filter(user=user, team=bound).exists():
            raise InvalidRequest("The key's user is not a member of that team.", code="NOT_A_MEMBER")
    generated = keys.generate()
    api_key = ApiKey.objects.create(
        name=name,
        user=user,
        kind=ApiKeyKind.TEAM if team is not None else ApiKeyKind.USER,
        team=team,
        active_team=None if team is not None else active_team,
        prefix=generated.prefix,
        secret_hash=generated.secret_hash,
        scopes=_validate_scopes(scopes),
        expires_at=expires_at,
    )
    return api_key, generated.plaintext


def team_key_mint(
    *,
    user: User,
    team: Team,
    name: str,
    scopes: Iterable[str],
    granted: Iterable[str],
    expires_at: dt.datetime | None = None,
) -> tuple[ApiKey, str]:
    """A team key of `team` made by its owner `user` with a key holding the scopes `granted`.

    A key cannot mint a key stronger than itself: every scope asked for must be one it holds,
    else 403 `SCOPE_ESCALATION` naming the missing ones and nothing is created. Otherwise the
    owner could turn a read-only key into a full one."""
    _require_role(team=team, user=user, roles=(Role.OWNER,), message="Only the team's owner can manage its keys.")
    scopes = _validate_scopes(scopes)
    if not scopes:
        raise InvalidRequest("Give the key at least one scope.", code="NO_SCOPES", details={"field": "scopes"})
    lacking = [scope for scope in scopes if scope not in set(granted)]
    if lacking:
        raise Forbidden(
            f"A key can only grant scopes it holds itself; this one lacks {', '.join(lacking)}.",
            code="SCOPE_ESCALATION",
            details={"missing_scopes": lacking},
        )
    if expires_at is not None and expires_at <= timezone.now():
        raise InvalidRequest(
            "expires_at must be in the future.", code="EXPIRES_AT_NOT_FUTURE", details={"field": "expires_at"}
        )
    return api_key_create(user=user, name=name, scopes=scopes, team=team, expires_at=expires_at)


@transaction.atomic
def team_key_revoke(*, user: User, team: Team, key_id: uuid.UUID) -> ApiKey:
    """Revoke the team key `key_id` of `team` (owner only), whoever made it. Another team's key,
    a user key and a key already revoked are all 404 `API_KEY_NOT_FOUND`."""
    _require_role(team=team, user=user, roles=(Role.OWNER,), message="Only the team's owner can manage its keys.")
    api_key = (
        ApiKey.objects.select_for_update()
        .filter(pk=key_id, kind=ApiKeyKind.TEAM, team=team, revoked_at__isnull=True)
        .first()
    )
    if api_key is None:
        raise NotFound("No such key of this team.", code="API_KEY_NOT_FOUND")
    api_key_revoke(api_key=api_key)
    return api_key


def api_key_revoke(*, api_key: ApiKey) -> None:
    ApiKey.objects.filter(pk=api_key.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
    forget_callers()


def api_key_mark_used(*, api_key: ApiKey) -> bool:
    """Record that the key was used, at most once a minute. True when `api_key` changed."""
    now = timezone.now()
    if api_key.last_used_at is not None and now - api_key.last_used_at < LAST_USED_RESOLUTION:
        return False
    # Conditional, so concurrent requests of one key write once between them.
    stale = now - LAST_USED_RESOLUTION
    ApiKey.objects.filter(pk=api_key.pk).exclude(last_used_at__gte=stale).update(last_used_at=now)
    api_key.last_used_at = now
    return True


def month_start(moment: dt.datetime | None = None) -> dt.date:
    moment = moment or timezone.now()
    return moment.astimezone(dt.UTC).date().replace(day=1)


_QUOTA_UPSERT = """
    INSERT INTO teams_monthlyusage AS usage (id, created_at, updated_at, team_id, month, posts)
    VALUES (%(id)s, %(now)s, %(now)s, %(team)s, %(month)s, %(posts)s)
    ON CONFLICT (team_id, month) DO UPDATE
        SET posts = usage.posts + excluded.posts, updated_at = excluded.updated_at
        WHERE CAST(%(limit)s AS integer) IS NULL OR usage.posts + excluded.posts <= CAST(%(limit)s AS integer)
    RETURNING posts
"""


def _column(name: str, value: Any) -> Any:
    """`value` as the database driver takes it for MonthlyUsage's column `name`."""
    field = MonthlyUsage._meta.get_field(name)
    assert isinstance(field, Field)  # noqa: S101 - a concrete column, not a relation's reverse side
    return field.get_db_prep_value(value, connection)


def quota_consume(*, team: Team, posts: int = 1) -> None:
    """Count `posts` against the team's monthly plan limit, or raise QuotaExceeded.

    Call it inside the transaction that creates the posts, as late as it can be: one upsert
    counts them, and the row it inserts or updates stays locked until commit, so two
    concurrent creates cannot both take the last post, and a rolled-back create gives it back.
    """
    month, limit = month_start(), team.plan.posts_per_month
    if limit is None or posts <= limit:
        now = timezone.now()
        params: dict[str, Any] = {
            "id": _column("id", new_id()),
            "now": _column("created_at", now),
            "team": _column("team", team.pk),
            "month": _column("month", month),
            "posts": posts,
            "limit": limit,
        }
        with connection.cursor() as cursor:
            cursor.execute(_QUOTA_UPSERT, params)
            if cursor.fetchone() is not None:
                return
    raise _quota_refusal(limit, _posts_used(team, month))


def quota_check(*, team: Team, posts: int = 1) -> None:
    """What `quota_consume` would refuse now, without counting anything (a create checked
    before it is sent); the create itself still counts under its lock."""
    limit = team.plan.posts_per_month
    if limit is None:
        return
    used = _posts_used(team, month_start())
    if used + posts > limit:
        raise _quota_refusal(limit, used)


def _posts_used(team: Team, month: dt.date) -> int:
    return MonthlyUsage.objects.filter(team=team, month=month).values_list("posts", flat=True).first() or 0


def _quota_refusal(limit: int | None, used: int) -> QuotaExceeded:
    return QuotaExceeded(
        f"The plan allows {limit} posts a month and {used} are used.",
        details={"posts_per_month": limit, "posts_used": used},
    )


@dataclass(frozen=True)
class TeamDeletion:
    """What `team_delete` did, for the response and the audit trail."""

    deleted_team_id: uuid.UUID
    destination_team_id: uuid.UUID
    moved_accounts: int
    merged_accounts: int
    moved_publishes: int
    moved_media: int
    deleted_keys: int
    revoked_keys: int
    removed_webhooks: int
    removed_memberships: int


def _lock_teams(*ids: uuid.UUID) -> dict[uuid.UUID, Team]:
    # Both rows, in primary-key order so two deletions pointing at each other cannot deadlock.
    # The lock also holds back a concurrent insert of anything referencing the source team:
    # its foreign-key check waits for this transaction and then finds the team gone.
    return {team.pk: team for team in Team.objects.select_for_update().filter(pk__in=ids).order_by("pk")}


def _check_team_delete(*, user: User, team: Team, destination_id: uuid.UUID, confirmation_name: str) -> Team:
    """The guards of a deletion, in the order the API documents them; returns the destination."""
    locked = _lock_teams(team.pk, destination_id)
    memberships = {m.team_id: m for m in Membership.objects.select_for_update().filter(user=user)}
    own = memberships.get(team.pk)
    if team.pk not in locked or own is None or own.role != Role.OWNER:
        raise Forbidden("Only the team's owner can delete it.", code="NOT_TEAM_OWNER")
    if own.is_default:
        raise Forbidden(
            "This is your default team, which is protected. Select another default team first.",
            code="DEFAULT_TEAM_PROTECTED",
        )
    if confirmation_name != locked[team.pk].name:
        raise InvalidRequest(
            "confirmation_name must be the team's name, exactly.",
            code="CONFIRMATION_MISMATCH",
            details={"field": "confirmation_name"},
        )
    target = memberships.get(destination_id)
    if destination_id == team.pk or target is None or target.role != Role.OWNER or destination_id not in locked:
        raise InvalidRequest(
            "destination_team_id must be another team you own.",
            code="INVALID_DESTINATION",
            details={"field": "destination_team_id"},
        )
    return locked[destination_id]


def _move_usage(*, source: Team, destination: Team) -> None:
    """Posts already counted stay counted: each month's count is added to the destination's."""
    for usage in MonthlyUsage.objects.select_for_update().filter(team=source):
        MonthlyUsage.objects.get_or_create(team=destination, month=usage.month)
        MonthlyUsage.objects.filter(team=destination, month=usage.month).update(posts=F("posts") + usage.posts)


def _remove_keys(*, source: Team, used: ApiKey | None, now: dt.datetime) -> tuple[int, int]:
    """Team keys of the source are deleted. User keys pinned to it are revoked rather than
    silently re-pointed at another team, and so is the user key that asked for the deletion
    (none when the dashboard asked). Returns (deleted, revoked)."""
    asked = Q(active_team=source) if used is None else Q(active_team=source) | Q(pk=used.pk)
    pinned = Q(kind=ApiKeyKind.USER) & asked
    revoked = ApiKey.objects.filter(pinned, revoked_at__isnull=True).update(
        revoked_at=now, active_team=None, updated_at=now
    )
    _, deleted = ApiKey.objects.filter(kind=ApiKeyKind.TEAM, team=source).delete()
    forget_callers()
    return deleted.get(ApiKey._meta.label, 0), revoked


@transaction.atomic
def team_delete(
    *, user: User, team: Team, destination_id: uuid.UUID, confirmation_name: str, used_key: ApiKey | None
) -> TeamDeletion:
    """Delete `team`, moving its content to `destination_id`, another team `user` owns.

    The apps above teams move their rows through `moves`: accounts (merged where the
    destination has the same one), publishes with everything that hangs off them (targets,
    attempts, outbox jobs, schedule rows, analytics) and media move; webhooks with their pending
    deliveries and events go. This month's and earlier post counts are added to the
    destination's. There are no groups, folders or invitations yet: when they come, they move or
    go here too. API keys (see `_remove_keys`), idempotency keys and memberships of the source
    go; memberships are the only member assignments so far. Authorship (created_by,
    approved_by) is kept as history.

    `used_key` is the key of an API request, which goes with the team; the dashboard, where
    the owner is signed in and no key asks, passes None.
    """
    now, source_id = timezone.now(), team.pk
    destination = _check_team_delete(
        user=user, team=team, destination_id=destination_id, confirmation_name=confirmation_name
    )
    moved = moves.move_to_team(source=team, target=destination)
    _move_usage(source=team, destination=destination)
    deleted_keys, revoked_keys = _remove_keys(source=team, used=used_key, now=now)
    deletion = TeamDeletion(
        deleted_team_id=source_id,
        destination_team_id=destination.pk,
        moved_accounts=moved["moved_accounts"],
        merged_accounts=moved["merged_accounts"],
        moved_publishes=moved["moved_publishes"],
        moved_media=moved["moved_media"],
        deleted_keys=deleted_keys,
        revoked_keys=revoked_keys,
        removed_webhooks=moved["removed_webhooks"],
        removed_memberships=Membership.objects.filter(team=team).count(),
    )
    # Cascades: webhooks with their deliveries, events, idempotency keys, memberships, usage rows.
    team.delete()
    return deletion

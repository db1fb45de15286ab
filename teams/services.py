"""Writes for teams, memberships, API keys and plan usage. Every caller (API, admin, commands,
later the dashboard) goes through these functions."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from config.errors import Forbidden, InvalidRequest, QuotaExceeded
from teams import keys
from teams.models import SCOPES, ApiKey, ApiKeyKind, Membership, MonthlyUsage, Plan, Role, Team

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


def api_key_revoke(*, api_key: ApiKey) -> None:
    ApiKey.objects.filter(pk=api_key.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())


def api_key_mark_used(*, api_key: ApiKey) -> None:
    now = timezone.now()
    if api_key.last_used_at is not None and now - api_key.last_used_at < LAST_USED_RESOLUTION:
        return
    # Conditional, so concurrent requests of one key write once between them.
    stale = now - LAST_USED_RESOLUTION
    ApiKey.objects.filter(pk=api_key.pk).exclude(last_used_at__gte=stale).update(last_used_at=now)
    api_key.last_used_at = now


def month_start(moment: dt.datetime | None = None) -> dt.date:
    moment = moment or timezone.now()
    return moment.astimezone(dt.UTC).date().replace(day=1)


def quota_consume(*, team: Team, posts: int = 1) -> None:
    """Count `posts` against the team's monthly plan limit, or raise QuotaExceeded.

    Call it inside the transaction that creates the posts: the usage row is locked, so two
    concurrent creates cannot both take the last post, and a rolled-back create gives it back.
    """
    month = month_start()
    MonthlyUsage.objects.get_or_create(team=team, month=month)  # handles a concurrent insert itself
    usage = MonthlyUsage.objects.select_for_update().get(team=team, month=month)
    limit = team.plan.posts_per_month
    if limit is not None and usage.posts + posts > limit:
        raise QuotaExceeded(
            f"The plan allows {limit} posts a month and {usage.posts} are used.",
            details={"posts_per_month": limit, "posts_used": usage.posts},
        )
    MonthlyUsage.objects.filter(pk=usage.pk).update(posts=F("posts") + posts)

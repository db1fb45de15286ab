"""Reads for teams and usage."""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db.models import BooleanField, Case, ExpressionWrapper, IntegerField, Q, QuerySet, Subquery, Value, When

from teams import usage
from teams.models import ApiKey, ApiKeyKind, Membership, MonthlyUsage, Role, Team
from teams.services import month_start


def teams_owned(*, user: User) -> QuerySet[Team]:
    """Teams the user owns, oldest first, each annotated with `is_default`."""
    owned = Q(memberships__user=user, memberships__role=Role.OWNER)
    default = Q(memberships__is_default=True)
    return (
        Team.objects.filter(owned)
        .annotate(is_default=ExpressionWrapper(default, output_field=BooleanField()))
        .select_related("plan")
        .order_by("created_at", "id")
    )


def teams_approved_in(*, user: User) -> set[uuid.UUID]:
    """The ids of the teams where the user approves publishes: those they own or administer."""
    memberships = Membership.objects.filter(user=user, role__in=[Role.OWNER, Role.ADMIN])
    return set(memberships.values_list("team_id", flat=True))


def members_of(*, team: Team) -> QuerySet[Membership]:
    """The team's memberships with their users: the owner first, then admins, then members."""
    rank = Case(When(role=Role.OWNER, then=Value(0)), When(role=Role.ADMIN, then=Value(1)), default=Value(2))
    return (
        Membership.objects.filter(team=team)
        .select_related("user")
        .alias(rank=ExpressionWrapper(rank, output_field=IntegerField()))
        .order_by("rank", "user__username")
    )


def api_keys_shown(*, team: Team, user: User) -> QuerySet[ApiKey]:
    """The keys the dashboard shows an owner or admin of `team`, and lets them revoke: their own
    keys that act in it, and every team key of it, whoever made it. Other members' user keys act
    as those members, across their own teams, and stay theirs to see.

    A user key acts in its active team, or without one in the user's fallback team: their
    default team, else the first they joined (as `teams.authentication` finds it)."""
    fallback = Membership.objects.filter(user=user).order_by("-is_default", "created_at").values("team_id")[:1]
    acts_here = Q(active_team=team) | Q(active_team__isnull=True, fallback_team=team.pk)
    own = Q(user=user) & (Q(kind=ApiKeyKind.TEAM, team=team) | Q(kind=ApiKeyKind.USER) & acts_here)
    return (
        ApiKey.objects.alias(fallback_team=Subquery(fallback))
        .filter(own | Q(kind=ApiKeyKind.TEAM, team=team))
        .select_related("user")
        .order_by("-created_at", "-id")
    )


def role_in(*, team: Team, user: User) -> Role | None:
    """The user's role in `team`, None when they are not a member."""
    role = Membership.objects.filter(team=team, user=user).values_list("role", flat=True).first()
    return None if role is None else Role(role)


def team_keys_of(*, team: Team) -> QuerySet[ApiKey]:
    """The team's team keys that are not revoked, whoever made them, newest first (expired
    ones too: they show their `expires_at`)."""
    return ApiKey.objects.filter(kind=ApiKeyKind.TEAM, team=team, revoked_at__isnull=True).order_by(
        "-created_at", "-id"
    )


@dataclass(frozen=True)
class Usage:
    team: Team
    period_start: dt.date
    period_end: dt.date
    posts_this_month: int
    social_accounts: int
    media_storage_bytes: int

    @property
    def can_publish(self) -> bool:
        limit = self.team.plan.posts_per_month
        return limit is None or self.posts_this_month < limit


def usage_for(*, team: Team) -> Usage:
    start = month_start()
    next_month = (start + dt.timedelta(days=32)).replace(day=1)
    posts = MonthlyUsage.objects.filter(team=team, month=start).values_list("posts", flat=True).first() or 0
    counted = usage.count(team=team)
    return Usage(
        team=team,
        period_start=start,
        period_end=next_month - dt.timedelta(days=1),
        posts_this_month=posts,
        social_accounts=counted["social_accounts"],
        media_storage_bytes=counted["media_storage_bytes"],
    )

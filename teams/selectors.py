"""Reads for teams and usage."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db.models import BooleanField, ExpressionWrapper, Q, QuerySet

from teams import usage
from teams.models import MonthlyUsage, Role, Team
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

"""Reads of publishes for the API, the dashboard and the admin."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import Prefetch, QuerySet

from publishing.models import ApprovalStatus, DeliveryAttempt, Publish, Target
from teams.models import Team


def publishes_for(*, team: Team | None = None) -> QuerySet[Publish]:
    """Publishes with everything their representation reads, in three queries a page."""
    targets = Target.objects.order_by("created_at", "id").prefetch_related(
        Prefetch("attempts", queryset=DeliveryAttempt.objects.order_by("number"))
    )
    query = Publish.objects.select_related("created_by", "approved_by", "rejected_by").prefetch_related(
        Prefetch("targets", queryset=targets)
    )
    return query if team is None else query.filter(team=team)


def approvals_for(*, team: Team, user: User | None) -> QuerySet[Publish]:
    """Publishes waiting for approval, oldest first; only `user`'s own when given."""
    query = publishes_for(team=team).filter(approval_status=ApprovalStatus.PENDING).order_by("created_at", "id")
    return query if user is None else query.filter(created_by=user)

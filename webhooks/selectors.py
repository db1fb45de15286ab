"""Reads of webhooks for the dashboard (and the API's delivery log to come): each returns a
queryset whose cost does not grow with the rows shown."""

from __future__ import annotations

from django.db.models import QuerySet

from teams.models import Team
from webhooks.models import Delivery, Subscription


def subscriptions_of(*, team: Team) -> QuerySet[Subscription]:
    return Subscription.objects.filter(team=team).order_by("created_at", "id")


def deliveries_of(*, subscription: Subscription) -> QuerySet[Delivery]:
    """The subscription's deliveries, newest first, each with its event (one query a page)."""
    return (
        Delivery.objects.filter(subscription=subscription)
        .select_related("event")
        .defer("event__data")  # the page shows the type; a payload can be large
        .order_by("-created_at", "-id")
    )

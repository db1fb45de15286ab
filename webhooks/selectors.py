"""Reads of webhooks for the dashboard and the API: each costs the same whatever the rows shown,
and each is scoped to the caller's team or subscription."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet

from config.errors import NotFound
from teams.models import Team
from webhooks.models import Delivery, DeliveryAttempt, Subscription


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


def subscription_of(*, team: Team, subscription_id: str) -> Subscription:
    """The team's subscription; NotFound for a missing id or another team's."""
    subscription = Subscription.objects.filter(team=team, pk=subscription_id).first()
    if subscription is None:
        raise NotFound("No such webhook.", code="WEBHOOK_NOT_FOUND")
    return subscription


def delivery_of(*, subscription: Subscription, delivery_id: str) -> Delivery:
    """One of the subscription's deliveries with its event and attempts (three queries)."""
    delivery = (
        Delivery.objects.filter(subscription=subscription, pk=delivery_id)
        .select_related("event")
        # Oldest first by time: a redelivery numbers its attempts from 1 again.
        .prefetch_related(Prefetch("attempt_log", queryset=DeliveryAttempt.objects.order_by("created_at", "id")))
        .first()
    )
    if delivery is None:
        raise NotFound("No such delivery of this webhook.", code="DELIVERY_NOT_FOUND")
    return delivery

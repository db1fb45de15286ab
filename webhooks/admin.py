from __future__ import annotations

from django.contrib import admin, messages
from django.db import models
from django.db.models import QuerySet
from django.http import HttpRequest

from webhooks import services
from webhooks.models import Delivery, DeliveryAttempt, Event, Subscription


@admin.register(Subscription)
class SubscriptionAdmin(admin.ModelAdmin[Subscription]):
    """The secrets (the current one and one replaced by a rotation) are encrypted and never displayed."""

    list_display = [
        "url",
        "team",
        "disabled_at",
        "circuit_open_until",
        "last_success_at",
        "last_failure_at",
        "consecutive_failures",
    ]
    list_filter = [("disabled_at", admin.EmptyFieldListFilter)]
    search_fields = ["url", "team__name", "id"]
    exclude = ["secret", "previous_secret"]
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    readonly_fields = [
        "team",
        "last_success_at",
        "last_failure_at",
        "last_failure_reason",
        "consecutive_failures",
        "failed_deliveries_in_row",
        "disabled_at",
        "disabled_reason",
        "consecutive_timeouts",
        "circuit_open_until",
        "circuit_opens",
        "previous_secret_expires_at",
        "created_at",
    ]
    actions = ["enable"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # created through the API, which shows the secret once

    @admin.action(description="Enable the selected webhooks again")
    def enable(self, request: HttpRequest, queryset: QuerySet[Subscription]) -> None:
        for subscription in queryset:
            services.subscription_enable(subscription=subscription)
        messages.success(request, f"Enabled {queryset.count()} webhook(s).")


@admin.register(Event)
class EventAdmin(admin.ModelAdmin[Event]):
    list_display = ["type", "team", "created_at"]
    list_filter = ["type"]
    search_fields = ["id", "team__name"]
    readonly_fields = ["team", "type", "data", "created_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


class AttemptInline(admin.TabularInline[DeliveryAttempt, Delivery]):
    model = DeliveryAttempt
    extra = 0
    can_delete = False
    readonly_fields = ["number", "status_code", "error", "duration_ms", "created_at"]

    def has_add_permission(self, request: HttpRequest, obj: Delivery | None = None) -> bool:
        return False


@admin.register(Delivery)
class DeliveryAdmin(admin.ModelAdmin[Delivery]):
    list_display = ["event", "subscription", "state", "attempts", "next_attempt_at", "last_status_code", "created_at"]
    list_filter = ["state"]
    search_fields = ["id", "event__id", "subscription__url"]
    list_select_related = ["event", "subscription"]
    readonly_fields = [f.name for f in Delivery._meta.fields]
    inlines = [AttemptInline]
    actions = ["send_again"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.action(description="Send the selected deliveries again")
    def send_again(self, request: HttpRequest, queryset: QuerySet[Delivery]) -> None:
        queued = sum(services.delivery_send_again(delivery=delivery) for delivery in queryset)
        messages.success(request, f"Queued {queued} delivery(ies) again.")
        if queued < len(queryset):
            messages.warning(request, f"{len(queryset) - queued} had an attempt under way and were left as they are.")


@admin.register(DeliveryAttempt)
class DeliveryAttemptAdmin(admin.ModelAdmin[DeliveryAttempt]):
    list_display = ["delivery", "number", "status_code", "error", "duration_ms", "created_at"]
    list_filter = ["status_code"]
    search_fields = ["delivery__id"]
    readonly_fields = ["delivery", "number", "status_code", "error", "duration_ms", "created_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

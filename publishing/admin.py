"""Publishes for staff: targets, attempts and thread items inline, filters by status, platform and team, and
actions that go through the lifecycle functions (never a direct status write)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from accounts.models import Platform
from config.errors import ApplicationError, ServiceUnavailable
from publishing import approval, handover, inputs, lifecycle
from publishing.models import (
    DeliveryAttempt,
    DeliveryJob,
    IdempotencyKey,
    Publish,
    QueueSlot,
    ScheduledRelease,
    Target,
    ThreadItem,
)
from publishing.selectors import ATTEMPT_FIELDS
from teams.models import Membership, Role


class ReadOnlyInline(admin.TabularInline):  # type: ignore[type-arg]
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class TargetInline(ReadOnlyInline):
    model = Target
    readonly_fields = fields = (
        "account",
        "platform",
        "state",
        "attempt_count",
        "platform_post_id",
        "platform_post_url",
        "error_code",
    )


class QueueSlotInline(ReadOnlyInline):
    model = QueueSlot
    verbose_name_plural = "queue slots taken"
    show_change_link = False
    readonly_fields = fields = ("account", "instant")


class AttemptInline(ReadOnlyInline):
    model = DeliveryAttempt
    readonly_fields = fields = ATTEMPT_FIELDS


class ThreadItemInline(ReadOnlyInline):
    model = ThreadItem
    readonly_fields = fields = (
        "kind",
        "position",
        "content",
        "state",
        "attempts",
        "platform_post_id",
        "platform_post_url",
        "error_code",
        "error_message",
        "published_at",
    )


class PlatformFilter(admin.SimpleListFilter):
    title = "platform"
    parameter_name = "platform"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(str(value), str(label)) for value, label in Platform.choices]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = self.value()
        return queryset.filter(targets__platform=value).distinct() if value else queryset


def _can_approve(request: HttpRequest, publish: Publish) -> bool:
    if request.user.is_superuser:
        return True
    if request.user.pk is None:
        return False
    roles = (Role.OWNER, Role.ADMIN)
    return Membership.objects.filter(user__pk=request.user.pk, team_id=publish.team_id, role__in=roles).exists()


@admin.register(Publish)
class PublishAdmin(admin.ModelAdmin[Publish]):
    list_display = ["id", "team", "status", "approval_status", "publish_mode", "scheduled_at", "created_at"]
    list_filter = ["status", "approval_status", PlatformFilter, "publish_mode", "team"]
    search_fields = ["id", "content", "team__name"]
    list_select_related = ["team"]
    readonly_fields = [f.name for f in Publish._meta.fields]
    inlines = [TargetInline, QueueSlotInline]
    actions = ["approve", "reject", "retry", "unschedule", "send_jobs_again"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # created through the API

    def has_delete_permission(self, request: HttpRequest, obj: Publish | None = None) -> bool:
        return False  # drafts are discarded through the API; history is kept

    def _each(
        self, request: HttpRequest, queryset: QuerySet[Publish], verb: str, act: Callable[[Publish], Any]
    ) -> None:
        done = 0
        for publish in queryset.select_related("team"):
            try:
                act(publish)
            except ApplicationError as exc:
                messages.warning(request, f"{publish.pk}: {exc.message}")
            else:
                done += 1
        if done:
            messages.success(request, f"{verb} {done} publish(es).")

    def _caller(self, request: HttpRequest, publish: Publish) -> inputs.Caller:
        user = request.user if request.user.is_authenticated else None
        return inputs.Caller(user=user, can_approve=_can_approve(request, publish))

    @admin.action(description="Approve the selected pending publishes")
    def approve(self, request: HttpRequest, queryset: QuerySet[Publish]) -> None:
        def act(p: Publish) -> None:
            with contextlib.suppress(handover.PublishDispatchUncertain):  # the relay sends refused jobs
                approval.publish_approve(team=p.team, publish_id=p.pk, caller=self._caller(request, p))

        self._each(request, queryset, "Approved", act)

    @admin.action(description="Reject the selected pending publishes")
    def reject(self, request: HttpRequest, queryset: QuerySet[Publish]) -> None:
        def act(p: Publish) -> None:
            approval.publish_reject(
                team=p.team, publish_id=p.pk, caller=self._caller(request, p), reason="Rejected by staff."
            )

        self._each(request, queryset, "Rejected", act)

    @admin.action(description="Retry the failed targets of the selected publishes")
    def retry(self, request: HttpRequest, queryset: QuerySet[Publish]) -> None:
        def act(p: Publish) -> None:
            with contextlib.suppress(handover.PublishDispatchUncertain):  # the relay sends refused jobs
                lifecycle.publish_retry(team=p.team, publish_id=p.pk, caller=self._caller(request, p))

        self._each(request, queryset, "Retried", act)

    @admin.action(description="Unschedule the selected scheduled publishes")
    def unschedule(self, request: HttpRequest, queryset: QuerySet[Publish]) -> None:
        self._each(
            request, queryset, "Unscheduled", lambda p: lifecycle.publish_unschedule(team=p.team, publish_id=p.pk)
        )

    @admin.action(description="Hand jobs the queue never took to it again")
    def send_jobs_again(self, request: HttpRequest, queryset: QuerySet[Publish]) -> None:
        def act(p: Publish) -> None:
            try:
                handover.publish_send_jobs(team=p.team, publish_id=p.pk)
            except handover.PublishDispatchUncertain as exc:
                raise ServiceUnavailable(
                    "The queue did not take its jobs; the relay sends them within a few minutes.",
                    code="PUBLISH_DISPATCH_UNCERTAIN",
                ) from exc

        self._each(request, queryset, "Sent the jobs of", act)


@admin.register(Target)
class TargetAdmin(admin.ModelAdmin[Target]):
    list_display = ["id", "publish", "platform", "state", "attempt_count", "platform_post_id", "error_code"]
    list_filter = ["state", "platform"]
    search_fields = ["id", "publish__id", "platform_post_id"]
    readonly_fields = [f.name for f in Target._meta.fields]
    inlines = [AttemptInline, ThreadItemInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Target | None = None) -> bool:
        return False


@admin.register(ThreadItem)
class ThreadItemAdmin(admin.ModelAdmin[ThreadItem]):
    """Read-only: an item moves only as `publishing.transitions` declares, its sends kept as
    delivery attempts."""

    list_display = ["target", "kind", "position", "state", "attempts", "platform_post_id", "error_code", "published_at"]
    list_filter = ["kind", "state"]
    search_fields = ["target__id", "platform_post_id"]
    readonly_fields = [f.name for f in ThreadItem._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: ThreadItem | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: ThreadItem | None = None) -> bool:
        return False


@admin.register(DeliveryAttempt)
class DeliveryAttemptAdmin(admin.ModelAdmin[DeliveryAttempt]):
    list_display = ["target", "item", "number", "state", "tries", "error_code", "http_status", "started_at"]
    list_filter = ["state"]
    search_fields = ["target__id", "error_code"]
    readonly_fields = [f.name for f in DeliveryAttempt._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: DeliveryAttempt | None = None) -> bool:
        return False


@admin.register(DeliveryJob)
class DeliveryJobAdmin(admin.ModelAdmin[DeliveryJob]):
    list_display = ["dispatch_id", "state", "runs", "not_before", "enqueued_at", "claimed_at"]
    list_filter = ["state"]
    search_fields = ["dispatch_id"]
    readonly_fields = [f.name for f in DeliveryJob._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: DeliveryJob | None = None) -> bool:
        return False


@admin.register(ScheduledRelease)
class ScheduledReleaseAdmin(admin.ModelAdmin[ScheduledRelease]):
    list_display = ["publish", "due_at"]
    readonly_fields = ["publish", "due_at", "created_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # reschedule and unschedule go through the API or the publish's actions

    def has_delete_permission(self, request: HttpRequest, obj: ScheduledRelease | None = None) -> bool:
        return False


@admin.register(IdempotencyKey)
class IdempotencyKeyAdmin(admin.ModelAdmin[IdempotencyKey]):
    list_display = ["key", "team", "state", "publish", "expires_at"]
    list_filter = ["state"]
    search_fields = ["key", "team__name"]
    readonly_fields = [f.name for f in IdempotencyKey._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

"""Read-only views of synced metrics and the totals kept from them: only the sync and the
engine write them."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest

from analytics import totals
from analytics.models import MetricsSample, PlatformTotals, PostMetrics, PostTotals


class ReadOnlyAdmin(admin.ModelAdmin[Any]):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(PostMetrics)
class PostMetricsAdmin(ReadOnlyAdmin):
    list_display = ["target", "views", "likes", "comments", "shares", "last_sync_at", "next_sync_at", "sync_error"]
    list_filter = [("last_sync_at", admin.EmptyFieldListFilter), ("sync_error", admin.EmptyFieldListFilter)]
    list_select_related = ["target"]
    search_fields = ["target__id", "target__platform_post_id", "target__publish__id"]
    raw_id_fields = ["target"]


@admin.register(MetricsSample)
class MetricsSampleAdmin(ReadOnlyAdmin):
    list_display = ["target", "taken_at", "views", "likes", "comments", "shares"]
    list_select_related = ["target"]
    search_fields = ["target__id", "target__platform_post_id"]
    raw_id_fields = ["target"]
    date_hierarchy = "taken_at"


@admin.register(PostTotals)
class PostTotalsAdmin(ReadOnlyAdmin):
    list_display = ["publish", "team", "platform", "first_published_at", "views", "likes", "comments", "shares"]
    list_filter = ["platform"]
    list_select_related = ["publish", "team"]
    search_fields = ["publish__id"]
    raw_id_fields = ["publish", "team"]


@admin.register(PlatformTotals)
class PlatformTotalsAdmin(ReadOnlyAdmin):
    list_display = ["team", "platform", "posts", "views", "likes", "comments", "shares", "last_sync_at"]
    list_filter = ["platform"]
    list_select_related = ["team"]
    search_fields = ["team__id", "team__name"]
    raw_id_fields = ["team"]
    actions = ["recount"]

    @admin.action(description="Sum the selected teams' totals anew from their posts")
    def recount(self, request: HttpRequest, queryset: QuerySet[PlatformTotals]) -> None:
        """Put a team's sums right after rows were changed by hand (a publish deleted here)."""
        teams = set(queryset.values_list("team_id", flat=True))
        with transaction.atomic():
            totals.recount(teams, totals_model=PostTotals, platform_totals_model=PlatformTotals)
        self.message_user(request, f"Summed anew the totals of {len(teams)} team(s).")

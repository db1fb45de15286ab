from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from teams import services
from teams.models import SCOPES, ApiKey, Membership, MonthlyUsage, Plan, Team


@admin.register(Plan)
class PlanAdmin(admin.ModelAdmin[Plan]):
    list_display = ["code", "name", "posts_per_month", "social_accounts", "media_storage_gb"]
    search_fields = ["code", "name"]


class MembershipInline(admin.TabularInline[Membership, Team]):
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]
    fields = ["user", "role", "is_default", "created_at"]
    readonly_fields = ["created_at"]


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin[Team]):
    list_display = ["name", "plan", "approval_required", "block_duplicates", "time_zone", "created_at"]
    list_filter = ["approval_required", "block_duplicates", "plan"]
    search_fields = ["name", "id"]
    readonly_fields = ["id", "created_at", "updated_at"]
    inlines = [MembershipInline]


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin[Membership]):
    list_display = ["user", "team", "role", "is_default", "created_at"]
    list_filter = ["role", "is_default"]
    search_fields = ["user__username", "user__email", "team__name"]
    autocomplete_fields = ["user", "team"]


class ApiKeyForm(forms.ModelForm[ApiKey]):
    scopes = forms.MultipleChoiceField(
        choices=[(scope, scope) for scope in SCOPES], widget=forms.CheckboxSelectMultiple
    )

    class Meta:
        model = ApiKey
        fields = ["name", "user", "team", "active_team", "scopes", "expires_at", "revoked_at"]


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin[ApiKey]):
    """Keys are created here with the secret shown once; the stored hash is never displayed.
    Choosing a team makes a team key; leaving it empty makes a user key."""

    form = ApiKeyForm

    list_display = ["name", "masked", "kind", "user", "team", "last_used_at", "expires_at", "revoked_at"]
    list_filter = ["kind", ("revoked_at", admin.EmptyFieldListFilter)]
    search_fields = ["name", "prefix", "user__username", "team__name"]
    autocomplete_fields = ["user", "team", "active_team"]
    fields = ["name", "user", "team", "active_team", "scopes", "expires_at", "revoked_at", "last_used_at", "masked"]
    readonly_fields = ["last_used_at", "masked"]
    actions = ["revoke"]

    @admin.display(description="Key")
    def masked(self, obj: ApiKey) -> str:
        return f"sk_{obj.prefix}_…" if obj.prefix else "(shown once on save)"

    def save_model(self, request: HttpRequest, obj: ApiKey, form: Any, change: bool) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        api_key, plaintext = services.api_key_create(
            user=obj.user,
            name=obj.name,
            scopes=obj.scopes,
            team=obj.team,
            active_team=obj.active_team,
            expires_at=obj.expires_at,
        )
        obj.pk = api_key.pk
        obj.prefix = api_key.prefix
        messages.warning(request, f"Copy the key now, it is not shown again: {plaintext}")

    @admin.action(description="Revoke the selected keys")
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiKey]) -> None:
        for api_key in queryset:
            services.api_key_revoke(api_key=api_key)
        messages.success(request, f"Revoked {queryset.count()} key(s).")


@admin.register(MonthlyUsage)
class MonthlyUsageAdmin(admin.ModelAdmin[MonthlyUsage]):
    list_display = ["team", "month", "posts"]
    list_filter = ["month"]
    search_fields = ["team__name"]
    autocomplete_fields = ["team"]

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from notifications.models import Preference, SentMail


@admin.register(Preference)
class PreferenceAdmin(admin.ModelAdmin[Preference]):
    list_display = ("user", "approval_requested", "approval_decided", "delivery_failed", "account_needs_reconnect")
    search_fields = ("user__username", "user__email")
    raw_id_fields = ("user",)


@admin.register(SentMail)
class SentMailAdmin(admin.ModelAdmin[SentMail]):
    """The record of mails sent: read-only, as history is."""

    list_display = ("created_at", "kind", "to", "subject", "team", "sent_at", "error")
    list_filter = ("kind",)
    search_fields = ("to", "subject", "object_id")
    list_select_related = ("team",)
    readonly_fields = [f.name for f in SentMail._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: SentMail | None = None) -> bool:
        return False

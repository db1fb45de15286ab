from __future__ import annotations

from django.conf import settings
from django.contrib import admin
from django.db import models
from django.http import HttpRequest

from accounts import connect_links
from accounts.models import ConnectLink, PostingSchedule, SocialAccount


class PostingScheduleInline(admin.StackedInline[PostingSchedule, SocialAccount]):
    """Shown, not edited: the API's PUT checks the zone and every slot and normalizes them."""

    model = PostingSchedule
    fields = ["time_zone", "slots", "updated_at"]
    readonly_fields = ["time_zone", "slots", "updated_at"]
    can_delete = False
    extra = 0
    max_num = 0

    def has_add_permission(self, request: HttpRequest, obj: SocialAccount | None = None) -> bool:
        return False


@admin.register(SocialAccount)
class SocialAccountAdmin(admin.ModelAdmin[SocialAccount]):
    """Tokens are encrypted and never shown; the admin only tells whether one is stored."""

    list_display = ["__str__", "platform", "team", "status", "sandbox", "token_expires_at", "created_at"]
    list_filter = ["platform", "status", "sandbox"]
    search_fields = ["handle", "display_name", "external_id", "team__name", "id"]
    autocomplete_fields = ["team"]
    exclude = ["access_token", "refresh_token"]
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    readonly_fields = ["id", "has_access_token", "has_refresh_token", "created_at", "updated_at"]
    inlines = [PostingScheduleInline]

    def get_readonly_fields(self, request: HttpRequest, obj: SocialAccount | None = None) -> list[str]:
        fields = list(super().get_readonly_fields(request, obj))
        # Sandbox accounts exist only in development; production cannot make one here either.
        return fields if settings.DEVELOPMENT else [*fields, "sandbox"]

    @admin.display(boolean=True, description="Access token stored")
    def has_access_token(self, obj: SocialAccount) -> bool:
        return bool(obj.access_token)

    @admin.display(boolean=True, description="Refresh token stored")
    def has_refresh_token(self, obj: SocialAccount) -> bool:
        return bool(obj.refresh_token)


@admin.register(ConnectLink)
class ConnectLinkAdmin(admin.ModelAdmin[ConnectLink]):
    """Made over the API; staff can see them and revoke one (set revoked_at), not make one."""

    list_display = ["id", "team", "status", "expires_at", "revoked_at", "created_at"]
    list_filter = ["revoked_at", "outcome"]
    search_fields = ["id", "team__name", "redirect_url", "branding_name"]
    autocomplete_fields = ["team"]
    readonly_fields = [
        "id",
        "team",
        "page_url",
        "redirect_url",
        "platforms",
        "expires_at",
        "outcome",
        "accounts",
        "branding_name",
        "branding_logo_url",
        "branding_accent_color",
        "created_at",
        "updated_at",
    ]
    fields = [*readonly_fields[:4], "expires_at", "revoked_at", *readonly_fields[6:]]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.display(description="Status")
    def status(self, obj: ConnectLink) -> str:
        return connect_links.link_status(obj)

    @admin.display(description="Page")
    def page_url(self, obj: ConnectLink) -> str:
        return connect_links.page_url(obj)

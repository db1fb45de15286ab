from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from media import services
from media.models import MediaFit, MediaRendition, MediaUpload


class MediaRenditionInline(admin.TabularInline[MediaRendition, MediaUpload]):
    """The fitted copies made for platforms; deleted with their upload (files included)."""

    model = MediaRendition
    extra = 0
    can_delete = False
    fields = ("profile", "content_type", "size_bytes", "width", "height", "duration_seconds", "created_at")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: MediaUpload | None = None) -> bool:
        return False  # made by the worker when a delivery needs one


@admin.register(MediaUpload)
class MediaUploadAdmin(admin.ModelAdmin[MediaUpload]):
    list_display = [
        "filename",
        "team",
        "content_type",
        "size_bytes",
        "state",
        "probe_status",
        "video_codec",
        "fetch_status",
        "created_at",
    ]
    list_filter = ["state", "content_type", "probe_status", "fetch_status"]
    inlines = [MediaRenditionInline]
    search_fields = ["filename", "alt_text", "id", "team__name", "source_url"]
    readonly_fields = [f.name for f in MediaUpload._meta.fields]
    actions = ["delete_with_files"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # uploads arrive through the API

    def has_delete_permission(self, request: HttpRequest, obj: MediaUpload | None = None) -> bool:
        return False  # the action below also removes the stored bytes

    @admin.action(description="Delete the selected uploads and their stored files", permissions=["change"])
    def delete_with_files(self, request: HttpRequest, queryset: QuerySet[MediaUpload]) -> None:
        count = 0
        for upload in queryset:
            services.media_delete(upload=upload)
            count += 1
        messages.success(request, f"Deleted {count} upload(s) and their files.")


@admin.register(MediaRendition)
class MediaRenditionAdmin(admin.ModelAdmin[MediaRendition]):
    """Read-only: renditions are made by the worker and deleted with their upload."""

    list_display = ["upload", "profile", "content_type", "size_bytes", "width", "height", "created_at"]
    list_filter = ["profile", "content_type"]
    search_fields = ["upload__filename", "upload__id", "profile"]
    readonly_fields = [f.name for f in MediaRendition._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: MediaRendition | None = None) -> bool:
        return False


@admin.register(MediaFit)
class MediaFitAdmin(admin.ModelAdmin[MediaFit]):
    """Read-only: the making of each rendition in the media lane, who waits for it and why it
    failed (what a waiting delivery failed with)."""

    list_display = ["upload", "profile", "state", "tries", "lease_until", "error_code", "failed_at"]
    list_filter = ["state", "profile", "error_code"]
    search_fields = ["upload__filename", "upload__id", "profile"]
    readonly_fields = [f.name for f in MediaFit._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: MediaFit | None = None) -> bool:
        return False

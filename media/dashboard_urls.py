from __future__ import annotations

from django.urls import path

from media import library, views

urlpatterns = [
    path("media/", library.library, name="media-library"),
    path("media/<uuid:media_id>/alt-text/", library.describe, name="media-describe"),
    path("media/<uuid:media_id>/delete/", library.delete, name="media-delete"),
    path("media/picker/", views.picker, name="dashboard-media-picker"),
    path("media/uploads/", views.upload_create, name="dashboard-media-upload"),
    path("media/uploads/<uuid:media_id>/confirm/", views.upload_confirm, name="dashboard-media-confirm"),
]

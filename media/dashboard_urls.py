from __future__ import annotations

from django.urls import path

from media import views

urlpatterns = [
    path("media/uploads/", views.upload_create, name="dashboard-media-upload"),
    path("media/uploads/<uuid:media_id>/confirm/", views.upload_confirm, name="dashboard-media-confirm"),
]

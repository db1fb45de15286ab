from __future__ import annotations

from django.urls import path

from notifications import views

urlpatterns = [
    path("settings/notifications/", views.notifications, name="settings-notifications"),
    path("settings/notifications/save/", views.save, name="settings-notifications-save"),
]

from __future__ import annotations

from django.urls import path

from teams import views

urlpatterns = [
    path("settings/", views.team_settings, name="settings-team"),
    path("settings/keys/", views.keys, name="settings-keys"),
    path("settings/usage/", views.usage, name="settings-usage"),
]

from __future__ import annotations

from django.urls import path

from webhooks import views

urlpatterns = [
    path("settings/webhooks/", views.webhooks, name="settings-webhooks"),
]

from __future__ import annotations

from django.urls import path

from webhooks import views

urlpatterns = [
    path("settings/webhooks/", views.webhooks, name="settings-webhooks"),
    path("settings/webhooks/<uuid:subscription_id>/", views.webhook, name="settings-webhook"),
    path("settings/webhooks/<uuid:subscription_id>/delete/", views.delete, name="settings-webhook-delete"),
    path("settings/webhooks/<uuid:subscription_id>/enable/", views.enable, name="settings-webhook-enable"),
    path("settings/webhooks/<uuid:subscription_id>/test/", views.send_test, name="settings-webhook-test"),
    path(
        "settings/webhooks/<uuid:subscription_id>/rotate-secret/",
        views.rotate_secret,
        name="settings-webhook-rotate-secret",
    ),
    path(
        "settings/webhooks/<uuid:subscription_id>/deliveries/<uuid:delivery_id>/send-again/",
        views.send_again,
        name="settings-webhook-send-again",
    ),
]

from __future__ import annotations

from django.urls import path

from accounts import views

urlpatterns = [
    path("", views.dashboard, name="dashboard"),
    path("accounts/connect/<str:platform>/", views.connect, name="connect"),
    path("accounts/callback/<str:platform>/", views.callback, name="connect-callback"),
    path("accounts/password/<str:platform>/", views.connect_password, name="connect-password"),
    path("accounts/<uuid:account_id>/reauthorize/", views.reauthorize, name="reauthorize"),
    path("accounts/<uuid:account_id>/disconnect/", views.disconnect, name="disconnect"),
    path("accounts/<uuid:account_id>/schedule/", views.schedule, name="dashboard-account-schedule"),
    path("accounts/<uuid:account_id>/capabilities/", views.capabilities, name="dashboard-account-capabilities"),
]

"""The hosted pages of connect links, under /connect/ (no login: `accounts.connect_pages`)."""

from __future__ import annotations

from django.urls import path

from accounts import connect_pages

urlpatterns = [
    path("<str:token>/", connect_pages.page, name="connect-link-page"),
    path("<str:token>/logo", connect_pages.logo, name="connect-link-logo"),
    path("<str:token>/style.css", connect_pages.style, name="connect-link-style"),
    path("<str:token>/cancel/", connect_pages.cancel, name="connect-link-cancel"),
    path("<str:token>/<str:platform>/", connect_pages.start, name="connect-link-start"),
]

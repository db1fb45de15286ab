from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import URLPattern, URLResolver, include, path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularJSONAPIView, SpectacularSwaggerSplitView

from config.health import healthz
from mcpserver.http import McpView

api_v1: list[URLPattern | URLResolver] = [
    path(
        "openapi.json", SpectacularJSONAPIView.as_view(authentication_classes=[], permission_classes=[]), name="openapi"
    ),
    path(
        "docs",
        # The split view serves its start-up script as a file: the page's CSP runs no inline script.
        SpectacularSwaggerSplitView.as_view(url_name="openapi", authentication_classes=[], permission_classes=[]),
        name="docs",
    ),
    path("", include("accounts.urls")),
    path("", include("teams.urls")),
    path("", include("media.urls")),
    path("", include("webhooks.urls")),
    path("", include("publishing.urls")),
    path("", include("analytics.urls")),
]

urlpatterns = [
    path("", RedirectView.as_view(pattern_name="overview"), name="home"),
    path("healthz", healthz, name="healthz"),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("dashboard/", include("accounts.dashboard_urls")),
    path("dashboard/", include("publishing.dashboard_urls")),
    path("dashboard/", include("media.dashboard_urls")),
    path("dashboard/", include("analytics.dashboard_urls")),
    path("dashboard/", include("teams.dashboard_urls")),
    path("dashboard/", include("webhooks.dashboard_urls")),
    path("dashboard/", include("notifications.dashboard_urls")),
    path("connect/", include("accounts.connect_urls")),
    path("api/v1/", include(api_v1)),
    path("mcp", McpView.as_view(), name="mcp"),
    path("admin/", admin.site.urls),
]

handler400 = "config.handlers.handler400"
handler404 = "config.handlers.handler404"
handler500 = "config.handlers.handler500"

from __future__ import annotations

from django.contrib import admin
from django.urls import URLPattern, URLResolver, include, path
from drf_spectacular.views import SpectacularJSONAPIView, SpectacularSwaggerView

from config.health import healthz

api_v1: list[URLPattern | URLResolver] = [
    path(
        "openapi.json", SpectacularJSONAPIView.as_view(authentication_classes=[], permission_classes=[]), name="openapi"
    ),
    path(
        "docs",
        SpectacularSwaggerView.as_view(url_name="openapi", authentication_classes=[], permission_classes=[]),
        name="docs",
    ),
    path("", include("accounts.urls")),
    path("", include("teams.urls")),
    path("", include("media.urls")),
    path("", include("webhooks.urls")),
]

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("api/v1/", include(api_v1)),
    path("admin/", admin.site.urls),
]

handler400 = "config.handlers.handler400"
handler404 = "config.handlers.handler404"
handler500 = "config.handlers.handler500"

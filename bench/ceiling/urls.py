"""The ceiling's routes: the service's publish paths, and a health check to wait for."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.urls import path

from bench.ceiling.views import BulkPublishes, PublishDetail, Publishes


def healthz(request: HttpRequest) -> HttpResponse:
    return HttpResponse("ok", content_type="text/plain")


urlpatterns = [
    path("healthz", healthz),
    path("api/v1/publishes", Publishes.as_view()),
    path("api/v1/publishes/bulk", BulkPublishes.as_view()),
    path("api/v1/publishes/<uuid:pk>", PublishDetail.as_view()),
]

"""The service's routes plus one view that fails, to see the 500 page as a visitor would."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.urls import path

from config.urls import handler400, handler404, handler500, urlpatterns


def broken(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a bug")


urlpatterns = [path("broken/", broken), path("api/v1/broken", broken), *urlpatterns]
__all__ = ["handler400", "handler404", "handler500", "urlpatterns"]

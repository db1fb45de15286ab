from __future__ import annotations

from django.http import HttpRequest, HttpResponse


def team_settings(request: HttpRequest) -> HttpResponse:
    return HttpResponse("team")


def keys(request: HttpRequest) -> HttpResponse:
    return HttpResponse("keys")


def usage(request: HttpRequest) -> HttpResponse:
    return HttpResponse("usage")

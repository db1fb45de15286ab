from __future__ import annotations

from django.http import HttpRequest, HttpResponse


def calendar(request: HttpRequest) -> HttpResponse:
    return HttpResponse("calendar")

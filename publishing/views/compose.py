from __future__ import annotations

from django.http import HttpRequest, HttpResponse


def compose(request: HttpRequest) -> HttpResponse:
    return HttpResponse("compose")

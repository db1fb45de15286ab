from __future__ import annotations

from django.http import HttpRequest, HttpResponse


def webhooks(request: HttpRequest) -> HttpResponse:
    return HttpResponse("webhooks")

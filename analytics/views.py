from __future__ import annotations

import uuid

from django.http import HttpRequest, HttpResponse


def analytics(request: HttpRequest) -> HttpResponse:
    return HttpResponse("analytics")


def post(request: HttpRequest, publish_id: uuid.UUID) -> HttpResponse:
    return HttpResponse("post")

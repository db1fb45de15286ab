from __future__ import annotations

import uuid

from django.http import HttpRequest, HttpResponse


def detail(request: HttpRequest, publish_id: uuid.UUID) -> HttpResponse:
    return HttpResponse("detail")

"""The dashboard's side of the presigned upload flow, for the compose page: the browser asks
for an upload here (session and CSRF, the team in the form), PUTs the bytes itself to the
`upload_url` it is given (this service's signed URL, or S3's), then confirms here. Each step
calls the media service the API calls, with the API's own input validation, and answers JSON;
a refusal is `{"error": {"code", "message"}}` with the API's status.

The compose page's "Choose from library" dialog reads `picker`: a page of the team's confirmed
files (the library page's own selector and search), each with a short-lived thumbnail URL and
its alt text, so a picked file joins the form as an uploaded one does.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, JsonResponse
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from rest_framework.exceptions import ValidationError

from config.errors import ApplicationError
from config.pagination import Paginator
from config.serializers import validated
from media import selectors, services
from media.api import MediaCreateSerializer
from media.library import SEARCH_MAX_LENGTH
from media.models import MediaUpload
from publishing.views.compose_form import in_words
from teams.dashboard import requested_membership, signed_in_user
from teams.models import Team


def _refusal(status: int, code: str, message: str) -> JsonResponse:
    return JsonResponse({"error": {"code": code, "message": message}}, status=status)


def _invalid(exc: ValidationError) -> JsonResponse:
    """The serializer's first complaint, which names what is wrong with the file, in the
    dashboard's words."""
    detail: Any = exc.detail
    field_name = ""
    while isinstance(detail, dict | list) and detail:
        if isinstance(detail, dict):
            field_name, detail = next(iter(detail.items()))
        else:
            detail = detail[0]
    return _refusal(400, "VALIDATION_ERROR", in_words(str(field_name), str(detail)))


def _team(request: HttpRequest) -> Team:
    return requested_membership(request).team


PICKER_PAGE_SIZE = 12


@login_required
@require_GET
def picker(request: HttpRequest) -> JsonResponse:
    """GET ?team=&q=&page=: one page of the team's confirmed files, newest first, `q` narrowing
    them to file names containing it; `next_page` is null on the last page."""
    team = _team(request)  # another team's id, or one the user is not a member of: 404
    search = request.GET.get("q", "").strip()[:SEARCH_MAX_LENGTH]
    found = selectors.library_media(team=team, search=search)
    page = Paginator(found, PICKER_PAGE_SIZE).get_page(request.GET.get("page"))
    return JsonResponse(
        {
            "items": [_picked(upload) for upload in page.object_list],
            "count": page.paginator.count,
            "next_page": page.next_page_number() if page.has_next() else None,
        }
    )


def _picked(upload: MediaUpload) -> dict[str, str]:
    return {
        "media_id": str(upload.pk),
        "filename": upload.filename,
        "content_type": upload.content_type,
        "preview_url": selectors.media_pull_url(upload),  # short-lived, as the library's thumbnails
        "alt_text": upload.alt_text,
    }


@login_required
@require_POST
def upload_create(request: HttpRequest) -> JsonResponse:
    """POST filename, content_type and size_bytes: the upload, where to PUT it and how."""
    team = _team(request)
    fields = ("filename", "content_type", "size_bytes")
    try:
        body = validated(MediaCreateSerializer(data={k: request.POST[k] for k in fields if k in request.POST}))
        upload = services.media_create(
            team=team,
            user=signed_in_user(request),
            filename=body["filename"],
            content_type=body["content_type"],
            size_bytes=body.get("size_bytes"),
        )
    except ValidationError as exc:
        return _invalid(exc)
    except ApplicationError as exc:
        return _refusal(exc.status_code, exc.code, exc.message)
    upload_url, headers = services.upload_url(upload)
    confirm_url = reverse("dashboard-media-confirm", args=[upload.pk])
    answer = {"media_id": str(upload.pk), "upload_url": upload_url, "headers": headers, "confirm_url": confirm_url}
    return JsonResponse(answer, status=201)


@login_required
@require_POST
def upload_confirm(request: HttpRequest, media_id: uuid.UUID) -> JsonResponse:
    """Check the stored bytes and mark the upload ready for a publish's media."""
    team = _team(request)
    try:
        upload = services.media_confirm(team=team, media_id=str(media_id))
    except ApplicationError as exc:
        return _refusal(exc.status_code, exc.code, exc.message)
    return JsonResponse(
        {
            "media_id": str(upload.pk),
            "filename": upload.filename,
            "content_type": upload.content_type,
            "size_bytes": upload.size_bytes,
            "width": upload.width,
            "height": upload.height,
            "duration_seconds": upload.duration_seconds,
        }
    )

"""POST /media/uploads, GET /media/uploads/{id}, PATCH /media/uploads/{id} (its alt text),
POST /media/uploads/{id}/confirm, GET /media, and the two signed-URL endpoints of local storage
(PUT the bytes, GET a file)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.core.validators import URLValidator
from django.db.models import QuerySet
from django.http import FileResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import generics, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.errors import Forbidden, NotFound
from config.schema import api_operation, data_envelope, error_response
from config.serializers import represented, validated
from media import processing, selectors, services, storage
from media.models import ALT_TEXT_MAX_LENGTH, CONTENT_TYPES, MediaUpload
from teams.authentication import get_caller

_CHUNK = 1024 * 1024


_ALT_TEXT_HELP = (
    f"A description of the image for screen readers, at most {ALT_TEXT_MAX_LENGTH} characters (X's limit, "
    "the strictest). Sent with the file to X, Bluesky, LinkedIn, Facebook (photos), Instagram and Threads "
    "(images); the other networks take none. Empty when none was written."
)


_ALT_TEXT_TOO_LONG = f"The description takes at most {ALT_TEXT_MAX_LENGTH} characters (X's limit, the strictest)."


class AltTextField(serializers.CharField):
    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("help_text", _ALT_TEXT_HELP)
        super().__init__(
            max_length=ALT_TEXT_MAX_LENGTH,
            allow_blank=True,
            error_messages={"max_length": _ALT_TEXT_TOO_LONG},
            **kwargs,
        )


class MediaCreateSerializer(serializers.Serializer[Any]):
    filename = serializers.CharField(max_length=1000)
    content_type = serializers.ChoiceField(
        choices=CONTENT_TYPES,
        error_messages={"invalid_choice": "Unsupported content type {input}. Allowed: " + ", ".join(CONTENT_TYPES)},
    )
    size_bytes = serializers.IntegerField(
        min_value=1,
        max_value=settings.MEDIA_MAX_BYTES,
        required=False,
        help_text="Exact size of the file. Required unless source_url is given; with source_url it caps the fetch.",
    )
    source_url = serializers.URLField(
        max_length=2048,
        required=False,
        allow_blank=False,
        validators=[URLValidator(schemes=["http", "https"], message="Enter an http or https URL.")],
        help_text="A public http(s) URL the service fetches the file from; no PUT is needed then.",
    )
    alt_text = AltTextField(required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if "size_bytes" not in attrs and "source_url" not in attrs:
            raise serializers.ValidationError({"size_bytes": ["Required unless source_url is given."]})
        return attrs


class MediaConfirmSerializer(serializers.Serializer[Any]):
    alt_text = AltTextField(required=False)


class MediaUpdateSerializer(serializers.Serializer[Any]):
    alt_text = AltTextField()


class MediaProbeSerializer(serializers.ModelSerializer[MediaUpload]):
    status = serializers.CharField(
        source="probe_status",
        help_text=(
            "pending (ffprobe runs in a worker after confirm), done, failed (the file cannot be used; "
            "`error` says why and a publish with it is a 400), skipped (no ffprobe on this server), "
            "or empty before confirm."
        ),
    )
    error = serializers.SerializerMethodField(help_text="Why the probe failed: {code, message}; null otherwise.")

    class Meta:
        model = MediaUpload
        fields = [
            "status",
            "error",
            "container",
            "video_codec",
            "audio_codec",
            "frame_rate",
            "bit_rate",
            "aspect_ratio",
            "probed_at",
        ]

    @extend_schema_field(
        {"type": "object", "nullable": True, "properties": {"code": {"type": "string"}, "message": {"type": "string"}}}
    )
    def get_error(self, upload: MediaUpload) -> dict[str, str] | None:
        if not upload.probe_error_code:
            return None
        code = upload.probe_error_code
        return {"code": code, "message": processing.public_message(code, upload.probe_error)}


_PROBE_HELP = "What ffprobe found in the file (codecs, frame rate, bit rate, aspect ratio), once confirmed."


class MediaUploadSerializer(serializers.ModelSerializer[MediaUpload]):
    media_id = serializers.UUIDField(source="id", read_only=True, help_text="Use it in media_ids of a publish.")
    probe = MediaProbeSerializer(source="*", read_only=True, help_text=_PROBE_HELP)

    class Meta:
        model = MediaUpload
        fields = [
            "media_id",
            "id",
            "filename",
            "alt_text",
            "content_type",
            "size_bytes",
            "state",
            "source_url",
            "fetch_status",
            "fetch_error",
            "width",
            "height",
            "duration_seconds",
            "probe",
            "created_at",
            "confirmed_at",
        ]


class MediaCreatedSerializer(MediaUploadSerializer):
    upload_url = serializers.SerializerMethodField(help_text="PUT the bytes here (null with source_url).")
    headers = serializers.SerializerMethodField(help_text="Headers the PUT must carry, exactly.")
    upload_url_expires_at = serializers.SerializerMethodField()

    class Meta(MediaUploadSerializer.Meta):
        fields = [*MediaUploadSerializer.Meta.fields, "upload_url", "headers", "upload_url_expires_at"]

    def _presigned(self, upload: MediaUpload) -> tuple[str | None, dict[str, str]]:
        if not hasattr(self, "_cache"):
            self._cache = services.upload_url(upload)
        return self._cache

    def get_upload_url(self, upload: MediaUpload) -> str | None:
        return self._presigned(upload)[0]

    def get_headers(self, upload: MediaUpload) -> dict[str, str]:
        return self._presigned(upload)[1]

    def get_upload_url_expires_at(self, upload: MediaUpload) -> dt.datetime | None:
        if upload.source_url:
            return None
        return upload.created_at + dt.timedelta(seconds=settings.MEDIA_UPLOAD_URL_SECONDS)


class MediaSerializer(serializers.ModelSerializer[MediaUpload]):
    download_url = serializers.SerializerMethodField(help_text="Short-lived URL to fetch the file.")
    probe = MediaProbeSerializer(source="*", read_only=True, help_text=_PROBE_HELP)

    class Meta:
        model = MediaUpload
        fields = [
            "id",
            "filename",
            "alt_text",
            "content_type",
            "size_bytes",
            "width",
            "height",
            "duration_seconds",
            "probe",
            "created_at",
            "confirmed_at",
            "download_url",
        ]

    def get_download_url(self, upload: MediaUpload) -> str:
        return storage.download_url(key=upload.content_key, media_id=str(upload.pk))


_CREATE_EXAMPLE = OpenApiExample(
    "Upload a JPEG",
    request_only=True,
    value={"filename": "launch.jpg", "content_type": "image/jpeg", "size_bytes": 482113},
)
_FETCH_EXAMPLE = OpenApiExample(
    "Let the service fetch it",
    request_only=True,
    value={"filename": "teaser.mp4", "content_type": "video/mp4", "source_url": "https://example.com/teaser.mp4"},
)
_FLOW = (
    "1. `POST /api/v1/media/uploads` with filename, content_type and size_bytes.\n"
    "2. `PUT` the bytes to `upload_url` with exactly the returned `headers` within 15 minutes.\n"
    "3. `POST /api/v1/media/uploads/{id}/confirm`: the service checks the stored file's size and "
    "its real type (read from its bytes) and marks it ready for `media_ids`.\n\n"
    "With `source_url` the service fetches the file itself (http/https, public addresses only); "
    "follow `fetch_status` on `GET /api/v1/media/uploads/{id}` and confirm once it is `done`. "
    "Unconfirmed uploads are deleted after 24 hours. When the plan's `media_storage_gb` is used "
    "up, create answers 429 `quota_exceeded` with code `STORAGE_QUOTA_EXCEEDED`."
)


class MediaUploadViewSet(viewsets.GenericViewSet[MediaUpload]):
    required_scopes = {
        "create": "media:write",
        "retrieve": "media:read",
        "confirm": "media:write",
        "partial_update": "media:write",
    }
    serializer_class = MediaUploadSerializer

    @api_operation(
        scope="media:write",
        summary="Start an upload",
        description=_FLOW,
        request=MediaCreateSerializer,
        examples=[_CREATE_EXAMPLE, _FETCH_EXAMPLE],
        responses={201: OpenApiResponse(data_envelope("MediaCreatedResponse", MediaCreatedSerializer()))},
        errors=(400,),
    )
    def create(self, request: Request) -> Response:
        body = validated(MediaCreateSerializer(data=request.data))
        caller = get_caller(request)
        upload = services.media_create(
            team=caller.team,
            user=caller.user,
            filename=body["filename"],
            content_type=body["content_type"],
            size_bytes=body.get("size_bytes"),
            source_url=body.get("source_url", ""),
            alt_text=body.get("alt_text", ""),
        )
        return Response({"data": represented(MediaCreatedSerializer(upload))}, status=status.HTTP_201_CREATED)

    @api_operation(
        scope="media:read",
        summary="Get an upload",
        description="An upload in any state, with the progress of a source_url fetch.",
        responses={200: OpenApiResponse(data_envelope("MediaUploadResponse", MediaUploadSerializer()))},
        errors=(404,),
    )
    def retrieve(self, request: Request, pk: str) -> Response:
        upload = selectors.upload_for_team(team=get_caller(request).team, media_id=pk)
        if upload is None:
            raise NotFound("No such upload.", code="MEDIA_NOT_FOUND")
        return Response({"data": represented(MediaUploadSerializer(upload))})

    @api_operation(
        scope="media:write",
        summary="Confirm an upload",
        description=(
            "Checks that the file is in storage with the declared size and that its bytes are of the "
            "declared type, then marks it ready. A worker then probes it with ffprobe: follow `probe.status` "
            "on `GET /api/v1/media/uploads/{id}` (a file whose probe fails cannot be published). "
            "404 when absent or already confirmed; 409 "
            "`FILE_NOT_UPLOADED` or `FETCH_IN_PROGRESS` when the bytes are not there yet; 422 "
            "`SIZE_MISMATCH`, `CONTENT_TYPE_MISMATCH`, `UNRECOGNISED_MEDIA` or `FETCH_FAILED` when "
            "they are wrong (the upload stays unconfirmed: PUT the right file and confirm again)."
        ),
        request=MediaConfirmSerializer,
        responses={200: OpenApiResponse(data_envelope("MediaConfirmedResponse", MediaSerializer()))},
        errors=(404, 409, 422),
    )
    @action(detail=True, methods=["post"])
    def confirm(self, request: Request, pk: str) -> Response:
        body = validated(MediaConfirmSerializer(data=request.data or {}))
        upload = services.media_confirm(team=get_caller(request).team, media_id=pk, alt_text=body.get("alt_text"))
        return Response({"data": represented(MediaSerializer(upload))})

    @api_operation(
        scope="media:write",
        summary="Describe an upload",
        description=(
            "Sets the upload's `alt_text`, in any state. Publishes sent from then on carry it to the networks "
            "that take a description; posts already sent keep theirs. 400 when longer than "
            f"{ALT_TEXT_MAX_LENGTH} characters."
        ),
        request=MediaUpdateSerializer,
        responses={200: OpenApiResponse(data_envelope("MediaUpdatedResponse", MediaUploadSerializer()))},
        errors=(400, 404),
    )
    def partial_update(self, request: Request, pk: str) -> Response:
        body = validated(MediaUpdateSerializer(data=request.data))
        upload = services.media_set_alt_text(team=get_caller(request).team, media_id=pk, alt_text=body["alt_text"])
        return Response({"data": represented(MediaUploadSerializer(upload))})


class MediaListView(generics.ListAPIView[MediaUpload]):
    required_scope = "media:read"
    serializer_class = MediaSerializer

    def get_queryset(self) -> QuerySet[MediaUpload]:
        return selectors.ready_media(team=get_caller(self.request).team)

    @api_operation(
        scope="media:read",
        summary="List ready media",
        description="The team's confirmed media, newest first, each with a short-lived download URL.",
        responses={200: MediaSerializer(many=True)},
        errors=(400,),
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


def _check_signed(request: Request, purpose: str, media_id: str) -> None:
    valid = storage.signature_valid(
        purpose, media_id, request.query_params.get("expires", ""), request.query_params.get("signature", "")
    )
    if valid is None:
        raise Forbidden("This URL has expired.", code="URL_EXPIRED")
    if not valid:
        raise Forbidden("This URL is not valid.", code="URL_INVALID")


_SIGNED_PARAMETERS = [
    OpenApiParameter("expires", OpenApiTypes.INT, OpenApiParameter.QUERY, required=True),
    OpenApiParameter("signature", OpenApiTypes.STR, OpenApiParameter.QUERY, required=True),
]


class UploadContentView(APIView):
    """The target of a local `upload_url`: one PUT of exactly the declared bytes, streamed to
    storage in chunks so a 500 MB file never sits in memory."""

    authentication_classes = []
    permission_classes = []
    throttle_classes = []

    @extend_schema(
        summary="PUT the file to a local upload URL",
        description=(
            "Only through the `upload_url` from `POST /media/uploads`; the query string is its signature. "
            "409 `UPLOAD_ALREADY_CONFIRMED` once the upload is confirmed: its bytes are then fixed."
        ),
        auth=[],
        parameters=_SIGNED_PARAMETERS,
        request={"application/octet-stream": OpenApiTypes.BINARY},
        responses={200: OpenApiResponse(description="Stored."), **{c: error_response(c) for c in (400, 403, 404, 409)}},
    )
    def put(self, request: Request, pk: str) -> Response:
        _check_signed(request, "put", pk)
        upload = MediaUpload.objects.filter(pk=pk).first()
        if upload is None:
            raise NotFound("No such upload.")
        written = services.media_receive(
            upload=upload,
            content_type=request.headers.get("Content-Type", ""),
            content_length=request.headers.get("Content-Length"),
            body=_body_chunks(request),
        )
        return Response({"data": {"media_id": str(upload.pk), "size_bytes": written}})


def _body_chunks(request: Request) -> Iterator[bytes]:
    raw = request._request  # the WSGI stream, read as it arrives; request.data is never touched
    while chunk := raw.read(_CHUNK):
        yield chunk


class DownloadView(APIView):
    """The target of a local `download_url`: streams a ready file, or a fitted rendition of
    one (its URL is signed for the rendition's id), to whoever holds the URL."""

    authentication_classes = []
    permission_classes = []
    throttle_classes = []

    @extend_schema(
        summary="Download a file through a local download URL",
        auth=[],
        parameters=_SIGNED_PARAMETERS,
        responses={
            (200, "application/octet-stream"): OpenApiTypes.BINARY,
            403: error_response(403),
            404: error_response(404),
        },
    )
    def get(self, request: Request, pk: str) -> FileResponse:
        _check_signed(request, "get", pk)
        found = selectors.downloadable(pk)
        if found is None:
            raise NotFound("No such file.")
        key, content_type, modified = found
        response = FileResponse(storage.open_stream(key), content_type=content_type)
        response["Cache-Control"] = "private, max-age=60"
        response["Last-Modified"] = timezone.localtime(modified).strftime("%a, %d %b %Y %H:%M:%S GMT")
        return response

"""GET /api/v1/accounts, GET and DELETE /api/v1/accounts/{id}, /api/v1/accounts/{id}/capabilities
and GET/PUT /api/v1/accounts/{id}/schedule."""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema_field, inline_serializer
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.capabilities import account_capabilities
from accounts.models import AccountStatus, Platform, PostingSchedule, SocialAccount
from accounts.platforms.limits import limits_for
from accounts.schedules import DAYS, MAX_SLOTS, TIME_PATTERN, next_free_slots
from accounts.selectors import accounts_for_team, posting_schedule_of
from accounts.services import account_disconnect, posting_schedule_set
from config.errors import NotFound
from config.fields import CommaSeparatedChoiceField
from config.schema import api_operation, data_envelope
from config.serializers import represented, validated
from publishing.selectors import scheduled_instants_for
from teams.authentication import get_caller
from teams.time_zones import names as time_zone_names

_CAPABILITIES_SCHEMA = {
    "type": "object",
    "description": "What a post to this account may contain: text, images, videos, title, with limits.",
    "properties": {
        "text": {"type": "object", "additionalProperties": True},
        "images": {"type": "object", "additionalProperties": True},
        "videos": {"type": "object", "additionalProperties": True},
        "title": {"type": "object", "additionalProperties": True},
        "mixed_media": {"type": "boolean"},
        "max_media_per_post": {"type": "integer"},
        "requires_media": {"type": "boolean"},
        "notes": {"type": "array", "items": {"type": "string"}},
    },
}


_SETTINGS_SCHEMA = {
    "type": "object",
    "description": (
        "A JSON Schema (draft 2020-12) of the account's platform_settings: every key the service reads, "
        "its type, choices, bounds and default, narrowed by the live options when they could be read."
    ),
    "additionalProperties": True,
}
_NULLABLE_INT = {"type": "integer", "nullable": True}
_FORMATS_SCHEMA = {
    "type": "object",
    "description": (
        "What the platform documents beyond type, size and duration (null: no documented rule). A file "
        "that breaks a codec, dimension or pixel rule is sent as a fitted rendition unless the target sets "
        "`fit_media: false`; an aspect ratio is never fitted (nothing is cropped)."
    ),
    "properties": {
        "images": {
            "type": "object",
            "properties": {"max_width": _NULLABLE_INT, "max_height": _NULLABLE_INT, "max_pixels": _NULLABLE_INT},
        },
        "videos": {
            "type": "object",
            "properties": {
                "codecs": {"type": "array", "items": {"type": "string"}, "nullable": True},
                "audio_codecs": {"type": "array", "items": {"type": "string"}, "nullable": True},
                "max_width": _NULLABLE_INT,
                "max_height": _NULLABLE_INT,
                "aspect_ratio": {
                    "type": "object",
                    "nullable": True,
                    "description": "Width / height, inclusive.",
                    "properties": {"min": {"type": "number"}, "max": {"type": "number"}},
                },
            },
        },
    },
}
_LIVE_SCHEMA = {
    "type": "object",
    "description": (
        "The options the platform offers this account now, beside the fields below: TikTok's creator "
        "info (privacy_level_options, comment_disabled, duet_disabled, stitch_disabled, "
        "max_video_post_duration_sec, creator_username, creator_nickname), Pinterest's `boards` "
        "([{id, name}]), YouTube's assignable `categories` ([{id, name}]) and `region_code`."
    ),
    "required": ["supported", "available", "cached", "fetched_at", "error"],
    "properties": {
        "supported": {"type": "boolean", "description": "Whether the platform has live options."},
        "available": {"type": "boolean", "description": "Whether they were read (now or from the cache)."},
        "cached": {"type": "boolean", "description": "Whether they came from the cache."},
        "fetched_at": {"type": "string", "format": "date-time", "nullable": True},
        "error": {
            "type": "object",
            "nullable": True,
            "description": "Why they could not be read: ACCOUNT_EXPIRED, ACCOUNT_DISABLED, ACCOUNT_DISCONNECTED, "
            "PLATFORM_UNAVAILABLE, PLATFORM_RATE_LIMITED or SANDBOX_UNAVAILABLE.",
            "required": ["code", "message"],
            "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
        },
    },
    "additionalProperties": True,
}


class AccountSerializer(serializers.ModelSerializer[SocialAccount]):
    capabilities = serializers.SerializerMethodField()

    class Meta:
        model = SocialAccount
        fields = [
            "id",
            "platform",
            "status",
            "status_reason",
            "handle",
            "display_name",
            "avatar_url",
            "external_id",
            "sandbox",
            "token_expires_at",
            "capabilities",
            "created_at",
            "updated_at",
        ]

    @extend_schema_field(_CAPABILITIES_SCHEMA)
    def get_capabilities(self, account: SocialAccount) -> dict[str, Any]:
        return limits_for(account.platform).capabilities()


AccountResponse = data_envelope("AccountResponse", AccountSerializer())
AccountDisconnectedResponse = inline_serializer(
    name="AccountDisconnectedResponse",
    fields={
        "data": AccountSerializer(),
        "already_disconnected": serializers.BooleanField(help_text="True when it was disconnected before."),
        "token_revoked": serializers.BooleanField(
            allow_null=True,
            help_text="True when the platform confirmed the token revoked; false when it has no call for it or "
            "refused (the account is disconnected here either way); null when there was no token to revoke.",
        ),
    },
)


class AccountCapabilitiesSerializer(serializers.Serializer[Any]):
    account_id = serializers.UUIDField()
    platform = serializers.ChoiceField(choices=Platform.choices)
    platform_settings_schema = serializers.SerializerMethodField()
    limits = serializers.SerializerMethodField()
    formats = serializers.SerializerMethodField()
    live = serializers.SerializerMethodField()
    first_comment = serializers.SerializerMethodField()
    unpublish = serializers.SerializerMethodField()

    @extend_schema_field(
        {
            "type": "object",
            "description": "Whether `platform_settings.first_comment` can be used here, and how it is posted.",
            "properties": {
                "supported": {"type": "boolean"},
                "posted_as": {
                    "type": "string",
                    "nullable": True,
                    "description": "`reply`: a reply by the same account (X, Bluesky, Threads); `comment`: a "
                    "comment by the account on the post; null where the platform has no call to comment.",
                },
                "max_length": {"type": "integer", "nullable": True, "description": "The longest comment."},
            },
        }
    )
    def get_first_comment(self, found: dict[str, Any]) -> dict[str, Any]:
        return dict(found["first_comment"])

    @extend_schema_field(
        {
            "type": "object",
            "description": "Whether a published post can be deleted on the platform through its API.",
            "properties": {
                "supported": {"type": "boolean"},
                "message": {
                    "type": "string",
                    "nullable": True,
                    "description": "Why not, in plain words, where it cannot; null where it can.",
                },
            },
        }
    )
    def get_unpublish(self, found: dict[str, Any]) -> dict[str, Any]:
        return dict(found["unpublish"])

    @extend_schema_field(_SETTINGS_SCHEMA)
    def get_platform_settings_schema(self, found: dict[str, Any]) -> dict[str, Any]:
        return dict(found["platform_settings_schema"])

    @extend_schema_field(_CAPABILITIES_SCHEMA)
    def get_limits(self, found: dict[str, Any]) -> dict[str, Any]:
        return dict(found["limits"])

    @extend_schema_field(_FORMATS_SCHEMA)
    def get_formats(self, found: dict[str, Any]) -> dict[str, Any]:
        return dict(found["formats"])

    @extend_schema_field(_LIVE_SCHEMA)
    def get_live(self, found: dict[str, Any]) -> dict[str, Any]:
        return dict(found["live"])


AccountCapabilitiesResponse = data_envelope("AccountCapabilitiesResponse", AccountCapabilitiesSerializer())


class CapabilitiesQuerySerializer(serializers.Serializer[Any]):
    refresh = serializers.BooleanField(
        required=False,
        default=False,
        help_text=(
            "Read the live options from the platform again, not from the cache: at most once per account"
            " every CAPABILITIES_REFRESH_SECONDS (60 s); a refresh sooner answers from the cache."
        ),
    )


class AccountFilterSerializer(serializers.Serializer[Any]):
    platform = CommaSeparatedChoiceField(choices=Platform.values, required=False)
    status = CommaSeparatedChoiceField(choices=AccountStatus.values, required=False)


class ScheduleSlotSerializer(serializers.Serializer[Any]):
    day = serializers.ChoiceField(choices=DAYS)
    time = serializers.RegexField(
        TIME_PATTERN, help_text="Wall-clock time in the schedule's zone, `HH:MM` (00:00 to 23:59)."
    )


class PostingScheduleInputSerializer(serializers.Serializer[Any]):
    timezone = serializers.CharField(help_text="IANA time zone name, e.g. `Europe/Paris`.")
    slots = ScheduleSlotSerializer(  # type: ignore[call-arg]
        many=True,
        max_length=MAX_SLOTS,
        help_text=f"The weekly slots, at most {MAX_SLOTS}; duplicates are dropped; an empty list clears them.",
    )

    def validate_timezone(self, value: str) -> str:
        if value not in time_zone_names():
            raise serializers.ValidationError(f"Unknown time zone {value!r}; use an IANA name such as Europe/Paris.")
        return value


class PostingScheduleSerializer(serializers.Serializer[Any]):
    timezone = serializers.CharField(source="schedule.time_zone", help_text="IANA time zone name of the slots.")
    slots = ScheduleSlotSerializer(
        source="schedule.slots", many=True, help_text="The weekly slots, Monday first, then by time."
    )
    next_free_slots = serializers.ListField(
        child=serializers.DateTimeField(),
        help_text=(
            "The next 10 slot instants (UTC) not taken by a scheduled publish to this account. A slot "
            "the clocks skip that day (daylight saving time) is left out; a repeated one counts once."
        ),
    )


PostingScheduleResponse = data_envelope("PostingScheduleResponse", PostingScheduleSerializer())


class AccountViewSet(viewsets.GenericViewSet[SocialAccount]):
    # Per action, so that no scope is left for OPTIONS: it is a 405, as everywhere in the API.
    required_scopes = {
        "list": "accounts:read",
        "retrieve": "accounts:read",
        "capabilities": "accounts:read",
        "schedule": "accounts:read",
        "schedule_update": "accounts:write",
        "destroy": "accounts:write",
    }
    page_size_default = 50
    serializer_class = AccountSerializer

    @api_operation(
        scope="accounts:read",
        summary="List connected accounts",
        description=(
            "The team's connected accounts, oldest first, each with its capabilities. Disconnected "
            "accounts are left out unless `status` names `disconnected`."
        ),
        parameters=[AccountFilterSerializer],
        responses={200: AccountSerializer(many=True)},
        errors=(400,),
    )
    def list(self, request: Request) -> Response:
        filters = validated(AccountFilterSerializer(data=request.query_params))
        accounts = accounts_for_team(
            team=get_caller(request).team,
            platforms=filters.get("platform", ()),
            statuses=filters.get("status", ()),
        )
        page = self.paginate_queryset(accounts)
        return self.get_paginated_response(represented(AccountSerializer(page, many=True)))

    @api_operation(
        scope="accounts:read",
        summary="Get one account",
        responses={200: OpenApiResponse(AccountResponse)},
        errors=(404,),
    )
    def retrieve(self, request: Request, pk: str) -> Response:
        return Response({"data": represented(AccountSerializer(_team_account(request, pk)))})

    @api_operation(
        scope="accounts:write",
        summary="Disconnect an account",
        description=(
            "Forgets the account's tokens and revokes them at the platform where it has a call for it "
            "(X, YouTube, TikTok, Facebook, Bluesky; `token_revoked` says whether the platform "
            "confirmed). The account leaves `GET /accounts` (ask for `status=disconnected` to see it) and "
            "stops counting against the plan; its published history stays and `GET /accounts/{id}` still "
            "answers it, with `status: disconnected`. A publish naming it afterwards is a 400 "
            "`ACCOUNT_DISCONNECTED`; a scheduled target on it fails at release with the target's `error.code` "
            "`ACCOUNT_DISCONNECTED`. Webhooks get `account.disconnected`, once. Connecting the same "
            "account again brings it back under the same id. Disconnecting it again answers 200 with "
            "`already_disconnected: true`."
        ),
        request=None,
        responses={200: OpenApiResponse(AccountDisconnectedResponse)},
        errors=(404,),
    )
    def destroy(self, request: Request, pk: str) -> Response:
        gone = account_disconnect(account=_team_account(request, pk), reason="Disconnected over the API.")
        return Response(
            {
                "data": represented(AccountSerializer(gone.account)),
                "already_disconnected": not gone.changed,
                "token_revoked": gone.token_revoked,
            }
        )

    @api_operation(
        scope="accounts:read",
        summary="Get an account's capabilities",
        description=(
            "A JSON Schema of the account's platform_settings, its media limits, and the options its "
            "platform offers it now (TikTok creator info, Pinterest boards, YouTube categories), folded "
            "into the schema too. Live options are cached for a few minutes; a platform that cannot give "
            "them still answers 200, with the static schema and `live.available` false."
        ),
        parameters=[CapabilitiesQuerySerializer],
        responses={200: OpenApiResponse(AccountCapabilitiesResponse)},
        errors=(400, 404),
    )
    @action(detail=True, methods=["get"])
    def capabilities(self, request: Request, pk: str) -> Response:
        query = validated(CapabilitiesQuerySerializer(data=request.query_params))
        found = account_capabilities(account=_team_account(request, pk), refresh=query["refresh"])
        return Response({"data": represented(AccountCapabilitiesSerializer(found))})

    @api_operation(
        scope="accounts:read",
        summary="Get an account's posting schedule",
        description=(
            "Its time zone, weekly slots and next free slot instants. An account without a schedule "
            'answers `"timezone": "UTC"` and no slots.'
        ),
        responses={200: OpenApiResponse(PostingScheduleResponse)},
        errors=(404,),
    )
    @action(detail=True, methods=["get"])
    def schedule(self, request: Request, pk: str) -> Response:
        return _schedule_response(posting_schedule_of(account=_team_account(request, pk)))

    @api_operation(
        scope="accounts:write",
        summary="Set an account's posting schedule",
        description=(
            f"Replaces the time zone and the weekly slots (at most {MAX_SLOTS}); an empty `slots` clears them. "
            "A slot is a wall-clock time in that zone. An unknown zone, day or time is a 400."
        ),
        request=PostingScheduleInputSerializer,
        responses={200: OpenApiResponse(PostingScheduleResponse)},
        errors=(404,),
    )
    @schedule.mapping.put  # type: ignore[untyped-decorator]  # untyped in the DRF stubs
    def schedule_update(self, request: Request, pk: str) -> Response:
        account = _team_account(request, pk)
        data = validated(PostingScheduleInputSerializer(data=request.data))
        return _schedule_response(
            posting_schedule_set(account=account, time_zone=data["timezone"], slots=data["slots"])
        )


def _schedule_response(schedule: PostingSchedule) -> Response:
    now = timezone.now()
    taken = scheduled_instants_for(account=schedule.account, after=now) if schedule.slots else set()
    found = {"schedule": schedule, "next_free_slots": next_free_slots(schedule, now, taken)}
    return Response({"data": represented(PostingScheduleSerializer(found))})


def _team_account(request: Request, pk: str) -> SocialAccount:
    """The team's account `pk`, disconnected ones included (their history is still the team's)."""
    account = SocialAccount.objects.filter(team=get_caller(request).team, pk=pk).first()
    if account is None:
        raise NotFound("No such account in this team.", code="ACCOUNT_NOT_FOUND")
    return account

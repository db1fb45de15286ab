"""/api/v1/publishes and /api/v1/approvals: validate, call one lifecycle function, shape the
answer. Dispatch to the broker happens after the lifecycle transaction has committed."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.db.models import Exists, OuterRef
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema_field
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.models import Platform
from config.errors import NotFound, ServiceUnavailable
from config.fields import CommaSeparatedChoiceField
from config.parsers import depth_of
from config.schema import api_operation, data_envelope
from config.serializers import validated
from publishing import dispatch, idempotency, lifecycle
from publishing.models import TARGET_STATUSES, DeliveryAttempt, Id, Publish, PublishMode, PublishStatus, Target
from publishing.selectors import ATTEMPT_FIELDS, approvals_for, publish_by_id, publishes_for
from teams.authentication import Caller, get_caller

# --- input -----------------------------------------------------------------------------------

SETTINGS_MAX_KEYS = 50
SETTINGS_MAX_BYTES = 16 * 1024
SETTINGS_MAX_DEPTH = 4  # per_account -> account -> object -> value


class PlatformSettingsField(serializers.DictField):
    """A target's `platform_settings`: a flat object of at most 50 keys, 16 KB as JSON and four
    levels deep (Pinterest's `per_account` map is the deepest form the platforms take)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault(
            "help_text",
            "Flat per-platform settings (spec §2); unknown keys are ignored. At most "
            f"{SETTINGS_MAX_KEYS} keys and {SETTINGS_MAX_BYTES // 1024} KB as JSON.",
        )
        super().__init__(required=False, allow_null=True, **kwargs)

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        value: dict[str, Any] = super().to_internal_value(data)
        if len(value) > SETTINGS_MAX_KEYS:
            raise serializers.ValidationError(f"Give at most {SETTINGS_MAX_KEYS} settings.")
        if depth_of(value) > SETTINGS_MAX_DEPTH:
            raise serializers.ValidationError(f"Settings nest at most {SETTINGS_MAX_DEPTH} levels deep.")
        if len(json.dumps(value)) > SETTINGS_MAX_BYTES:
            raise serializers.ValidationError(f"Settings take at most {SETTINGS_MAX_BYTES // 1024} KB as JSON.")
        if _holds_nul(value):  # PostgreSQL's jsonb cannot store one
            raise serializers.ValidationError("Settings may not contain the NUL character (\\u0000).")
        return value


def _holds_nul(document: Any) -> bool:
    pending = [document]
    while pending:
        node = pending.pop()
        if isinstance(node, str) and "\x00" in node:
            return True
        if isinstance(node, dict):
            pending.extend(node)  # the keys
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    return False


class TargetInputSerializer(serializers.Serializer[Any]):
    account_id = serializers.UUIDField(help_text="The connected account to publish to.")
    content = serializers.CharField(
        required=False,
        allow_blank=True,
        allow_null=True,
        max_length=100_000,
        trim_whitespace=False,
        help_text="Overrides the publish's content for this target; null inherits it.",
    )
    media_ids = serializers.ListField(
        child=serializers.UUIDField(),
        max_length=20,
        required=False,
        allow_null=True,
        help_text="Overrides the publish's media for this target; null inherits it.",
    )
    platform_settings = PlatformSettingsField()


class CreatePublishSerializer(serializers.Serializer[Any]):
    content = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=100_000,
        trim_whitespace=False,
        help_text="Default text of every target.",
    )
    media_ids = serializers.ListField(
        child=serializers.UUIDField(),
        max_length=20,
        required=False,
        default=list,
        help_text="Ids of confirmed uploads (never URLs); default media of every target.",
    )
    targets = TargetInputSerializer(many=True, allow_empty=False, max_length=50)  # type: ignore[call-arg]
    publish_mode = serializers.ChoiceField(
        choices=PublishMode.choices,
        required=False,
        help_text="Default: `scheduled` when scheduled_at is given, else `immediate`.",
    )
    scheduled_at = serializers.DateTimeField(
        required=False,
        allow_null=True,
        help_text="ISO 8601, in the future. Required for `scheduled`; on a draft, confirm schedules it.",
    )


class UpdatePublishSerializer(serializers.Serializer[Any]):
    content = serializers.CharField(required=False, allow_blank=True, max_length=100_000, trim_whitespace=False)
    media_ids = serializers.ListField(child=serializers.UUIDField(), max_length=20, required=False)
    targets = TargetInputSerializer(  # type: ignore[call-arg]
        many=True,
        allow_empty=False,
        max_length=50,
        required=False,
        help_text="The complete new set of targets; targets kept (same account_id) keep the fields not given.",
    )
    scheduled_at = serializers.DateTimeField(
        required=False, allow_null=True, help_text="Drafts only; a scheduled publish moves with /reschedule."
    )


class RetryTargetSerializer(serializers.Serializer[Any]):
    target_id = serializers.UUIDField(required=False, help_text="The failed target's id; or give account_id.")
    account_id = serializers.UUIDField(required=False, help_text="The failed target's account.")
    content = serializers.CharField(
        required=False, allow_blank=True, allow_null=True, max_length=100_000, trim_whitespace=False
    )
    media_ids = serializers.ListField(child=serializers.UUIDField(), max_length=20, required=False, allow_null=True)
    platform_settings = PlatformSettingsField()

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if "target_id" not in attrs and "account_id" not in attrs:
            raise serializers.ValidationError("Name the failed target by target_id or account_id.")
        return attrs


class RetryPublishSerializer(serializers.Serializer[Any]):
    targets = RetryTargetSerializer(  # type: ignore[call-arg]
        many=True,
        required=False,
        max_length=50,
        help_text="Edits of failed targets before the re-send; omit to re-send them unchanged.",
    )


class ConfirmSerializer(serializers.Serializer[Any]):
    scheduled_at = serializers.DateTimeField(required=False, allow_null=True)


class RescheduleSerializer(serializers.Serializer[Any]):
    scheduled_at = serializers.DateTimeField()


class RejectSerializer(serializers.Serializer[Any]):
    reason = serializers.CharField(required=False, allow_blank=True, max_length=lifecycle.REASON_MAX_LENGTH, default="")


class PublishFilterSerializer(serializers.Serializer[Any]):
    status = CommaSeparatedChoiceField(choices=PublishStatus.values, required=False)
    platform = CommaSeparatedChoiceField(choices=Platform.values, required=False)
    account_id = serializers.UUIDField(required=False, help_text="Publishes with a target on this account.")
    created_after = serializers.DateTimeField(required=False, help_text="ISO 8601; publishes created after it.")


def _targets(entries: list[dict[str, Any]]) -> list[lifecycle.TargetInput]:
    return [
        lifecycle.TargetInput(
            account_id=str(e["account_id"]),
            content=e.get("content"),
            media_ids=None if e.get("media_ids") is None else [str(i) for i in e["media_ids"]],
            platform_settings=e.get("platform_settings"),
            fields=frozenset(e) & {"content", "media_ids", "platform_settings"},
        )
        for e in entries
    ]


def _ids(values: list[Any]) -> list[str]:
    return [str(v) for v in values]


# --- output ----------------------------------------------------------------------------------


class UserRefSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    username = serializers.CharField()


class AttemptSerializer(serializers.ModelSerializer[DeliveryAttempt]):
    class Meta:
        model = DeliveryAttempt
        fields = list(ATTEMPT_FIELDS)


class TargetSerializer(serializers.ModelSerializer[Target]):
    account_id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=TARGET_STATUSES, help_text="The spec's target status.")
    outcome = serializers.CharField(
        source="state",
        help_text=(
            "Finer delivery state: draft, scheduled, queued, sending, processing, unknown (the platform may "
            "have the post; being reconciled, never re-sent), published, failed."
        ),
    )
    platform_post_id = serializers.SerializerMethodField(help_text="The platform's content id once published.")
    platform_post_url = serializers.SerializerMethodField(help_text="The live post's URL once published.")
    error = serializers.SerializerMethodField(help_text="Failure evidence: the platform's or the delivery's error.")
    attempts = AttemptSerializer(many=True, read_only=True)

    class Meta:
        model = Target
        fields = [
            "id",
            "account_id",
            "platform",
            "content",
            "media_ids",
            "platform_settings",
            "status",
            "outcome",
            "platform_post_id",
            "platform_post_url",
            "error",
            "attempt_count",
            "attempts",
            "published_at",
            "updated_at",
        ]

    def get_platform_post_id(self, target: Target) -> str | None:
        return target.platform_post_id or None

    def get_platform_post_url(self, target: Target) -> str | None:
        return target.platform_post_url or None

    @extend_schema_field(
        {
            "type": "object",
            "nullable": True,
            "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
        }
    )
    def get_error(self, target: Target) -> dict[str, str] | None:
        if not target.error_code:
            return None
        return {"code": target.error_code, "message": target.error_message}


class PublishSerializer(serializers.ModelSerializer[Publish]):
    team_id = serializers.UUIDField()
    media_ids = serializers.ListField(child=serializers.UUIDField())
    targets = TargetSerializer(many=True, read_only=True)
    created_by = serializers.SerializerMethodField()
    approved_by = serializers.SerializerMethodField()
    rejected_by = serializers.SerializerMethodField()

    class Meta:
        model = Publish
        fields = [
            "id",
            "team_id",
            "status",
            "approval_status",
            "content",
            "media_ids",
            "publish_mode",
            "scheduled_at",
            "confirmed",
            "targets",
            "created_by",
            "approved_by",
            "approved_at",
            "rejected_by",
            "rejected_at",
            "rejection_reason",
            "created_at",
            "updated_at",
            "released_at",
            "completed_at",
        ]

    def _user(self, user: Any) -> dict[str, Any] | None:
        return None if user is None else {"id": user.pk, "username": user.get_username()}

    @extend_schema_field(UserRefSerializer(allow_null=True))
    def get_created_by(self, publish: Publish) -> dict[str, Any] | None:
        return self._user(publish.created_by)

    @extend_schema_field(UserRefSerializer(allow_null=True))
    def get_approved_by(self, publish: Publish) -> dict[str, Any] | None:
        return self._user(publish.approved_by)

    @extend_schema_field(UserRefSerializer(allow_null=True))
    def get_rejected_by(self, publish: Publish) -> dict[str, Any] | None:
        return self._user(publish.rejected_by)


class ApproveSerializer(PublishSerializer):
    already_approved = serializers.BooleanField(help_text="True when the publish had been approved before.")

    class Meta(PublishSerializer.Meta):
        fields = [*PublishSerializer.Meta.fields, "already_approved"]


class DiscardedSerializer(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    discarded = serializers.BooleanField()


PublishResponse = data_envelope("PublishResponse", PublishSerializer())


def _built(serializer: serializers.BaseSerializer[Any]) -> serializers.BaseSerializer[Any]:
    """`serializer` with its fields, and those of every nested serializer, built now."""
    if isinstance(serializer, serializers.ListSerializer):
        _built(serializer.child)  # type: ignore[arg-type]
    elif isinstance(serializer, serializers.Serializer):
        for nested in serializer.fields.values():
            if isinstance(nested, serializers.BaseSerializer):
                _built(nested)
    return serializer


# A ModelSerializer builds its fields from the model on every instantiation, which was most
# of the cost of an answer. Its fields only convert values (no request context), so one
# instance built at import shapes every publish, in every thread.
_PUBLISH_SHAPE = _built(PublishSerializer())


def publish_data(publish: Publish) -> dict[str, Any]:
    """The API representation of a publish whose targets and attempts are loaded."""
    return dict(_PUBLISH_SHAPE.to_representation(publish))


def publishes_data(publishes: Iterable[Publish] | None) -> list[dict[str, Any]]:
    return [publish_data(publish) for publish in publishes or ()]


ApproveResponse = data_envelope("ApproveResponse", ApproveSerializer())
DiscardResponse = data_envelope("DiscardResponse", DiscardedSerializer())


def _caller(caller: Caller) -> lifecycle.Caller:
    return lifecycle.Caller(user=caller.user, key=caller.key, can_approve=caller.is_team_admin)


def _fresh(publish_id: Id) -> Publish:
    return publishes_for().get(pk=publish_id)


def _shape(publish: Publish) -> dict[str, Any]:
    """The publish as committed: a new one answers from memory, any other is read back."""
    known = "targets" in getattr(publish, "_prefetched_objects_cache", {})
    return publish_data(publish if known else _fresh(publish.pk))


def _uncertain(publish: Publish) -> ServiceUnavailable:
    return ServiceUnavailable(
        "The publish was saved but handing it to the queue is uncertain. Repeat the request "
        "(with the same Idempotency-Key) to send this same publish; no other is created.",
        code="PUBLISH_DISPATCH_UNCERTAIN",
        details={"publish_id": str(publish.pk)},
    )


_CREATE_DESCRIPTION = """\
Creates one publish with one target per account. `publish_mode` is `immediate` (answers
`publishing`; poll `GET /publishes/{id}`), `scheduled` (needs a future `scheduled_at`) or
`draft` (nothing sent until `POST /publishes/{id}/confirm`). Without `publish_mode`, a
request with `scheduled_at` is scheduled and one without is immediate.

Each target's effective post (its own content/media_ids/platform_settings, else the
publish's) is checked against its platform's limits; a problem is 400 with its code and
`details.targets[]` naming the target. In a team that requires approval, a request from a
member's key waits as `approval_status: pending_approval`. Immediate and scheduled publishes
count against `posts_per_month` (429 `quota_exceeded` when used up); drafts count when confirmed.

**Idempotency-Key** (optional header, 1-255 characters, kept 24 hours per team): a repeat
with the same body replays the first answer; 409 while the first is in flight or for a
different body. After a 503 `PUBLISH_DISPATCH_UNCERTAIN` the same request with the same key
sends that publish (`details.publish_id`) and creates no other."""

_EXAMPLE = OpenApiExample(
    "Post now to two accounts",
    request_only=True,
    value={
        "content": "We are live!",
        "media_ids": ["0193a6c2-7d3e-7c1a-9f51-5b1c0e2d4a10"],
        "targets": [
            {"account_id": "0193a6c0-1111-7aaa-8bbb-000000000001"},
            {
                "account_id": "0193a6c0-1111-7aaa-8bbb-000000000002",
                "content": "We are live! Details in bio.",
                "platform_settings": {"first_comment": "#launch"},
            },
        ],
        "publish_mode": "immediate",
    },
)

_IDEMPOTENCY_HEADER = OpenApiParameter(
    "Idempotency-Key",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    required=False,
    pattern=r"^[ -~]{1,255}$",
    description=(
        "Makes the create safe to repeat for 24 hours (per team): 1 to 255 printable characters "
        "(else 400 `INVALID_IDEMPOTENCY_KEY`)."
    ),
)


class PublishViewSet(viewsets.GenericViewSet[Publish]):
    required_scopes = {
        "list": "posts:read",
        "retrieve": "posts:read",
        "create": "posts:write",
        "partial_update": "posts:write",
        "destroy": "posts:write",
        "retry": "posts:write",
        "confirm": "posts:write",
        "reschedule": "posts:write",
        "unschedule": "posts:write",
        "approve": "posts:write",
        "reject": "posts:write",
    }
    serializer_class = PublishSerializer
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]

    @property
    def throttle_scope(self) -> str:
        return {"create": "create_publish", "retry": "retry"}.get(self.action or "", "default")

    @api_operation(
        scope="posts:write",
        summary="Create a publish",
        description=_CREATE_DESCRIPTION,
        request=CreatePublishSerializer,
        parameters=[_IDEMPOTENCY_HEADER],
        examples=[_EXAMPLE],
        responses={201: OpenApiResponse(PublishResponse)},
        errors=(400, 409, 503),
    )
    def create(self, request: Request) -> Response:
        caller = get_caller(request)
        key = request.headers.get("Idempotency-Key")
        if key is None:
            publish = self._create(request, caller)
            return self._dispatched(publish)
        record = idempotency.idempotency_begin(team=caller.team, key=key, digest=idempotency.body_hash(request.data))
        if record.state == "done":
            return Response(record.response_body, status=record.response_status)
        if record.publish_id is None:
            try:
                with transaction.atomic():
                    publish = self._create(request, caller)
                    idempotency.idempotency_created(record=record, publish=publish)
            except Exception:
                idempotency.idempotency_abandon(record=record)
                raise
        else:
            publish = _fresh(record.publish_id)
        response = self._dispatched(publish)
        idempotency.idempotency_finish(record=record, status=response.status_code, body=response.data)
        return response

    def _create(self, request: Request, caller: Caller) -> Publish:
        data = validated(CreatePublishSerializer(data=request.data))
        mode = data.get("publish_mode") or (
            PublishMode.SCHEDULED if data.get("scheduled_at") else PublishMode.IMMEDIATE
        )
        return lifecycle.publish_create(
            team=caller.team,
            caller=_caller(caller),
            content=data["content"],
            media_ids=_ids(data["media_ids"]),
            targets=_targets(data["targets"]),
            publish_mode=mode,
            scheduled_at=data.get("scheduled_at"),
        )

    def _dispatched(self, publish: Publish, *, status_code: int = status.HTTP_201_CREATED) -> Response:
        # The record as committed (an immediate publish answers `publishing`), then the jobs.
        body = {"data": _shape(publish)}
        try:
            dispatch.send_pending(publish)
        except dispatch.DispatchUncertain as exc:
            raise _uncertain(publish) from exc
        return Response(body, status=status_code)

    @api_operation(
        scope="posts:read",
        summary="List publishes",
        description="The team's publishes, newest first, with their targets.",
        parameters=[PublishFilterSerializer],
        responses={200: PublishSerializer(many=True)},
        errors=(400,),
    )
    def list(self, request: Request) -> Response:
        filters = validated(PublishFilterSerializer(data=request.query_params))
        query = publishes_for(team=get_caller(request).team)
        f = filters
        if f.get("status"):
            query = query.filter(status__in=f["status"])
        if f.get("created_after"):
            query = query.filter(created_at__gt=f["created_after"])
        targets = Target.objects.filter(publish=OuterRef("pk"))
        if f.get("platform"):
            query = query.filter(Exists(targets.filter(platform__in=f["platform"])))
        if f.get("account_id"):
            query = query.filter(Exists(targets.filter(account_id=f["account_id"])))
        page = self.paginate_queryset(query)
        return self.get_paginated_response(publishes_data(page))

    @api_operation(
        scope="posts:read",
        summary="Get a publish",
        description="The publish with every target's status, platform post id, live URL and failure evidence.",
        responses={200: OpenApiResponse(PublishResponse)},
        errors=(404,),
    )
    def retrieve(self, request: Request, pk: str) -> Response:
        publish = publish_by_id(team=get_caller(request).team, publish_id=pk)
        if publish is None:
            raise NotFound("No such publish.", code="PUBLISH_NOT_FOUND")
        return Response({"data": publish_data(publish)})

    @api_operation(
        scope="posts:write",
        summary="Edit a draft or scheduled publish",
        description=(
            "Edits an unconfirmed draft or a scheduled publish not yet sent, in place (same id). Omitted "
            "fields keep their values; `targets`, when given, is the complete set (kept targets keep omitted "
            "fields); top-level `media_ids` replaces the media of kept targets unless an entry gives its own. "
            "A scheduled publish keeps its time (move it with /reschedule). In a team that requires approval, "
            "a member's edit of an approved publish waits for approval again. 400 with no editable field, an "
            "invalid account or media; 422 `NOT_EDITABLE` in any other state, or for media the platform "
            "does not take."
        ),
        request=UpdatePublishSerializer,
        responses={200: OpenApiResponse(PublishResponse)},
        errors=(400, 404, 422),
    )
    def partial_update(self, request: Request, pk: str) -> Response:
        # Not partial=True: that would also make each target's account_id optional.
        body = validated(UpdatePublishSerializer(data=request.data))
        changes = dict(body)
        if "media_ids" in changes:
            changes["media_ids"] = _ids(changes["media_ids"])
        if "targets" in changes:
            changes["targets"] = _targets(changes["targets"])
        caller = get_caller(request)
        publish = lifecycle.publish_update(team=caller.team, publish_id=pk, changes=changes, caller=_caller(caller))
        return Response({"data": _shape(publish)})

    @api_operation(
        scope="posts:write",
        summary="Discard a draft",
        description="Deletes an unconfirmed draft permanently. 422 for anything else.",
        responses={200: OpenApiResponse(DiscardResponse)},
        errors=(404, 422),
    )
    def destroy(self, request: Request, pk: str) -> Response:
        publish_id = lifecycle.publish_discard(team=get_caller(request).team, publish_id=pk)
        return Response({"data": {"id": publish_id, "discarded": True}})

    @api_operation(
        scope="posts:write",
        summary="Retry failed targets",
        description=(
            "For a `failed` or `partial` publish (else 400): re-sends only the targets that failed with "
            "evidence; published targets and those whose outcome is unknown are never re-sent. Optional "
            "`targets[]` edits failed targets first: each entry names one by `target_id` (or `account_id`) and "
            "may set `content`, `media_ids`, `platform_settings`. An entry for a target that did not fail is "
            "400; media the platform does not take is 422. In a team that requires approval, a member's "
            "retry that changes what a target sends does not re-send: the publish answers "
            "`approval_status: pending_approval` and approving it re-sends the edited targets (rejecting it "
            "keeps every target's outcome). A publish waiting for that approval, or rejected, cannot be "
            "retried (400 `NOT_RETRYABLE`)."
        ),
        request=RetryPublishSerializer,
        responses={200: OpenApiResponse(PublishResponse)},
        errors=(400, 404, 422),
    )
    @action(detail=True, methods=["post"])
    def retry(self, request: Request, pk: str) -> Response:
        body = validated(RetryPublishSerializer(data=request.data))
        edits = [
            {
                **{k: str(v) for k, v in e.items() if k in ("target_id", "account_id")},
                **{k: v for k, v in e.items() if k in ("content", "platform_settings")},
                **({"media_ids": None if e["media_ids"] is None else _ids(e["media_ids"])} if "media_ids" in e else {}),
            }
            for e in body.get("targets", [])
        ]
        caller = get_caller(request)
        publish = lifecycle.publish_retry(team=caller.team, publish_id=pk, caller=_caller(caller), edits=edits)
        data = _shape(publish)
        dispatch.send_pending_quietly(publish)  # the relay sends what the broker refuses now
        return Response({"data": data})

    @api_operation(
        scope="posts:write",
        summary="Confirm a draft",
        description=(
            "Queues an unconfirmed draft now, or schedules it when `scheduled_at` is given or already set "
            "(send `{}` to publish now). 422 `NOT_A_DRAFT` otherwise; 400 for a bad or past time. "
            "A 503 `PUBLISH_DISPATCH_UNCERTAIN` is safe to retry with the same request: the same jobs "
            "are sent again."
        ),
        request=ConfirmSerializer,
        responses={200: OpenApiResponse(PublishResponse)},
        errors=(400, 404, 422, 503),
    )
    @action(detail=True, methods=["post"])
    def confirm(self, request: Request, pk: str) -> Response:
        body = validated(ConfirmSerializer(data=request.data))
        caller = get_caller(request)
        publish = lifecycle.publish_confirm(
            team=caller.team,
            publish_id=pk,
            caller=_caller(caller),
            scheduled_at=body.get("scheduled_at"),
        )
        return self._dispatched(publish, status_code=status.HTTP_200_OK)

    @api_operation(
        scope="posts:write",
        summary="Move a scheduled publish",
        description="A scheduled publish not yet sent moves to a new future time (400 otherwise); else 422.",
        request=RescheduleSerializer,
        responses={200: OpenApiResponse(PublishResponse)},
        errors=(400, 404, 422),
    )
    @action(detail=True, methods=["post"])
    def reschedule(self, request: Request, pk: str) -> Response:
        body = validated(RescheduleSerializer(data=request.data))
        publish = lifecycle.publish_reschedule(
            team=get_caller(request).team, publish_id=pk, scheduled_at=body["scheduled_at"]
        )
        return Response({"data": _shape(publish)})

    @api_operation(
        scope="posts:write",
        summary="Unschedule a publish",
        description=(
            "A scheduled publish not yet sent becomes an unconfirmed draft (same id, content, media and "
            "targets; its time is cleared, and its approval, pending or given, is withdrawn: confirming "
            "again decides it afresh). 422 otherwise."
        ),
        request=None,
        responses={200: OpenApiResponse(PublishResponse)},
        errors=(404, 422),
    )
    @action(detail=True, methods=["post"])
    def unschedule(self, request: Request, pk: str) -> Response:
        publish = lifecycle.publish_unschedule(team=get_caller(request).team, publish_id=pk)
        return Response({"data": _shape(publish)})

    @api_operation(
        scope="posts:write",
        summary="Approve a pending publish",
        description=(
            "Owners and admins of the team only (404 for anyone else). Releases the publish (a scheduled one "
            "at its time) and records approved_by/approved_at. Approving again answers "
            "`already_approved: true` and re-sends only jobs that never reached the queue. 400 when it is "
            "not pending approval; 503 `PUBLISH_DISPATCH_UNCERTAIN` when the queue did not take the jobs "
            "(approve again to re-send them)."
        ),
        request=None,
        responses={200: OpenApiResponse(ApproveResponse)},
        errors=(400, 404, 503),
    )
    @action(detail=True, methods=["post"])
    def approve(self, request: Request, pk: str) -> Response:
        caller = get_caller(request)
        publish, already = lifecycle.publish_approve(team=caller.team, publish_id=pk, caller=_caller(caller))
        response = self._dispatched(publish, status_code=status.HTTP_200_OK)
        response.data["data"]["already_approved"] = already
        response.data["already_approved"] = already
        return response

    @api_operation(
        scope="posts:write",
        summary="Reject a pending publish",
        description=(
            "Owners and admins of the team only (404 for anyone else). Terminal: the publish is never sent. "
            "The optional reason is recorded and delivered with the `post.rejected` event. 400 when it is "
            "not pending approval."
        ),
        request=RejectSerializer,
        responses={200: OpenApiResponse(PublishResponse)},
        errors=(400, 404),
    )
    @action(detail=True, methods=["post"])
    def reject(self, request: Request, pk: str) -> Response:
        body = validated(RejectSerializer(data=request.data))
        caller = get_caller(request)
        publish = lifecycle.publish_reject(
            team=caller.team, publish_id=pk, caller=_caller(caller), reason=body["reason"]
        )
        return Response({"data": _shape(publish)})


class ApprovalViewSet(viewsets.GenericViewSet[Publish]):
    required_scope = "posts:read"
    serializer_class = PublishSerializer

    @api_operation(
        scope="posts:read",
        summary="List publishes waiting for approval",
        description="Owners and admins see every pending publish of the team; members only their own.",
        responses={200: PublishSerializer(many=True)},
        errors=(400,),
    )
    def list(self, request: Request) -> Response:
        caller = get_caller(request)
        query = approvals_for(team=caller.team, user=None if caller.is_team_admin else caller.user)
        page = self.paginate_queryset(query)
        return self.get_paginated_response(publishes_data(page))

"""The serializers of /api/v1/publishes and /api/v1/approvals: what a request may hold, turned
into the lifecycle's inputs, and the publish's representation, shaped by one serializer built
once at import."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from drf_spectacular.utils import extend_schema_field, inline_serializer
from rest_framework import serializers

from accounts.models import Platform
from config.fields import CommaSeparatedChoiceField
from config.parsers import depth_of
from config.schema import ErrorObjectSerializer, data_envelope
from publishing import approval, inputs, preflight
from publishing.duplicate_content import WARNING_CODES
from publishing.models import (
    CREATE_MODES,
    TARGET_STATUSES,
    DeliveryAttempt,
    Publish,
    PublishStatus,
    RemovedBy,
    Target,
    ThreadItem,
    ThreadItemKind,
)
from publishing.selectors import ATTEMPT_FIELDS, media_sent

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


class ThreadItemInputSerializer(serializers.Serializer[Any]):
    content = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=100_000, trim_whitespace=False
    )
    media_ids = serializers.ListField(child=serializers.UUIDField(), max_length=20, required=False, default=list)


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
    thread = ThreadItemInputSerializer(  # type: ignore[call-arg]
        many=True,
        required=False,
        max_length=100,  # the platforms' own limit (25) is checked with the posts, as THREAD_TOO_LONG
        help_text=(
            "X, Bluesky and Threads only: later posts published after this target's own post as a chain of "
            "replies, each replying to the one before. Each item is its own text and media (nothing is "
            "inherited), checked like a post. On PATCH, the list given replaces the stored one."
        ),
    )


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
        choices=CREATE_MODES,
        required=False,
        help_text=(
            "Default: `scheduled` when scheduled_at is given, else `immediate`. `queue` (no scheduled_at): "
            "scheduled at the first posting-schedule slot, a minute away or more, free for every target's account."
        ),
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
    thread = ThreadItemInputSerializer(  # type: ignore[call-arg]
        many=True,
        required=False,
        max_length=100,
        help_text="Replaces the failed target's thread (never sent: a thread follows its published target).",
    )

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


class UnpublishSerializer(serializers.Serializer[Any]):
    target_ids = serializers.ListField(
        child=serializers.UUIDField(),
        required=False,
        allow_empty=False,
        max_length=50,
        help_text="The targets to take down; omit to take down every published target of the publish.",
    )


class ConfirmSerializer(serializers.Serializer[Any]):
    scheduled_at = serializers.DateTimeField(required=False, allow_null=True)


class RescheduleSerializer(serializers.Serializer[Any]):
    scheduled_at = serializers.DateTimeField()


class RejectSerializer(serializers.Serializer[Any]):
    reason = serializers.CharField(required=False, allow_blank=True, max_length=approval.REASON_MAX_LENGTH, default="")


class PublishFilterSerializer(serializers.Serializer[Any]):
    status = CommaSeparatedChoiceField(choices=PublishStatus.values, required=False)
    platform = CommaSeparatedChoiceField(choices=Platform.values, required=False)
    account_id = serializers.UUIDField(required=False, help_text="Publishes with a target on this account.")
    created_after = serializers.DateTimeField(required=False, help_text="ISO 8601; publishes created after it.")
    created_before = serializers.DateTimeField(
        required=False,
        help_text="ISO 8601; publishes created before it. A list longer than its pages reach continues from one "
        "microsecond past the `created_at` of the last item seen (skip the ids already seen).",
    )


def target_inputs(entries: list[dict[str, Any]]) -> list[inputs.TargetInput]:
    """Validated target entries as the lifecycle takes them, with which fields were given."""
    return [
        inputs.TargetInput(
            account_id=str(e["account_id"]),
            content=e.get("content"),
            media_ids=None if e.get("media_ids") is None else ids_of(e["media_ids"]),
            platform_settings=e.get("platform_settings"),
            fields=frozenset(e) & {"content", "media_ids", "platform_settings", "thread"},
            thread=None if e.get("thread") is None else thread_inputs(e["thread"]),
        )
        for e in entries
    ]


def thread_inputs(items: list[dict[str, Any]]) -> list[inputs.ThreadItemInput]:
    return [
        inputs.ThreadItemInput(content=i.get("content", ""), media_ids=ids_of(i.get("media_ids", []))) for i in items
    ]


def ids_of(values: list[Any]) -> list[str]:
    return [str(v) for v in values]


def update_changes(body: dict[str, Any]) -> dict[str, Any]:
    """A validated PATCH body as `lifecycle.publish_update` takes its changes."""
    changes = dict(body)
    if "media_ids" in changes:
        changes["media_ids"] = ids_of(changes["media_ids"])
    if "targets" in changes:
        changes["targets"] = target_inputs(changes["targets"])
    return changes


def retry_edits(body: dict[str, Any]) -> list[dict[str, Any]]:
    """A validated retry body's edits as `lifecycle.publish_retry` takes them."""
    return [
        {
            **{k: str(v) for k, v in e.items() if k in ("target_id", "account_id")},
            **{k: v for k, v in e.items() if k in ("content", "platform_settings")},
            **({"media_ids": None if e["media_ids"] is None else ids_of(e["media_ids"])} if "media_ids" in e else {}),
            **({"thread": thread_inputs(e["thread"])} if "thread" in e else {}),
        }
        for e in body.get("targets", [])
    ]


# --- output ----------------------------------------------------------------------------------


class UserRefSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    username = serializers.CharField()


class AttemptSerializer(serializers.ModelSerializer[DeliveryAttempt]):
    class Meta:
        model = DeliveryAttempt
        fields = list(ATTEMPT_FIELDS)


class _Replies(serializers.ListSerializer[ThreadItem]):
    """A target's thread items that are replies, in order (its first comment is shown apart)."""

    def to_representation(self, data: Any) -> list[Any]:
        items = data.all() if hasattr(data, "all") else data
        return super().to_representation([item for item in items if item.kind == ThreadItemKind.REPLY])


# What a thread item shows of its sending: the platform's id and URL, and why it failed (a
# comment, not a docstring: the schema would show it as every item's description).
class _SentItem(serializers.ModelSerializer[ThreadItem]):
    def get_platform_post_id(self, item: ThreadItem) -> str | None:
        return item.platform_post_id or None

    def get_platform_post_url(self, item: ThreadItem) -> str | None:
        return item.platform_post_url or None

    @extend_schema_field(
        {
            "type": "object",
            "nullable": True,
            "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
        }
    )
    def get_error(self, item: ThreadItem) -> dict[str, str] | None:
        return {"code": item.error_code, "message": item.error_message} if item.error_code else None


class ThreadItemSerializer(_SentItem):
    media_ids = serializers.ListField(child=serializers.UUIDField())
    status = serializers.CharField(
        source="state",
        help_text=(
            "pending (waiting for the post before it), sending, unknown (may exist; read back, never re-sent "
            "blindly), published, failed."
        ),
    )
    platform_post_id = serializers.SerializerMethodField(help_text="The platform's id of this reply once published.")
    platform_post_url = serializers.SerializerMethodField(help_text="The live reply's URL once published.")
    error = serializers.SerializerMethodField(help_text="Why it failed (THREAD_BROKEN: an earlier item failed).")

    class Meta:
        model = ThreadItem
        fields = ["position", "content", "media_ids", "status", "platform_post_id", "platform_post_url", "error"]
        list_serializer_class = _Replies


class FirstCommentSerializer(_SentItem):
    text = serializers.CharField(
        source="content", help_text="The comment, as `platform_settings.first_comment` gave it."
    )
    status = serializers.CharField(
        source="state",
        help_text=(
            "pending (waiting for the post), sending, unknown (may exist; read back, never re-sent blindly), "
            "published, failed (the post stays published; `retry` sends the comment again)."
        ),
    )
    platform_post_id = serializers.SerializerMethodField(
        help_text="The platform's id of the comment (of the reply, on X, Bluesky and Threads) once posted."
    )
    platform_post_url = serializers.SerializerMethodField(help_text="Its URL, where the platform gives one.")
    error = serializers.SerializerMethodField(help_text="Why it failed: the platform's or the delivery's error.")

    class Meta:
        model = ThreadItem
        fields = ["text", "status", "platform_post_id", "platform_post_url", "error", "published_at"]

    def to_representation(self, instance: Any) -> Any:
        """Given the target's thread items, its first comment, or None when it has none."""
        items = instance.all() if hasattr(instance, "all") else [instance]
        comment = next((item for item in items if item.kind == ThreadItemKind.COMMENT), None)
        return None if comment is None else super().to_representation(comment)


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
    removed_at = serializers.DateTimeField(
        read_only=True,
        allow_null=True,
        help_text="When the published post was found gone from its platform or taken down; null while it is there.",
    )
    removed_by = serializers.SerializerMethodField(
        help_text=(
            "Who took the post down: `user` (removed through this service) or `platform` (deleted on the network "
            "by its owner, or removed by moderation: noticed by a read-back or a metrics sync); null when not removed."
        )
    )
    removal_error = serializers.SerializerMethodField(
        help_text="Why a removal that was asked for could not be done, in plain words; null when there is none."
    )
    attempts = AttemptSerializer(many=True, read_only=True)
    thread = ThreadItemSerializer(
        source="thread_items",
        many=True,
        read_only=True,
        help_text="The target's later posts, in order ([] when it has none); each its own reply.",
    )
    first_comment = FirstCommentSerializer(
        source="thread_items",
        read_only=True,
        allow_null=True,
        help_text=(
            "The first comment `platform_settings.first_comment` asked for, sent once the post is published "
            "(a reply by the same account on X, Bluesky and Threads; a comment elsewhere); null when none."
        ),
    )
    media_sent = serializers.SerializerMethodField(
        help_text=(
            "The files the last attempt sent: each upload, or the rendition fitted to the platform that "
            "went in its place (`rendition` names it; null: the upload as it is). Null before any attempt."
        )
    )

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
            "removed_at",
            "removed_by",
            "removal_error",
            "attempt_count",
            "attempts",
            "thread",
            "first_comment",
            "media_sent",
            "published_at",
            "updated_at",
        ]

    def get_platform_post_id(self, target: Target) -> str | None:
        return target.platform_post_id or None

    def get_platform_post_url(self, target: Target) -> str | None:
        return target.platform_post_url or None

    @extend_schema_field({"type": "string", "enum": RemovedBy.values, "nullable": True})
    def get_removed_by(self, target: Target) -> str | None:
        return target.removed_by or None

    def get_removal_error(self, target: Target) -> str | None:
        return target.removal_error or None

    @extend_schema_field(
        {
            "type": "object",
            "nullable": True,
            "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
        }
    )
    @extend_schema_field(
        {
            "type": "array",
            "nullable": True,
            "items": {
                "type": "object",
                "properties": {
                    "media_id": {"type": "string", "format": "uuid"},
                    "rendition": {"type": "string", "nullable": True, "example": "jpeg"},
                    "content_type": {"type": "string"},
                    "size_bytes": {"type": "integer"},
                },
            },
        }
    )
    def get_media_sent(self, target: Target) -> list[dict[str, Any]] | None:
        attempts = sorted(target.attempts.all(), key=lambda attempt: attempt.number, reverse=True)
        return next((sent for attempt in attempts if (sent := media_sent(attempt))), None)

    def get_error(self, target: Target) -> dict[str, str] | None:
        if not target.error_code:
            return None
        return {"code": target.error_code, "message": target.error_message}


class PreflightProblemSerializer(serializers.Serializer[Any]):
    target_id = serializers.UUIDField()
    account_id = serializers.UUIDField()
    platform = serializers.ChoiceField(choices=Platform.choices)
    code = serializers.CharField(
        help_text="ACCOUNT_DISCONNECTED, ACCOUNT_EXPIRED, TOKEN_EXPIRES, TOKEN_REFRESH_REFUSED, TOKEN_REFUSED, "
        "MEDIA_NOT_FOUND, or the code of a validation problem (as POST /publishes/validate names them)."
    )
    message = serializers.CharField()


class PreflightSerializer(serializers.Serializer[Any]):
    checked_at = serializers.DateTimeField()
    scheduled_at = serializers.DateTimeField(help_text="The time it was checked for: the publish's scheduled_at.")
    at_risk = serializers.BooleanField(help_text="True when the check found a problem.")
    problems = PreflightProblemSerializer(many=True)


class PublishSerializer(serializers.ModelSerializer[Publish]):
    team_id = serializers.UUIDField()
    media_ids = serializers.ListField(child=serializers.UUIDField())
    targets = TargetSerializer(many=True, read_only=True)
    created_by = serializers.SerializerMethodField()
    approved_by = serializers.SerializerMethodField()
    rejected_by = serializers.SerializerMethodField()
    preflight = serializers.SerializerMethodField()

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
            "preflight",
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

    @extend_schema_field(
        PreflightSerializer(
            allow_null=True,
            help_text="A scheduled publish's check against its accounts as they are now, PREFLIGHT_SECONDS (600 by "
            "default) before its time: each target's account still connected, its token valid at that time or "
            "renewed, its media still in the library and its post still valid. A problem is told once by the "
            "post.at_risk event. Null until checked for the current scheduled_at (a reschedule checks again).",
        )
    )
    def get_preflight(self, publish: Publish) -> dict[str, Any] | None:
        found = preflight.findings(publish)
        return None if found is None else {**found, "at_risk": bool(found["problems"])}


class ApproveSerializer(PublishSerializer):
    already_approved = serializers.BooleanField(help_text="True when the publish had been approved before.")

    class Meta(PublishSerializer.Meta):
        fields = [*PublishSerializer.Meta.fields, "already_approved"]


class DiscardedSerializer(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    discarded = serializers.BooleanField()


PublishResponse = data_envelope("PublishResponse", PublishSerializer())


class DuplicateWarningSerializer(serializers.Serializer[Any]):
    code = serializers.ChoiceField(choices=WARNING_CODES)
    account_id = serializers.UUIDField(help_text="The target's account, which already got the same text.")
    publish_id = serializers.UUIDField(
        help_text="The most recent publish that sent it, or sends it, to that account within the window."
    )


PublishCreatedResponse = inline_serializer(
    name="PublishCreatedResponse",
    fields={
        "data": PublishSerializer(),
        "warnings": DuplicateWarningSerializer(
            many=True,
            help_text="Targets whose text their account already got within the team's window; [] when none.",
        ),
    },
)


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


class ProblemSerializer(serializers.Serializer[Any]):
    field = serializers.CharField(help_text="What the problem is about: `media[0]`, `title`, `account_id`, `quota`...")
    code = serializers.CharField(help_text="The code the create's error would carry, e.g. `TEXT_TOO_LONG`.")
    message = serializers.CharField()


class TargetValidationSerializer(serializers.Serializer[Any]):
    index = serializers.IntegerField(help_text="The target's position in the request.")
    account_id = serializers.CharField()
    platform = serializers.CharField(allow_null=True, help_text="Null when the team has no such account.")
    length = serializers.IntegerField(allow_null=True, help_text="The text's length as the platform counts it.")
    limit = serializers.IntegerField(allow_null=True, help_text="The platform's text limit for this post.")
    problems = ProblemSerializer(many=True, help_text="Empty when this target would be accepted.")


class ValidationResultSerializer(serializers.Serializer[Any]):
    valid = serializers.BooleanField(help_text="True when the same body, sent to the create now, would be accepted.")
    status = serializers.IntegerField(
        help_text="What the create would answer: 201, 400, 409 (a duplicate the team refuses) or 429 (quota)."
    )
    approval_required = serializers.BooleanField(
        help_text="True when the publish would wait for an owner's or admin's approval (`pending_approval`)."
    )
    error = ErrorObjectSerializer(
        allow_null=True, help_text="The create's error object, exactly as it would answer; null when valid."
    )
    problems = ProblemSerializer(
        many=True, help_text="Every problem of the request as a whole: fields, targets, scheduled_at, media_ids, quota."
    )
    targets = TargetValidationSerializer(
        many=True,
        help_text=(
            "Every target in request order, each with all of its problems (where the create's "
            "`details.targets` names only the first failing ones' problems and stops at the first error)."
        ),
    )
    scheduled_at = serializers.DateTimeField(
        allow_null=True,
        help_text=(
            "`publish_mode: queue`: the slot the publish would take if created now (another create may take "
            "it first); null for other modes or when no slot suits."
        ),
    )
    warnings = DuplicateWarningSerializer(
        many=True, help_text="The create's duplicate-content warnings, as its answer would give them; [] when none."
    )


ApproveResponse = data_envelope("ApproveResponse", ApproveSerializer())
ValidationResponse = data_envelope("ValidationResponse", ValidationResultSerializer())
DiscardResponse = data_envelope("DiscardResponse", DiscardedSerializer())


# --- bulk --------------------------------------------------------------------------------------


class BulkCreateEnvelope(serializers.Serializer[Any]):
    """The JSON body of a batch as read: each row is checked by the create's own serializer
    afterwards, so one bad row is reported by its index."""

    publishes = serializers.ListField(child=serializers.DictField())
    dry_run = serializers.BooleanField(required=False, default=False)


class BulkCreateSerializer(serializers.Serializer[Any]):
    publishes = CreatePublishSerializer(many=True, help_text="Create bodies, 1 to 500, as POST /publishes takes one.")
    dry_run = serializers.BooleanField(
        required=False, default=False, help_text="Check every row and answer the verdicts; create nothing."
    )


class BulkQuerySerializer(serializers.Serializer[Any]):
    dry_run = serializers.BooleanField(
        required=False, default=False, help_text="For a CSV body: check every row and create nothing."
    )


class BulkVerdictSerializer(ValidationResultSerializer):
    index = serializers.IntegerField(help_text="The row's position in the batch, from 0.")


class BulkMetaSerializer(serializers.Serializer[Any]):
    valid = serializers.BooleanField(help_text="Whether the batch, sent without dry_run now, would be created.")
    status = serializers.IntegerField(help_text="What the batch would answer: 201, 400 or 429 (quota).")


class BulkWarningSerializer(DuplicateWarningSerializer):
    index = serializers.IntegerField(help_text="The row whose publish it is about, from 0.")


BulkResponse = inline_serializer(
    name="BulkResponse",
    fields={
        "data": PublishSerializer(many=True),
        "warnings": BulkWarningSerializer(
            many=True, help_text="Rows whose text their account already got within the team's window; [] when none."
        ),
    },
)
BulkDryRunResponse = inline_serializer(
    name="BulkDryRunResponse", fields={"data": BulkVerdictSerializer(many=True), "meta": BulkMetaSerializer()}
)

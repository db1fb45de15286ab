"""Publishes, their targets, delivery attempts, the dispatch outbox, schedule releases and
idempotency keys.

Targets carry the truth; a publish's `status` is derived from them by
`publishing.status.derive_status` after every change, never written directly. Which states a
target, a thread item and an outbox job may move between is declared beside them in
`publishing.transitions`.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Coalesce

from accounts.models import SocialAccount
from config.db import BaseModel
from publishing.texts import text_key
from teams.models import ApiKey, Team

if TYPE_CHECKING:
    from publishing.duplicate_content import DuplicateWarning

# How callers name a row: the UUID itself or its string form.
Id = uuid.UUID | str


class PublishStatus(models.TextChoices):
    DRAFT = "draft"
    SCHEDULED = "scheduled"
    PUBLISHING = "publishing"
    PROCESSING = "processing"
    PUBLISHED = "published"
    FAILED = "failed"
    PARTIAL = "partial"


# A target has every publish status but the aggregate `partial`.
TARGET_STATUSES = [s for s in PublishStatus.values if s != PublishStatus.PARTIAL]


class ApprovalStatus(models.TextChoices):
    PENDING = "pending_approval"
    APPROVED = "approved"
    REJECTED = "rejected"


class PublishMode(models.TextChoices):
    IMMEDIATE = "immediate"
    SCHEDULED = "scheduled"
    DRAFT = "draft"


# A create may also ask for the next free posting-schedule slot: the publish it makes is
# `scheduled` at that slot (`publishing.queue`); no publish is stored in this mode.
QUEUE_MODE = "queue"
CREATE_MODES = [*PublishMode.choices, (QUEUE_MODE, "Queue")]


# When a publish falls on the calendar: when its first target was published, else when sending
# started, else its scheduled time (a draft without one falls nowhere). Indexed per team.
CALENDAR_AT = Coalesce("published_at", "released_at", "scheduled_at")


class Publish(BaseModel):
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="publishes")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="publishes"
    )
    created_by_key = models.ForeignKey(
        ApiKey,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="publishes",
        help_text="Empty when made in the dashboard.",
    )
    content = models.TextField(blank=True)
    media_ids = models.JSONField(default=list, blank=True)
    publish_mode = models.CharField(max_length=10, choices=PublishMode.choices)
    scheduled_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=12, choices=PublishStatus.choices, db_index=True)
    # A confirmed publish has been submitted for sending (immediate and scheduled ones from
    # the start, drafts once confirmed): it is no longer an editable draft.
    confirmed = models.BooleanField(default=False)
    approval_status = models.CharField(  # noqa: DJ001 - the spec has null for "no approval asked"
        max_length=20, choices=ApprovalStatus.choices, null=True, blank=True
    )
    approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    approved_at = models.DateTimeField(null=True, blank=True)
    rejected_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    rejected_at = models.DateTimeField(null=True, blank=True)
    rejection_reason = models.TextField(blank=True)
    released_at = models.DateTimeField(null=True, blank=True, help_text="When sending first started.")
    published_at = models.DateTimeField(null=True, blank=True, help_text="When its first target was published.")
    completed_at = models.DateTimeField(null=True, blank=True, help_text="When every target last settled.")
    # The last check before its time (`publishing.preflight`): {"checked_at", "scheduled_at" (the
    # time it was checked for: a reschedule asks for a new check), "problems": [{"target_id",
    # "account_id", "platform", "code", "message"}]}. Empty until a check ran.
    preflight = models.JSONField(null=True, blank=True, editable=False)

    # Not a column: what the create that made it found repeating an account's recent text
    # (`publishing.duplicate_content`), answered as the create's warnings.
    duplicate_warnings: Sequence[DuplicateWarning] = ()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            # The lists' order, whole: a page's ids are read from the index alone.
            models.Index(fields=["team", "-created_at", "-id"], name="publish_team_newest"),
            models.Index(fields=["team", "approval_status"]),
            # The calendar reads the publishes that fall in a week or a month: each falls when it
            # was first published, else when sending started, else at its scheduled time.
            models.Index(F("team"), CALENDAR_AT, name="publish_team_calendar"),
            # The home page: what is due this week, and what failed lately.
            models.Index(fields=["team", "status", "scheduled_at"], name="publish_team_status_due"),
            models.Index(fields=["team", "status", "completed_at"], name="publish_team_status_settled"),
        ]

    def __str__(self) -> str:
        return f"{self.status} publish {self.pk}"


class TargetState(models.TextChoices):
    """Where one target's delivery stands. The spec's target `status` is derived from it:
    queued and sending show as `publishing`, unknown as `processing`."""

    DRAFT = "draft"
    SCHEDULED = "scheduled"
    QUEUED = "queued"
    SENDING = "sending"
    PROCESSING = "processing"
    UNKNOWN = "unknown"
    PUBLISHED = "published"
    FAILED = "failed"


TARGET_STATUS = {
    TargetState.DRAFT: PublishStatus.DRAFT,
    TargetState.SCHEDULED: PublishStatus.SCHEDULED,
    TargetState.QUEUED: PublishStatus.PUBLISHING,
    TargetState.SENDING: PublishStatus.PUBLISHING,
    TargetState.PROCESSING: PublishStatus.PROCESSING,
    TargetState.UNKNOWN: PublishStatus.PROCESSING,
    TargetState.PUBLISHED: PublishStatus.PUBLISHED,
    TargetState.FAILED: PublishStatus.FAILED,
}


class RemovedBy(models.TextChoices):
    USER = "user"
    PLATFORM = "platform"


class Target(BaseModel):
    publish = models.ForeignKey(Publish, on_delete=models.CASCADE, related_name="targets")
    account = models.ForeignKey(SocialAccount, on_delete=models.PROTECT, related_name="targets")
    platform = models.CharField(max_length=20, editable=False, help_text="The account's platform, kept for filters.")
    # Overrides of the publish's defaults; null means "use the publish's".
    content = models.TextField(null=True, blank=True)  # noqa: DJ001 - null inherits, "" is an empty text
    media_ids = models.JSONField(null=True, blank=True)
    platform_settings = models.JSONField(default=dict, blank=True)
    state = models.CharField(max_length=12, choices=TargetState.choices)
    attempt_count = models.PositiveIntegerField(default=0)
    platform_post_id = models.CharField(max_length=255, blank=True)
    platform_post_url = models.URLField(max_length=1000, blank=True)
    error_code = models.CharField(max_length=100, blank=True)
    error_message = models.TextField(blank=True)
    published_at = models.DateTimeField(null=True, blank=True)
    # Reconciliation of processing and unknown targets: when to ask the platform next.
    next_check_at = models.DateTimeField(null=True, blank=True)
    checks = models.PositiveIntegerField(default=0)
    # Its post taken down after publishing: by the user (unpublish) or by the platform (deleted
    # by its owner there, removed by moderation: noticed by a read-back or a metrics sync).
    # `removal_error` says, in plain words, why a removal asked for could not be done.
    removed_at = models.DateTimeField(null=True, blank=True)
    removed_by = models.CharField(max_length=10, choices=RemovedBy.choices, blank=True)
    removal_error = models.TextField(blank=True)
    # `publishing.texts.text_key` of the text it sends (its own, else the publish's), kept by
    # `rekey` wherever either changes: duplicate checks look it up per account.
    text_key = models.CharField(max_length=64, blank=True, default="", editable=False)

    # Not a column: a new or edited target's thread items, checked and written with it
    # (None: the stored items, if any, stand).
    thread: list[ThreadItem] | None = None
    # Not a column: a new target's first comment, written with it (`threads.comment_item`).
    comment: ThreadItem | None = None

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["publish", "account"], name="target_one_per_account"),
            models.CheckConstraint(
                condition=~Q(state="published") | ~Q(platform_post_id=""), name="target_published_has_post_id"
            ),
            models.CheckConstraint(condition=~Q(state="failed") | ~Q(error_code=""), name="target_failed_has_evidence"),
        ]
        indexes = [
            models.Index(fields=["state", "next_check_at"]),
            models.Index(fields=["account", "state"]),
            models.Index(fields=["account", "text_key"]),
            # The home page's posts taken down lately: few rows, so only those are indexed.
            models.Index(fields=["removed_at"], condition=Q(removed_at__isnull=False), name="target_removed"),
        ]

    def __str__(self) -> str:
        return f"{self.platform} target {self.pk}"

    def rekey(self) -> None:
        """Set `text_key` from the text the target sends now (in memory)."""
        self.text_key = text_key(self.publish.content if self.content is None else self.content)

    def save(self, *args: Any, **kwargs: Any) -> None:
        if kwargs.get("update_fields") is None:  # a whole save writes a current key
            self.rekey()
        super().save(*args, **kwargs)

    @property
    def status(self) -> str:
        return str(TARGET_STATUS[TargetState(self.state)])


class AttemptState(models.TextChoices):
    SENDING = "sending"
    PUBLISHED = "published"
    PROCESSING = "processing"
    FAILED = "failed"
    UNKNOWN = "unknown"
    NOT_SENT = "not_sent"  # nothing reached the platform; the same attempt tries again


class DeliveryAttempt(BaseModel):
    """One send of one unit: a target's own post, or a reply of its thread (`item` set; the
    target is then the item's). Recorded as `sending` and committed before the platform is
    called, so a crash mid-call leaves evidence that the post may exist."""

    target = models.ForeignKey(Target, on_delete=models.CASCADE, related_name="attempts")
    # Looked up by item through item_attempt_one_per_number: an index of every row would hold
    # a NULL for each post's attempt, written again at each of its moves.
    item = models.ForeignKey(
        "ThreadItem", on_delete=models.CASCADE, null=True, blank=True, related_name="sends", db_index=False
    )
    number = models.PositiveIntegerField()
    state = models.CharField(max_length=12, choices=AttemptState.choices)
    tries = models.PositiveIntegerField(default=0, help_text="Calls made; more than one only after not-sent errors.")
    # What was sent (effective text, media ids, settings) and what came back.
    request = models.JSONField(default=dict, blank=True)
    response = models.JSONField(default=dict, blank=True)
    ref = models.JSONField(default=dict, blank=True, help_text="Ids to read the post back: container, upload, rkey.")
    error_code = models.CharField(max_length=100, blank=True)
    error_message = models.TextField(blank=True)
    http_status = models.PositiveIntegerField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["target", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["target", "number"], condition=Q(item__isnull=True), name="attempt_one_per_number"
            ),
            models.UniqueConstraint(
                fields=["item", "number"], condition=Q(item__isnull=False), name="item_attempt_one_per_number"
            ),
        ]
        indexes = [models.Index(fields=["state", "started_at"])]

    def __str__(self) -> str:
        return f"attempt {self.number} of {self.item_id or self.target_id}: {self.state}"


class JobState(models.TextChoices):
    PENDING = "pending"  # waiting for a worker to claim it (sent to the broker or not yet)
    RUNNING = "running"
    DONE = "done"


class DeliveryJob(BaseModel):
    """The outbox: one row per unit and attempt, written in the transaction that releases the
    target (or, for a reply, publishes the post it answers). Workers claim it by
    compare-and-set, so duplicate messages are harmless."""

    target = models.ForeignKey(Target, on_delete=models.CASCADE, related_name="jobs")
    item = models.ForeignKey(
        "ThreadItem", on_delete=models.CASCADE, null=True, blank=True, related_name="jobs", db_index=False
    )
    number = models.PositiveIntegerField()
    dispatch_id = models.CharField(
        max_length=100, unique=True, help_text="deliver:<target id>:<attempt number>, reply:<item id>:<number>"
    )
    lane = models.CharField(
        max_length=10,
        default="dispatch",
        help_text="The queue its message goes on: dispatch, or uploads for a post with a video (config.lanes).",
    )
    state = models.CharField(max_length=10, choices=JobState.choices, default=JobState.PENDING)
    not_before = models.DateTimeField(help_text="Not claimed before this (backoff after a not-sent error).")
    enqueued_at = models.DateTimeField(
        null=True, blank=True, help_text="Last time the message was handed to the broker; empty after a refusal."
    )
    refused_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Last time the broker refused the message: a repeated confirm may hand it over again.",
    )
    runs = models.PositiveIntegerField(default=0)
    claimed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [
            models.Index(fields=["state", "not_before"]),
            # Replies' jobs only: a post's job (most of them) has no item and no entry to update.
            models.Index(fields=["item"], condition=Q(item__isnull=False), name="job_of_item"),
        ]

    def __str__(self) -> str:
        return self.dispatch_id


class ScheduledRelease(BaseModel):
    """A scheduled publish waiting for its time; the scheduler tick releases due rows."""

    publish = models.OneToOneField(Publish, on_delete=models.CASCADE, related_name="release")
    due_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"release of {self.publish_id} at {self.due_at:%Y-%m-%d %H:%M}"


class QueueSlot(BaseModel):
    """A posting-schedule slot taken by a publish added to the queue: one row per account and
    instant, so two queue creates can never take the same slot of one account. The row goes
    when its publish is rescheduled, unscheduled or rejected; one left behind by any other
    change is reclaimed by the next create that wants its slot (`publishing.queue`)."""

    account = models.ForeignKey(SocialAccount, on_delete=models.CASCADE, related_name="+")
    instant = models.DateTimeField()
    publish = models.ForeignKey(Publish, on_delete=models.CASCADE, related_name="queue_slots")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["account", "instant"], name="queue_slot_taken_once")]

    def __str__(self) -> str:
        return f"slot of {self.account_id} at {self.instant:%Y-%m-%d %H:%M}"


class IdempotencyState(models.TextChoices):
    IN_FLIGHT = "in_flight"
    CREATED = "created"  # the publish exists; its dispatch is not confirmed yet
    DONE = "done"


class IdempotencyKey(BaseModel):
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="idempotency_keys")
    key = models.CharField(max_length=255)
    body_hash = models.CharField(max_length=64)
    state = models.CharField(max_length=10, choices=IdempotencyState.choices, default=IdempotencyState.IN_FLIGHT)
    publish = models.ForeignKey(Publish, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    response_body = models.JSONField(null=True, blank=True)
    expires_at = models.DateTimeField(db_index=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["team", "key"], name="idempotency_key_unique_per_team")]

    def __str__(self) -> str:
        return f"{self.key} ({self.state})"


class ThreadItemState(models.TextChoices):
    PENDING = "pending"  # waiting for its parent to be published, or its job for a worker
    SENDING = "sending"  # an attempt is being sent: the post may exist
    UNKNOWN = "unknown"  # sent without a clear answer: read back before anything else is sent
    PUBLISHED = "published"
    FAILED = "failed"


class ThreadItemKind(models.TextChoices):
    REPLY = "reply"  # a later post of the thread, answering the one before it
    COMMENT = "comment"  # the first comment: a comment on the post, or a reply where replies are posts
    REMOVAL = "removal"  # the deletion of the target's post (or of one of its replies) on its platform


class ThreadItem(BaseModel):
    """One later post of a target's thread, published as a reply to the post before it (the
    target's own post for the first item), or its first comment (position 0, on the target's
    own post), or the removal of one of them on its platform (from position 1000: `removes`
    names the item deleted, none for the target's own post). Sent as a target is
    (`publishing.delivery`): a job per send, an attempt row per send holding what was sent and
    answered, moves declared in `publishing.transitions`."""

    target = models.ForeignKey(Target, on_delete=models.CASCADE, related_name="thread_items")
    kind = models.CharField(max_length=10, choices=ThreadItemKind.choices, default=ThreadItemKind.REPLY)
    position = models.PositiveSmallIntegerField(
        help_text="0 for the first comment; 1 for the first reply, then 2...; 1000 on for removals"
    )
    removes = models.ForeignKey(
        "self",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="removals",
        help_text="A removal's reply or comment to delete; empty: the target's own post.",
    )
    content = models.TextField(blank=True)
    media_ids = models.JSONField(default=list, blank=True)
    state = models.CharField(max_length=10, choices=ThreadItemState.choices, default=ThreadItemState.PENDING)
    platform_post_id = models.CharField(max_length=255, blank=True)
    platform_post_url = models.URLField(max_length=1000, blank=True)
    error_code = models.CharField(max_length=100, blank=True)
    error_message = models.TextField(blank=True)
    attempts = models.PositiveIntegerField(
        default=0, help_text="The number of its newest attempt: sends made (a re-send only once proven absent)."
    )
    checks = models.PositiveIntegerField(default=0)
    published_at = models.DateTimeField(null=True, blank=True)
    # Unknown: when to read it back next.
    next_check_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["target", "position"]
        constraints = [
            models.UniqueConstraint(fields=["target", "position"], name="thread_item_one_per_position"),
            models.CheckConstraint(
                condition=~Q(state="published") | ~Q(platform_post_id=""), name="thread_item_published_has_post_id"
            ),
            models.CheckConstraint(
                condition=~Q(state="failed") | ~Q(error_code=""), name="thread_item_failed_has_evidence"
            ),
        ]
        indexes = [models.Index(fields=["state", "next_check_at"])]

    def __str__(self) -> str:
        return f"item {self.position} of {self.target_id}: {self.state}"

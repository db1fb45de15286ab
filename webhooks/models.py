from __future__ import annotations

import datetime as dt

from django.db import models

from config.crypto import EncryptedTextField
from config.db import BaseModel
from teams.models import Team


class EventType(models.TextChoices):
    POST_PUBLISHED = "post.published"
    POST_FAILED = "post.failed"
    POST_PENDING_APPROVAL = "post.pending_approval"
    POST_APPROVED = "post.approved"
    POST_REJECTED = "post.rejected"
    # After publishing: a post taken down (by the user, or noticed gone from the platform), and
    # a scheduled post whose checks found a problem before its time.
    POST_REMOVED = "post.removed"
    POST_AT_RISK = "post.at_risk"
    # A connected account's life (`webhooks.services.account_*`, told by `accounts.listeners`).
    ACCOUNT_CONNECTED = "account.connected"
    ACCOUNT_DISCONNECTED = "account.disconnected"
    ACCOUNT_EXPIRED = "account.expired"
    ACCOUNT_EXPIRING = "account.expiring"
    # Sent only by "send a test event" (`services.subscription_send_test`), to the one
    # subscription asked for: no subscription can choose it and `emit` refuses it.
    TEST = "webhook.test", "Webhook test"


# The events a subscription may choose and `emit` fans out: the spec's whitelist (§6) and the
# account events.
SUBSCRIBABLE_EVENTS: tuple[str, ...] = tuple(t.value for t in EventType if t is not EventType.TEST)


class Subscription(BaseModel):
    """A team's webhook endpoint. The secret is encrypted at rest and shown once, at creation or
    rotation. After a rotation the replaced secret keeps signing beside the new one until
    `previous_secret_expires_at`, so a receiver can switch without refusing a delivery."""

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="webhook_subscriptions")
    url = models.URLField(max_length=2048)
    events = models.JSONField(default=list)
    secret = EncryptedTextField()
    previous_secret = EncryptedTextField(blank=True, default="")
    previous_secret_expires_at = models.DateTimeField(null=True, blank=True)
    # Delivery health, kept up to date by every attempt.
    last_success_at = models.DateTimeField(null=True, blank=True)
    last_failure_at = models.DateTimeField(null=True, blank=True)
    last_failure_reason = models.CharField(max_length=300, blank=True)
    consecutive_failures = models.PositiveIntegerField(default=0, help_text="Failed attempts since the last success.")
    failed_deliveries_in_row = models.PositiveIntegerField(
        default=0, help_text="Events whose every attempt failed, since the last success."
    )
    disabled_at = models.DateTimeField(null=True, blank=True)
    disabled_reason = models.CharField(max_length=300, blank=True)
    # The circuit breaker (`services`): a receiver that keeps timing out or refusing connections
    # is left alone for a cool-down instead of holding worker threads for nothing.
    consecutive_timeouts = models.PositiveIntegerField(
        default=0, help_text="Attempts in a row that timed out or could not connect."
    )
    circuit_open_until = models.DateTimeField(
        null=True, blank=True, help_text="While set, deliveries wait until then; then one is tried as a probe."
    )
    circuit_opens = models.PositiveSmallIntegerField(
        default=0, help_text="Times in a row the circuit opened; each doubles the cool-down."
    )

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return self.url

    def previous_secret_signs_until(self, now: dt.datetime) -> dt.datetime | None:
        """When the secret a rotation replaced stops signing; None when it no longer does."""
        expires = self.previous_secret_expires_at
        return expires if self.previous_secret and expires is not None and expires > now else None

    def signing_secrets(self, now: dt.datetime) -> list[str]:
        """The secrets that sign a delivery made at `now`: the current one, then the replaced
        one while its overlap lasts."""
        if self.previous_secret_signs_until(now) is None:
            return [self.secret]
        return [self.secret, self.previous_secret]


class Event(BaseModel):
    """Something that happened, written in the same transaction as the change it describes."""

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="webhook_events")
    type = models.CharField(max_length=40, choices=EventType.choices)
    data = models.JSONField(default=dict)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.type} {self.pk}"


class DeliveryState(models.TextChoices):
    PENDING = "pending"  # waiting for next_attempt_at
    SENDING = "sending"  # claimed by a worker
    SUCCEEDED = "succeeded"
    FAILED = "failed"  # final: every attempt failed, or the receiver answered 410 Gone
    CANCELLED = "cancelled"  # the subscription was disabled before it could be sent


class Delivery(BaseModel):
    """One event to one subscription, retried on a schedule kept in the database."""

    subscription = models.ForeignKey(Subscription, on_delete=models.CASCADE, related_name="deliveries")
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="deliveries")
    state = models.CharField(max_length=10, choices=DeliveryState.choices, default=DeliveryState.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True)
    last_duration_ms = models.PositiveIntegerField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["subscription", "event"], name="delivery_subscription_event_unique")
        ]
        indexes = [models.Index(fields=["state", "next_attempt_at"])]
        verbose_name_plural = "deliveries"

    def __str__(self) -> str:
        return f"{self.event.type} to {self.subscription.url} ({self.state})"


class DeliveryAttempt(BaseModel):
    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="attempt_log")
    number = models.PositiveSmallIntegerField()
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.CharField(max_length=300, blank=True)
    duration_ms = models.PositiveIntegerField()

    class Meta:
        ordering = ["delivery", "number"]

    def __str__(self) -> str:
        return f"attempt {self.number}: {self.status_code or self.error}"

"""What each person wants to hear by mail, and every mail sent.

A `Preference` row holds one person's switches, one per kind, all on by default (no row: all
on). A `SentMail` row is written before its mail goes out and marked sent after: the unique
(kind, user, object, occurrence) is the one gate against mailing the same news twice when a
task runs again.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from config.db import BaseModel
from teams.models import Team


class Kind(models.TextChoices):
    APPROVAL_REQUESTED = "approval_requested", "A post waits for approval"
    APPROVAL_DECIDED = "approval_decided", "My post was approved or rejected"
    DELIVERY_FAILED = "delivery_failed", "My post failed, in whole or in part"
    ACCOUNT_NEEDS_RECONNECT = "account_needs_reconnect", "An account needs reconnecting"


class Preference(BaseModel):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notification_preference"
    )
    approval_requested = models.BooleanField(default=True)
    approval_decided = models.BooleanField(default=True)
    delivery_failed = models.BooleanField(default=True)
    account_needs_reconnect = models.BooleanField(default=True)

    def __str__(self) -> str:
        return f"Mail preferences of {self.user}"

    def wants(self, kind: str) -> bool:
        return bool(getattr(self, kind))


class SentMail(BaseModel):
    """One mail to one person about one occurrence: `object_id` is the publish or account the
    mail is about, `occurrence` the event (its id) or expiry (its time) that caused it, so the
    same post failing twice is two mails and one failure retried is one."""

    kind = models.CharField(max_length=30, choices=Kind.choices)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sent_mails")
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="sent_mails")
    object_id = models.CharField(max_length=64)
    occurrence = models.CharField(max_length=64)
    to = models.EmailField(help_text="The address at the time of sending.")
    subject = models.CharField(max_length=200)
    sent_at = models.DateTimeField(null=True, blank=True, help_text="Empty while sending, or when it was refused.")
    error = models.CharField(max_length=300, blank=True, help_text="Why the mail server refused it for good.")

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "user", "object_id", "occurrence"], name="sentmail_kind_user_object_occurrence_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} to {self.to}"

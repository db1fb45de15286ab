from __future__ import annotations

from django.db import models

from config.crypto import EncryptedTextField
from config.db import BaseModel
from teams.models import Team
from teams.time_zones import DEFAULT as DEFAULT_TIME_ZONE
from teams.time_zones import validate_time_zone


class Platform(models.TextChoices):
    X = "x", "X"
    INSTAGRAM = "instagram", "Instagram"
    TIKTOK = "tiktok", "TikTok"
    YOUTUBE = "youtube", "YouTube"
    FACEBOOK = "facebook", "Facebook"
    LINKEDIN = "linkedin", "LinkedIn"
    PINTEREST = "pinterest", "Pinterest"
    THREADS = "threads", "Threads"
    BLUESKY = "bluesky", "Bluesky"


class AccountStatus(models.TextChoices):
    ACTIVE = "active"
    EXPIRED = "expired", "Expired (re-authorize in the dashboard)"
    DISABLED = "disabled"
    # Disconnected by its team (API or dashboard): tokens forgotten and revoked at the platform,
    # gone from listings, its published history kept. Connecting the same account again revives it.
    DISCONNECTED = "disconnected"


# Accounts that no longer count against the plan, are not offered for new posts and are left
# out of listings unless asked for.
GONE_STATUSES = (AccountStatus.DISABLED, AccountStatus.DISCONNECTED)


class SocialAccount(BaseModel):
    """A connected account on one platform. Tokens are encrypted at rest and never leave the
    service through the API or the admin."""

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="social_accounts")
    platform = models.CharField(max_length=20, choices=Platform.choices)
    external_id = models.CharField(max_length=255, help_text="The account's id on the platform.")
    handle = models.CharField(max_length=255, blank=True)
    display_name = models.CharField(max_length=255, blank=True)
    avatar_url = models.URLField(max_length=1000, blank=True)
    status = models.CharField(max_length=12, choices=AccountStatus.choices, default=AccountStatus.ACTIVE)
    status_reason = models.CharField(max_length=500, blank=True)
    access_token = EncryptedTextField(blank=True)
    refresh_token = EncryptedTextField(blank=True)
    token_expires_at = models.DateTimeField(null=True, blank=True)
    expiry_warned_for = models.DateTimeField(
        null=True,
        blank=True,
        help_text="The token_expires_at that an account.expiring event was sent for: one warning per expiry.",
    )
    granted_scopes = models.JSONField(default=list, blank=True)
    sandbox = models.BooleanField(
        default=False, help_text="Requests for this account go to the local platform sandbox, not the real platform."
    )
    metadata = models.JSONField(default=dict, blank=True, help_text="Platform facts, e.g. Pinterest boards, a Page id.")

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["team", "platform", "external_id"], name="socialaccount_team_platform_external_unique"
            ),
        ]
        indexes = [models.Index(fields=["team", "platform", "status"])]

    def __str__(self) -> str:
        return f"{self.get_platform_display()} @{self.handle or self.external_id}"


class PostingSchedule(BaseModel):
    """When an account likes to post: wall-clock slots in its own time zone, every week.

    `slots` is a list of `{"day": "mon".."sun", "time": "HH:MM"}`, deduplicated and sorted by
    `accounts.schedules.normalized_slots` before it is stored."""

    account = models.OneToOneField(SocialAccount, on_delete=models.CASCADE, related_name="posting_schedule")
    time_zone = models.CharField(
        max_length=64,
        default=DEFAULT_TIME_ZONE,
        validators=[validate_time_zone],
        help_text="IANA name of the zone the slots are wall-clock times in.",
    )
    slots = models.JSONField(default=list, blank=True, help_text='[{"day": "mon", "time": "09:30"}, ...]')

    def __str__(self) -> str:
        return f"Posting schedule of {self.account}"


class ConnectLink(BaseModel):
    """A hosted page, reachable without a login, where someone outside the team connects their
    own accounts into it (`accounts.connect_links`). Made over the API; usable until it expires
    or is revoked; every account connected through it is remembered."""

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="connect_links")
    redirect_url = models.URLField(max_length=2048, help_text="Where the browser goes after each connection.")
    platforms = models.JSONField(default=list, help_text="The platforms the page offers, in this order.")
    expires_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)
    branding_name = models.CharField(max_length=100, blank=True)
    branding_logo_url = models.URLField(max_length=2048, blank=True)
    branding_accent_color = models.CharField(max_length=7, blank=True)
    logo = models.BinaryField(
        null=True, blank=True, editable=False, help_text="The logo as fetched when the link was made, if it could be."
    )
    logo_content_type = models.CharField(max_length=20, blank=True, editable=False)
    outcome = models.CharField(
        max_length=10,
        blank=True,
        choices=[("connected", "connected"), ("cancelled", "cancelled")],
        help_text="How the last visit ended: an account connected, or cancelled.",
    )
    accounts = models.ManyToManyField(
        SocialAccount, blank=True, related_name="connect_links", help_text="Accounts connected through the link."
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["team", "-created_at"])]

    def __str__(self) -> str:
        return f"Connect link {self.pk} of {self.team}"

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from config.db import BaseModel
from teams.time_zones import DEFAULT as DEFAULT_TIME_ZONE
from teams.time_zones import validate_time_zone

SCOPES = (
    "posts:read",
    "posts:write",
    "accounts:read",
    "accounts:write",
    "media:read",
    "media:write",
    "analytics:read",
    "webhooks:read",
    "webhooks:write",
    "billing:read",
    "teams:read",
    "teams:write",
)


GB = 1024**3
# How far apart two posts of the same text to one account count as duplicates: a day by three
# by default, a year at most (a longer window would only slow every create's look-back).
DUPLICATE_WINDOW_HOURS = 72
DUPLICATE_WINDOW_MAX_HOURS = 24 * 365


class Plan(BaseModel):
    """Plan limits; null means unlimited."""

    code = models.SlugField(max_length=50, unique=True)
    name = models.CharField(max_length=100)
    posts_per_month = models.PositiveIntegerField(null=True, blank=True)
    social_accounts = models.PositiveIntegerField(null=True, blank=True)
    media_storage_gb = models.PositiveIntegerField(null=True, blank=True)

    def __str__(self) -> str:
        return self.name

    @property
    def media_storage_bytes(self) -> int | None:
        """The storage limit in bytes (a GB of the plan is 1024**3 bytes); None when unlimited."""
        return None if self.media_storage_gb is None else self.media_storage_gb * GB


class Team(BaseModel):
    name = models.CharField(max_length=200)
    approval_required = models.BooleanField(
        default=False, help_text="Publishes from members wait for an owner or admin to approve them."
    )
    time_zone = models.CharField(
        max_length=64,
        default=DEFAULT_TIME_ZONE,
        validators=[validate_time_zone],
        help_text="IANA name of the zone the dashboard shows and reads times in; the API stays UTC.",
    )
    block_duplicates = models.BooleanField(
        default=False,
        help_text="Refuse (409 DUPLICATE_CONTENT) a post whose text an account already got within the window, "
        "instead of only warning.",
    )
    duplicate_window_hours = models.PositiveIntegerField(
        default=DUPLICATE_WINDOW_HOURS,
        validators=[MinValueValidator(1), MaxValueValidator(DUPLICATE_WINDOW_MAX_HOURS)],
        help_text="Hours before and after a post within which the same text to the same account is a duplicate.",
    )
    plan = models.ForeignKey(Plan, on_delete=models.PROTECT, related_name="teams")
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, through="Membership", related_name="teams")

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(duplicate_window_hours__gte=1, duplicate_window_hours__lte=DUPLICATE_WINDOW_MAX_HOURS),
                name="team_duplicate_window_in_range",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Role(models.TextChoices):
    OWNER = "owner"
    ADMIN = "admin"
    MEMBER = "member"


class Membership(BaseModel):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.MEMBER)
    # The user's explicitly selected default team: protected from deletion, and the fallback
    # when the user leaves a shared team.
    is_default = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "team"], name="membership_user_team_unique"),
            models.UniqueConstraint(fields=["team"], condition=Q(role="owner"), name="membership_one_owner_per_team"),
            models.UniqueConstraint(
                fields=["user"], condition=Q(is_default=True), name="membership_one_default_per_user"
            ),
            models.CheckConstraint(
                condition=Q(is_default=False) | Q(role="owner"), name="membership_default_team_is_owned"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.team} ({self.role})"


class ApiKeyKind(models.TextChoices):
    USER = "user", "User key (acts across the user's teams)"
    TEAM = "team", "Team key (locked to one team)"


class ApiKey(BaseModel):
    """An API key. Only the SHA-256 of the secret is stored; `prefix` is its public lookup id."""

    name = models.CharField(max_length=100)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_keys")
    kind = models.CharField(max_length=10, choices=ApiKeyKind.choices)
    team = models.ForeignKey(
        Team, on_delete=models.CASCADE, null=True, blank=True, related_name="api_keys", help_text="Team keys only."
    )
    active_team = models.ForeignKey(
        Team,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="User keys only: the team the key acts in (the user's default team when empty).",
    )
    prefix = models.CharField(max_length=16, unique=True, editable=False)
    secret_hash = models.CharField(max_length=64, editable=False)
    scopes = models.JSONField(default=list)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(kind="team", team__isnull=False, active_team__isnull=True) | Q(kind="user", team__isnull=True)
                ),
                name="apikey_kind_matches_team",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} (sk_{self.prefix}_…)"


class MonthlyUsage(BaseModel):
    """Posts counted against the plan, per team and calendar month (UTC)."""

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="monthly_usage")
    month = models.DateField(help_text="First day of the month.")
    posts = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["team", "month"], name="monthlyusage_team_month_unique")]
        verbose_name_plural = "monthly usage"

    def __str__(self) -> str:
        return f"{self.team} {self.month:%Y-%m}: {self.posts} posts"

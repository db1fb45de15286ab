"""Metrics of published targets: the latest values per target, and a history of samples.

`PostMetrics` holds what the platform last reported for one published target, when it was
read and when it is due again; `MetricsSample` is appended on every successful read so a
post's curve can be drawn. Both are written only by `analytics.services`. `PostTotals` keeps
each published publish's sums for the analytics list, and `PlatformTotals` a team's sums per
platform for the dashboard (`analytics.totals` writes both).
"""

from __future__ import annotations

from django.db import models

from config.db import BaseModel
from publishing.models import Publish, Target
from teams.models import Team


class PostMetrics(BaseModel):
    target = models.OneToOneField(Target, on_delete=models.CASCADE, related_name="metrics")
    # Null where the platform reports no views (Bluesky), or before the first sync.
    views = models.PositiveBigIntegerField(null=True, blank=True)
    likes = models.PositiveBigIntegerField(default=0)
    comments = models.PositiveBigIntegerField(default=0)
    shares = models.PositiveBigIntegerField(default=0)
    extra = models.JSONField(default=dict, blank=True, help_text="Platform fields: impressions, reach, saves...")
    last_sync_at = models.DateTimeField(null=True, blank=True, help_text="Last successful read; null before.")
    next_sync_at = models.DateTimeField(help_text="Due for a read from then (sooner for newer posts).")
    sync_error = models.TextField(blank=True, help_text="Why the last attempt did not read the values.")

    class Meta:
        verbose_name_plural = "post metrics"
        indexes = [
            # The sync claims due rows oldest-due first.
            models.Index(fields=["next_sync_at"]),
            # The API sorts publishes by sums of these per publish, which no per-row index can
            # serve; these help the admin and ad-hoc "top posts" reads of single targets.
            models.Index(fields=["views"]),
            models.Index(fields=["likes"]),
            models.Index(fields=["comments"]),
            models.Index(fields=["shares"]),
        ]

    def __str__(self) -> str:
        return f"metrics of {self.target_id}"


class MetricsSample(BaseModel):
    """One successful read of one target's metrics; never changed afterwards."""

    target = models.ForeignKey(Target, on_delete=models.CASCADE, related_name="metrics_samples")
    taken_at = models.DateTimeField()
    views = models.PositiveBigIntegerField(null=True, blank=True)
    likes = models.PositiveBigIntegerField(default=0)
    comments = models.PositiveBigIntegerField(default=0)
    shares = models.PositiveBigIntegerField(default=0)
    extra = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["target", "taken_at"]
        indexes = [models.Index(fields=["target", "taken_at"])]

    def __str__(self) -> str:
        return f"sample of {self.target_id} at {self.taken_at:%Y-%m-%d %H:%M}"


# What the analytics list sorts by, each a column of PostTotals with an index of its own.
TOTAL_COLUMNS = ("first_published_at", "views", "likes", "comments", "shares")


class PostTotals(BaseModel):
    """A published publish's metrics summed over its published targets: one row over all of
    them (`platform` empty) and one per platform. The analytics list sorts and pages these by
    index, so its cost does not grow with the team's history. Rewritten from the targets and
    their metrics when a target is published and when metrics are read (`analytics.totals`)."""

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="+")
    publish = models.ForeignKey(Publish, on_delete=models.CASCADE, related_name="totals")
    platform = models.CharField(max_length=20, blank=True, help_text="Empty: over every platform.")
    first_published_at = models.DateTimeField()
    # Platforms that report no views add nothing.
    views = models.PositiveBigIntegerField(default=0)
    likes = models.PositiveBigIntegerField(default=0)
    comments = models.PositiveBigIntegerField(default=0)
    shares = models.PositiveBigIntegerField(default=0)
    views_reported = models.PositiveIntegerField(default=0, help_text="Published targets with views read.")
    last_sync_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "post totals"
        constraints = [models.UniqueConstraint(fields=["publish", "platform"], name="post_totals_once")]
        indexes = [
            models.Index(fields=["team", "platform", column, "publish"], name=f"post_totals_by_{column}"[:30])
            for column in TOTAL_COLUMNS
        ]

    def __str__(self) -> str:
        return f"totals of {self.publish_id} on {self.platform or 'every platform'}"


class PlatformTotals(BaseModel):
    """A team's published posts on one platform and their metrics summed: the sum of its
    per-platform `PostTotals` rows, kept by adding each rewrite's change (`analytics.totals`),
    so the dashboard reads a row per platform however long the team's history."""

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="+")
    platform = models.CharField(max_length=20)
    posts = models.BigIntegerField(default=0, help_text="Publishes with a target published on the platform.")
    # Signed: a change is added as it is, a withdrawn like included.
    views = models.BigIntegerField(default=0)
    likes = models.BigIntegerField(default=0)
    comments = models.BigIntegerField(default=0)
    shares = models.BigIntegerField(default=0)
    views_reported = models.BigIntegerField(default=0, help_text="Published targets with views read.")
    last_sync_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "platform totals"
        constraints = [models.UniqueConstraint(fields=["team", "platform"], name="platform_totals_once")]

    def __str__(self) -> str:
        return f"totals of {self.team_id} on {self.platform}"

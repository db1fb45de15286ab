from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from config.db import BaseModel
from teams.models import Team

# Spec §8: any other content type is refused (video/webm included).
CONTENT_TYPES = ("image/png", "image/jpeg", "image/webp", "image/gif", "video/mp4", "video/quicktime")


# X's limit, the strictest of the networks that take a description (Instagram's is the same;
# LinkedIn and Facebook take longer ones, Bluesky sets none).
ALT_TEXT_MAX_LENGTH = 1000


class MediaState(models.TextChoices):
    UNCONFIRMED = "unconfirmed"
    READY = "ready"


class FetchStatus(models.TextChoices):
    PENDING = "pending"
    FETCHING = "fetching"
    DONE = "done"
    FAILED = "failed"


class ProbeStatus(models.TextChoices):
    PENDING = "pending"
    DONE = "done"
    FAILED = "failed"
    SKIPPED = "skipped"  # no ffprobe on this machine: only the sniff's facts are known


class MediaUpload(BaseModel):
    """One uploaded file. It becomes usable in publishes (`ready`) only after confirm has
    checked the stored bytes: their size and their real type, sniffed from the content.

    Two keys: the client's PUT (or the fetch) writes `storage_key`; confirm copies those bytes
    to `content_key`, checks the copy, and everything that serves the file reads that one. A
    presigned S3 PUT URL cannot be revoked, so the checked bytes must live where it cannot write.
    """

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="media_uploads")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    filename = models.CharField(max_length=255)
    # Described once here, sent with the file to every network that takes a description.
    alt_text = models.CharField(max_length=ALT_TEXT_MAX_LENGTH, blank=True)
    content_type = models.CharField(max_length=50, choices=[(t, t) for t in CONTENT_TYPES])
    size_bytes = models.BigIntegerField(
        null=True, blank=True, help_text="Declared size; for a source_url fetch, the fetched size."
    )
    storage_key = models.CharField(max_length=300, unique=True)  # where the upload URL writes
    content_key = models.CharField(
        max_length=300, blank=True, help_text="The confirmed bytes, which no upload URL can reach; served from here."
    )
    state = models.CharField(max_length=12, choices=MediaState.choices, default=MediaState.UNCONFIRMED)
    confirmed_at = models.DateTimeField(null=True, blank=True)
    # What the bytes really are, read from them at confirm.
    detected_type = models.CharField(max_length=50, blank=True)
    width = models.PositiveIntegerField(null=True, blank=True)
    height = models.PositiveIntegerField(null=True, blank=True)
    duration_seconds = models.FloatField(null=True, blank=True)
    # What ffprobe found, in a worker after confirm (media.probing); blank until then.
    probe_status = models.CharField(max_length=10, choices=ProbeStatus.choices, blank=True)
    probe_error_code = models.CharField(max_length=40, blank=True)
    probe_error = models.CharField(max_length=500, blank=True)
    probed_at = models.DateTimeField(null=True, blank=True)
    container = models.CharField(max_length=60, blank=True, help_text="ffprobe's format name.")
    video_codec = models.CharField(max_length=30, blank=True)
    audio_codec = models.CharField(max_length=30, blank=True)
    frame_rate = models.FloatField(null=True, blank=True)
    bit_rate = models.BigIntegerField(null=True, blank=True)
    aspect_ratio = models.FloatField(null=True, blank=True, help_text="Displayed width / height.")
    # Set when the service fetches the file itself from a URL.
    source_url = models.URLField(max_length=2048, blank=True)
    fetch_status = models.CharField(max_length=10, choices=FetchStatus.choices, blank=True)
    fetch_error = models.CharField(max_length=500, blank=True)
    fetch_attempts = models.PositiveSmallIntegerField(default=0)
    fetch_started_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["team", "state", "-created_at"]),
            models.Index(fields=["state", "created_at"]),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(source_url="", fetch_status="") | (~Q(source_url="") & ~Q(fetch_status="")),
                name="mediaupload_fetch_status_iff_source_url",
            ),
            models.CheckConstraint(
                condition=Q(size_bytes__isnull=True) | Q(size_bytes__gt=0), name="mediaupload_size_positive"
            ),
            models.CheckConstraint(
                condition=Q(state=MediaState.UNCONFIRMED) | ~Q(content_key=""), name="mediaupload_ready_has_content_key"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.filename} ({self.content_type}, {self.state})"


class MediaRendition(BaseModel):
    """A copy of an upload fitted to what some platform takes (a JPEG of a PNG, a downscale,
    an H.264/AAC MP4 of another video), made by a worker the first time a delivery needs it
    and reused by every later one. The upload's own bytes are never changed."""

    upload = models.ForeignKey(MediaUpload, on_delete=models.CASCADE, related_name="renditions")
    profile = models.CharField(max_length=40, help_text="What was made, e.g. jpeg, jpeg-max-1440, h264-aac-mp4.")
    content_key = models.CharField(max_length=300, unique=True)
    content_type = models.CharField(max_length=50)
    size_bytes = models.BigIntegerField()
    width = models.PositiveIntegerField(null=True, blank=True)
    height = models.PositiveIntegerField(null=True, blank=True)
    duration_seconds = models.FloatField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["upload", "profile"], name="mediarendition_one_per_profile")]

    def __str__(self) -> str:
        return f"{self.profile} of {self.upload_id}"


class FitState(models.TextChoices):
    MAKING = "making"  # a worker holds the lease and is making the rendition
    DONE = "done"
    FAILED = "failed"


class MediaFit(BaseModel):
    """The making of one rendition (`media.fitting`): which worker holds it (a lease, so two
    fits of one (upload, profile) never both run the tool), who waits for it (the deliveries
    handed over again when it settles), and why it failed: what a waiting delivery then
    fails with, instead of asking for the fit again."""

    upload = models.ForeignKey(MediaUpload, on_delete=models.CASCADE, related_name="fits")
    profile = models.CharField(max_length=40)
    state = models.CharField(max_length=10, choices=FitState.choices, default=FitState.MAKING)
    lease_until = models.DateTimeField(null=True, blank=True, help_text="While making: taken over past this.")
    tries = models.PositiveSmallIntegerField(default=0, help_text="Leases taken since it last settled.")
    waiting = models.JSONField(default=list, blank=True, help_text="Tasks to send when it settles.")
    error_code = models.CharField(max_length=40, blank=True)
    error_message = models.CharField(max_length=500, blank=True)
    failed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["upload", "profile"], name="mediafit_one_per_profile"),
            models.CheckConstraint(
                condition=~Q(state="failed") | (~Q(error_code="") & Q(failed_at__isnull=False)),
                name="mediafit_failed_has_evidence",
            ),
        ]

    def __str__(self) -> str:
        return f"fit {self.profile} of {self.upload_id}: {self.state}"

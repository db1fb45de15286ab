"""What a platform client takes and gives: posts, media, credentials, outcomes, problems.

These are plain values shared by every client (`accounts.platforms.base`), the publishing
pipeline and the tests; `base` re-exports them, so `from accounts.platforms.base import Outcome`
is the usual import.
"""

from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any, Literal
from urllib.parse import urlsplit

from django.conf import settings

from accounts.errors import SandboxUnavailable


class OutcomeKind(enum.StrEnum):
    PUBLISHED = "published"
    PROCESSING = "processing"
    FAILED = "failed"
    UNKNOWN = "unknown"
    NOT_SENT = "not_sent"


@dataclass(frozen=True)
class Outcome:
    kind: OutcomeKind
    post_id: str = ""
    url: str = ""
    ref: Mapping[str, str] = field(default_factory=dict)
    error_code: str = ""
    error_message: str = ""
    http_status: int | None = None
    retry_after: float | None = None
    # The platform refused the account's token: the account must be re-authorized.
    auth_failed: bool = False


@dataclass(frozen=True)
class Problem:
    """Why a post cannot go to a platform, found before anything is sent (a 400 for the client)."""

    field: str
    code: str
    message: str


# The JSON types a platform_settings value may have, named as JSON Schema names them.
SettingType = Literal["string", "boolean", "number", "integer", "object", "array", "null"]

_IS_TYPE: dict[SettingType, Callable[[object], bool]] = {
    "string": lambda value: isinstance(value, str),
    "boolean": lambda value: isinstance(value, bool),
    # JSON has no separate booleans-as-numbers: true is not 1 here, although Python says so.
    "number": lambda value: isinstance(value, int | float) and not isinstance(value, bool),
    "integer": lambda value: isinstance(value, int) and not isinstance(value, bool),
    "object": lambda value: isinstance(value, Mapping),
    "array": lambda value: isinstance(value, list),
    "null": lambda value: value is None,
}
_TYPE_WORDS: dict[SettingType, str] = {
    "string": "a string",
    "boolean": "true or false",
    "number": "a number",
    "integer": "a whole number",
    "object": "an object",
    "array": "a list",
    "null": "null",
}


# Every client reads `fit_media` (may a fitted rendition stand in for a file the platform does
# not take?); it is the service's own setting and never sent to a platform.
FIT_SETTING: dict[str, tuple[SettingType, ...]] = {"fit_media": ("boolean",)}


def setting_type_problems(types: Mapping[str, tuple[SettingType, ...]], values: Mapping[str, Any]) -> list[Problem]:
    """INVALID_SETTING for each declared key whose value has none of its declared types."""
    return [
        Problem(key, "INVALID_SETTING", f"{key} must be {' or '.join(_TYPE_WORDS[t] for t in allowed)}.")
        for key, allowed in types.items()
        if key in values and not any(_IS_TYPE[t](values[key]) for t in allowed)
    ]


@dataclass(frozen=True)
class Media:
    """A ready upload as a client sees it: facts for validation, and two ways to the bytes."""

    id: str
    content_type: str
    size_bytes: int
    width: int | None
    height: int | None
    duration_seconds: float | None
    open: Callable[[], IO[bytes]]  # the bytes as a stream; the caller closes it
    pull_url: Callable[[], str]  # a short-lived URL the platform may fetch the file from
    # What ffprobe found (blank while the probe is pending or was skipped).
    container: str = ""
    video_codec: str = ""
    audio_codec: str = ""
    frame_rate: float | None = None
    # (code, message) when the file cannot be used anywhere: unreadable, or over the hard caps.
    refusal: tuple[str, str] | None = None
    # The post's `fit_media`: a rendition may stand in for a file the platform does not take.
    fit: bool = True
    # The rendition profile these bytes are ("jpeg", "h264-aac-mp4"...); None: the upload itself.
    rendition: str | None = None
    # The upload's description for screen readers; "" when none was written.
    alt: str = ""

    @property
    def is_video(self) -> bool:
        return self.content_type.startswith("video/")


@dataclass(frozen=True)
class ReplyTo:
    """The post a reply answers (`parent_id`) and the first post of its thread (`root_id`), as
    the platform names them; Bluesky's strong references also need each one's content id."""

    parent_id: str
    root_id: str
    parent_cid: str = ""
    root_cid: str = ""


@dataclass(frozen=True)
class Post:
    text: str
    media: Sequence[Media] = ()
    settings: Mapping[str, Any] = field(default_factory=dict)  # the target's flat platform_settings
    # Set for a thread's later items: the post is published as a reply to this one.
    reply_to: ReplyTo | None = None


@dataclass(frozen=True)
class Credentials:
    """What connecting (or refreshing) an account yields; stored encrypted on the account."""

    access_token: str
    refresh_token: str = ""
    expires_at: dt.datetime | None = None
    external_id: str = ""
    handle: str = ""
    display_name: str = ""
    metadata: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Metrics:
    views: int | None = None
    likes: int = 0
    comments: int = 0
    shares: int = 0
    extra: Mapping[str, Any] = field(default_factory=dict)  # platform fields: impressions, saves...


@dataclass
class Connection:
    """One account's credentials and where its requests go."""

    credentials: Credentials
    sandbox: bool
    # Persists an intermediate id (container, upload, chosen record key) BEFORE the call that
    # could create the post, so a read-back after an unknown outcome is exact.
    save_ref: Callable[[Mapping[str, str]], None] = lambda _ref: None

    def url(self, real_url: str) -> str:
        if not self.sandbox:
            return real_url
        if not settings.DEVELOPMENT:
            # Every request a client sends is addressed here, so this one check keeps a sandbox
            # account found in production (copied data, an admin edit) from sending anything.
            raise SandboxUnavailable()
        parts = urlsplit(real_url)
        query = f"?{parts.query}" if parts.query else ""
        return f"{settings.SANDBOX_URL}/{parts.netloc}{parts.path}{query}"


class PlatformError(Exception):
    """A call that did not succeed; `outcome` says how (kind, the platform's code and words)."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(f"{outcome.error_code}: {outcome.error_message}")
        self.outcome = outcome

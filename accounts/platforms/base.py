"""The one interface every platform client implements, and the HTTP plumbing they share.

A client turns a post into calls to the platform's real public API and every answer into an
`Outcome` of one of five kinds. The kinds are what keeps publishing safe:

- `PUBLISHED`: the platform gave the post's id.
- `PROCESSING`: accepted, not final yet (a container, an upload being processed); `ref`
  holds what `check()` needs to follow it.
- `FAILED`: the platform said no, definitively; `error_code`/`error_message` keep its words.
- `UNKNOWN`: the request may have created the post (a timeout or a dropped connection after
  the request went out, a 5xx). Never send again blindly: `check()` or `find_recent()` first.
- `NOT_SENT`: nothing was created (connection refused, DNS failure, a 429 before any write),
  so the same call may be retried after `retry_after`.

Every client talks to the real hosts through `Connection.url()`; for a sandbox account the same
URL is prefixed with SANDBOX_URL (CONTRACT.md "Sandbox addressing"), so one code path serves
the real platform and the local stand-in. Outside development a sandbox account's calls raise
`SandboxUnavailable` there instead: production never sends to the sandbox.
"""

from __future__ import annotations

import abc
import datetime as dt
import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any, ClassVar, Literal
from urllib.parse import urlsplit

import requests
import urllib3
from django.conf import settings

from accounts.errors import SandboxUnavailable
from accounts.platforms.limits import PlatformLimits, limits_for

CONNECT_TIMEOUT_SECONDS = 5.0


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

    @property
    def is_video(self) -> bool:
        return self.content_type.startswith("video/")


@dataclass(frozen=True)
class Post:
    text: str
    media: Sequence[Media] = ()
    settings: Mapping[str, Any] = field(default_factory=dict)  # the target's flat platform_settings


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
    save_ref: Callable[[Mapping[str, str]], None] = lambda ref: None

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


class PlatformClient(abc.ABC):
    """One module per network implements this; read one to know all nine."""

    platform: ClassVar[str]
    # Posts one `metrics()` call reads: the size of the platform's batch lookup, or 1 where
    # insights are read one post at a time.
    metrics_batch_size: ClassVar[int] = 1
    # The JSON types each platform_settings key the client reads may have (spec §2).
    # `problems()` refuses a value of another type, so `validate()` never meets one.
    setting_types: ClassVar[Mapping[str, tuple[SettingType, ...]]] = {}

    def __init__(self) -> None:
        # One pooled session per client; every call passes explicit timeouts.
        self.session = requests.Session()
        self.session.headers["User-Agent"] = "SocialPublishing/1.0"

    @property
    def limits(self) -> PlatformLimits:
        return limits_for(self.platform)

    @property
    def timeout(self) -> tuple[float, float]:
        return (CONNECT_TIMEOUT_SECONDS, float(settings.PLATFORM_TIMEOUT_SECONDS))

    def problems(self, post: Post) -> list[Problem]:
        """What keeps `post` from this platform: settings of a type other than declared or,
        when every setting has its type, what `validate()` finds. Checking types first lets
        every client rely on them (a list where a string belongs is a 400, never a crash)."""
        return setting_type_problems(self.setting_types, post.settings) or self.validate(post)

    @abc.abstractmethod
    def validate(self, post: Post) -> list[Problem]:
        """Text, title, media type/count/size/duration and platform_settings problems; the
        settings declared in `setting_types` are of their declared types here."""

    def media_problems(self, media: Sequence[Media]) -> list[Problem]:
        """What the limits table rules out: missing or mixed media, counts, types, sizes and
        video durations. Clients add only their platform's own extra rules."""
        limits, name = self.limits, self.platform
        videos = [m for m in media if m.is_video]
        images = [m for m in media if not m.is_video]
        if limits.requires_media and not media:
            return [Problem("media", "MEDIA_REQUIRED", f"A post to {name} needs an image or a video.")]
        if videos and images and not limits.mixed_media:
            return [Problem("media", "MIXED_MEDIA", f"{name} does not take images and videos in one post.")]
        for kind, items, rule in (("images", images, limits.images), ("videos", videos, limits.videos)):
            if len(items) > rule.max_count:
                return [Problem("media", "TOO_MANY_MEDIA", f"{name} takes at most {rule.max_count} {kind} a post.")]
        if len(media) > limits.max_media_per_post:
            message = f"{name} takes at most {limits.max_media_per_post} media a post."
            return [Problem("media", "TOO_MANY_MEDIA", message)]
        return [problem for index, item in enumerate(media) for problem in self._item_problems(index, item)]

    def _item_problems(self, index: int, media: Media) -> list[Problem]:
        rule = self.limits.videos if media.is_video else self.limits.images
        where = f"media[{index}]"
        if media.content_type not in rule.content_types:
            return [Problem(where, "UNSUPPORTED_MEDIA_TYPE", f"{self.platform} does not take {media.content_type}.")]
        if rule.max_size_bytes is not None and media.size_bytes > rule.max_size_bytes:
            message = f"{self.platform} takes files of at most {rule.max_size_bytes} bytes."
            return [Problem(where, "MEDIA_TOO_LARGE", message)]
        duration = media.duration_seconds
        if media.is_video and duration is not None:
            if rule.max_duration_seconds is not None and duration > rule.max_duration_seconds:
                message = f"{self.platform} takes videos of at most {rule.max_duration_seconds} seconds."
                return [Problem(where, "VIDEO_TOO_LONG", message)]
            if rule.min_duration_seconds is not None and duration < rule.min_duration_seconds:
                message = f"{self.platform} takes videos of at least {rule.min_duration_seconds} seconds."
                return [Problem(where, "VIDEO_TOO_SHORT", message)]
        return []

    @abc.abstractmethod
    def publish(self, conn: Connection, post: Post) -> Outcome: ...

    @abc.abstractmethod
    def check(self, conn: Connection, ref: Mapping[str, str]) -> Outcome:
        """Follow a PROCESSING outcome, or settle an UNKNOWN one by reading back `ref`."""

    @abc.abstractmethod
    def find_recent(self, conn: Connection, post: Post, since: dt.datetime) -> Outcome:
        """Settle an UNKNOWN outcome without a ref: look for the post among the account's
        recent posts. PUBLISHED if found; FAILED with code NOT_FOUND if surely absent."""

    @abc.abstractmethod
    def metrics(self, conn: Connection, post_ids: Sequence[str]) -> dict[str, Metrics]: ...

    @abc.abstractmethod
    def authorize_url(self, *, state: str, code_challenge: str, redirect_uri: str, sandbox: bool) -> str: ...

    @abc.abstractmethod
    def exchange_code(self, *, code: str, code_verifier: str, redirect_uri: str, sandbox: bool) -> Credentials: ...

    @abc.abstractmethod
    def refresh(self, conn: Connection) -> Credentials: ...

    def login(self, *, identifier: str, app_password: str, sandbox: bool) -> Credentials:
        """Connect with a handle and an app password; platforms that connect that way
        (Bluesky) override it, the OAuth ones keep this refusal."""
        raise NotImplementedError(f"{self.platform} connects through OAuth, not with a password")


class PlatformError(Exception):
    """A call that did not succeed; `outcome` says how (kind, the platform's code and words)."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(f"{outcome.error_code}: {outcome.error_message}")
        self.outcome = outcome


def json_object(response: requests.Response) -> dict[str, Any]:
    """The JSON object a platform answered, or {} for anything else (HTML error pages, lists)."""
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


# --- classifying answers ---------------------------------------------------------------------

# After the request went out, these statuses say nothing about whether the post was created.
UNKNOWN_STATUSES = frozenset({500, 502, 503, 504})


def retry_after_seconds(response: requests.Response, *reset_headers: str) -> float | None:
    """Seconds to wait from Retry-After, or from an epoch-seconds reset header."""
    value = response.headers.get("Retry-After", "")
    if value.isascii() and value.isdigit():
        return float(value)
    for name in reset_headers:
        reset = response.headers.get(name, "")
        if reset.isascii() and reset.isdigit():
            return max(0.0, float(reset) - dt.datetime.now(dt.UTC).timestamp())
    return None


def _never_sent(exc: requests.RequestException) -> bool:
    if isinstance(exc, requests.ConnectTimeout):
        return True
    if isinstance(exc, requests.ConnectionError) and not isinstance(exc, requests.ReadTimeout):
        # requests wraps urllib3's error; only a connection that was never made proves nothing
        # was sent (refused, DNS failure). A reset mid-request is not that.
        reason = getattr(exc.args[0], "reason", None) if exc.args else None
        return isinstance(reason, urllib3.exceptions.NewConnectionError)
    return False


def outcome_of_exception(exc: requests.RequestException) -> Outcome:
    """A transport error: NOT_SENT if the request surely never reached the platform."""
    if _never_sent(exc):
        return Outcome(OutcomeKind.NOT_SENT, error_code="CONNECTION_FAILED", error_message=type(exc).__name__)
    return Outcome(OutcomeKind.UNKNOWN, error_code="NO_ANSWER", error_message=type(exc).__name__)

"""The one interface every platform client implements (`PlatformClient`): validation against
the platform's limits, publishing, settling unknown and processing outcomes, metrics,
connecting and revoking. `accounts.platforms.base.HttpClient` implements the parts every client does the
same way over HTTP; read one client module to know all nine.
"""

from __future__ import annotations

import abc
import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import requests
import requests.adapters
from django.conf import settings

from accounts.platforms import formats
from accounts.platforms.limits import PlatformLimits, limits_for
from accounts.platforms.types import (
    Connection,
    Credentials,
    Media,
    Metrics,
    Outcome,
    Post,
    Problem,
    SettingType,
    setting_type_problems,
)

CONNECT_TIMEOUT_SECONDS = 5.0
# Connections a client keeps open to one host, for reuse by its next calls (the threads of a
# dispatch worker call at once; a call beyond these opens one and closes it afterwards).
PLATFORM_CONNECTIONS_PER_HOST = 256


class PlatformClient(abc.ABC):
    """One module per network implements this; read one to know all nine."""

    platform: ClassVar[str]
    # Posts one `metrics()` call reads: the size of the platform's batch lookup, or 1 where
    # insights are read one post at a time.
    metrics_batch_size: ClassVar[int] = 1
    # The JSON types each platform_settings key the client reads may have (spec §2).
    # `problems()` refuses a value of another type, so `validate()` never meets one.
    setting_types: ClassVar[Mapping[str, tuple[SettingType, ...]]] = {}
    # Whether `options()` reads anything from the platform (TikTok, Pinterest, YouTube).
    has_options: ClassVar[bool] = False
    # Whether `refresh()` renews the access token with the access token itself (Instagram's and
    # Threads' long-lived tokens, which come with no refresh token). The others renew only with
    # a stored refresh token: without one, the account must be re-authorized before it expires.
    renews_with_access_token: ClassVar[bool] = False

    def __init__(self) -> None:
        # One pooled session per client; every call passes explicit timeouts. It keeps as many
        # connections to a host as a dispatch worker has threads calling it at once.
        self.session = requests.Session()
        adapter = requests.adapters.HTTPAdapter(pool_maxsize=PLATFORM_CONNECTIONS_PER_HOST)
        self.session.mount("https://", adapter)
        self.session.mount("http://", adapter)
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

    def text_length(self, text: str) -> int:
        """`text`'s length as `validate()` counts it against `text_limit()`, the way
        `limits.text.counting` names: code points here; a client that counts otherwise
        (weighted, graphemes, UTF-16, bytes) answers with its own counting function, so a
        live count (the dashboard's) never differs from the check."""
        return len(text)

    def text_limit(self, post: Post) -> int | None:
        """The text limit `validate()` applies to `post`; None when the text has none."""
        return self.limits.text.max_length

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
        """The first thing that keeps this item from the platform. With fitting on (the post's
        `fit_media`, on unless false) what a rendition mends (a type, a size, a codec, too many
        pixels) is no problem: the worker sends the rendition instead."""
        where = f"media[{index}]"
        if media.refusal:
            code, message = media.refusal
            return [Problem(where, code, f"Media {media.id} cannot be used: {message}.")]
        found = formats.findings(self.platform, media)
        if media.fit:
            found = [f for f in found if f.profile is None]
        return [Problem(where, f.code, f.message) for f in found[:1]]

    def options(self, conn: Connection) -> Mapping[str, Any]:
        """What the account may choose among right now, read from the platform (a TikTok
        creator's privacy levels, Pinterest boards, YouTube categories); `settings_schema`
        folds them into the platform_settings schema. {} where the platform has none. A call
        that does not succeed raises PlatformError."""
        return {}

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

    def revoke(self, conn: Connection) -> bool:
        """Revoke the account's token (or session) at the platform: True once the platform
        confirms it. A platform with no revoke call for the tokens we hold keeps this default
        and sends nothing. A refusal or no answer raises PlatformError."""
        return False

    def login(self, *, identifier: str, app_password: str, sandbox: bool) -> Credentials:
        """Connect with a handle and an app password; platforms that connect that way
        (Bluesky) override it, the OAuth ones keep this refusal."""
        raise NotImplementedError(f"{self.platform} connects through OAuth, not with a password")

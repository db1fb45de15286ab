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
    OutcomeKind,
    Post,
    Problem,
    ReplyTo,
    SettingType,
    setting_type_problems,
)

# How each network is named in messages a person reads.
PLATFORM_NAMES = {
    "x": "X",
    "instagram": "Instagram",
    "tiktok": "TikTok",
    "youtube": "YouTube",
    "facebook": "Facebook",
    "linkedin": "LinkedIn",
    "pinterest": "Pinterest",
    "threads": "Threads",
    "bluesky": "Bluesky",
}
# How a first comment reaches a network: a reply post by the same account, or a comment on it.
REPLY, COMMENT = "reply", "comment"

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
    # How `platform_settings.first_comment` reaches the platform: REPLY (a reply post by the same
    # account: X, Bluesky, Threads), COMMENT (a comment by the account on the post: Facebook,
    # Instagram, LinkedIn, YouTube), or None where the platform has no call to comment (TikTok,
    # Pinterest): validation refuses it there. Publishing sends it as a unit of its own once the
    # post is published (`publishing.threads`): `publish()` of a Post with the first comment's
    # text and `reply_to` naming the post. Where it is COMMENT, that call creates a comment: the
    # outcome's post_id is the comment's id, and `check()` of its ref reads the comment back.
    first_comment: ClassVar[str | None] = None
    # The longest first comment, where comments have a limit of their own (COMMENT); a reply is
    # held to the platform's text limit as any post.
    comment_max_length: ClassVar[int | None] = None
    # Why the platform's posts cannot be deleted through its API, in words for the person who
    # asked (e.g. "TikTok has no delete call: delete it in the app"); "" where `delete()` deletes
    # posts. (Instagram deletes comments but not posts: it has a reason.)
    no_delete_reason: ClassVar[str] = ""

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
        typed = setting_type_problems({**self.setting_types, "first_comment": ("string",)}, post.settings)
        if typed:
            return typed
        found = self.validate(post)
        if "first_comment" in post.settings and post.reply_to is None:
            found += self.first_comment_problems(post.settings["first_comment"])
        return found

    @property
    def name(self) -> str:
        """The network's name in messages a person reads."""
        return PLATFORM_NAMES[self.platform]

    def first_comment_problems(self, text: str) -> list[Problem]:
        """What keeps `text` from being the post's first comment here: none on a platform that
        cannot comment, empty text, and the limits of a reply (REPLY) or of a comment
        (COMMENT)."""
        field = "first_comment"
        if self.first_comment is None:
            message = f"{self.name} has no API call to comment on a post: leave first_comment out."
            return [Problem(field, "FIRST_COMMENT_UNSUPPORTED", message)]
        if not text.strip():
            return [Problem(field, "INVALID_SETTING", "first_comment must not be empty: leave it out instead.")]
        if self.first_comment == REPLY:
            reply = Post(text=text, reply_to=ReplyTo(parent_id="0", root_id="0"))
            return [Problem(field, p.code, p.message) for p in self.validate(reply) if p.field in ("text", "content")]
        limit = self.comment_max_length
        if limit is not None and self.text_length(text) > limit:
            message = f"A {self.name} comment takes at most {limit} characters; this first comment has more."
            return [Problem(field, "FIRST_COMMENT_TOO_LONG", message)]
        return []

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

    def delete(self, conn: Connection, post_id: str, ref: Mapping[str, str]) -> Outcome:
        """Delete a published post (or a reply, or a comment: `ref` is the one its attempt kept)
        on the platform, once. PUBLISHED means the delete took effect or the platform says the
        post is already gone; FAILED, that the platform refused (its code and words); UNKNOWN,
        that no clear answer came (read back with `exists()`, never sent again blindly);
        NOT_SENT, that nothing was done and it may be sent again. A platform without a delete
        call keeps this default, which sends nothing and fails with `no_delete_reason`."""
        return Outcome(OutcomeKind.FAILED, error_code="DELETE_UNSUPPORTED", error_message=self.no_delete_reason)

    def exists(self, conn: Connection, post_id: str, ref: Mapping[str, str]) -> bool:
        """Whether a published post (or reply, or comment) is still on the platform: False only
        on the platform's own word that it is gone (not found, deleted, removed); an error that
        says nothing about the post (a timeout, a 5xx, a 429) raises PlatformError."""
        raise NotImplementedError(f"{self.platform} cannot read a post back yet")

    def revoke(self, conn: Connection) -> bool:
        """Revoke the account's token (or session) at the platform: True once the platform
        confirms it. A platform with no revoke call for the tokens we hold keeps this default
        and sends nothing. A refusal or no answer raises PlatformError."""
        return False

    def login(self, *, identifier: str, app_password: str, sandbox: bool) -> Credentials:
        """Connect with a handle and an app password; platforms that connect that way
        (Bluesky) override it, the OAuth ones keep this refusal."""
        raise NotImplementedError(f"{self.platform} connects through OAuth, not with a password")

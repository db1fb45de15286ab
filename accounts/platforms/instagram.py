"""Instagram client: the Instagram API with Instagram Login (graph.instagram.com), containers.

Why it looks the way it does:

- Host: the "Instagram Login" variant (graph.instagram.com, no Facebook Page needed) rather
  than the "Facebook Login" one (graph.facebook.com). Both publish through the same edges
  (`/{ig-user-id}/media`, `/media_publish`, `/{container-id}`, `/{media-id}/comments`,
  `/{media-id}/insights`); this one keeps Instagram apart from the Facebook Pages client.
- Publishing is a container: POST `/{ig-user-id}/media` with `image_url` or
  `media_type=REELS` + `video_url` (every single feed video is a reel since 2023), or, for
  several items, one child container each (`is_carousel_item=true`; videos `media_type=VIDEO`)
  and a `media_type=CAROUSEL` container with `children`. Instagram fetches the media itself,
  so each item goes as `media.pull_url()`. The containers are `prepare()` (a container is not
  a post); `create()` polls the container's `status_code` (`status_polls` times,
  `poll_seconds` apart: Meta advises once a minute, so a slow video answers PROCESSING and
  `check()` continues), then calls `media_publish` with `creation_id`.
- Idempotency: the container id is saved with `conn.save_ref` BEFORE media_publish. A container
  is published at most once, so `check()` may call media_publish again on a FINISHED container;
  a PUBLISHED container gives no media id, so the media is found among the account's recent
  media (timestamp after `since`, same caption), read page after page by cursor (`after`).
- `ref` is strings only: ig_user_id, since, caption, container_id or children, and media_id
  once published.
- A first comment is `publish()` of a Post with `reply_to`: `POST /{media-id}/comments` with
  `message` (no container). Its ref is `comment_id` and `parent_id`; `check()` reads it with
  `GET /{comment-id}`, `find_recent()` looks among `GET /{media-id}/comments` for the account's.
  Meta documents no comment limits of their own; a caption's are applied (2200 characters,
  30 hashtags, 20 @-mentions).
- The API cannot delete media (`no_delete_reason`); a comment is deleted with
  `DELETE /{ig-comment-id}` (`GraphClient.delete`). `exists()` reads the media or comment node.
- Errors are read as `graph.py` reads every Graph answer, with Instagram's codes (`CODES`):
  error_code is "<code>" or "<code>/<subcode>". 190 and 102 are a dead token (auth_failed;
  Instagram has no refresh token to fall back on); the throttling codes 4/17/32/613/80002 and
  the publishing quota 9/2207042 are NOT_SENT. A read-back refused for any other reason than
  the token or a rate limit means the media is gone.
- OAuth: Instagram documents no PKCE for this flow, so `code_challenge` is not sent (state
  is). The code gives a 1-hour token (wrapped in `data[0]`) that is exchanged at once for a
  60-day one (`ig_exchange_token`); `refresh()` is `ig_refresh_token` on that long-lived token
  itself (there is no separate refresh token: Credentials.refresh_token stays "").
- Metrics: `/{media-id}/insights` with views, reach, likes, comments, shares, saved,
  total_interactions (impressions/plays were removed in 2025). A media without insights
  (carousel children, deleted media) is left out.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from accounts.platforms.base import (
    FIT_SETTING,
    Connection,
    Credentials,
    Media,
    Metrics,
    Outcome,
    OutcomeKind,
    PlatformError,
    Post,
    Problem,
    bare_connection,
    before_create,
    json_object,
)
from accounts.platforms.graph import (
    GraphClient,
    GraphCodes,
    created_since,
    graph_time,
    insight_values,
    reaches_before,
    read_failure,
)
from accounts.platforms.interface import COMMENT

API_VERSION = "v25.0"
GRAPH = f"https://graph.instagram.com/{API_VERSION}"
AUTHORIZE_URL = "https://www.instagram.com/oauth/authorize"
TOKEN_URL = "https://api.instagram.com/oauth/access_token"  # noqa: S105 (a URL)
LONG_LIVED_URL = "https://graph.instagram.com/access_token"
REFRESH_URL = "https://graph.instagram.com/refresh_access_token"
SCOPES = (
    "instagram_business_basic,instagram_business_content_publish,"
    "instagram_business_manage_comments,instagram_business_manage_insights"
)
SANDBOX_CLIENT_SECRET = "sandbox-instagram-secret"  # noqa: S105 (the sandbox accepts any)
INSIGHT_METRICS = ("views", "reach", "likes", "comments", "shares", "saved", "total_interactions")
MAX_CAPTION, MAX_HASHTAGS, MAX_MENTIONS = 2200, 30, 20
MAX_ALT_TEXT = 1000  # an image container's alt_text
MIN_ASPECT, MAX_ASPECT = 4 / 5, 1.91
RECENT_MEDIA_FIELDS = "id,caption,permalink,timestamp"
COMMENT_FIELDS = "id,text,from,timestamp"
PAGE_LIMIT = 25  # media per page of the find_recent() listing (Graph's default)
CODES = GraphCodes(
    auth=frozenset({102, 190}),
    throttled=frozenset({4, 17, 32, 613, 80002}),
    quota=frozenset({(9, 2207042)}),  # the publishing limit of 24 hours
)
_HASHTAG = re.compile(r"(?:^|(?<=\s))#\w+")
_MENTION = re.compile(r"(?:^|(?<=\s))@[\w.]+")


def _now_iso() -> str:
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()


def _item_body(media: Media, *, carousel_item: bool) -> dict[str, Any]:
    if media.is_video:
        body: dict[str, Any] = {"media_type": "VIDEO" if carousel_item else "REELS", "video_url": media.pull_url()}
    else:
        body = {"image_url": media.pull_url()}
        if media.alt:  # images only, at most 1000 characters (IGUser `POST media` alt_text)
            body["alt_text"] = media.alt[:MAX_ALT_TEXT]
    return {**body, "is_carousel_item": True} if carousel_item else body


def _failed(code: str, message: str, ref: Mapping[str, str] | None = None) -> Outcome:
    return Outcome(OutcomeKind.FAILED, ref=dict(ref or {}), error_code=code, error_message=message)


def _published(ref: Mapping[str, str], media_id: str, permalink: str) -> Outcome:
    return Outcome(OutcomeKind.PUBLISHED, post_id=media_id, url=permalink, ref={**ref, "media_id": media_id})


def _commented(comment_id: str, media_id: str) -> Outcome:
    """A comment's outcome: Instagram gives comments no permalink."""
    ref = {"comment_id": comment_id, "parent_id": media_id}
    return Outcome(OutcomeKind.PUBLISHED, post_id=comment_id, ref=ref)


def _is_comment_of(item: Mapping[str, Any], account: str, text: str) -> bool:
    author = item.get("from")
    by = str(author.get("id") or "") if isinstance(author, dict) else ""
    return by == account and str(item.get("text") or "").strip() == text.strip()


def _gone(outcome: Outcome) -> bool:
    """A refusal that means the media does not exist (not the token, not a rate limit)."""
    return outcome.kind is OutcomeKind.FAILED and not outcome.auth_failed


def caption_problems(text: str, field_name: str = "text") -> list[Problem]:
    if len(text) > MAX_CAPTION:
        return [Problem(field_name, "TEXT_TOO_LONG", f"At most {MAX_CAPTION} characters on Instagram.")]
    if len(_HASHTAG.findall(text)) > MAX_HASHTAGS:
        return [Problem(field_name, "TOO_MANY_HASHTAGS", f"At most {MAX_HASHTAGS} hashtags on Instagram.")]
    if len(_MENTION.findall(text)) > MAX_MENTIONS:
        return [Problem(field_name, "TOO_MANY_MENTIONS", f"At most {MAX_MENTIONS} @-mentions on Instagram.")]
    return []


def _aspect_problems(index: int, media: Media) -> list[Problem]:
    """Feed images between 4:5 and 1.91:1 (a carousel follows its first image; each is checked)."""
    if media.is_video or not media.width or not media.height:
        return []
    ratio = media.width / media.height
    if MIN_ASPECT - 0.005 <= ratio <= MAX_ASPECT + 0.005:
        return []
    message = f"Instagram takes images between 4:5 and 1.91:1; this one is {media.width}x{media.height}."
    return [Problem(f"media[{index}]", "UNSUPPORTED_ASPECT_RATIO", message)]


class Client(GraphClient[dict[str, str]]):
    platform = "instagram"
    first_comment = COMMENT
    comment_max_length = MAX_CAPTION
    no_delete_reason = "Instagram has no delete call for posts: delete it in the app."
    api = GRAPH
    codes = CODES
    authorize_endpoint = AUTHORIZE_URL
    scopes = SCOPES
    sandbox_client_secret = SANDBOX_CLIENT_SECRET
    pkce = False
    renews_with_access_token = True  # refresh(): the long-lived token renews itself
    setting_types = {**FIT_SETTING, "first_comment": ("string",)}
    status_polls = 3  # container status checks inside publish() before answering PROCESSING
    poll_seconds = 2.0

    # --- validation ------------------------------------------------------------------------

    def validate(self, post: Post) -> list[Problem]:
        if post.reply_to is not None:  # a comment: text only
            return caption_problems(post.text)
        problems = caption_problems(post.text) + self.media_problems(post.media)
        return problems + [p for i, m in enumerate(post.media) for p in _aspect_problems(i, m)]

    def first_comment_problems(self, text: str) -> list[Problem]:
        found = super().first_comment_problems(text)
        return found or [p for p in caption_problems(text, "first_comment") if p.code != "TEXT_TOO_LONG"]

    # --- publishing ------------------------------------------------------------------------

    def prepare(self, conn: Connection, post: Post) -> dict[str, str]:
        """The ref of the post's containers: a single media's (saved), or a carousel's children."""
        if post.reply_to is not None:  # a comment needs no container
            return {}
        ref = {"ig_user_id": conn.credentials.external_id, "since": _now_iso(), "caption": post.text}
        return self._containers(conn, post.media, ref)

    def create(self, conn: Connection, post: Post, prepared: dict[str, str]) -> Outcome:
        if post.reply_to is not None:
            return self._comment(conn, post.reply_to.parent_id, post.text)
        return self._settle(conn, prepared, self.status_polls)

    def _comment(self, conn: Connection, media_id: str, text: str) -> Outcome:
        """The account's comment on its media; Instagram answers only the comment's id."""
        created = self.call(conn, "POST", f"/{media_id}/comments", json={"message": text})
        comment_id = str(created.get("id") or "")
        return _commented(comment_id, media_id) if comment_id else _failed("NO_ID", "The comment has no id.")

    def _containers(self, conn: Connection, media: Sequence[Media], ref: dict[str, str]) -> dict[str, str]:
        """Single media: its container. Several: the children (the carousel comes in _settle)."""
        if len(media) == 1:
            body = {**_item_body(media[0], carousel_item=False), "caption": ref["caption"]}
            return self._saved(conn, {**ref, "container_id": self._container(conn, ref, body)})
        children = [self._container(conn, ref, _item_body(item, carousel_item=True)) for item in media]
        return {**ref, "children": ",".join(children)}

    def _container(self, conn: Connection, ref: Mapping[str, str], body: Mapping[str, Any]) -> str:
        created = self.call(conn, "POST", f"/{ref['ig_user_id']}/media", json=body)
        container_id = str(created.get("id") or "")
        if not container_id:
            raise PlatformError(_failed("NO_CONTAINER_ID", "Instagram gave no container id."))
        return container_id

    @staticmethod
    def _saved(conn: Connection, ref: dict[str, str]) -> dict[str, str]:
        conn.save_ref(ref)
        return ref

    def _settle(self, conn: Connection, ref: dict[str, str], polls: int) -> Outcome:
        """Follow the containers to a published post, as far as `polls` status checks allow."""
        if "container_id" not in ref:
            try:
                ref = self._carousel(conn, ref, polls)
            except PlatformError as exc:
                return before_create(exc.outcome)
            if "container_id" not in ref:
                return Outcome(OutcomeKind.PROCESSING, ref=ref)
        return self._follow(conn, ref, polls)

    def _carousel(self, conn: Connection, ref: dict[str, str], polls: int) -> dict[str, str]:
        children = ref["children"].split(",")
        states = [self._wait(conn, child, polls).get("status_code") for child in children]
        if any(state == "IN_PROGRESS" for state in states):
            return ref
        bad = next((s for s in states if s != "FINISHED"), None)
        if bad is not None:
            raise PlatformError(_failed(f"CONTAINER_{bad}", "A carousel item was not accepted.", ref))
        body = {"media_type": "CAROUSEL", "children": children, "caption": ref["caption"]}
        return self._saved(conn, {**ref, "container_id": self._container(conn, ref, body)})

    def _follow(self, conn: Connection, ref: dict[str, str], polls: int) -> Outcome:
        try:
            found = self._wait(conn, ref["container_id"], polls)
        except PlatformError as exc:
            if exc.outcome.kind is OutcomeKind.FAILED:
                return replace(exc.outcome, ref=ref)
            return Outcome(OutcomeKind.PROCESSING, ref=ref, error_code=exc.outcome.error_code)
        state = found["status_code"]
        if state == "FINISHED":
            return self._publish_container(conn, ref)
        if state == "IN_PROGRESS":
            return Outcome(OutcomeKind.PROCESSING, ref=ref)
        if state == "PUBLISHED":
            return self._find_published(conn, ref)
        return _failed(f"CONTAINER_{state}", str(found.get("status") or f"The container is {state}."), ref)

    def _wait(self, conn: Connection, container_id: str, polls: int) -> dict[str, Any]:
        """The container's status_code and status after at most `polls` reads."""
        return self.poll(lambda: self._status(conn, container_id), lambda s: s["status_code"] == "IN_PROGRESS", polls)

    def _status(self, conn: Connection, container_id: str) -> dict[str, Any]:
        found = self.call(conn, "GET", f"/{container_id}", params={"fields": "status_code,status"})
        return {**found, "status_code": str(found.get("status_code") or "IN_PROGRESS")}

    def _publish_container(self, conn: Connection, ref: dict[str, str]) -> Outcome:
        body = {"creation_id": ref["container_id"]}
        try:
            created = self.call(conn, "POST", f"/{ref['ig_user_id']}/media_publish", json=body)
        except PlatformError as exc:
            return replace(exc.outcome, ref=ref)
        media_id = str(created.get("id") or "")
        if not media_id:
            return _failed("NO_MEDIA_ID", "media_publish answered without an id.", ref)
        return _published(ref, media_id, self._permalink(conn, media_id))

    def _permalink(self, conn: Connection, media_id: str) -> str:
        try:
            return str(self.call(conn, "GET", f"/{media_id}", params={"fields": "id,permalink"}).get("permalink", ""))
        except PlatformError:
            return ""  # the post exists; only its URL is missing

    # --- settling --------------------------------------------------------------------------

    def check(self, conn: Connection, ref: Mapping[str, str]) -> Outcome:
        """A media id is read back; a container (or pending carousel items) is followed one
        status check further and published once FINISHED."""
        if ref.get("comment_id"):
            return self._read_comment(conn, ref["comment_id"], ref.get("parent_id", ""))
        ref = {"ig_user_id": conn.credentials.external_id, **ref}
        if ref.get("media_id"):
            return self._read_back(conn, ref)
        if ref.get("container_id") or ref.get("children"):
            return self._settle(conn, ref, polls=1)
        return _failed("NO_REF", "Nothing to check.", ref)

    def _read_back(self, conn: Connection, ref: dict[str, str]) -> Outcome:
        try:
            found = self.call(conn, "GET", f"/{ref['media_id']}", params={"fields": "id,permalink"})
        except PlatformError as exc:
            if _gone(exc.outcome):
                return _failed("NOT_FOUND", exc.outcome.error_message, ref)
            return replace(read_failure(exc), ref=ref)
        return _published(ref, ref["media_id"], str(found.get("permalink", "")))

    def _read_comment(self, conn: Connection, comment_id: str, media_id: str) -> Outcome:
        try:
            self.node(conn, f"/{comment_id}", params={"fields": "id"})
        except PlatformError as exc:
            return read_failure(exc)
        return _commented(comment_id, media_id)

    def _find_published(self, conn: Connection, ref: dict[str, str]) -> Outcome:
        """A PUBLISHED container names no media: the newest media since `since` with the caption."""
        since = graph_time(ref.get("since", "")) or dt.datetime.now(dt.UTC) - dt.timedelta(days=1)
        found = self.find_recent(conn, Post(text=ref.get("caption", "")), since)
        if found.kind is not OutcomeKind.PUBLISHED:
            return replace(found, ref=ref)
        return _published(ref, found.post_id, found.url)

    def find_recent(self, conn: Connection, post: Post, since: dt.datetime) -> Outcome:
        """The account's media since `since` (newest first), page after page (`after`) until one
        has the same caption, there is no next page, or MAX_RECENT_PAGES were read. A comment is
        looked for among its media's comments instead."""
        if post.reply_to is not None:
            return self._find_comment(conn, post, post.reply_to.parent_id, since)
        params = {"fields": RECENT_MEDIA_FIELDS, "since": str(int(since.timestamp())), "limit": PAGE_LIMIT}
        try:
            for listed in self.edge_pages(conn, f"/{conn.credentials.external_id}/media", params):
                for item in listed:
                    if str(item.get("caption") or "") == post.text and created_since(item.get("timestamp"), since):
                        return _published({}, str(item["id"]), str(item.get("permalink") or ""))
                if reaches_before(listed, "timestamp", since):
                    break
        except PlatformError as exc:
            return read_failure(exc)
        return _failed("NOT_FOUND", "No recent media with this caption.")

    def _find_comment(self, conn: Connection, post: Post, media_id: str, since: dt.datetime) -> Outcome:
        """The account's comment with this text among the media's comments (Meta documents no
        order for them, so every page up to MAX_RECENT_PAGES is read)."""
        params = {"fields": COMMENT_FIELDS, "limit": PAGE_LIMIT}
        try:
            for listed in self.edge_pages(conn, f"/{media_id}/comments", params):
                mine = (c for c in listed if _is_comment_of(c, conn.credentials.external_id, post.text))
                found = next((c for c in mine if created_since(c.get("timestamp"), since)), None)
                if found is not None:
                    return _commented(str(found["id"]), media_id)
        except PlatformError as exc:
            return read_failure(exc)
        return _failed("NOT_FOUND", "No comment of this account with this text.")

    # --- deleting --------------------------------------------------------------------------

    def delete(self, conn: Connection, post_id: str, ref: Mapping[str, str]) -> Outcome:
        """A comment is deleted; a post cannot be, through this API."""
        if not ref.get("comment_id"):
            return _failed("DELETE_UNSUPPORTED", self.no_delete_reason)
        return super().delete(conn, post_id, ref)

    # --- metrics ---------------------------------------------------------------------------

    def post_metrics(self, conn: Connection, post_id: str) -> Metrics | None:
        """The media's lifetime insights; None for a media that has none (or no longer exists)."""
        params = {"metric": ",".join(INSIGHT_METRICS), "period": "lifetime"}
        try:
            return self._metrics_of(insight_values(self.call(conn, "GET", f"/{post_id}/insights", params=params)))
        except PlatformError as exc:
            if _gone(exc.outcome):
                return None
            raise

    @staticmethod
    def _metrics_of(values: Mapping[str, int]) -> Metrics:
        extra = {name: values[name] for name in ("reach", "saved", "total_interactions") if name in values}
        return Metrics(
            views=values.get("views"),
            likes=values.get("likes", 0),
            comments=values.get("comments", 0),
            shares=values.get("shares", 0),
            extra=extra,
        )

    def _insights(self, conn: Connection, media_id: str) -> dict[str, int] | None:
        """The media's lifetime insights; None for a media that has none (or no longer exists)."""
        params = {"metric": ",".join(INSIGHT_METRICS), "period": "lifetime"}
        try:
            return insight_values(self.call(conn, "GET", f"/{media_id}/insights", params=params))
        except PlatformError as exc:
            if _gone(exc.outcome):
                return None
            raise

    # --- OAuth (Instagram Login) -----------------------------------------------------------

    def revoke(self, conn: Connection) -> bool:
        """Instagram API with Instagram Login documents no revoke call (only the deauthorize
        callback, when the user removes the app), and Graph's `/me/permissions` needs a Facebook
        user token, which this login does not give; so nothing is sent."""
        return False

    def exchange_code(self, *, code: str, code_verifier: str, redirect_uri: str, sandbox: bool) -> Credentials:
        """Code -> short-lived token (1 h) -> long-lived token (60 days) -> the account."""
        app = self.app(sandbox)
        form = {
            "client_id": app.client_id,
            "client_secret": app.client_secret,
            "grant_type": "authorization_code",
            "redirect_uri": redirect_uri,
            "code": code,
        }
        short = self._short_lived(form, sandbox)
        params = {"grant_type": "ig_exchange_token", "client_secret": app.client_secret}
        params["access_token"] = str(short["access_token"])
        long_lived = self.token_request(sandbox, "GET", LONG_LIVED_URL, params=params)
        me = self._me(bare_connection(sandbox, str(long_lived["access_token"])))
        return self._credentials(long_lived, me, {"permissions": str(short.get("permissions", ""))})

    def refresh(self, conn: Connection) -> Credentials:
        """ig_refresh_token on the (unexpired, long-lived) access token: a new 60-day token."""
        params = {"grant_type": "ig_refresh_token", "access_token": conn.credentials.access_token}
        token = self.token_request(conn.sandbox, "GET", REFRESH_URL, params=params)
        return replace(conn.credentials, **self._token_fields(token))

    def _short_lived(self, form: Mapping[str, str], sandbox: bool) -> dict[str, Any]:
        """The code's 1-hour token, which api.instagram.com wraps in `data[0]`."""
        response = self.send(bare_connection(sandbox), "POST", TOKEN_URL, data=form)
        body = json_object(response)
        listed = body.get("data")
        token = listed[0] if isinstance(listed, list) and listed and isinstance(listed[0], dict) else body
        if self.succeeded(response) and token.get("access_token"):
            return token
        return self.token_refused(response)

    def _me(self, conn: Connection) -> dict[str, Any]:
        return self.call(conn, "GET", "/me", params={"fields": "user_id,username,name"})

    @staticmethod
    def _token_fields(token: Mapping[str, Any]) -> dict[str, Any]:
        lifetime = int(token.get("expires_in") or 60 * 86400)
        return {
            "access_token": str(token.get("access_token", "")),
            "expires_at": dt.datetime.now(dt.UTC) + dt.timedelta(seconds=lifetime),
        }

    @classmethod
    def _credentials(cls, token: Mapping[str, Any], me: Mapping[str, Any], metadata: Mapping[str, Any]) -> Credentials:
        return Credentials(
            **cls._token_fields(token),
            external_id=str(me.get("user_id") or me.get("id") or ""),
            handle=str(me.get("username", "")),
            display_name=str(me.get("name", "")),
            metadata=dict(metadata),
        )

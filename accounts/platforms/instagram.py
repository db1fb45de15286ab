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
  so each item goes as `media.pull_url()`. The container's `status_code` is polled
  (`status_polls` times, `poll_seconds` apart: Meta advises once a minute, so a slow video
  answers PROCESSING and `check()` continues), then `media_publish` with `creation_id`.
- Idempotency: the container id is saved with `conn.save_ref` BEFORE media_publish. A container
  is published at most once, so `check()` may call media_publish again on a FINISHED container;
  a PUBLISHED container gives no media id, so the media is found among the account's recent
  media (timestamp after `since`, same caption).
- `ref` is strings only: ig_user_id, since, caption, first_comment, container_id or children,
  and media_id once published. `check()` posts the first comment when IT publishes or settles
  the post (publish() never reached it then).
- first_comment goes through `/{media-id}/comments` after publishing; if it fails the post is
  still PUBLISHED with error_code FIRST_COMMENT_FAILED.
- Errors keep Graph's words: error_code is "<code>" or "<code>/<subcode>". Code 190 (and 102)
  is a dead token (auth_failed; Instagram has no refresh token to fall back on); 429, the
  throttling codes 4/17/32/613/80002 and the publishing quota 9/2207042 are NOT_SENT with a
  retry_after from Retry-After or X-Business-Use-Case-Usage.
- OAuth: Instagram documents no PKCE for this flow, so `code_challenge` is not sent (state
  is). The code gives a 1-hour token that is exchanged at once for a 60-day one
  (`ig_exchange_token`); `refresh()` is `ig_refresh_token` on that long-lived token itself
  (there is no separate refresh token: Credentials.refresh_token stays "").
- Metrics: `/{media-id}/insights` with views, reach, likes, comments, shares, saved,
  total_interactions (impressions/plays were removed in 2025). A media without insights
  (carousel children, deleted media) is left out.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any
from urllib.parse import urlencode

import requests
from django.conf import settings

from accounts.platforms.base import (
    UNKNOWN_STATUSES,
    Connection,
    Credentials,
    Media,
    Metrics,
    Outcome,
    OutcomeKind,
    PlatformClient,
    PlatformError,
    Post,
    Problem,
    json_object,
    outcome_of_exception,
    retry_after_seconds,
)

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
SANDBOX_CLIENT_ID = "sandbox-instagram-client"
SANDBOX_CLIENT_SECRET = "sandbox-instagram-secret"  # noqa: S105 (the sandbox accepts any)
INSIGHT_METRICS = ("views", "reach", "likes", "comments", "shares", "saved", "total_interactions")
MAX_CAPTION, MAX_HASHTAGS, MAX_MENTIONS = 2200, 30, 20
MIN_ASPECT, MAX_ASPECT = 4 / 5, 1.91
AUTH_CODES = frozenset({102, 190})
THROTTLE_CODES = frozenset({4, 17, 32, 613, 80002})
QUOTA_SUBCODE = 2207042
RECENT_MEDIA_FIELDS = "id,caption,permalink,timestamp"
_HASHTAG = re.compile(r"(?:^|(?<=\s))#\w+")
_MENTION = re.compile(r"(?:^|(?<=\s))@[\w.]+")


class InstagramError(PlatformError):
    """A Graph call that did not succeed; `outcome` says how."""


# --- classifying answers -------------------------------------------------------------------------


_json = json_object


def _graph_error(response: requests.Response) -> tuple[int | None, int | None, str]:
    """(code, subcode, message) of a Graph error body; api.instagram.com's flat shape too."""
    body = _json(response)
    nested = body.get("error")
    error: dict[str, Any] = nested if isinstance(nested, dict) else body
    code, subcode = error.get("code"), error.get("error_subcode")
    message = str(error.get("error_user_msg") or error.get("message") or error.get("error_message") or "")
    return (code if isinstance(code, int) else None), (subcode if isinstance(subcode, int) else None), message


def _error_code(code: int | None, subcode: int | None, status: int) -> str:
    if code is None:
        return f"HTTP_{status}"
    return f"{code}/{subcode}" if subcode is not None else str(code)


def _usage_wait(response: requests.Response) -> float | None:
    """Seconds from X-Business-Use-Case-Usage's estimated_time_to_regain_access (minutes)."""
    try:
        usage = json.loads(response.headers.get("X-Business-Use-Case-Usage", "") or "{}")
    except ValueError:
        return None
    minutes = [
        item.get("estimated_time_to_regain_access")
        for items in (usage.values() if isinstance(usage, dict) else [])
        for item in (items if isinstance(items, list) else [])
        if isinstance(item, dict)
    ]
    known = [float(m) for m in minutes if isinstance(m, int | float)]
    return max(known) * 60 if known else None


def _throttled(status: int, code: int | None, subcode: int | None) -> bool:
    return status == 429 or code in THROTTLE_CODES or (code == 9 and subcode == QUOTA_SUBCODE)


def outcome_of_response(response: requests.Response) -> Outcome:
    """A Graph error answer as an Outcome (the post may exist only after a 5xx)."""
    status = response.status_code
    code, subcode, message = _graph_error(response)
    base = Outcome(
        OutcomeKind.FAILED, error_code=_error_code(code, subcode, status), error_message=message, http_status=status
    )
    if _throttled(status, code, subcode):
        wait = retry_after_seconds(response)
        return replace(base, kind=OutcomeKind.NOT_SENT, retry_after=wait if wait is not None else _usage_wait(response))
    if status in UNKNOWN_STATUSES or status >= 500:
        return replace(base, kind=OutcomeKind.UNKNOWN)
    return replace(base, auth_failed=status == 401 or code in AUTH_CODES)


def _before_publish(outcome: Outcome) -> Outcome:
    """A failure before media_publish cannot have created the post: an unknown is NOT_SENT."""
    return replace(outcome, kind=OutcomeKind.NOT_SENT) if outcome.kind is OutcomeKind.UNKNOWN else outcome


def _failed(code: str, message: str, ref: Mapping[str, str] | None = None) -> Outcome:
    return Outcome(OutcomeKind.FAILED, ref=dict(ref or {}), error_code=code, error_message=message)


# --- validation ----------------------------------------------------------------------------------


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


def _first_comment_problems(settings_: Mapping[str, Any]) -> list[Problem]:
    if "first_comment" not in settings_:
        return []
    return caption_problems(settings_["first_comment"], "first_comment")


# --- small helpers -------------------------------------------------------------------------------


def _now_iso() -> str:
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()


def _parse_time(value: Any) -> dt.datetime | None:
    """Graph timestamps look like 2017-08-31T18:10:00+0000 (fromisoformat reads them since 3.11)."""
    try:
        parsed = dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)


def _item_body(media: Media, *, carousel_item: bool) -> dict[str, Any]:
    if media.is_video:
        body: dict[str, Any] = {"media_type": "VIDEO" if carousel_item else "REELS", "video_url": media.pull_url()}
    else:
        body = {"image_url": media.pull_url()}
    return {**body, "is_carousel_item": True} if carousel_item else body


def _published(ref: Mapping[str, str], media_id: str, permalink: str) -> Outcome:
    return Outcome(OutcomeKind.PUBLISHED, post_id=media_id, url=permalink, ref={**ref, "media_id": media_id})


def _metric_values(body: Mapping[str, Any]) -> dict[str, int]:
    values: dict[str, int] = {}
    for item in body.get("data") or []:
        found = (item.get("values") or [{}])[0].get("value") if "values" in item else None
        found = found if found is not None else (item.get("total_value") or {}).get("value")
        if isinstance(item.get("name"), str) and isinstance(found, int):
            values[item["name"]] = found
    return values


def _metrics_of(values: Mapping[str, int]) -> Metrics:
    extra = {name: values[name] for name in ("reach", "saved", "total_interactions") if name in values}
    return Metrics(
        views=values.get("views"),
        likes=values.get("likes", 0),
        comments=values.get("comments", 0),
        shares=values.get("shares", 0),
        extra=extra,
    )


# --- the client ----------------------------------------------------------------------------------


class Client(PlatformClient):
    platform = "instagram"
    setting_types = {"first_comment": ("string",)}
    status_polls = 3  # container status checks inside publish() before answering PROCESSING
    poll_seconds = 2.0

    # --- validation ------------------------------------------------------------------------

    def validate(self, post: Post) -> list[Problem]:
        problems = caption_problems(post.text) + self.media_problems(post.media)
        problems += [p for i, m in enumerate(post.media) for p in _aspect_problems(i, m)]
        return problems + _first_comment_problems(post.settings)

    # --- publishing ------------------------------------------------------------------------

    def publish(self, conn: Connection, post: Post) -> Outcome:
        ref = {"ig_user_id": conn.credentials.external_id, "since": _now_iso(), "caption": post.text}
        comment = post.settings.get("first_comment")
        if isinstance(comment, str) and comment:
            ref["first_comment"] = comment
        try:
            ref = self._containers(conn, post.media, ref)
        except InstagramError as exc:
            return _before_publish(exc.outcome)
        return self._settle(conn, ref, self.status_polls)

    def _containers(self, conn: Connection, media: Sequence[Media], ref: dict[str, str]) -> dict[str, str]:
        """Single media: its container. Several: the children (the carousel comes in _settle)."""
        if len(media) == 1:
            body = {**_item_body(media[0], carousel_item=False), "caption": ref["caption"]}
            return self._saved(conn, {**ref, "container_id": self._create(conn, ref, body)})
        children = [self._create(conn, ref, _item_body(item, carousel_item=True)) for item in media]
        return {**ref, "children": ",".join(children)}

    def _create(self, conn: Connection, ref: Mapping[str, str], body: Mapping[str, Any]) -> str:
        created = self._graph(conn, "POST", f"/{ref['ig_user_id']}/media", json=body)
        container_id = str(created.get("id") or "")
        if not container_id:
            raise InstagramError(_failed("NO_CONTAINER_ID", "Instagram gave no container id."))
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
            except InstagramError as exc:
                return _before_publish(exc.outcome)
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
            raise InstagramError(_failed(f"CONTAINER_{bad}", "A carousel item was not accepted.", ref))
        body = {"media_type": "CAROUSEL", "children": children, "caption": ref["caption"]}
        return self._saved(conn, {**ref, "container_id": self._create(conn, ref, body)})

    def _follow(self, conn: Connection, ref: dict[str, str], polls: int) -> Outcome:
        try:
            found = self._wait(conn, ref["container_id"], polls)
        except InstagramError as exc:
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
        """The container's status_code and status after at most `polls` checks."""
        found: dict[str, Any] = {}
        for attempt in range(max(polls, 1)):
            if attempt:
                time.sleep(self.poll_seconds)
            found = self._graph(conn, "GET", f"/{container_id}", params={"fields": "status_code,status"})
            found["status_code"] = str(found.get("status_code") or "IN_PROGRESS")
            if found["status_code"] != "IN_PROGRESS":
                break
        return found

    def _publish_container(self, conn: Connection, ref: dict[str, str]) -> Outcome:
        body = {"creation_id": ref["container_id"]}
        try:
            created = self._graph(conn, "POST", f"/{ref['ig_user_id']}/media_publish", json=body)
        except InstagramError as exc:
            return replace(exc.outcome, ref=ref)
        media_id = str(created.get("id") or "")
        if not media_id:
            return _failed("NO_MEDIA_ID", "media_publish answered without an id.", ref)
        return self._first_comment(conn, _published(ref, media_id, self._permalink(conn, media_id)))

    def _permalink(self, conn: Connection, media_id: str) -> str:
        try:
            return str(self._graph(conn, "GET", f"/{media_id}", params={"fields": "id,permalink"}).get("permalink", ""))
        except InstagramError:
            return ""  # the post exists; only its URL is missing

    def _first_comment(self, conn: Connection, outcome: Outcome) -> Outcome:
        message = outcome.ref.get("first_comment", "")
        if not message:
            return outcome
        try:
            created = self._graph(conn, "POST", f"/{outcome.post_id}/comments", json={"message": message})
        except InstagramError as exc:
            text = f"The post exists; its first comment failed ({exc.outcome.kind}): {exc}"
            return replace(outcome, error_code="FIRST_COMMENT_FAILED", error_message=text)
        return replace(outcome, ref={**outcome.ref, "comment_id": str(created.get("id", ""))})

    # --- reading back ----------------------------------------------------------------------

    def check(self, conn: Connection, ref: Mapping[str, str]) -> Outcome:
        """A media id is read back; a container (or pending carousel items) is followed one
        status check further and published once FINISHED."""
        ref = {"ig_user_id": conn.credentials.external_id, **ref}
        if ref.get("media_id"):
            return self._read_back(conn, ref)
        if ref.get("container_id") or ref.get("children"):
            return self._settle(conn, ref, polls=1)
        return _failed("NO_REF", "Nothing to check.", ref)

    def _read_back(self, conn: Connection, ref: dict[str, str]) -> Outcome:
        try:
            found = self._graph(conn, "GET", f"/{ref['media_id']}", params={"fields": "id,permalink"})
        except InstagramError as exc:
            if exc.outcome.kind is OutcomeKind.FAILED and not exc.outcome.auth_failed:
                return _failed("NOT_FOUND", exc.outcome.error_message, ref)
            return replace(exc.outcome, ref=ref)
        return _published(ref, ref["media_id"], str(found.get("permalink", "")))

    def _find_published(self, conn: Connection, ref: dict[str, str]) -> Outcome:
        """A PUBLISHED container names no media: the newest media since `since` with the caption."""
        since = _parse_time(ref.get("since", "")) or dt.datetime.now(dt.UTC) - dt.timedelta(days=1)
        found = self.find_recent(conn, Post(text=ref.get("caption", "")), since)
        if found.kind is not OutcomeKind.PUBLISHED:
            return replace(found, ref=ref)
        return self._first_comment(conn, _published(ref, found.post_id, found.url))

    def find_recent(self, conn: Connection, post: Post, since: dt.datetime) -> Outcome:
        """The account's media since `since` (newest first): one with the same caption is the post."""
        params = {"fields": RECENT_MEDIA_FIELDS, "since": str(int(since.timestamp()))}
        try:
            listed = self._graph(conn, "GET", f"/{conn.credentials.external_id}/media", params=params)
        except InstagramError as exc:
            return exc.outcome
        for item in listed.get("data") or []:
            created = _parse_time(item.get("timestamp"))
            if str(item.get("caption") or "") == post.text and created is not None and created >= since:
                return _published({}, str(item["id"]), str(item.get("permalink") or ""))
        return _failed("NOT_FOUND", "No recent media with this caption.")

    def metrics(self, conn: Connection, post_ids: Sequence[str]) -> dict[str, Metrics]:
        found: dict[str, Metrics] = {}
        for media_id in post_ids:
            values = self._insights(conn, media_id)
            if values is not None:
                found[media_id] = _metrics_of(values)
        return found

    def _insights(self, conn: Connection, media_id: str) -> dict[str, int] | None:
        """The media's lifetime insights; None for a media that has none (or no longer exists)."""
        params = {"metric": ",".join(INSIGHT_METRICS), "period": "lifetime"}
        try:
            return _metric_values(self._graph(conn, "GET", f"/{media_id}/insights", params=params))
        except InstagramError as exc:
            if exc.outcome.kind is OutcomeKind.FAILED and not exc.outcome.auth_failed:
                return None
            raise

    # --- HTTP ------------------------------------------------------------------------------

    def _graph(self, conn: Connection, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        """One Graph call with the token as Bearer; any refusal raises InstagramError."""
        headers = {"Authorization": f"Bearer {conn.credentials.access_token}"}
        try:
            response = self.session.request(
                method, conn.url(GRAPH + path), headers=headers, timeout=self.timeout, **kwargs
            )
        except requests.RequestException as exc:
            raise InstagramError(outcome_of_exception(exc)) from exc
        if not response.ok:
            raise InstagramError(outcome_of_response(response))
        return _json(response)

    # --- OAuth (Instagram Login) -----------------------------------------------------------

    @staticmethod
    def _client_id(sandbox: bool) -> str:
        configured = str(getattr(settings, "INSTAGRAM_CLIENT_ID", "") or "")
        return configured or (SANDBOX_CLIENT_ID if sandbox else "")

    @staticmethod
    def _client_secret(sandbox: bool) -> str:
        configured = str(getattr(settings, "INSTAGRAM_CLIENT_SECRET", "") or "")
        return configured or (SANDBOX_CLIENT_SECRET if sandbox else "")

    @staticmethod
    def _connection(sandbox: bool, access_token: str = "") -> Connection:
        return Connection(Credentials(access_token=access_token), sandbox=sandbox)

    def authorize_url(self, *, state: str, code_challenge: str, redirect_uri: str, sandbox: bool) -> str:
        """Instagram's authorize page; it documents no PKCE, so code_challenge is not sent."""
        query = {
            "client_id": self._client_id(sandbox),
            "redirect_uri": redirect_uri,
            "response_type": "code",
            "scope": SCOPES,
            "state": state,
        }
        return self._connection(sandbox).url(f"{AUTHORIZE_URL}?{urlencode(query)}")

    def exchange_code(self, *, code: str, code_verifier: str, redirect_uri: str, sandbox: bool) -> Credentials:
        """Code -> short-lived token (1 h) -> long-lived token (60 days) -> the account."""
        form = {
            "client_id": self._client_id(sandbox),
            "client_secret": self._client_secret(sandbox),
            "grant_type": "authorization_code",
            "redirect_uri": redirect_uri,
            "code": code,
        }
        short = self._oauth_json("POST", self._connection(sandbox).url(TOKEN_URL), data=form)
        short = short["data"][0] if isinstance(short.get("data"), list) and short["data"] else short
        params = {
            "grant_type": "ig_exchange_token",
            "client_secret": form["client_secret"],
            "access_token": str(short.get("access_token", "")),
        }
        long_lived = self._oauth_json("GET", self._connection(sandbox).url(f"{LONG_LIVED_URL}?{urlencode(params)}"))
        me = self._me(self._connection(sandbox, str(long_lived.get("access_token", ""))))
        return _credentials(long_lived, me, {"permissions": str(short.get("permissions", ""))})

    def refresh(self, conn: Connection) -> Credentials:
        """ig_refresh_token on the (unexpired, long-lived) access token: a new 60-day token."""
        params = {"grant_type": "ig_refresh_token", "access_token": conn.credentials.access_token}
        token = self._oauth_json("GET", conn.url(f"{REFRESH_URL}?{urlencode(params)}"))
        current = conn.credentials
        return replace(current, **_token_fields(token))

    def _me(self, conn: Connection) -> dict[str, Any]:
        try:
            return self._graph(conn, "GET", "/me", params={"fields": "user_id,username,name"})
        except InstagramError as exc:
            raise requests.HTTPError(f"Instagram refused /me: {exc}") from exc

    def _oauth_json(self, method: str, url: str, **kwargs: Any) -> dict[str, Any]:
        response = self.session.request(method, url, timeout=self.timeout, **kwargs)
        if not response.ok:
            code, subcode, message = _graph_error(response)
            detail = f"HTTP {response.status_code} {_error_code(code, subcode, response.status_code)} {message}"
            raise requests.HTTPError(f"Instagram refused the token request: {detail.strip()}", response=response)
        return _json(response)


def _token_fields(token: Mapping[str, Any]) -> dict[str, Any]:
    lifetime = int(token.get("expires_in") or 60 * 86400)
    return {
        "access_token": str(token.get("access_token", "")),
        "expires_at": dt.datetime.now(dt.UTC) + dt.timedelta(seconds=lifetime),
    }


def _credentials(token: Mapping[str, Any], me: Mapping[str, Any], metadata: Mapping[str, Any]) -> Credentials:
    return Credentials(
        **_token_fields(token),
        external_id=str(me.get("user_id") or me.get("id") or ""),
        handle=str(me.get("username", "")),
        display_name=str(me.get("name", "")),
        metadata=dict(metadata),
    )

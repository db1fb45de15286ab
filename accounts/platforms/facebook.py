"""Facebook Pages (Graph API v25.0): publish to a Page with its Page access token.

Why it looks the way it does:

- One Graph call per kind of post, as Meta's `Page.json` lists them: text (and link) to
  `POST /{page-id}/feed`; one photo to `POST /{page-id}/photos` (`url` = our short-lived pull
  URL, Meta fetches it); several photos as unpublished photos (`published=false`) then one feed
  post with `attached_media[i]={"media_fbid": id}`; a video to
  `POST graph-video.facebook.com/{page-id}/videos` with `file_url`; `postType=reels` through the
  Reels flow: `video_reels` `upload_phase=start` -> `rupload.facebook.com` binary upload
  (`Authorization: OAuth`, `offset`, `file_size`) -> `upload_phase=finish`.
- Parameters go form-encoded in the body (Graph reads body and query alike), the token as an
  `Authorization: Bearer` header so it never lands in a URL or a log line.
- Idempotency: Graph has no idempotency key. The reel's `video_id` (from `start`) is saved with
  `conn.save_ref` before the upload and before `finish`; a video's id only exists once the
  create call answered, so an UNKNOWN feed/photo/video create is settled by `find_recent()`
  over `published_posts` (posts) or the `videos`/`video_reels` edges (their descriptions).
- A text post's first URL is also sent as `link` so Facebook builds the link preview.
- Videos and reels process after the call: `status.video_status` / `publishing_phase` are read
  (one check inside `publish()`, more via `check()` with the `video_id` ref).
- Outcomes: error code 190 (and 102) means re-authorize; throttling codes 4, 17, 32, 341, 613,
  80001 or HTTP 429 are NOT_SENT with the wait from `Retry-After` or the
  `X-Business-Use-Case-Usage` `estimated_time_to_regain_access` (minutes); 5xx and the
  transient codes 1/2 are UNKNOWN; other 4xx are FAILED keeping `code.subcode` and the message.
- Connecting: Facebook Login (authorize dialog with `state` and PKCE S256) -> short-lived user
  token -> long-lived user token (`fb_exchange_token`) -> `GET /me/accounts` -> the Page and its
  never-expiring Page token. The long-lived user token is kept as `refresh_token`; `refresh()`
  exchanges it again and re-reads the Page token (Meta does not rotate tokens).
- Metrics: `shares`, `reactions.summary(total_count)`, `comments.summary(total_count)` on the
  post, views from `/insights?metric=post_total_media_view_unique` (the replacement of the
  deprecated `post_impressions_unique`); videos and reels read `views`, `likes` and `comments`
  on the video node (no share count there: `shares` stays 0 for them).
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

VERSION = "v25.0"
GRAPH = f"https://graph.facebook.com/{VERSION}"
GRAPH_VIDEO = f"https://graph-video.facebook.com/{VERSION}"
RUPLOAD = f"https://rupload.facebook.com/video-upload/{VERSION}"
DIALOG = f"https://www.facebook.com/{VERSION}/dialog/oauth"
SCOPES = "pages_show_list,pages_read_engagement,pages_manage_posts,publish_video,read_insights"
SANDBOX_CLIENT_ID = "sandbox-facebook-client"
POST_TYPES = ("post", "reels")
REEL_MIN_SECONDS, REEL_MAX_SECONDS = 3, 90
REEL_MIN_WIDTH, REEL_MIN_HEIGHT = 540, 960
AUTH_CODES = frozenset({102, 190})
THROTTLE_CODES = frozenset({4, 17, 32, 341, 613, 80001})
TRANSIENT_CODES = frozenset({1, 2})
NOT_FOUND_SUBCODE = 33
POST_FIELDS = "shares,reactions.summary(total_count).limit(0),comments.summary(total_count).limit(0)"
VIDEO_FIELDS = "views,likes.summary(total_count).limit(0),comments.summary(total_count).limit(0)"
_URL = re.compile(r"https?://[^\s<>\"]+")


class _Stop(PlatformError):
    """Ends a publish early with the outcome that says why."""


# --- reading Graph answers ---------------------------------------------------------------------


_json = json_object


def _error(response: requests.Response) -> dict[str, Any]:
    """Graph's `error` object; rupload answers `debug_info` {type, message} instead."""
    body = _json(response)
    error = body.get("error") or body.get("debug_info")
    return error if isinstance(error, dict) else {}


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _error_words(error: Mapping[str, Any], status: int) -> tuple[str, str]:
    code, subcode = _int(error.get("code")), _int(error.get("error_subcode"))
    name = f"HTTP_{status}" if code is None else str(code) + (f".{subcode}" if subcode else "")
    return name, str(error.get("error_user_msg") or error.get("message") or "")


def _wait(response: requests.Response) -> float | None:
    """Retry-After, else the longest `estimated_time_to_regain_access` (minutes) of the BUC header."""
    seconds = retry_after_seconds(response)
    if seconds is not None:
        return seconds
    try:
        usage = json.loads(response.headers.get("X-Business-Use-Case-Usage", "") or "{}")
        minutes = [int(e.get("estimated_time_to_regain_access", 0)) for v in usage.values() for e in v]
    except (ValueError, AttributeError, TypeError):
        return None
    return float(max(minutes) * 60) if minutes else None


def refusal(response: requests.Response) -> Outcome:
    """A Graph answer that is not a success, as an Outcome (the post may exist only on UNKNOWN)."""
    status, error = response.status_code, _error(response)
    code, message = _error_words(error, status)
    number = _int(error.get("code"))
    words = {"error_code": code, "error_message": message, "http_status": status}
    if status == 429 or number in THROTTLE_CODES:
        return Outcome(OutcomeKind.NOT_SENT, retry_after=_wait(response), **words)  # type: ignore[arg-type]
    if number in AUTH_CODES or status == 401:
        return Outcome(OutcomeKind.FAILED, auth_failed=True, **words)  # type: ignore[arg-type]
    if status >= 500 or number in TRANSIENT_CODES:
        return Outcome(OutcomeKind.UNKNOWN, **words)  # type: ignore[arg-type]
    return Outcome(OutcomeKind.FAILED, **words)  # type: ignore[arg-type]


def _is_missing(response: requests.Response) -> bool:
    error = _error(response)
    return response.status_code == 404 or (error.get("code") == 100 and error.get("error_subcode") == NOT_FOUND_SUBCODE)


def _before_create(outcome: Outcome) -> Outcome:
    """A refusal before the creating call: nothing can exist yet, so UNKNOWN is NOT_SENT."""
    return replace(outcome, kind=OutcomeKind.NOT_SENT) if outcome.kind is OutcomeKind.UNKNOWN else outcome


def _not_found(message: str) -> Outcome:
    return Outcome(OutcomeKind.FAILED, error_code="NOT_FOUND", error_message=message)


def post_url(post_id: str) -> str:
    return f"https://www.facebook.com/{post_id}"


def _published(post_id: str, url: str = "", ref: Mapping[str, str] | None = None) -> Outcome:
    return Outcome(OutcomeKind.PUBLISHED, post_id=post_id, url=url or post_url(post_id), ref=dict(ref or {}))


def _video_url(page_id: str, video_id: str, kind: str) -> str:
    if kind == "reel":
        return f"https://www.facebook.com/reel/{video_id}"
    return f"https://www.facebook.com/{page_id}/videos/{video_id}"


def _absolute(permalink: Any) -> str:
    text = str(permalink or "")
    return f"https://www.facebook.com{text}" if text.startswith("/") else text


# --- validation --------------------------------------------------------------------------------


def _post_type(post: Post) -> str:
    value = post.settings.get("postType", "post")
    return value if value in POST_TYPES else "post"


def _setting_problems(post: Post) -> list[Problem]:
    value = post.settings.get("postType", "post")
    if value not in POST_TYPES:
        return [Problem("postType", "INVALID_SETTING", "postType must be one of: post, reels.")]
    return _reel_problems(post.media) if value == "reels" else []


def _reel_problems(media: Sequence[Media]) -> list[Problem]:
    if not media:
        return [Problem("media", "MEDIA_REQUIRED", "A Facebook reel needs one video.")]
    if len(media) > 1 or not media[0].is_video:
        return [Problem("postType", "INVALID_COMBINATION", "A Facebook reel is exactly one video.")]
    return _reel_video_problems(media[0])


def _reel_video_problems(video: Media) -> list[Problem]:
    if video.content_type != "video/mp4":
        return [Problem("media[0]", "UNSUPPORTED_MEDIA_TYPE", "Facebook reels must be .mp4 files.")]
    seconds = video.duration_seconds
    if seconds is not None and seconds > REEL_MAX_SECONDS:
        return [Problem("media[0]", "VIDEO_TOO_LONG", f"Reels last at most {REEL_MAX_SECONDS} seconds.")]
    if seconds is not None and seconds < REEL_MIN_SECONDS:
        return [Problem("media[0]", "VIDEO_TOO_SHORT", f"Reels last at least {REEL_MIN_SECONDS} seconds.")]
    if video.width and video.height and (video.width < REEL_MIN_WIDTH or video.height < REEL_MIN_HEIGHT):
        message = f"Reels are 9:16 and at least {REEL_MIN_WIDTH}x{REEL_MIN_HEIGHT} pixels."
        return [Problem("media[0]", "VIDEO_TOO_SMALL", message)]
    return []


def _first_link(text: str) -> str:
    match = _URL.search(text)
    return match.group().rstrip(".,;:!?'\")]}") if match else ""


# --- the client --------------------------------------------------------------------------------


class Client(PlatformClient):
    platform = "facebook"
    setting_types = {"postType": ("string",)}
    status_polls = 1  # video status reads inside publish() before answering PROCESSING
    poll_seconds = 2.0

    # --- validation ----------------------------------------------------------------------

    def validate(self, post: Post) -> list[Problem]:
        problems = self._text_problems(post)
        type_problems = _setting_problems(post)
        if _post_type(post) == "reels" or type_problems:
            return problems + type_problems
        return problems + self.media_problems(post.media)

    def _text_problems(self, post: Post) -> list[Problem]:
        if not post.text.strip() and not post.media:
            return [Problem("text", "EMPTY_POST", "A Facebook post needs text or media.")]
        limit = self.limits.text.max_length or 63206
        if len(post.text) > limit:
            return [Problem("text", "TEXT_TOO_LONG", f"Facebook takes at most {limit} characters.")]
        return []

    # --- publishing ----------------------------------------------------------------------

    def publish(self, conn: Connection, post: Post) -> Outcome:
        if _post_type(post) == "reels" and post.media:
            return self._publish_reel(conn, post)
        if post.media and post.media[0].is_video:
            return self._publish_video(conn, post)
        if len(post.media) == 1:
            return self._create(conn, "POST", f"/{self._page(conn)}/photos", self._photo_form(post.media[0], post))
        if post.media:
            return self._publish_album(conn, post)
        return self._create(conn, "POST", f"/{self._page(conn)}/feed", self._feed_form(post))

    @staticmethod
    def _page(conn: Connection) -> str:
        return conn.credentials.external_id

    @staticmethod
    def _feed_form(post: Post, photo_ids: Sequence[str] = ()) -> dict[str, str]:
        form = {"message": post.text} if post.text else {}
        link = _first_link(post.text) if not photo_ids else ""
        if link:
            form["link"] = link
        for index, photo_id in enumerate(photo_ids):
            form[f"attached_media[{index}]"] = json.dumps({"media_fbid": photo_id})
        return form

    @staticmethod
    def _photo_form(media: Media, post: Post | None) -> dict[str, str]:
        form = {"url": media.pull_url(), "published": "true" if post else "false"}
        if post and post.text:
            form["message"] = post.text
        return form

    def _publish_album(self, conn: Connection, post: Post) -> Outcome:
        """Unpublished photos first (nothing visible yet), then one feed post attaching them."""
        try:
            ids = [self._upload_photo(conn, item) for item in post.media]
        except _Stop as stop:
            return _before_create(stop.outcome)
        conn.save_ref({"photo_ids": ",".join(ids), "page_id": self._page(conn)})
        return self._create(conn, "POST", f"/{self._page(conn)}/feed", self._feed_form(post, ids))

    def _upload_photo(self, conn: Connection, media: Media) -> str:
        body = self._ok(conn, "POST", f"/{self._page(conn)}/photos", data=self._photo_form(media, None))
        return str(body.get("id") or "")

    def _create(self, conn: Connection, method: str, path: str, form: Mapping[str, str]) -> Outcome:
        """The call that makes the post: its id, or what its answer (or silence) means."""
        try:
            response = self._send(conn, method, path, data=form)
        except requests.RequestException as exc:
            return outcome_of_exception(exc)
        if not response.ok:
            return refusal(response)
        body = _json(response)
        post_id = str(body.get("post_id") or body.get("id") or "")
        if not post_id:
            return Outcome(OutcomeKind.FAILED, error_code="NO_ID", http_status=response.status_code)
        return _published(post_id, ref={"post_id": post_id})

    # --- video ---------------------------------------------------------------------------

    def _publish_video(self, conn: Connection, post: Post) -> Outcome:
        form = {"file_url": post.media[0].pull_url(), "published": "true"}
        if post.text:
            form["description"] = post.text
        try:
            response = self._send(conn, "POST", f"/{self._page(conn)}/videos", host=GRAPH_VIDEO, data=form)
        except requests.RequestException as exc:
            return outcome_of_exception(exc)
        video_id = str(_json(response).get("id") or "") if response.ok else ""
        if not video_id:
            return refusal(response) if not response.ok else Outcome(OutcomeKind.FAILED, error_code="NO_ID")
        return self._follow_video(conn, {"video_id": video_id, "kind": "video"}, self.status_polls)

    def _publish_reel(self, conn: Connection, post: Post) -> Outcome:
        page, video = self._page(conn), post.media[0]
        try:
            video_id = str(self._ok(conn, "POST", f"/{page}/video_reels", data={"upload_phase": "start"})["video_id"])
            conn.save_ref({"video_id": video_id, "kind": "reel"})
            self._upload_reel(conn, video_id, video)
        except _Stop as stop:
            return _before_create(stop.outcome)
        except (KeyError, requests.RequestException) as exc:
            return _before_create(self._transport(exc))
        finish = {"upload_phase": "finish", "video_id": video_id, "video_state": "PUBLISHED"}
        return self._finish_reel(conn, {**finish, **self._described(post)})

    def _finish_reel(self, conn: Connection, form: Mapping[str, str]) -> Outcome:
        """`upload_phase=finish` publishes the reel; its status says when it is live."""
        ref = {"video_id": form["video_id"], "kind": "reel"}
        try:
            response = self._send(conn, "POST", f"/{self._page(conn)}/video_reels", data=form)
        except requests.RequestException as exc:
            return replace(outcome_of_exception(exc), ref=ref)
        if not response.ok:
            return replace(refusal(response), ref=ref)
        if _json(response).get("success") is not True:
            return Outcome(OutcomeKind.FAILED, ref=ref, error_code="NOT_PUBLISHED", http_status=response.status_code)
        return self._follow_video(conn, ref, self.status_polls)

    @staticmethod
    def _described(post: Post) -> dict[str, str]:
        return {"description": post.text} if post.text else {}

    @staticmethod
    def _transport(exc: Exception) -> Outcome:
        if isinstance(exc, requests.RequestException):
            return outcome_of_exception(exc)
        return Outcome(OutcomeKind.FAILED, error_code="NO_VIDEO_ID", error_message="start gave no video_id")

    def _upload_reel(self, conn: Connection, video_id: str, video: Media) -> None:
        headers = {
            "Authorization": f"OAuth {conn.credentials.access_token}",
            "offset": "0",
            "file_size": str(video.size_bytes),
            "Content-Type": "application/octet-stream",
        }
        with video.open() as stream:
            response = self.session.post(
                conn.url(f"{RUPLOAD}/{video_id}"), data=stream, headers=headers, timeout=self.timeout
            )
        if not response.ok or _json(response).get("success") is not True:
            raise _Stop(refusal(response) if not response.ok else Outcome(OutcomeKind.FAILED, error_code="UPLOAD"))

    def _follow_video(self, conn: Connection, ref: Mapping[str, str], polls: int) -> Outcome:
        """Read the video's status up to `polls` times: PUBLISHED, FAILED or still PROCESSING."""
        for attempt in range(polls):
            if attempt:
                time.sleep(self.poll_seconds)
            outcome = self._video_state(conn, ref)
            if outcome.kind is not OutcomeKind.PROCESSING:
                return outcome
        return Outcome(OutcomeKind.PROCESSING, ref=dict(ref))

    def _video_state(self, conn: Connection, ref: Mapping[str, str]) -> Outcome:
        query = urlencode({"fields": "status,permalink_url,post_id,published"})
        try:
            response = self._send(conn, "GET", f"/{ref['video_id']}?{query}")
        except requests.RequestException as exc:
            return Outcome(OutcomeKind.PROCESSING, ref=dict(ref), error_code="NO_ANSWER", error_message=str(exc))
        if _is_missing(response):
            return replace(_not_found("The video does not exist."), ref=dict(ref))
        if not response.ok:
            return replace(refusal(response), ref=dict(ref))
        return self._video_outcome(conn, ref, _json(response))

    def _video_outcome(self, conn: Connection, ref: Mapping[str, str], node: Mapping[str, Any]) -> Outcome:
        status: dict[str, Any] = node["status"] if isinstance(node.get("status"), dict) else {}
        publishing = status.get("publishing_phase") or {}
        if status.get("video_status") == "error" or publishing.get("status") == "error":
            errors = (status.get("processing_phase") or {}).get("errors") or publishing.get("errors") or [{}]
            message = str(errors[0].get("message", "")) if isinstance(errors[0], dict) else ""
            return Outcome(OutcomeKind.FAILED, ref=dict(ref), error_code="VIDEO_FAILED", error_message=message)
        if status.get("video_status") == "ready" and publishing.get("status", "complete") == "complete":
            video_id = ref["video_id"]
            url = _video_url(self._page(conn), video_id, ref.get("kind", "video"))
            return _published(video_id, url, {**ref, "post_id": str(node.get("post_id") or "")})
        return Outcome(OutcomeKind.PROCESSING, ref=dict(ref))

    # --- HTTP ----------------------------------------------------------------------------

    def _send(self, conn: Connection, method: str, path: str, *, host: str = GRAPH, **kwargs: Any) -> requests.Response:
        headers = {"Authorization": f"Bearer {conn.credentials.access_token}"}
        return self.session.request(method, conn.url(host + path), headers=headers, timeout=self.timeout, **kwargs)

    def _ok(self, conn: Connection, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        """The body of a 2xx answer; anything else stops the publish with its outcome."""
        try:
            response = self._send(conn, method, path, **kwargs)
        except requests.RequestException as exc:
            raise _Stop(outcome_of_exception(exc)) from exc
        if not response.ok:
            raise _Stop(refusal(response))
        return _json(response)

    # --- settling ------------------------------------------------------------------------

    def check(self, conn: Connection, ref: Mapping[str, str]) -> Outcome:
        if ref.get("video_id"):
            return self._follow_video(conn, ref, 1)
        if ref.get("post_id"):
            return self._read_post(conn, ref["post_id"])
        return Outcome(OutcomeKind.FAILED, error_code="NO_REF", error_message="nothing to check: use find_recent()")

    def _read_post(self, conn: Connection, post_id: str) -> Outcome:
        try:
            response = self._send(conn, "GET", f"/{post_id}?{urlencode({'fields': 'id,permalink_url,is_published'})}")
        except requests.RequestException as exc:
            return Outcome(OutcomeKind.UNKNOWN, error_code="NO_ANSWER", error_message=type(exc).__name__)
        if _is_missing(response):
            return _not_found("The post does not exist.")
        if not response.ok:
            return refusal(response)
        return _published(post_id, _absolute(_json(response).get("permalink_url")), {"post_id": post_id})

    def find_recent(self, conn: Connection, post: Post, since: dt.datetime) -> Outcome:
        """The Page's recent posts (or videos, or reels) whose text is the post's text."""
        edge, text_field, kind = self._edge_of(post)
        query = urlencode({"fields": f"id,{text_field},created_time", "limit": 25})
        try:
            response = self._send(conn, "GET", f"/{self._page(conn)}/{edge}?{query}")
        except requests.RequestException as exc:
            return Outcome(OutcomeKind.UNKNOWN, error_code="NO_ANSWER", error_message=type(exc).__name__)
        if not response.ok:
            return refusal(response)
        for item in _json(response).get("data") or []:
            if _same(item, text_field, post.text, since):
                return self._found(conn, str(item["id"]), kind)
        return _not_found(f"No recent {edge} item with this text.")

    @staticmethod
    def _edge_of(post: Post) -> tuple[str, str, str]:
        if post.media and post.media[0].is_video:
            reel = _post_type(post) == "reels"
            return ("video_reels" if reel else "videos"), "description", ("reel" if reel else "video")
        return "published_posts", "message", "post"

    def _found(self, conn: Connection, item_id: str, kind: str) -> Outcome:
        if kind == "post":
            return _published(item_id, ref={"post_id": item_id})
        return self.check(conn, {"video_id": item_id, "kind": kind})

    # --- metrics -------------------------------------------------------------------------

    def metrics(self, conn: Connection, post_ids: Sequence[str]) -> dict[str, Metrics]:
        return {post_id: self._metrics_of(conn, post_id) for post_id in post_ids}

    def _metrics_of(self, conn: Connection, post_id: str) -> Metrics:
        is_post = "_" in post_id
        node = self._read(conn, f"/{post_id}?{urlencode({'fields': POST_FIELDS if is_post else VIDEO_FIELDS})}")
        reactions = _total(node, "reactions" if is_post else "likes")
        comments = _total(node, "comments")
        if not is_post:
            views = node.get("views")
            return Metrics(views=views if isinstance(views, int) else None, likes=reactions, comments=comments)
        shares = int((node.get("shares") or {}).get("count") or 0)
        views_found = self._post_views(conn, post_id)
        return Metrics(
            views=views_found, likes=reactions, comments=comments, shares=shares, extra={"reactions": reactions}
        )

    def _post_views(self, conn: Connection, post_id: str) -> int | None:
        metric = "post_total_media_view_unique"
        data = self._read(conn, f"/{post_id}/insights?{urlencode({'metric': metric})}").get("data") or []
        for entry in data:
            values = entry.get("values") or [] if isinstance(entry, dict) else []
            if entry.get("name") == metric and values:
                return int(values[-1].get("value") or 0)
        return None

    def _read(self, conn: Connection, path: str) -> dict[str, Any]:
        response = self._send(conn, "GET", path)
        if not response.ok:
            raise requests.HTTPError(f"Facebook refused {path.split('?')[0]}: {refusal(response).error_code}")
        return _json(response)

    # --- Facebook Login --------------------------------------------------------------------

    @staticmethod
    def _client_id(sandbox: bool) -> str:
        configured = str(getattr(settings, "FACEBOOK_CLIENT_ID", "") or "")
        return configured or (SANDBOX_CLIENT_ID if sandbox else "")

    @staticmethod
    def _secret() -> str:
        return str(getattr(settings, "FACEBOOK_CLIENT_SECRET", "") or "")

    @staticmethod
    def _connection(sandbox: bool, token: str = "") -> Connection:
        return Connection(credentials=Credentials(access_token=token), sandbox=sandbox)

    def authorize_url(self, *, state: str, code_challenge: str, redirect_uri: str, sandbox: bool) -> str:
        query = {
            "client_id": self._client_id(sandbox),
            "redirect_uri": redirect_uri,
            "state": state,
            "scope": SCOPES,
            "response_type": "code",
            "code_challenge": code_challenge,
            "code_challenge_method": "S256",
        }
        return self._connection(sandbox).url(f"{DIALOG}?{urlencode(query)}")

    def exchange_code(self, *, code: str, code_verifier: str, redirect_uri: str, sandbox: bool) -> Credentials:
        query = {"client_id": self._client_id(sandbox), "redirect_uri": redirect_uri, "code": code}
        query["code_verifier"] = code_verifier
        short = self._token({**query, **self._secret_param()}, sandbox)
        return self._page_credentials(self._long_lived(str(short["access_token"]), sandbox), sandbox, page_id="")

    def refresh(self, conn: Connection) -> Credentials:
        """A fresh long-lived user token from the stored one, then the Page's token again."""
        user = self._long_lived(conn.credentials.refresh_token, conn.sandbox)
        return self._page_credentials(user, conn.sandbox, page_id=conn.credentials.external_id)

    def _secret_param(self) -> dict[str, str]:
        return {"client_secret": self._secret()} if self._secret() else {}

    def _long_lived(self, user_token: str, sandbox: bool) -> dict[str, Any]:
        query = {"grant_type": "fb_exchange_token", "client_id": self._client_id(sandbox)}
        query["fb_exchange_token"] = user_token
        return self._token({**query, **self._secret_param()}, sandbox)

    def _token(self, query: Mapping[str, str], sandbox: bool) -> dict[str, Any]:
        url = self._connection(sandbox).url(f"{GRAPH}/oauth/access_token?{urlencode(query)}")
        response = self.session.get(url, timeout=self.timeout)
        if not response.ok or "access_token" not in _json(response):
            code, message = _error_words(_error(response), response.status_code)
            raise requests.HTTPError(f"Facebook refused the token request: {code} {message}", response=response)
        return _json(response)

    def _page_credentials(self, user: Mapping[str, Any], sandbox: bool, page_id: str) -> Credentials:
        user_token = str(user["access_token"])
        query = urlencode({"fields": "id,name,access_token,tasks"})
        pages = self._read(self._connection(sandbox, user_token), f"/me/accounts?{query}").get("data") or []
        page = next((p for p in pages if not page_id or str(p.get("id")) == page_id), None)
        if page is None:
            raise requests.HTTPError("The Facebook user manages no Page this app may publish to.")
        lifetime = int(user.get("expires_in") or 0)
        user_expiry = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=lifetime) if lifetime else None
        return Credentials(
            access_token=str(page["access_token"]),
            refresh_token=user_token,
            expires_at=None,  # Page tokens from a long-lived user token do not expire
            external_id=str(page["id"]),
            handle=str(page.get("name", "")),
            display_name=str(page.get("name", "")),
            metadata={"tasks": list(page.get("tasks") or []), "user_token_expires_at": str(user_expiry or "")},
        )


def _total(node: Mapping[str, Any], edge: str) -> int:
    summary = (node.get(edge) or {}).get("summary") or {}
    return int(summary.get("total_count") or 0)


def _same(item: Mapping[str, Any], field: str, text: str, since: dt.datetime) -> bool:
    try:
        created = dt.datetime.strptime(str(item.get("created_time", "")), "%Y-%m-%dT%H:%M:%S%z")
    except ValueError:
        return False
    return str(item.get(field) or "").strip() == text.strip() and created >= since.replace(microsecond=0)

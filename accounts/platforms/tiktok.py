"""TikTok (Content Posting API v2, Login Kit, Display API): publish with plain `requests`.

Why it looks the way it does:

- Every publish starts with `creator_info/query` (TikTok's UX rules require it): the privacy
  levels the creator is offered, whether comments/duets/stitches are switched off, and the
  creator's own video cap (`max_video_post_duration_sec`). A requested privacy level that is not
  offered, or a video longer than the cap, is refused here before anything is sent.
- **Unaudited apps can only post `SELF_ONLY`** (and only to private accounts); TikTok refuses
  anything else with `unaudited_client_can_only_post_to_private_accounts`. Privacy has no
  default in TikTok's UX; a post without `privacy_level` goes out as `SELF_ONLY`, the one level
  every app may use and the most private one (a documented choice of this service).
- Video: `/v2/post/publish/video/init/` (DIRECT_POST) or `/v2/post/publish/inbox/video/init/`
  (MEDIA_UPLOAD, a draft in the creator's inbox; it takes `source_info` only, so the caption and
  the post settings cannot travel with it and `validate()` refuses those settings). The file goes
  up with FILE_UPLOAD (`PUT upload_url` per chunk with Content-Range; chunks of `chunk_bytes`,
  files under 5 MB in one piece, `total_chunk_count = floor(size / chunk_size)` with the rest in
  the last chunk), or with PULL_FROM_URL from `media.pull_url()` when `video_source` says so
  (TikTok requires the URL's domain to be verified for the app).
- Photos: `/v2/post/publish/content/init/` with `media_type PHOTO`; PULL_FROM_URL is the only
  source TikTok offers for photos. The post text is the photo `description`, the `title` setting
  the photo title (at most 90); for a video the text is the caption (`post_info.title`, at most
  2200 UTF-16 units).
- TikTok hands out `publish_id` in the init answer; it is saved with `conn.save_ref` before the
  chunk upload that completes the post. For PULL_FROM_URL and photos the init call itself starts
  the post, so there is no id to save before it: an init that gets no answer is settled by
  `find_recent()` over `/v2/video/list/` (the caption as text).
- Status: `/v2/post/publish/status/fetch/` once inside `publish()` (processing takes minutes on
  TikTok), then `check()` follows `publish_id`. `PUBLISH_COMPLETE` carries the post id in
  `publicaly_available_post_id` (sic) only for public posts that passed moderation; for a
  private post the publish_id stands in as post id (no public URL exists then).
  `SEND_TO_USER_INBOX` stays PROCESSING: the creator finishes the post in the app.
  A FAILED status keeps TikTok's `fail_reason`; the retryable pull failures and `internal`
  created nothing, so they are NOT_SENT.
- Errors: TikTok answers `{"data": ..., "error": {"code", "message", "log_id"}}` and the body
  must be checked even on HTTP 200 (`error.code != "ok"`). `access_token_invalid`,
  `scope_not_authorized` and `scope_permission_missed` need re-authorization (auth_failed);
  `rate_limit_exceeded` (429, a one-minute sliding window, no rate-limit headers documented)
  and the daily caps (`spam_risk_too_many_posts`, `reached_active_user_cap`,
  `spam_risk_too_many_pending_share`) are NOT_SENT with a retry_after.
- OAuth: Login Kit's authorize page with `client_key`, comma-separated scopes, `state` and PKCE
  (S256, RFC 7636 base64url challenge; TikTok documents PKCE for desktop/mobile and a hex
  challenge there, web apps authenticate with the client secret). Refresh rotates the refresh
  token: always store the newest.
- Metrics: `/v2/video/query/` (20 ids a call): views, likes, comments, shares; `share_url`
  in extra.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
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

API = "https://open.tiktokapis.com/v2"
AUTHORIZE_URL = "https://www.tiktok.com/v2/auth/authorize/"
TOKEN_URL = f"{API}/oauth/token/"
SCOPES = "user.info.basic,user.info.profile,video.publish,video.upload,video.list"
SANDBOX_CLIENT_ID = "sandbox-tiktok-client"
SANDBOX_CLIENT_SECRET = "sandbox-tiktok-secret"  # noqa: S105 (the stand-in's public test secret)
JSON = "application/json; charset=UTF-8"
MB = 1024 * 1024
MIN_CHUNK, MAX_CHUNK, MAX_CHUNKS = 5 * MB, 64 * MB, 1000
CAPTION_MAX = 2200
PHOTO_TITLE_MAX = 90
VIDEO_SIDE_MIN, VIDEO_SIDE_MAX = 360, 4096
MAX_IDS_PER_QUERY = 20
LIST_PAGES = 5
RATE_WINDOW_SECONDS = 60.0
DAILY_CAP_WAIT_SECONDS = 3600.0
VIDEO_FIELDS = "id,title,video_description,create_time,share_url"
METRIC_FIELDS = "id,share_url,view_count,like_count,comment_count,share_count"
USER_FIELDS = "open_id,union_id,avatar_url,display_name,username"

POST_MODES = ("DIRECT_POST", "MEDIA_UPLOAD")
PRIVACY_LEVELS = ("PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "FOLLOWER_OF_CREATOR", "SELF_ONLY")
BOOL_SETTINGS = (
    "allows_comments",
    "allows_duet",
    "allows_stitch",
    "brand_content_toggle",
    "brand_organic_toggle",
    "auto_add_music",
)
POST_INFO_SETTINGS = ("privacy_level", *BOOL_SETTINGS)
AUTH_ERRORS = frozenset({"access_token_invalid", "scope_not_authorized", "scope_permission_missed"})
DAILY_CAPS = frozenset({"spam_risk_too_many_posts", "reached_active_user_cap", "spam_risk_too_many_pending_share"})
RETRYABLE_FAILS = frozenset({"internal", "video_pull_failed", "photo_pull_failed"})
IN_PROGRESS = frozenset({"PROCESSING_UPLOAD", "PROCESSING_DOWNLOAD"})


def utf16_length(text: str) -> int:
    """TikTok counts captions in UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


class _Stop(PlatformError):
    """Ends a publish early with the outcome that says why."""


# --- answers ---------------------------------------------------------------------------------


_body = json_object


def _error(response: requests.Response) -> dict[str, Any]:
    error = _body(response).get("error")
    return error if isinstance(error, dict) else {}


def _is_ok(response: requests.Response) -> bool:
    """A success: 2xx and TikTok's own `error.code` is "ok" (checked even on HTTP 200)."""
    return 200 <= response.status_code < 300 and _error(response).get("code") == "ok"


def _data(response: requests.Response) -> dict[str, Any]:
    data = _body(response).get("data")
    return data if isinstance(data, dict) else {}


def _refusal(response: requests.Response) -> Outcome:
    """Any answer that is not a success, as an Outcome."""
    status, error = response.status_code, _error(response)
    code = str(error.get("code") or f"HTTP_{status}")
    message = str(error.get("message") or response.reason or "")
    outcome = Outcome(OutcomeKind.FAILED, error_code=code, error_message=message, http_status=status)
    if status == 429 or code == "rate_limit_exceeded":
        wait = retry_after_seconds(response) or RATE_WINDOW_SECONDS
        return replace(outcome, kind=OutcomeKind.NOT_SENT, retry_after=wait)
    if code in DAILY_CAPS:
        return replace(outcome, kind=OutcomeKind.NOT_SENT, retry_after=DAILY_CAP_WAIT_SECONDS)
    if status in UNKNOWN_STATUSES or status >= 500 or code == "internal_error":
        return replace(outcome, kind=OutcomeKind.UNKNOWN)
    return replace(outcome, auth_failed=status == 401 or code in AUTH_ERRORS)


def _before_create(outcome: Outcome) -> Outcome:
    """A refusal before the call that creates the post: an unknown is NOT_SENT."""
    if outcome.kind is OutcomeKind.UNKNOWN:
        return Outcome(
            OutcomeKind.NOT_SENT,
            error_code=outcome.error_code,
            error_message=outcome.error_message,
            http_status=outcome.http_status,
        )
    return outcome


def _chunk_stop(outcome: Outcome, last: bool, ref: Mapping[str, str]) -> _Stop:
    """Only the last chunk completes the post; a failure before it created nothing."""
    return _Stop(replace(outcome, ref=dict(ref)) if last else _before_create(outcome))


def _failed(code: str, message: str) -> Outcome:
    return Outcome(OutcomeKind.FAILED, error_code=code, error_message=message)


def _post_url(username: str, post_id: str, kind: str) -> str:
    if not username:
        return ""
    return f"https://www.tiktok.com/@{username}/{'photo' if kind == 'photo' else 'video'}/{post_id}"


# --- validation ------------------------------------------------------------------------------


def _mode(post: Post) -> str:
    mode = post.settings.get("tiktok_post_mode", "DIRECT_POST")
    return mode if mode in POST_MODES else "DIRECT_POST"


def _privacy(post: Post) -> str:
    return str(post.settings.get("privacy_level") or "SELF_ONLY")


def _is_photo(post: Post) -> bool:
    return bool(post.media) and not any(m.is_video for m in post.media)


def _value_problems(values: Mapping[str, Any]) -> list[Problem]:
    problems = []
    for key, allowed in (("tiktok_post_mode", POST_MODES), ("privacy_level", PRIVACY_LEVELS)):
        if key in values and values[key] not in allowed:
            problems.append(Problem(key, "INVALID_SETTING", f"{key} must be one of {', '.join(allowed)}."))
    return problems + _title_problems(values)


def _title_problems(values: Mapping[str, Any]) -> list[Problem]:
    if "title" not in values:
        return []
    if utf16_length(values["title"]) > PHOTO_TITLE_MAX:
        return [Problem("title", "TITLE_TOO_LONG", f"A TikTok photo title has at most {PHOTO_TITLE_MAX} characters.")]
    return []


def _unsupported(key: str, why: str) -> Problem:
    return Problem(key, "UNSUPPORTED_SETTING", f"{key}: {why}")


def _combination_problems(post: Post) -> list[Problem]:
    values, photo = post.settings, _is_photo(post)
    inbox = _mode(post) == "MEDIA_UPLOAD"
    problems = []
    if "title" in values and not photo:
        problems.append(_unsupported("title", "a TikTok video has no title; its caption is the text."))
    for key in ("allows_duet", "allows_stitch"):
        if photo and values.get(key) is True:
            problems.append(_unsupported(key, "duets and stitches do not apply to TikTok photos."))
    if not photo and values.get("auto_add_music") is True:
        problems.append(_unsupported("auto_add_music", "TikTok adds music to photo posts only."))
    if inbox:
        problems += _inbox_problems(values, photo)
    elif values.get("brand_content_toggle") is True and _privacy(post) == "SELF_ONLY":
        message = "TikTok branded content cannot be SELF_ONLY; choose another privacy_level."
        problems.append(Problem("brand_content_toggle", "INVALID_COMBINATION", message))
    return problems


def _inbox_problems(values: Mapping[str, Any], photo: bool) -> list[Problem]:
    """MEDIA_UPLOAD: the creator picks privacy in the app; an inbox video takes the file only."""
    keys = ("privacy_level",) if photo else POST_INFO_SETTINGS
    why = "the creator sets it in the TikTok app for a MEDIA_UPLOAD post."
    return [_unsupported(key, why) for key in keys if key in values and values[key] is not False]


def _video_problems(media: Sequence[Media]) -> list[Problem]:
    problems = []
    for index, item in enumerate(media):
        sides = [s for s in (item.width, item.height) if s is not None]
        if item.is_video and any(not VIDEO_SIDE_MIN <= s <= VIDEO_SIDE_MAX for s in sides):
            message = f"TikTok takes videos of {VIDEO_SIDE_MIN} to {VIDEO_SIDE_MAX} pixels a side."
            problems.append(Problem(f"media[{index}]", "INVALID_DIMENSIONS", message))
    return problems


# --- the publish plan ------------------------------------------------------------------------


@dataclass
class _Plan:
    """One publish: where the init goes, its body, and what check() will need."""

    kind: str  # "video" or "photo"
    endpoint: str
    body: dict[str, Any]
    username: str
    media: Sequence[Media] = ()
    file_upload: bool = False
    ref: dict[str, str] = field(default_factory=dict)


def _chunking(size: int, chunk_bytes: int) -> tuple[int, int]:
    """(chunk_size, total_chunk_count) as TikTok's media transfer guide asks."""
    if size < MIN_CHUNK:
        return size, 1
    chunk = min(max(chunk_bytes, MIN_CHUNK), MAX_CHUNK)
    chunk = max(chunk, -(-size // MAX_CHUNKS))
    return chunk, max(1, size // chunk)


def _chunks(media: Media, chunk: int, count: int) -> Iterator[tuple[int, bytes]]:
    """(offset, bytes) per chunk; the last chunk takes the rest of the file."""
    stream = media.open()
    try:
        for index in range(count):
            data = stream.read(chunk) if index < count - 1 else stream.read()
            yield index * chunk, data
    finally:
        stream.close()


class Client(PlatformClient):
    platform = "tiktok"
    setting_types = {
        "tiktok_post_mode": ("string",),
        "privacy_level": ("string",),
        "title": ("string",),
        **dict.fromkeys(BOOL_SETTINGS, ("boolean",)),
    }
    metrics_batch_size = MAX_IDS_PER_QUERY
    chunk_bytes = 10 * MB
    video_source = "FILE_UPLOAD"  # or "PULL_FROM_URL" (needs the pull domain verified at TikTok)
    status_polls = 1  # status checks inside publish() before answering PROCESSING

    # --- validation ------------------------------------------------------------------------

    def validate(self, post: Post) -> list[Problem]:
        problems = self._text_problems(post) + self.media_problems(post.media)
        problems += _video_problems(post.media) + _value_problems(post.settings)
        return problems + _combination_problems(post)

    def _text_problems(self, post: Post) -> list[Problem]:
        photo = _is_photo(post)
        limit = (self.limits.text.max_length or 4000) if photo else CAPTION_MAX
        if utf16_length(post.text) > limit:
            what = "photo description" if photo else "video caption"
            return [Problem("text", "TEXT_TOO_LONG", f"A TikTok {what} has at most {limit} characters.")]
        return []

    # --- publishing ------------------------------------------------------------------------

    def publish(self, conn: Connection, post: Post) -> Outcome:
        try:
            plan = self._plan(post, self._creator(conn))
            self._start(conn, plan)
        except _Stop as stop:
            return stop.outcome
        except requests.RequestException as exc:
            return _before_create(outcome_of_exception(exc))
        return self._follow(conn, plan.ref, self.status_polls, in_publish=True)

    def _creator(self, conn: Connection) -> dict[str, Any]:
        try:
            return self._ok(conn, "POST", f"{API}/post/publish/creator_info/query/")
        except _Stop as stop:
            raise _Stop(_before_create(stop.outcome)) from None

    def _plan(self, post: Post, creator: Mapping[str, Any]) -> _Plan:
        self._check_creator(post, creator)
        username = str(creator.get("creator_username") or "")
        if _is_photo(post):
            return _Plan("photo", f"{API}/post/publish/content/init/", self._photo_body(post, creator), username)
        inbox = _mode(post) == "MEDIA_UPLOAD"
        endpoint = f"{API}/post/publish/{'inbox/' if inbox else ''}video/init/"
        body: dict[str, Any] = {"source_info": self._video_source(post.media[0])}
        if not inbox:
            body["post_info"] = self._video_info(post, creator)
        file_upload = self.video_source == "FILE_UPLOAD"
        return _Plan("video", endpoint, body, username, post.media, file_upload)

    @staticmethod
    def _check_creator(post: Post, creator: Mapping[str, Any]) -> None:
        """What the creator's settings rule out, before anything is sent."""
        offered = creator.get("privacy_level_options") or []
        if _mode(post) == "DIRECT_POST" and _privacy(post) not in offered:
            message = f"{_privacy(post)} is not offered to this creator ({', '.join(map(str, offered))})."
            raise _Stop(_failed("privacy_level_option_mismatch", message))
        cap = creator.get("max_video_post_duration_sec")
        longest = max((m.duration_seconds or 0 for m in post.media if m.is_video), default=0)
        if isinstance(cap, int) and longest > cap:
            raise _Stop(_failed("VIDEO_TOO_LONG", f"This creator may post videos of at most {cap} seconds."))

    def _video_source(self, media: Media) -> dict[str, Any]:
        if self.video_source == "PULL_FROM_URL":
            return {"source": "PULL_FROM_URL", "video_url": media.pull_url()}
        chunk, count = _chunking(media.size_bytes, self.chunk_bytes)
        return {
            "source": "FILE_UPLOAD",
            "video_size": media.size_bytes,
            "chunk_size": chunk,
            "total_chunk_count": count,
        }

    @staticmethod
    def _interactions(post: Post, creator: Mapping[str, Any], names: Sequence[str]) -> dict[str, bool]:
        """disable_* flags: off unless the creator switched them off or the post asks so."""
        flags = {}
        for name in names:
            key = "allows_comments" if name == "comment" else f"allows_{name}"
            allowed = post.settings.get(key, True) is not False
            flags[f"disable_{name}"] = bool(creator.get(f"{name}_disabled")) or not allowed
        return flags

    def _video_info(self, post: Post, creator: Mapping[str, Any]) -> dict[str, Any]:
        info: dict[str, Any] = {"title": post.text, "privacy_level": _privacy(post)}
        info.update(self._interactions(post, creator, ("comment", "duet", "stitch")))
        return info | _brand(post)

    def _photo_body(self, post: Post, creator: Mapping[str, Any]) -> dict[str, Any]:
        info: dict[str, Any] = {"description": post.text}
        if isinstance(post.settings.get("title"), str):
            info["title"] = post.settings["title"]
        if _mode(post) == "DIRECT_POST":
            info["privacy_level"] = _privacy(post)
        info.update(self._interactions(post, creator, ("comment",)))
        if isinstance(post.settings.get("auto_add_music"), bool):
            info["auto_add_music"] = post.settings["auto_add_music"]
        source = {
            "source": "PULL_FROM_URL",
            "photo_images": [m.pull_url() for m in post.media],
            "photo_cover_index": 0,
        }
        return {
            "post_info": info | _brand(post),
            "source_info": source,
            "post_mode": _mode(post),
            "media_type": "PHOTO",
        }

    def _start(self, conn: Connection, plan: _Plan) -> None:
        """The init call, then (FILE_UPLOAD) the chunks; fills plan.ref with the publish_id."""
        try:
            data = self._ok(conn, "POST", plan.endpoint, json=plan.body)
        except _Stop as stop:
            raise _Stop(_before_create(stop.outcome) if plan.file_upload else stop.outcome) from None
        except requests.RequestException as exc:
            outcome = outcome_of_exception(exc)
            raise _Stop(_before_create(outcome) if plan.file_upload else outcome) from None
        plan.ref.update(publish_id=str(data.get("publish_id", "")), kind=plan.kind, username=plan.username)
        conn.save_ref(dict(plan.ref))
        if plan.file_upload:
            self._upload(conn, plan, str(data.get("upload_url", "")))

    def _upload(self, conn: Connection, plan: _Plan, upload_url: str) -> None:
        media = plan.media[0]
        source = plan.body["source_info"]
        count = source["total_chunk_count"]
        for index, (offset, chunk) in enumerate(_chunks(media, source["chunk_size"], count)):
            self._put_chunk(conn, upload_url, media, offset, chunk, last=index == count - 1, ref=plan.ref)

    def _put_chunk(
        self, conn: Connection, url: str, media: Media, offset: int, chunk: bytes, *, last: bool, ref: dict[str, str]
    ) -> None:
        """One PUT; the last one completes the upload, so only its silence is UNKNOWN."""
        headers = {
            "Content-Type": media.content_type,
            "Content-Range": f"bytes {offset}-{offset + len(chunk) - 1}/{media.size_bytes}",
        }
        try:
            response = self.session.put(conn.url(url), data=chunk, headers=headers, timeout=self.timeout)
        except requests.RequestException as exc:
            raise _chunk_stop(outcome_of_exception(exc), last, ref) from None
        if response.status_code not in (201, 206):
            raise _chunk_stop(_refusal(response), last, ref)

    # --- status ----------------------------------------------------------------------------

    def _follow(self, conn: Connection, ref: Mapping[str, str], polls: int, *, in_publish: bool) -> Outcome:
        outcome = Outcome(OutcomeKind.PROCESSING, ref=dict(ref))
        for _ in range(polls):
            outcome = self._status(conn, ref, in_publish=in_publish)
            if outcome.kind is not OutcomeKind.PROCESSING:
                break
        return outcome

    def _status(self, conn: Connection, ref: Mapping[str, str], *, in_publish: bool) -> Outcome:
        try:
            response = self._send(
                conn, "POST", f"{API}/post/publish/status/fetch/", json={"publish_id": ref["publish_id"]}
            )
        except requests.RequestException as exc:
            kind = OutcomeKind.PROCESSING if in_publish else OutcomeKind.UNKNOWN
            return Outcome(kind, ref=dict(ref), error_code="NO_ANSWER", error_message=type(exc).__name__)
        if not _is_ok(response):
            return self._status_refusal(response, ref, in_publish=in_publish)
        return self._status_outcome(_data(response), ref)

    @staticmethod
    def _status_refusal(response: requests.Response, ref: Mapping[str, str], *, in_publish: bool) -> Outcome:
        outcome = _refusal(response)
        if outcome.kind is OutcomeKind.FAILED and not outcome.auth_failed and response.status_code in (400, 404):
            return Outcome(OutcomeKind.FAILED, error_code="NOT_FOUND", error_message=outcome.error_message)
        if in_publish and not outcome.auth_failed:
            return Outcome(OutcomeKind.PROCESSING, ref=dict(ref), error_code=outcome.error_code)
        return Outcome(
            outcome.kind if outcome.kind is not OutcomeKind.NOT_SENT else OutcomeKind.UNKNOWN,
            ref=dict(ref),
            error_code=outcome.error_code,
            error_message=outcome.error_message,
            http_status=outcome.http_status,
            auth_failed=outcome.auth_failed,
        )

    @staticmethod
    def _status_outcome(data: Mapping[str, Any], ref: Mapping[str, str]) -> Outcome:
        status = str(data.get("status", ""))
        if status == "PUBLISH_COMPLETE":
            ids = data.get("publicaly_available_post_id") or []
            post_id = str(ids[0]) if ids else ref["publish_id"]
            url = _post_url(ref.get("username", ""), post_id, ref.get("kind", "video")) if ids else ""
            return Outcome(OutcomeKind.PUBLISHED, post_id=post_id, url=url, ref=dict(ref), http_status=200)
        if status == "FAILED":
            reason = str(data.get("fail_reason") or "FAILED")
            kind = OutcomeKind.NOT_SENT if reason in RETRYABLE_FAILS else OutcomeKind.FAILED
            return Outcome(kind, error_code=reason, error_message=f"TikTok could not publish: {reason}")
        message = (
            "Waiting for the creator to finish the post in the TikTok app." if status == "SEND_TO_USER_INBOX" else ""
        )
        return Outcome(OutcomeKind.PROCESSING, ref=dict(ref), error_message=message)

    # --- HTTP ------------------------------------------------------------------------------

    def _send(self, conn: Connection, method: str, url: str, **kwargs: Any) -> requests.Response:
        headers = {"Authorization": f"Bearer {conn.credentials.access_token}", "Content-Type": JSON}
        return self.session.request(method, conn.url(url), headers=headers, timeout=self.timeout, **kwargs)

    def _ok(self, conn: Connection, method: str, url: str, **kwargs: Any) -> dict[str, Any]:
        """The `data` of a success; any other answer stops with its outcome."""
        response = self._send(conn, method, url, **kwargs)
        if not _is_ok(response):
            raise _Stop(_refusal(response))
        return _data(response)

    # --- settling --------------------------------------------------------------------------

    def check(self, conn: Connection, ref: Mapping[str, str]) -> Outcome:
        if not ref.get("publish_id"):
            return Outcome(OutcomeKind.FAILED, error_code="NO_REF", error_message="nothing to check")
        return self._follow(conn, ref, 1, in_publish=False)

    def find_recent(self, conn: Connection, post: Post, since: dt.datetime) -> Outcome:
        wanted, cutoff = post.text.strip(), since.timestamp()
        body: dict[str, Any] = {"max_count": 20}
        for _ in range(LIST_PAGES):
            try:
                data = self._ok(conn, "POST", f"{API}/video/list/?{urlencode({'fields': VIDEO_FIELDS})}", json=body)
            except _Stop as stop:
                return stop.outcome if stop.outcome.kind is not OutcomeKind.NOT_SENT else _unknown(stop.outcome)
            except requests.RequestException as exc:
                return Outcome(OutcomeKind.UNKNOWN, error_code="NO_ANSWER", error_message=type(exc).__name__)
            videos = [v for v in data.get("videos") or [] if isinstance(v, dict)]
            found = _match(videos, wanted, cutoff)
            if found is not None:
                return found
            if not data.get("has_more") or any(int(v.get("create_time", 0)) < cutoff for v in videos):
                break
            body["cursor"] = data.get("cursor")
        return _failed("NOT_FOUND", "no matching post among the account's recent videos")

    # --- metrics ---------------------------------------------------------------------------

    def metrics(self, conn: Connection, post_ids: Sequence[str]) -> dict[str, Metrics]:
        found: dict[str, Metrics] = {}
        for start in range(0, len(post_ids), MAX_IDS_PER_QUERY):
            found.update(self._metrics_batch(conn, post_ids[start : start + MAX_IDS_PER_QUERY]))
        return found

    def _metrics_batch(self, conn: Connection, post_ids: Sequence[str]) -> dict[str, Metrics]:
        url = f"{API}/video/query/?{urlencode({'fields': METRIC_FIELDS})}"
        response = self._send(conn, "POST", url, json={"filters": {"video_ids": list(post_ids)}})
        if not _is_ok(response):
            outcome = _refusal(response)
            raise requests.HTTPError(f"TikTok refused video/query: {outcome.error_code}", response=response)
        videos = [v for v in _data(response).get("videos") or [] if isinstance(v, dict)]
        return {str(v["id"]): _metrics_of(v) for v in videos if "id" in v}

    # --- OAuth 2.0 (Login Kit) -------------------------------------------------------------

    @staticmethod
    def _client_key(sandbox: bool) -> str:
        configured = str(getattr(settings, "TIKTOK_CLIENT_ID", "") or "")
        return configured or (SANDBOX_CLIENT_ID if sandbox else "")

    @staticmethod
    def _client_secret(sandbox: bool) -> str:
        configured = str(getattr(settings, "TIKTOK_CLIENT_SECRET", "") or "")
        return configured or (SANDBOX_CLIENT_SECRET if sandbox else "")

    def authorize_url(self, *, state: str, code_challenge: str, redirect_uri: str, sandbox: bool) -> str:
        query = {
            "client_key": self._client_key(sandbox),
            "scope": SCOPES,
            "response_type": "code",
            "redirect_uri": redirect_uri,
            "state": state,
            "code_challenge": code_challenge,
            "code_challenge_method": "S256",
        }
        return _connection(sandbox).url(f"{AUTHORIZE_URL}?{urlencode(query)}")

    def exchange_code(self, *, code: str, code_verifier: str, redirect_uri: str, sandbox: bool) -> Credentials:
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": redirect_uri,
            "code_verifier": code_verifier,
        }
        return self._token(form, sandbox)

    def refresh(self, conn: Connection) -> Credentials:
        return self._token(
            {"grant_type": "refresh_token", "refresh_token": conn.credentials.refresh_token}, conn.sandbox
        )

    def _token(self, form: dict[str, str], sandbox: bool) -> Credentials:
        """POST the token endpoint (form-encoded), then read who the token belongs to."""
        form = {"client_key": self._client_key(sandbox), "client_secret": self._client_secret(sandbox), **form}
        url = _connection(sandbox).url(TOKEN_URL)
        headers = {"Content-Type": "application/x-www-form-urlencoded", "Cache-Control": "no-cache"}
        response = self.session.post(url, data=form, headers=headers, timeout=self.timeout)
        token = _body(response)
        if response.status_code != 200 or token.get("error") or "access_token" not in token:
            raise requests.HTTPError(f"TikTok refused the token request: {_oauth_error(response)}", response=response)
        return _credentials(token, self._user(_connection(sandbox, str(token["access_token"]))))

    def _user(self, conn: Connection) -> dict[str, Any]:
        user = self._ok_or_raise(conn, f"{API}/user/info/?{urlencode({'fields': USER_FIELDS})}").get("user")
        return user if isinstance(user, dict) else {}

    def _ok_or_raise(self, conn: Connection, url: str) -> dict[str, Any]:
        response = self._send(conn, "GET", url)
        if not _is_ok(response):
            raise requests.HTTPError(f"TikTok refused {url}: {_refusal(response).error_code}", response=response)
        return _data(response)


def _unknown(outcome: Outcome) -> Outcome:
    return Outcome(OutcomeKind.UNKNOWN, error_code=outcome.error_code, error_message=outcome.error_message)


def _match(videos: Sequence[Mapping[str, Any]], wanted: str, cutoff: float) -> Outcome | None:
    for video in videos:
        text = str(video.get("video_description") or video.get("title") or "").strip()
        if text == wanted and float(video.get("create_time", 0)) >= cutoff - 1:
            post_id = str(video["id"])
            url = str(video.get("share_url") or "")
            return Outcome(OutcomeKind.PUBLISHED, post_id=post_id, url=url, http_status=200)
    return None


def _brand(post: Post) -> dict[str, bool]:
    return {
        key: post.settings[key]
        for key in ("brand_content_toggle", "brand_organic_toggle")
        if isinstance(post.settings.get(key), bool)
    }


def _metrics_of(video: Mapping[str, Any]) -> Metrics:
    extra = {"share_url": video["share_url"]} if video.get("share_url") else {}
    return Metrics(
        views=int(video.get("view_count") or 0),
        likes=int(video.get("like_count") or 0),
        comments=int(video.get("comment_count") or 0),
        shares=int(video.get("share_count") or 0),
        extra=extra,
    )


def _connection(sandbox: bool, access_token: str = "") -> Connection:
    return Connection(credentials=Credentials(access_token=access_token), sandbox=sandbox)


def _credentials(token: Mapping[str, Any], user: Mapping[str, Any]) -> Credentials:
    now = dt.datetime.now(dt.UTC)
    refresh_lifetime = int(token.get("refresh_expires_in") or 0)
    metadata: dict[str, Any] = {"scope": str(token.get("scope", "")), "open_id": str(token.get("open_id", ""))}
    if refresh_lifetime:
        metadata["refresh_expires_at"] = (now + dt.timedelta(seconds=refresh_lifetime)).isoformat()
    return Credentials(
        access_token=str(token["access_token"]),
        refresh_token=str(token.get("refresh_token") or ""),
        expires_at=now + dt.timedelta(seconds=int(token.get("expires_in") or 7200)),
        external_id=str(token.get("open_id") or user.get("open_id") or ""),
        handle=str(user.get("username", "")),
        display_name=str(user.get("display_name", "")),
        metadata=metadata,
    )


def _oauth_error(response: requests.Response) -> str:
    """An OAuth error (`error`, `error_description`) without echoing anything secret."""
    body = _body(response)
    return f"HTTP {response.status_code} {body.get('error', '')} {body.get('error_description', '')}".strip()

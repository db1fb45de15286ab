"""YouTube (Data API v3): a video upload with plain `requests` and Google's resumable protocol.

Why it looks the way it does:

- A YouTube post is exactly one video with a title (platform_settings `title`); the post text is
  the video description. Images and text-only posts are not possible.
- Upload: `POST /upload/youtube/v3/videos?uploadType=resumable&part=snippet,status` with the
  video resource opens a session (its URI comes back in `Location`); that URI is saved with
  `conn.save_ref` BEFORE any byte is sent, then the bytes go in `PUT`s of `chunk_bytes` (a
  multiple of 256 KiB, as Google requires) with `Content-Range`. Only the last PUT can create
  the video, so a failure before it is NOT_SENT and a timeout or 5xx on it is UNKNOWN.
- An UNKNOWN upload is settled by querying the session (`PUT` with `Content-Range: bytes */N`
  and no body): the finished session answers with the video resource. When the session is gone
  (404/410) the answer stays UNKNOWN and `find_recent()` reads the channel's uploads playlist.
- The upload answer has `status.uploadStatus=uploaded`; `videos.list part=status,processingDetails`
  is polled `status_polls` times, then PROCESSING with the video id as ref (`check()` follows it).
- platform_settings map to the Video resource of the discovery document youtube.v3.json:
  title -> snippet.title, category_id -> snippet.categoryId, default_language ->
  snippet.defaultLanguage, default_audio_language -> snippet.defaultAudioLanguage, tags ->
  snippet.tags, privacyStatus -> status.privacyStatus, madeForKids -> status.selfDeclaredMadeForKids
  (`madeForKids` in the resource is YouTube's read-only verdict, not what the uploader declares).
- Google errors are `{"error": {"code", "message", "errors": [{"reason", ...}]}}`; `reason` is
  kept as error_code. rateLimitExceeded, userRateLimitExceeded, quotaExceeded and
  uploadLimitExceeded create nothing and are NOT_SENT (quota waits for Pacific midnight, the
  channel upload cap 24 h).
- Metrics: views, likes and comments from `videos.list part=statistics` (strings in the API);
  shares exist only in YouTube Analytics v2 `reports` (`dimensions=video`, scope
  yt-analytics.readonly). If that call fails the counts are still returned, with shares 0 and
  `extra["shares_unavailable"]` set.
- OAuth is Google's: authorize at accounts.google.com with PKCE S256, `access_type=offline`
  and `prompt=consent` (else no refresh token); refresh tokens do not rotate, so a refresh keeps
  the old one when the answer carries none.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

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

API = "https://www.googleapis.com/youtube/v3"
UPLOAD_URL = "https://www.googleapis.com/upload/youtube/v3/videos"
ANALYTICS_URL = "https://youtubeanalytics.googleapis.com/v2/reports"
AUTHORIZE_URL = "https://accounts.google.com/o/oauth2/v2/auth"
TOKEN_URL = "https://oauth2.googleapis.com/token"  # noqa: S105 - a URL, not a secret
SCOPES = " ".join(
    f"https://www.googleapis.com/auth/{name}"
    for name in ("youtube.upload", "youtube.readonly", "yt-analytics.readonly")
)
SANDBOX_CLIENT_ID = "sandbox-youtube-client"
CHUNK_UNIT = 256 * 1024
TITLE_MAX, DESCRIPTION_MAX_BYTES, TAGS_MAX = 100, 5000, 500
PRIVACY = ("private", "public", "unlisted")
MAX_IDS_PER_LIST = 50
RATE_REASONS = frozenset({"rateLimitExceeded", "userRateLimitExceeded", "quotaExceeded", "uploadLimitExceeded"})
AUTH_REASONS = frozenset({"authError", "insufficientPermissions", "unauthorized"})
_LANGUAGE = re.compile(r"[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*")


class _Stop(PlatformError):
    """Ends a publish early with the outcome that says why."""


# --- Google's answers ------------------------------------------------------------------------


_json = json_object


def _error_words(response: requests.Response) -> tuple[str, str]:
    """The first `errors[].reason` and the `message` of a Google error body."""
    error = _json(response).get("error")
    if not isinstance(error, dict):
        return f"HTTP_{response.status_code}", response.reason or ""
    details = error.get("errors") if isinstance(error.get("errors"), list) else []
    reason = details[0].get("reason") if details and isinstance(details[0], dict) else None
    return str(reason or error.get("status") or f"HTTP_{response.status_code}"), str(error.get("message") or "")


def _wait_for(reason: str, response: requests.Response) -> float | None:
    """How long a rate-limit answer asks to wait: quota resets at Pacific midnight, the
    channel's upload cap after a day, the others say Retry-After (or a minute)."""
    if reason == "quotaExceeded":
        now = dt.datetime.now(ZoneInfo("America/Los_Angeles"))
        midnight = (now + dt.timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
        return (midnight - now).total_seconds()
    if reason == "uploadLimitExceeded":
        return 24 * 3600.0
    return retry_after_seconds(response) or 60.0


def _refusal(response: requests.Response) -> Outcome:
    """Any answer that is not a success, as an Outcome (the video may exist only on a 5xx)."""
    status = response.status_code
    code, message = _error_words(response)
    if status == 429 or code in RATE_REASONS:
        wait = _wait_for(code, response)
        return Outcome(
            OutcomeKind.NOT_SENT, error_code=code, error_message=message, http_status=status, retry_after=wait
        )
    if status in UNKNOWN_STATUSES or status >= 500:
        return Outcome(OutcomeKind.UNKNOWN, error_code=code, error_message=message, http_status=status)
    auth = status == 401 or code in AUTH_REASONS
    return Outcome(OutcomeKind.FAILED, error_code=code, error_message=message, http_status=status, auth_failed=auth)


def _before_create(outcome: Outcome) -> Outcome:
    """A refusal before the last byte: no video can exist yet, so an unknown is NOT_SENT."""
    if outcome.kind is not OutcomeKind.UNKNOWN:
        return outcome
    return Outcome(
        OutcomeKind.NOT_SENT,
        error_code=outcome.error_code,
        error_message=outcome.error_message,
        http_status=outcome.http_status,
    )


def watch_url(video_id: str) -> str:
    return f"https://www.youtube.com/watch?v={video_id}"


def _published(video_id: str) -> Outcome:
    return Outcome(OutcomeKind.PUBLISHED, post_id=video_id, url=watch_url(video_id), ref={"video_id": video_id})


def _state_of(video: Mapping[str, Any]) -> Outcome:
    """A video resource's upload status as an Outcome."""
    video_id, status = str(video.get("id", "")), video.get("status") or {}
    upload = status.get("uploadStatus", "uploaded")
    if upload == "processed":
        return _published(video_id)
    if upload in ("failed", "rejected", "deleted"):
        reason = status.get("failureReason") or status.get("rejectionReason") or upload
        return Outcome(OutcomeKind.FAILED, post_id=video_id, error_code=f"VIDEO_{upload.upper()}", error_message=reason)
    return Outcome(OutcomeKind.PROCESSING, post_id=video_id, url=watch_url(video_id), ref={"video_id": video_id})


# --- validation ------------------------------------------------------------------------------


def _angle_problem(field: str, value: str) -> list[Problem]:
    if "<" in value or ">" in value:
        return [Problem(field, "INVALID_CHARACTERS", f"YouTube refuses < and > in the {field}.")]
    return []


def _title_problems(values: Mapping[str, Any]) -> list[Problem]:
    title = values.get("title")
    if title is None or not title.strip():
        return [Problem("title", "TITLE_REQUIRED", "A YouTube video needs a title.")]
    if len(title) > TITLE_MAX:
        return [Problem("title", "TITLE_TOO_LONG", f"A YouTube title has at most {TITLE_MAX} characters.")]
    return _angle_problem("title", title)


def _tags_length(tags: Sequence[str]) -> int:
    """YouTube's count: commas between tags, and quotes around a tag with a space."""
    return sum(len(tag) + (2 if " " in tag else 0) for tag in tags) + max(len(tags) - 1, 0)


def _tags_problems(values: Mapping[str, Any]) -> list[Problem]:
    if "tags" not in values:
        return []
    tags = values["tags"]
    if not all(isinstance(t, str) and t.strip() for t in tags):
        return [Problem("tags", "INVALID_SETTING", "tags must be a list of non-empty strings.")]
    if _tags_length(tags) > TAGS_MAX:
        return [Problem("tags", "INVALID_SETTING", f"YouTube tags take at most {TAGS_MAX} characters in all.")]
    return [p for tag in tags for p in _angle_problem("tags", tag)]


def _choice_problems(values: Mapping[str, Any]) -> list[Problem]:
    problems = []
    if "privacyStatus" in values and values["privacyStatus"] not in PRIVACY:
        problems.append(Problem("privacyStatus", "INVALID_SETTING", f"privacyStatus must be one of {PRIVACY}."))
    if "category_id" in values and not _category(values["category_id"]):
        problems.append(Problem("category_id", "INVALID_SETTING", "category_id must be a category number."))
    for key in ("default_language", "default_audio_language"):
        if key in values and not (isinstance(values[key], str) and _LANGUAGE.fullmatch(values[key])):
            problems.append(Problem(key, "INVALID_SETTING", f"{key} must be a BCP-47 language code."))
    return problems


def _category(value: Any) -> str:
    """The category id as the API takes it (a string of digits), or "" when it is not one."""
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return str(value)
    return value if isinstance(value, str) and value.isascii() and value.isdigit() else ""


def _text_problems(text: str) -> list[Problem]:
    size = len(text.encode())
    if size > DESCRIPTION_MAX_BYTES:
        message = f"The description is {size} UTF-8 bytes; YouTube takes {DESCRIPTION_MAX_BYTES}."
        return [Problem("text", "TEXT_TOO_LONG", message)]
    return _angle_problem("text", text)


# --- the request -----------------------------------------------------------------------------


def video_resource(post: Post) -> dict[str, Any]:
    """The Video resource of videos.insert (snippet and status) for a post."""
    values = post.settings
    snippet: dict[str, Any] = {"title": values.get("title", ""), "description": post.text}
    if "tags" in values:
        snippet["tags"] = list(values["tags"])
    if "category_id" in values:
        snippet["categoryId"] = _category(values["category_id"])
    for key, name in (("default_language", "defaultLanguage"), ("default_audio_language", "defaultAudioLanguage")):
        if key in values:
            snippet[name] = values[key]
    status: dict[str, Any] = {"privacyStatus": values.get("privacyStatus", "public")}
    if "madeForKids" in values:
        status["selfDeclaredMadeForKids"] = values["madeForKids"]
    return {"snippet": snippet, "status": status}


def _chunks(media: Media, size: int) -> Iterator[bytes]:
    stream = media.open()
    try:
        while chunk := stream.read(size):
            yield chunk
    finally:
        stream.close()


class Client(PlatformClient):
    platform = "youtube"
    setting_types = {
        "title": ("string", "null"),  # null is a missing title: TITLE_REQUIRED
        "privacyStatus": ("string",),
        "category_id": ("string", "integer"),
        "default_language": ("string",),
        "default_audio_language": ("string",),
        "tags": ("array",),
        "madeForKids": ("boolean",),
    }
    metrics_batch_size = MAX_IDS_PER_LIST
    chunk_bytes = 32 * CHUNK_UNIT  # 8 MiB; Google wants multiples of 256 KiB
    status_polls = 1  # videos.list checks inside publish() before answering PROCESSING

    # --- validation ------------------------------------------------------------------------

    def validate(self, post: Post) -> list[Problem]:
        problems = self.media_problems(post.media) + _text_problems(post.text)
        problems += _title_problems(post.settings) + _tags_problems(post.settings)
        return problems + _choice_problems(post.settings)

    # --- publishing ------------------------------------------------------------------------

    def publish(self, conn: Connection, post: Post) -> Outcome:
        if len(post.media) != 1 or not post.media[0].is_video:
            return Outcome(OutcomeKind.FAILED, error_code="MEDIA_REQUIRED", error_message="YouTube takes one video.")
        media = post.media[0]
        try:
            session = self._open_session(conn, post, media)
            conn.save_ref({"upload_url": session, "total_bytes": str(media.size_bytes)})
            video = self._send_bytes(conn, session, media)
        except _Stop as stop:
            return stop.outcome
        except requests.RequestException as exc:  # opening the session: nothing exists yet
            return _before_create(outcome_of_exception(exc))
        return self._follow(conn, video, self.status_polls)

    def _open_session(self, conn: Connection, post: Post, media: Media) -> str:
        """The resumable session URI for this upload (nothing is created yet)."""
        headers = {"X-Upload-Content-Length": str(media.size_bytes), "X-Upload-Content-Type": media.content_type}
        query = urlencode({"uploadType": "resumable", "part": "snippet,status"})
        response = self._call(conn, "POST", f"{UPLOAD_URL}?{query}", json=video_resource(post), headers=headers)
        if response.status_code != 200 or not response.headers.get("Location"):
            raise _Stop(_before_create(_refusal(response)))
        return response.headers["Location"]

    def _send_bytes(self, conn: Connection, session: str, media: Media) -> dict[str, Any]:
        """PUT the file in chunks; the answer to the last one is the video resource."""
        total, start = media.size_bytes, 0
        for chunk in _chunks(media, self.chunk_bytes):
            end = start + len(chunk)
            headers = {"Content-Range": f"bytes {start}-{end - 1}/{total}", "Content-Type": media.content_type}
            response = self._put(conn, session, chunk, headers, last=end >= total)
            if end < total and response.status_code != 308:
                raise _Stop(_before_create(_refusal(response)))
            start = end
        return self._video_of(response)

    def _put(self, conn: Connection, session: str, chunk: bytes, headers: dict[str, str], last: bool) -> Any:
        try:
            return self._call(conn, "PUT", session, data=chunk, headers=headers)
        except requests.RequestException as exc:
            outcome = outcome_of_exception(exc)
            raise _Stop(outcome if last else _before_create(outcome)) from exc

    @staticmethod
    def _video_of(response: requests.Response) -> dict[str, Any]:
        if response.status_code not in (200, 201):
            raise _Stop(_refusal(response))
        video = _json(response)
        if not video.get("id"):
            raise _Stop(Outcome(OutcomeKind.UNKNOWN, error_code="NO_ID", http_status=response.status_code))
        return video

    def _follow(self, conn: Connection, video: Mapping[str, Any], polls: int) -> Outcome:
        """Poll processing up to `polls` times; PROCESSING with the video id if not done."""
        outcome = _state_of(video)
        for _ in range(polls):
            if outcome.kind is not OutcomeKind.PROCESSING:
                break
            outcome = self._status(conn, outcome.post_id)
        return outcome

    def _status(self, conn: Connection, video_id: str) -> Outcome:
        query = urlencode({"part": "status,processingDetails", "id": video_id})
        try:
            response = self._call(conn, "GET", f"{API}/videos?{query}")
        except requests.RequestException as exc:
            pending = _state_of({"id": video_id})
            return Outcome(pending.kind, post_id=video_id, ref=pending.ref, error_message=type(exc).__name__)
        if response.status_code != 200:
            return _refusal(response)
        items = _json(response).get("items") or []
        if not items:
            return Outcome(OutcomeKind.FAILED, error_code="NOT_FOUND", error_message=f"no video {video_id}")
        return _state_of(items[0])

    # --- HTTP ------------------------------------------------------------------------------

    def _call(self, conn: Connection, method: str, url: str, **kwargs: Any) -> requests.Response:
        headers = {"Authorization": f"Bearer {conn.credentials.access_token}", **kwargs.pop("headers", {})}
        return self.session.request(method, conn.url(url), headers=headers, timeout=self.timeout, **kwargs)

    def _get(self, conn: Connection, path: str, query: Mapping[str, Any]) -> dict[str, Any]:
        response = self._call(conn, "GET", f"{path}?{urlencode(query)}")
        if response.status_code != 200:
            raise requests.HTTPError(f"YouTube answered {' '.join(_error_words(response))}", response=response)
        return _json(response)

    # --- settling --------------------------------------------------------------------------

    def check(self, conn: Connection, ref: Mapping[str, str]) -> Outcome:
        if ref.get("video_id"):
            return self._status(conn, ref["video_id"])
        if ref.get("upload_url"):
            return self._query_session(conn, ref)
        return Outcome(OutcomeKind.FAILED, error_code="NO_REF", error_message="nothing to check")

    def _query_session(self, conn: Connection, ref: Mapping[str, str]) -> Outcome:
        """Ask the upload session how far it got: finished gives the video resource."""
        headers = {"Content-Range": f"bytes */{ref.get('total_bytes', '*')}"}
        try:
            response = self._call(conn, "PUT", ref["upload_url"], data=b"", headers=headers)
        except requests.RequestException as exc:
            return Outcome(OutcomeKind.UNKNOWN, error_code="NO_ANSWER", error_message=type(exc).__name__)
        if response.status_code == 308:  # incomplete: the last byte never arrived, no video
            return Outcome(OutcomeKind.NOT_SENT, error_code="UPLOAD_INCOMPLETE", http_status=308)
        if response.status_code in (404, 410):
            return Outcome(OutcomeKind.UNKNOWN, error_code="SESSION_GONE", http_status=response.status_code)
        try:
            return self._follow(conn, self._video_of(response), polls=1)
        except _Stop as stop:
            return stop.outcome

    def find_recent(self, conn: Connection, post: Post, since: dt.datetime) -> Outcome:
        try:
            playlist = self._uploads_playlist(conn)
            items = self._get(
                conn, f"{API}/playlistItems", {"part": "snippet", "playlistId": playlist, "maxResults": 50}
            )
        except requests.RequestException as exc:
            return Outcome(OutcomeKind.UNKNOWN, error_code="NO_ANSWER", error_message=str(exc))
        for item in items.get("items") or []:
            if self._same_video(item.get("snippet") or {}, post, since):
                return self._status(conn, str(item["snippet"]["resourceId"]["videoId"]))
        return Outcome(OutcomeKind.FAILED, error_code="NOT_FOUND", error_message="no matching video in the uploads")

    def _uploads_playlist(self, conn: Connection) -> str:
        channels = self._get(conn, f"{API}/channels", {"part": "contentDetails", "mine": "true"}).get("items") or []
        if not channels:
            raise requests.RequestException("the token has no channel")
        return str(channels[0]["contentDetails"]["relatedPlaylists"]["uploads"])

    @staticmethod
    def _same_video(snippet: Mapping[str, Any], post: Post, since: dt.datetime) -> bool:
        published = dt.datetime.fromisoformat(str(snippet.get("publishedAt", "1970-01-01T00:00:00Z")))
        same_text = snippet.get("title") == post.settings.get("title") and snippet.get("description") == post.text
        return same_text and published >= since - dt.timedelta(seconds=1)

    # --- metrics ---------------------------------------------------------------------------

    def metrics(self, conn: Connection, post_ids: Sequence[str]) -> dict[str, Metrics]:
        found: dict[str, Metrics] = {}
        for start in range(0, len(post_ids), MAX_IDS_PER_LIST):
            batch = post_ids[start : start + MAX_IDS_PER_LIST]
            statistics = self._statistics(conn, batch)
            shares = self._shares(conn, list(statistics))
            found.update({vid: _metrics_of(vid, counts, shares) for vid, counts in statistics.items()})
        return found

    def _statistics(self, conn: Connection, video_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        body = self._get(conn, f"{API}/videos", {"part": "statistics", "id": ",".join(video_ids)})
        return {str(v["id"]): v.get("statistics") or {} for v in body.get("items") or []}

    def _shares(self, conn: Connection, video_ids: list[str]) -> dict[str, int] | None:
        """Shares per video from YouTube Analytics, or None when it cannot be read."""
        if not video_ids:
            return {}
        query = {
            "ids": "channel==MINE",
            "startDate": "2005-04-23",
            "endDate": dt.datetime.now(dt.UTC).date().isoformat(),
            "metrics": "shares",
            "dimensions": "video",
            "filters": f"video=={','.join(video_ids)}",
        }
        try:
            rows = self._get(conn, ANALYTICS_URL, query).get("rows") or []
        except requests.RequestException:
            return None
        return {str(row[0]): int(row[1]) for row in rows}

    # --- OAuth 2.0 with PKCE ---------------------------------------------------------------

    @staticmethod
    def _client_id(sandbox: bool) -> str:
        configured = str(getattr(settings, "YOUTUBE_CLIENT_ID", "") or "")
        return configured or (SANDBOX_CLIENT_ID if sandbox else "")

    @staticmethod
    def _connection(sandbox: bool, access_token: str = "") -> Connection:
        return Connection(credentials=Credentials(access_token=access_token), sandbox=sandbox)

    def authorize_url(self, *, state: str, code_challenge: str, redirect_uri: str, sandbox: bool) -> str:
        query = {
            "client_id": self._client_id(sandbox),
            "redirect_uri": redirect_uri,
            "response_type": "code",
            "scope": SCOPES,
            "access_type": "offline",
            "prompt": "consent",
            "include_granted_scopes": "true",
            "state": state,
            "code_challenge": code_challenge,
            "code_challenge_method": "S256",
        }
        return self._connection(sandbox).url(f"{AUTHORIZE_URL}?{urlencode(query)}")

    def exchange_code(self, *, code: str, code_verifier: str, redirect_uri: str, sandbox: bool) -> Credentials:
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": redirect_uri,
            "code_verifier": code_verifier,
        }
        return self._token(form, sandbox, refresh_token="")

    def refresh(self, conn: Connection) -> Credentials:
        form = {"grant_type": "refresh_token", "refresh_token": conn.credentials.refresh_token}
        return self._token(form, conn.sandbox, refresh_token=conn.credentials.refresh_token)

    def _token(self, form: dict[str, str], sandbox: bool, refresh_token: str) -> Credentials:
        """POST Google's token endpoint, then read the channel the token belongs to."""
        secret = str(getattr(settings, "YOUTUBE_CLIENT_SECRET", "") or "")
        form = {**form, "client_id": self._client_id(sandbox), **({"client_secret": secret} if secret else {})}
        response = self.session.post(self._connection(sandbox).url(TOKEN_URL), data=form, timeout=self.timeout)
        if response.status_code != 200:
            raise requests.HTTPError(f"Google refused the token request: {_oauth_error(response)}", response=response)
        token = response.json()
        channel = self._channel(self._connection(sandbox, str(token["access_token"])))
        return _credentials(token, channel, refresh_token)

    def _channel(self, conn: Connection) -> dict[str, Any]:
        items = self._get(conn, f"{API}/channels", {"part": "snippet", "mine": "true"}).get("items") or []
        return items[0] if items else {}


def _metrics_of(video_id: str, counts: Mapping[str, Any], shares: Mapping[str, int] | None) -> Metrics:
    extra: dict[str, Any] = {"favoriteCount": int(counts.get("favoriteCount", 0))}
    if shares is None:
        extra["shares_unavailable"] = True
    return Metrics(
        views=int(counts.get("viewCount", 0)),
        likes=int(counts.get("likeCount", 0)),
        comments=int(counts.get("commentCount", 0)),
        shares=(shares or {}).get(video_id, 0),
        extra=extra,
    )


def _credentials(token: Mapping[str, Any], channel: Mapping[str, Any], refresh_token: str) -> Credentials:
    snippet = channel.get("snippet") or {}
    lifetime = int(token.get("expires_in") or 3600)
    return Credentials(
        access_token=str(token["access_token"]),
        refresh_token=str(token.get("refresh_token") or refresh_token),
        expires_at=dt.datetime.now(dt.UTC) + dt.timedelta(seconds=lifetime),
        external_id=str(channel.get("id", "")),
        handle=str(snippet.get("customUrl", "")),
        display_name=str(snippet.get("title", "")),
        metadata={"scope": str(token.get("scope", ""))},
    )


def _oauth_error(response: requests.Response) -> str:
    """An OAuth error (`error`, `error_description`) without echoing anything secret."""
    body = _json(response)
    return f"HTTP {response.status_code} {body.get('error', '')} {body.get('error_description', '')}".strip()

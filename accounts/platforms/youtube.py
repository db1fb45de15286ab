"""YouTube (Data API v3): a video upload with plain `requests` and Google's resumable protocol.

Why it looks the way it does:

- A YouTube post is exactly one video with a title (platform_settings `title`); the post text is
  the video description. Images and text-only posts are not possible.
- Upload: `POST /upload/youtube/v3/videos?uploadType=resumable&part=snippet,status` with the
  video resource opens a session (its URI comes back in `Location`): that is `prepare()`, which
  saves the URI with `conn.save_ref` BEFORE any byte is sent. `create()` sends the bytes in PUTs
  of `chunk_bytes` (a multiple of 256 KiB, as Google requires) with `Content-Range`. Only the last
  PUT can create the video, so a failure before it is NOT_SENT and a timeout or 5xx on it UNKNOWN.
- An UNKNOWN upload is settled by querying the session (`PUT` with `Content-Range: bytes */N`
  and no body): the finished session answers with the video resource. When the session is gone
  (404/410) the answer stays UNKNOWN and `find_recent()` reads the channel's uploads playlist,
  page after page (`pageToken`), since a busy channel may upload more than a page meanwhile.
- The upload answer has `status.uploadStatus=uploaded`; `videos.list part=status,processingDetails`
  is polled `status_polls` times, then PROCESSING with the video id as ref (`check()` follows it).
- platform_settings map to the Video resource of the discovery document youtube.v3.json:
  title -> snippet.title, category_id -> snippet.categoryId, default_language ->
  snippet.defaultLanguage, default_audio_language -> snippet.defaultAudioLanguage, tags ->
  snippet.tags, privacyStatus -> status.privacyStatus, madeForKids -> status.selfDeclaredMadeForKids
  (`madeForKids` in the resource is YouTube's read-only verdict, not what the uploader declares).
  Every upload declares both its audience and its category: selfDeclaredMadeForKids false and
  categoryId "22" (People & Blogs) unless the post sets them. YouTube would default them itself,
  but the audience declaration is what COPPA policy asks of every upload, and a video with no
  category sent is one an outside check of our requests flags.
- A first comment is a top-level comment on the video (`commentThreads.insert`, part=snippet,
  `textOriginal`); its post_id is the comment's id and its ref (comment_id, comment_on) is what
  `commentThreads.list?id=` reads back and `comments.delete` removes. No id exists before the
  call, so a lost answer keeps the text and `check()` looks among the video's comment threads
  for one by this channel with that text.
- `delete()` is `videos.delete` (or `comments.delete` for a comment's ref), 204 with no body; a
  404 (videoNotFound, commentNotFound) is one already gone. `exists()` lists the video or the
  comment by id: an empty list, or a video rejected or deleted by YouTube, is gone. These calls
  need the youtube.force-ssl scope (asked for at connecting).
- Google errors are `{"error": {"code", "message", "errors": [{"reason", ...}]}}`; `reason` is
  kept as error_code, a rate limit's too. The RATE_REASONS create nothing and are NOT_SENT
  (quota waits for Pacific midnight, the channel upload cap 24 h, the others Retry-After or a
  minute); the AUTH_REASONS need re-authorization.
- Metrics: views, likes and comments from `videos.list part=statistics` (strings in the API);
  shares only from YouTube Analytics v2 `reports` (`dimensions=video`, yt-analytics.readonly):
  if that call fails the counts still come, with shares 0 and `extra["shares_unavailable"]` set.
- OAuth is Google's: authorize at accounts.google.com with PKCE S256, `access_type=offline`
  and `prompt=consent` (else no refresh token); refresh tokens do not rotate, so a refresh keeps
  the old one when the answer carries none. A disconnect revokes the refresh token at
  `oauth2.googleapis.com/revoke`, which ends the whole grant (its access tokens too).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

import requests
from django.conf import settings

from accounts.platforms.base import (
    FIT_SETTING,
    MAX_RECENT_PAGES,
    Connection,
    Credentials,
    ErrorWords,
    HttpClient,
    Media,
    Metrics,
    NoAnswer,
    Outcome,
    OutcomeKind,
    PlatformError,
    Post,
    Problem,
    bare_connection,
    before_create,
    chunks,
    json_object,
    retry_after_seconds,
    token_credentials,
    unsettled,
)
from accounts.platforms.interface import COMMENT

API = "https://www.googleapis.com/youtube/v3"
UPLOAD_URL = "https://www.googleapis.com/upload/youtube/v3/videos"
ANALYTICS_URL = "https://youtubeanalytics.googleapis.com/v2/reports"
AUTHORIZE_URL = "https://accounts.google.com/o/oauth2/v2/auth"
TOKEN_URL = "https://oauth2.googleapis.com/token"  # noqa: S105 - a URL, not a secret
REVOKE_URL = "https://oauth2.googleapis.com/revoke"
SCOPE_NAMES = ("youtube.upload", "youtube.readonly", "youtube.force-ssl", "yt-analytics.readonly")
SCOPES = " ".join(f"https://www.googleapis.com/auth/{name}" for name in SCOPE_NAMES)
CHUNK_UNIT = 256 * 1024
TITLE_MAX, DESCRIPTION_MAX_BYTES, TAGS_MAX = 100, 5000, 500
PRIVACY = ("private", "public", "unlisted")
DEFAULT_CATEGORY = "22"  # People & Blogs
DEFAULT_MADE_FOR_KIDS = False
COMMENT_MAX_LENGTH = 10000
COMMENT_PAGE = 100  # comment threads per page (the API's maximum)
GONE_STATUSES = frozenset({"rejected", "deleted"})  # uploadStatus of a video YouTube took down
MAX_IDS_PER_LIST = 50
PLAYLIST_PAGE = 50  # playlist items per page (the API's maximum)
SLACK = dt.timedelta(seconds=1)  # publishedAt counts whole seconds
SHARES_QUERY = {"ids": "channel==MINE", "startDate": "2005-04-23", "metrics": "shares", "dimensions": "video"}
RATE_WINDOW_SECONDS = 60.0
UPLOAD_CAP_WAIT_SECONDS = 24 * 3600.0
QUOTA_ZONE = ZoneInfo("America/Los_Angeles")  # the daily quota resets at Pacific midnight
RATE_REASONS = frozenset({"rateLimitExceeded", "userRateLimitExceeded", "quotaExceeded", "uploadLimitExceeded"})
AUTH_REASONS = frozenset({"authError", "insufficientPermissions", "unauthorized"})
LANGUAGE_PATTERN = r"[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*"  # a BCP-47 tag, as far as YouTube checks it
_LANGUAGE = re.compile(LANGUAGE_PATTERN)


def error_words(response: requests.Response) -> ErrorWords:
    """The first `errors[].reason` and the `message` of a Google error body."""
    code, message = _reason(response)
    limited = code in RATE_REASONS
    wait = _wait_for(code, response) if limited or response.status_code == 429 else None
    return ErrorWords(code, message, throttled=limited, retry_after=wait, auth=code in AUTH_REASONS)


def _reason(response: requests.Response) -> tuple[str, str]:
    error = json_object(response).get("error")
    if not isinstance(error, dict):
        return f"HTTP_{response.status_code}", response.reason or ""
    details = error.get("errors") if isinstance(error.get("errors"), list) else []
    reason = details[0].get("reason") if details and isinstance(details[0], dict) else None
    return str(reason or error.get("status") or f"HTTP_{response.status_code}"), str(error.get("message") or "")


def _wait_for(reason: str, response: requests.Response) -> float:
    """Quota waits for Pacific midnight, the channel's upload cap a day, the rest Retry-After or a minute."""
    if reason == "quotaExceeded":
        now = dt.datetime.now(QUOTA_ZONE)
        midnight = (now + dt.timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
        return (midnight - now).total_seconds()
    if reason == "uploadLimitExceeded":
        return UPLOAD_CAP_WAIT_SECONDS
    return retry_after_seconds(response) or RATE_WINDOW_SECONDS


def watch_url(video_id: str) -> str:
    return f"https://www.youtube.com/watch?v={video_id}"


def _published_at(snippet: Mapping[str, Any]) -> dt.datetime:
    """A playlist item's publishedAt (the epoch when it has none)."""
    return dt.datetime.fromisoformat(str(snippet.get("publishedAt", "1970-01-01T00:00:00Z")))


def _video(kind: OutcomeKind, video_id: str, why: str = "") -> Outcome:
    """A video that exists (PUBLISHED or PROCESSING), with its watch URL and the ref `check()` follows."""
    return Outcome(kind, post_id=video_id, url=watch_url(video_id), ref={"video_id": video_id}, error_message=why)


def _commented(video_id: str, comment_id: str) -> Outcome:
    """A comment on a video: its id, its link under the video, and the ref that reads it back."""
    url = f"{watch_url(video_id)}&lc={comment_id}"
    ref = {"comment_id": comment_id, "comment_on": video_id}
    return Outcome(OutcomeKind.PUBLISHED, post_id=comment_id, url=url, ref=ref)


def _top_comment_id(thread: Mapping[str, Any]) -> str:
    top = (thread.get("snippet") or {}).get("topLevelComment") or {}
    return str(top.get("id") or thread.get("id") or "")


def _is_comment_of(thread: Any, conn: Connection, text: str) -> bool:
    """Whether a comment thread's top comment is this channel's and says `text`."""
    snippet = ((thread.get("snippet") or {}).get("topLevelComment") or {}).get("snippet") or {}
    author = (snippet.get("authorChannelId") or {}).get("value")
    said = snippet.get("textOriginal", snippet.get("textDisplay"))
    return author == conn.credentials.external_id and said == text


def _state_of(video: Mapping[str, Any]) -> Outcome:
    """A video resource's upload status as an Outcome."""
    video_id, status = str(video.get("id", "")), video.get("status") or {}
    upload = status.get("uploadStatus", "uploaded")
    if upload == "processed":
        return _video(OutcomeKind.PUBLISHED, video_id)
    if upload in ("failed", "rejected", "deleted"):
        reason = status.get("failureReason") or status.get("rejectionReason") or upload
        return Outcome(OutcomeKind.FAILED, post_id=video_id, error_code=f"VIDEO_{upload.upper()}", error_message=reason)
    return _video(OutcomeKind.PROCESSING, video_id)


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


def description_size(text: str) -> int:
    """YouTube counts a description in UTF-8 bytes."""
    return len(text.encode())


def _text_problems(text: str) -> list[Problem]:
    size = description_size(text)
    if size > DESCRIPTION_MAX_BYTES:
        message = f"The description is {size} UTF-8 bytes; YouTube takes {DESCRIPTION_MAX_BYTES}."
        return [Problem("text", "TEXT_TOO_LONG", message)]
    return _angle_problem("text", text)


def video_resource(post: Post) -> dict[str, Any]:
    """The Video resource of videos.insert (snippet and status) for a post."""
    values = post.settings
    snippet: dict[str, Any] = {"title": values.get("title", ""), "description": post.text}
    if "tags" in values:
        snippet["tags"] = list(values["tags"])
    snippet["categoryId"] = _category(values["category_id"]) if "category_id" in values else DEFAULT_CATEGORY
    for key, name in (("default_language", "defaultLanguage"), ("default_audio_language", "defaultAudioLanguage")):
        if key in values:
            snippet[name] = values[key]
    status = {
        "privacyStatus": values.get("privacyStatus", "public"),
        "selfDeclaredMadeForKids": values.get("madeForKids", DEFAULT_MADE_FOR_KIDS),
    }
    return {"snippet": snippet, "status": status}


class Client(HttpClient[str]):
    platform = "youtube"
    first_comment = COMMENT
    comment_max_length = COMMENT_MAX_LENGTH
    api = API
    rate_limited_code = ""  # Google's reason tells quota, rate and upload cap apart
    authorize_endpoint = AUTHORIZE_URL
    scopes = SCOPES
    setting_types = {
        **FIT_SETTING,
        "title": ("string", "null"),  # null is a missing title: TITLE_REQUIRED
        "privacyStatus": ("string",),
        "category_id": ("string", "integer"),
        "default_language": ("string",),
        "default_audio_language": ("string",),
        "tags": ("array",),
        "madeForKids": ("boolean",),
    }
    has_options = True
    metrics_batch_size = MAX_IDS_PER_LIST
    chunk_bytes = 32 * CHUNK_UNIT  # 8 MiB; Google wants multiples of 256 KiB
    status_polls = 1  # videos.list checks inside publish() before answering PROCESSING

    # --- validation ------------------------------------------------------------------------

    def text_length(self, text: str) -> int:
        return description_size(text)

    def validate(self, post: Post) -> list[Problem]:
        problems = self.media_problems(post.media) + _text_problems(post.text)
        problems += _title_problems(post.settings) + _tags_problems(post.settings)
        return problems + _choice_problems(post.settings)

    # --- publishing ------------------------------------------------------------------------

    def publish(self, conn: Connection, post: Post) -> Outcome:
        """A video, or with `reply_to` the channel's comment on that video."""
        if post.reply_to is not None:
            return self._comment(conn, post.reply_to.parent_id, post.text)
        return super().publish(conn, post)

    def prepare(self, conn: Connection, post: Post) -> str:
        """The resumable session's URI, saved before any byte is sent (nothing exists yet)."""
        if len(post.media) != 1 or not post.media[0].is_video:
            raise PlatformError(
                Outcome(OutcomeKind.FAILED, error_code="MEDIA_REQUIRED", error_message="YouTube takes one video.")
            )
        media = post.media[0]
        headers = {"X-Upload-Content-Length": str(media.size_bytes), "X-Upload-Content-Type": media.content_type}
        query = urlencode({"uploadType": "resumable", "part": "snippet,status"})
        response = self.send(conn, "POST", f"{UPLOAD_URL}?{query}", json=video_resource(post), headers=headers)
        if response.status_code != 200 or not response.headers.get("Location"):
            raise PlatformError(self.refusal(response))
        conn.save_ref({"upload_url": response.headers["Location"], "total_bytes": str(media.size_bytes)})
        return response.headers["Location"]

    def create(self, conn: Connection, post: Post, prepared: str) -> Outcome:
        """The bytes (the last PUT creates the video), then `status_polls` processing checks."""
        return self._follow(conn, self._send_bytes(conn, prepared, post.media[0]), self.status_polls)

    # --- comments --------------------------------------------------------------------------

    def _comment(self, conn: Connection, video_id: str, text: str) -> Outcome:
        """commentThreads.insert: a top-level comment; a lost answer keeps what finds it."""
        ref = {"comment_on": video_id, "text": text}
        body = {"snippet": {"videoId": video_id, "topLevelComment": {"snippet": {"textOriginal": text}}}}
        try:
            response = self.send(conn, "POST", "/commentThreads?part=snippet", json=body)
        except NoAnswer as exc:
            return replace(exc.outcome, ref=ref)
        if not response.ok:
            outcome = self.refusal(response)
            return replace(outcome, ref=ref) if outcome.kind is OutcomeKind.UNKNOWN else outcome
        comment_id = _top_comment_id(json_object(response))
        if not comment_id:
            return Outcome(OutcomeKind.UNKNOWN, ref=ref, error_code="NO_ID", http_status=response.status_code)
        return _commented(video_id, comment_id)

    def _read_comment(self, conn: Connection, ref: Mapping[str, str]) -> Outcome:
        try:
            threads = self._threads(conn, {"part": "id", "id": ref["comment_id"]})
        except PlatformError as exc:
            return unsettled(exc.outcome)
        if not threads:
            return Outcome(OutcomeKind.FAILED, error_code="NOT_FOUND", error_message=f"no comment {ref['comment_id']}")
        return _commented(ref["comment_on"], ref["comment_id"])

    def _find_comment(self, conn: Connection, video_id: str, text: str) -> Outcome:
        """The video's comment threads page by page (`pageToken`) until one of this channel's
        has `text`; FAILED NOT_FOUND when none has, or when the video is gone."""
        query = {"part": "snippet", "videoId": video_id, "maxResults": COMMENT_PAGE, "textFormat": "plainText"}
        token = ""
        try:
            for _ in range(MAX_RECENT_PAGES):
                page = self._get(conn, "/commentThreads", {**query, **({"pageToken": token} if token else {})})
                found = next((t for t in page.get("items") or [] if _is_comment_of(t, conn, text)), None)
                if found is not None:
                    return _commented(video_id, _top_comment_id(found))
                token = str(page.get("nextPageToken") or "")
                if not token:
                    break
        except PlatformError as exc:
            if exc.outcome.http_status == 404:
                return Outcome(OutcomeKind.FAILED, error_code="NOT_FOUND", error_message=exc.outcome.error_message)
            return unsettled(exc.outcome)
        return Outcome(OutcomeKind.FAILED, error_code="NOT_FOUND", error_message="no such comment of this channel")

    def _threads(self, conn: Connection, query: Mapping[str, Any]) -> list[Any]:
        return list(self._get(conn, "/commentThreads", query).get("items") or [])

    # --- media -----------------------------------------------------------------------------

    def _send_bytes(self, conn: Connection, session: str, media: Media) -> dict[str, Any]:
        """PUT the file in chunks; the answer to the last one is the video resource."""
        start, response = 0, None
        for chunk in chunks(media, self.chunk_bytes):
            response = self._put(conn, session, media, chunk, start)
            start += len(chunk)
        if response is None:
            raise PlatformError(Outcome(OutcomeKind.FAILED, error_code="EMPTY_FILE", error_message="no bytes to send"))
        return self._video_of(response)

    def _put(self, conn: Connection, session: str, media: Media, chunk: bytes, start: int) -> requests.Response:
        """One chunk. Only the last can create the video: a failure before it created nothing."""
        end, total = start + len(chunk), media.size_bytes
        headers = {"Content-Range": f"bytes {start}-{end - 1}/{total}", "Content-Type": media.content_type}
        try:
            response = self.send(conn, "PUT", session, data=chunk, headers=headers)
        except NoAnswer as exc:
            raise NoAnswer(exc.outcome if end >= total else before_create(exc.outcome)) from None
        if end < total and response.status_code != 308:
            raise PlatformError(before_create(self.refusal(response)))
        return response

    def _video_of(self, response: requests.Response) -> dict[str, Any]:
        if response.status_code not in (200, 201):
            raise PlatformError(self.refusal(response))
        video = json_object(response)
        if not video.get("id"):
            raise PlatformError(Outcome(OutcomeKind.UNKNOWN, error_code="NO_ID", http_status=response.status_code))
        return video

    # --- answers ---------------------------------------------------------------------------

    def error_words(self, response: requests.Response) -> ErrorWords:
        return error_words(response)

    def _get(self, conn: Connection, path: str, query: Mapping[str, Any]) -> dict[str, Any]:
        return self.call(conn, "GET", f"{path}?{urlencode(query)}")

    def options(self, conn: Connection) -> dict[str, Any]:
        """The video categories a video may be given in the region of YOUTUBE_REGION_CODE
        (`videoCategories.list`, the assignable ones only)."""
        region = str(settings.YOUTUBE_REGION_CODE)
        items = self._get(conn, "/videoCategories", {"part": "snippet", "regionCode": region}).get("items") or []
        categories = [
            {"id": str(item["id"]), "name": str(item["snippet"].get("title") or item["id"])}
            for item in items
            if isinstance(item, dict) and item.get("id") and (item.get("snippet") or {}).get("assignable") is True
        ]
        return {"region_code": region, "categories": categories}

    def _channel(self, conn: Connection, part: str) -> dict[str, Any]:
        """The token's own channel ({} when it has none)."""
        items = self._get(conn, "/channels", {"part": part, "mine": "true"}).get("items") or []
        return items[0] if items else {}

    # --- settling --------------------------------------------------------------------------

    def check(self, conn: Connection, ref: Mapping[str, str]) -> Outcome:
        if ref.get("comment_id"):
            return self._read_comment(conn, ref)
        if ref.get("comment_on"):
            return self._find_comment(conn, ref["comment_on"], ref.get("text", ""))
        if ref.get("video_id"):
            return self._status(conn, ref["video_id"])
        if ref.get("upload_url"):
            return self._query_session(conn, ref)
        return Outcome(OutcomeKind.FAILED, error_code="NO_REF", error_message="nothing to check")

    def _status(self, conn: Connection, video_id: str) -> Outcome:
        """The video exists: a status nobody could read leaves it PROCESSING."""
        query = urlencode({"part": "status,processingDetails", "id": video_id})
        try:
            response = self.send(conn, "GET", f"/videos?{query}")
        except NoAnswer as exc:
            return _video(OutcomeKind.PROCESSING, video_id, exc.outcome.error_message)
        if response.status_code != 200:
            return self.refusal(response)
        items = json_object(response).get("items") or []
        if not items:
            return Outcome(OutcomeKind.FAILED, error_code="NOT_FOUND", error_message=f"no video {video_id}")
        return _state_of(items[0])

    def _follow(self, conn: Connection, video: Mapping[str, Any], polls: int) -> Outcome:
        """Poll processing up to `polls` times; PROCESSING with the video id if not done."""
        outcome = _state_of(video)
        for _ in range(polls):
            if outcome.kind is OutcomeKind.PROCESSING:
                outcome = self._status(conn, outcome.post_id)
        return outcome

    def _query_session(self, conn: Connection, ref: Mapping[str, str]) -> Outcome:
        """Ask the upload session how far it got: finished gives the video resource."""
        headers = {"Content-Range": f"bytes */{ref.get('total_bytes', '*')}"}
        try:
            response = self.send(conn, "PUT", ref["upload_url"], data=b"", headers=headers)
        except NoAnswer as exc:
            return replace(exc.outcome, kind=OutcomeKind.UNKNOWN)
        if response.status_code == 308:  # incomplete: the last byte never arrived, no video
            return Outcome(OutcomeKind.NOT_SENT, error_code="UPLOAD_INCOMPLETE", http_status=308)
        if response.status_code in (404, 410):
            return Outcome(OutcomeKind.UNKNOWN, error_code="SESSION_GONE", http_status=response.status_code)
        try:
            return self._follow(conn, self._video_of(response), polls=1)
        except PlatformError as exc:
            return exc.outcome

    def find_recent(self, conn: Connection, post: Post, since: dt.datetime) -> Outcome:
        """The uploads playlist newest first, page after page (`nextPageToken` -> `pageToken`)
        until a video has the post's title and description, a page reaches back before `since`,
        there is no next page, or MAX_RECENT_PAGES were read. A comment is looked for among its
        video's comment threads."""
        if post.reply_to is not None:
            return self._find_comment(conn, post.reply_to.parent_id, post.text)
        token, found = "", None
        try:
            playlist = self._uploads_playlist(conn)
            for _ in range(MAX_RECENT_PAGES):
                query = {"part": "snippet", "playlistId": playlist, "maxResults": PLAYLIST_PAGE}
                page = self._get(conn, "/playlistItems", {**query, **({"pageToken": token} if token else {})})
                snippets = [item.get("snippet") or {} for item in page.get("items") or [] if isinstance(item, dict)]
                found = next((snippet for snippet in snippets if self._same_video(snippet, post, since)), None)
                if found is not None:
                    break
                token = str(page.get("nextPageToken") or "")
                if not token or any(_published_at(snippet) < since - SLACK for snippet in snippets):
                    break
        except PlatformError as exc:
            return replace(exc.outcome, kind=OutcomeKind.UNKNOWN)
        if found is None:
            return Outcome(OutcomeKind.FAILED, error_code="NOT_FOUND", error_message="no matching video in the uploads")
        return self._status(conn, str(found["resourceId"]["videoId"]))

    def _uploads_playlist(self, conn: Connection) -> str:
        channel = self._channel(conn, "contentDetails")
        if not channel:
            raise PlatformError(Outcome(OutcomeKind.UNKNOWN, error_code="NO_CHANNEL", error_message="no channel"))
        return str(channel["contentDetails"]["relatedPlaylists"]["uploads"])

    @staticmethod
    def _same_video(snippet: Mapping[str, Any], post: Post, since: dt.datetime) -> bool:
        same_text = snippet.get("title") == post.settings.get("title") and snippet.get("description") == post.text
        return same_text and _published_at(snippet) >= since - SLACK

    # --- deleting and reading back --------------------------------------------------------

    def delete(self, conn: Connection, post_id: str, ref: Mapping[str, str]) -> Outcome:
        """videos.delete, or comments.delete for a comment's ref; a 404 is one already gone."""
        path = "/comments" if ref.get("comment_id") else "/videos"
        return self.delete_at(conn, f"{path}?{urlencode({'id': post_id})}", post_id)

    def exists(self, conn: Connection, post_id: str, ref: Mapping[str, str]) -> bool:
        if ref.get("comment_id"):
            return bool(self._threads(conn, {"part": "id", "id": post_id}))
        items = self._get(conn, "/videos", {"part": "status", "id": post_id}).get("items") or []
        return bool(items) and (items[0].get("status") or {}).get("uploadStatus") not in GONE_STATUSES

    # --- metrics ---------------------------------------------------------------------------

    def metrics(self, conn: Connection, post_ids: Sequence[str]) -> dict[str, Metrics]:
        found: dict[str, Metrics] = {}
        for start in range(0, len(post_ids), MAX_IDS_PER_LIST):
            statistics = self._statistics(conn, post_ids[start : start + MAX_IDS_PER_LIST])
            shares = self._shares(conn, list(statistics))
            found.update({vid: self._metrics_of(vid, counts, shares) for vid, counts in statistics.items()})
        return found

    def _statistics(self, conn: Connection, video_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        body = self._get(conn, "/videos", {"part": "statistics", "id": ",".join(video_ids)})
        return {str(v["id"]): v.get("statistics") or {} for v in body.get("items") or []}

    def _shares(self, conn: Connection, video_ids: list[str]) -> dict[str, int] | None:
        """Shares per video from YouTube Analytics, or None when it cannot be read."""
        if not video_ids:
            return {}
        today = dt.datetime.now(dt.UTC).date().isoformat()
        query = {**SHARES_QUERY, "endDate": today, "filters": f"video=={','.join(video_ids)}"}
        try:
            rows = self._get(conn, ANALYTICS_URL, query).get("rows") or []
        except PlatformError:
            return None
        return {str(row[0]): int(row[1]) for row in rows}

    @staticmethod
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

    # --- OAuth 2.0 with PKCE (Google) ------------------------------------------------------

    def authorize_params(self, *, state: str, code_challenge: str, redirect_uri: str, sandbox: bool) -> dict[str, str]:
        """Offline access with a consent prompt: without both Google gives no refresh token."""
        params = super().authorize_params(
            state=state, code_challenge=code_challenge, redirect_uri=redirect_uri, sandbox=sandbox
        )
        return {**params, "access_type": "offline", "prompt": "consent", "include_granted_scopes": "true"}

    def exchange_code(self, *, code: str, code_verifier: str, redirect_uri: str, sandbox: bool) -> Credentials:
        grant = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri}
        return self._token({**grant, "code_verifier": code_verifier}, sandbox, refresh_token="")

    def refresh(self, conn: Connection) -> Credentials:
        form = {"grant_type": "refresh_token", "refresh_token": conn.credentials.refresh_token}
        return self._token(form, conn.sandbox, refresh_token=conn.credentials.refresh_token)

    def _token(self, form: dict[str, str], sandbox: bool, refresh_token: str) -> Credentials:
        """POST Google's token endpoint (a secret only if configured), then read the token's channel."""
        app = self.app(sandbox)
        secret = {"client_secret": app.client_secret} if app.client_secret else {}
        token = self.token_request(sandbox, "POST", TOKEN_URL, data={**form, "client_id": app.client_id, **secret})
        channel = self._channel(bare_connection(sandbox, str(token["access_token"])), "snippet")
        return self._credentials(token, channel, refresh_token)

    def revoke(self, conn: Connection) -> bool:
        """Revoke the grant: Google takes either token and ends both; the refresh token is the
        one that outlives the other. The token goes in the form body, out of URLs and logs."""
        token = conn.credentials.refresh_token or conn.credentials.access_token
        if not token:
            return False
        self.revocation(conn, "POST", REVOKE_URL, data={"token": token})
        return True

    @staticmethod
    def _credentials(token: Mapping[str, Any], channel: Mapping[str, Any], refresh_token: str) -> Credentials:
        """Google does not rotate refresh tokens: a refresh keeps the old one."""
        snippet = channel.get("snippet") or {}
        return token_credentials(
            token,
            lifetime=3600,
            refresh_token=refresh_token,
            external_id=str(channel.get("id", "")),
            handle=str(snippet.get("customUrl", "")),
            display_name=str(snippet.get("title", "")),
        )

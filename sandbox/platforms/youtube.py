"""The YouTube (Data API v3) stand-in: resumable uploads, videos/channels/playlistItems/videoCategories lists,
YouTube Analytics reports and Google's OAuth 2.0, answering in Google's own shapes.

It is as strict as Google where the client could go wrong: the bearer token, the `part`
parameter against the resource's parts, unknown resource fields, title/description/tags
limits (invalidTitle, invalidDescription, invalidTags), chunk offsets and the 256 KiB chunk
multiple, the declared size and type, and PKCE on the token endpoint. YouTube never pulls
media from a URL (the bytes are uploaded), so nothing is fetched here; the bytes themselves are
checked (an ISO media `ftyp` box) and a file that is not a video fails processing
(`uploadStatus=failed`, `failureReason=invalidFile`) as on YouTube.

Outcomes: `error` and `rate_limited` answer the session-opening POST (403 forbidden, 429
rateLimitExceeded with Retry-After); `timeout` and `processing` act on the last PUT, the one
that creates the video. A finished upload reports `uploadStatus=uploaded` and turns
`processed` at the first status check (`processing`: after 3 checks; the post exists from then).
An upload must declare `status.selfDeclaredMadeForKids` and name `snippet.categoryId`
(`_declarations_problem` says why the stand-in is stricter there than YouTube).

Comments: commentThreads.insert makes a top-level comment on a video that is there,
commentThreads.list reads them by id or by video, comments.delete removes its author's;
videos.delete takes the channel's video down (and its comments). A deleted video, or one
removed through the control API, is gone from every list. Each of these writes takes the next
queued outcome (`error` 403 forbidden, `rate_limited` 429, `timeout` does it and holds the
answer).
Not modelled: quotas, thumbnails, Shorts classification, publishAt scheduling, and sessions
expiring (a week on YouTube).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import re
import secrets
import time
from typing import Any
from urllib.parse import urlencode

from werkzeug.wrappers import Request, Response

from sandbox import media, oauth
from sandbox.http import Context, bearer_account, json_body, json_response, publish_outcome, routes, signed_in

UPLOAD_URL = "https://www.googleapis.com/upload/youtube/v3/videos"
CHUNK_UNIT = 256 * 1024
MAX_BYTES = 274_877_906_944
VIDEO_PARTS = frozenset(
    {
        "contentDetails", "fileDetails", "id", "liveStreamingDetails", "localizations", "player",
        "processingDetails", "recordingDetails", "snippet", "statistics", "status", "suggestions", "topicDetails",
    }
)  # fmt: skip
SNIPPET_FIELDS = frozenset(
    {"title", "description", "tags", "categoryId", "defaultLanguage", "defaultAudioLanguage", "channelId"}
)
STATUS_FIELDS = frozenset(
    {
        "privacyStatus", "selfDeclaredMadeForKids", "publishAt", "embeddable", "license",
        "publicStatsViewable", "containsSyntheticMedia",
    }
)  # fmt: skip
# videoCategories.list?regionCode=US as YouTube answers it: (id, title, assignable).
CATEGORY_LIST = (
    ("1", "Film & Animation", True), ("2", "Autos & Vehicles", True), ("10", "Music", True),
    ("15", "Pets & Animals", True), ("17", "Sports", True), ("18", "Short Movies", False),
    ("19", "Travel & Events", True), ("20", "Gaming", True), ("21", "Videoblogging", False),
    ("22", "People & Blogs", True), ("23", "Comedy", True), ("24", "Entertainment", True),
    ("25", "News & Politics", True), ("26", "Howto & Style", True), ("27", "Education", True),
    ("28", "Science & Technology", True), ("29", "Nonprofits & Activism", True), ("30", "Movies", False),
    ("31", "Anime/Animation", False), ("32", "Action/Adventure", False), ("33", "Classics", False),
    ("34", "Comedy", False), ("35", "Documentary", False), ("36", "Drama", False), ("37", "Family", False),
    ("38", "Foreign", False), ("39", "Horror", False), ("40", "Sci-Fi/Fantasy", False), ("41", "Thriller", False),
    ("42", "Shorts", False), ("43", "Shows", False), ("44", "Trailers", False),
)  # fmt: skip
CATEGORIES = frozenset(category for category, _, assignable in CATEGORY_LIST if assignable)
YOUTUBE_CHANNEL = "UCBR8-60-B28hp2BmDPdntcQ"  # the channel YouTube's own categories belong to
_REGION = re.compile(r"[A-Z]{2}")
PROCESSING_CHECKS = 3
OPTIONAL_SNIPPET = ("tags", "defaultLanguage", "defaultAudioLanguage")
REFRESH_SCOPE = " ".join(
    f"https://www.googleapis.com/auth/{n}"
    for n in ("youtube.upload", "youtube.readonly", "youtube.force-ssl", "yt-analytics.readonly")
)
_CHANNEL = re.compile(r"UC[A-Za-z0-9_-]{22}")
_RANGE = re.compile(r"bytes (?:(\d+)-(\d+)|\*)/(\d+|\*)")


RULES, route = routes()  # the endpoints below, each declared with @route


# --- answers ---------------------------------------------------------------------------------

STATUS_NAMES = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND"}


def google_error(status: int, reason: str, message: str, domain: str = "youtube.video", **more: str) -> Response:
    return json_response(_error_body(status, reason, message, domain, **more), status=status)


def _error_body(status: int, reason: str, message: str, domain: str, **more: str) -> dict[str, Any]:
    detail = {"message": more.pop("detail", message), "domain": domain, "reason": reason, **more}
    name = STATUS_NAMES.get(status, "RESOURCE_EXHAUSTED" if status == 429 else "UNKNOWN")
    return {"error": {"code": status, "message": message, "errors": [detail], "status": name}}


def bad_request(reason: str, message: str) -> Response:
    return google_error(400, reason, message)


def unauthorized() -> Response:
    message = "Request had invalid authentication credentials. Expected OAuth 2 access token."
    response = google_error(
        401, "authError", message, "global", detail="Invalid Credentials", location="Authorization",
        locationType="header",
    )  # fmt: skip
    response.headers["WWW-Authenticate"] = 'Bearer realm="https://accounts.google.com/", error="invalid_token"'
    return response


def rate_limited() -> Response:
    response = google_error(429, "rateLimitExceeded", "The request cannot be completed: too many requests.")
    response.headers["Retry-After"] = "30"
    return response


_account = bearer_account("youtube", lambda why: unauthorized())

_signed_in = signed_in(_account)


def channel_id(account: str) -> str:
    """The account's channel id: the account itself when it is one, else one derived from it."""
    if _CHANNEL.fullmatch(account):
        return account
    digest = base64.urlsafe_b64encode(hashlib.sha256(account.encode()).digest()).decode()
    return "UC" + digest[:22]


def uploads_playlist(account: str) -> str:
    return "UU" + channel_id(account)[2:]


def _store(ctx: Context, name: str) -> dict[str, Any]:
    return ctx.state.store("youtube", name)


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _etag() -> str:
    return secrets.token_urlsafe(20)


# --- checking the video resource ------------------------------------------------------------


def _parts_problem(request: Request, body: dict[str, Any]) -> str:
    parts = {p for p in request.args.get("part", "").split(",") if p}
    if not parts:
        return "Required parameter: part"
    if parts - VIDEO_PARTS:
        return f"Unknown part: {sorted(parts - VIDEO_PARTS)[0]}"
    missing = sorted(set(body) - parts - {"kind", "id", "etag"})
    return f"The request body has {missing[0]} but part does not name it." if missing else ""


def _fields_problem(body: Any) -> str:
    if not isinstance(body, dict):
        return "Invalid JSON payload received."
    for name, allowed in (("snippet", SNIPPET_FIELDS), ("status", STATUS_FIELDS)):
        value = body.get(name, {})
        if not isinstance(value, dict):
            return f"Invalid JSON payload received. Invalid value at 'resource.{name}'."
        unknown = sorted(set(value) - allowed)
        if unknown:
            return (
                f"Invalid JSON payload received. Unknown name \"{unknown[0]}\" at 'resource.{name}': Cannot find field."
            )
    return ""


def _snippet_problem(snippet: dict[str, Any]) -> Response | None:
    title, description = snippet.get("title"), snippet.get("description", "")
    if not isinstance(title, str) or not title.strip() or len(title) > 100 or re.search("[<>]", title):
        return bad_request("invalidTitle", "The request metadata specifies an invalid or empty video title.")
    if not isinstance(description, str) or len(description.encode()) > 5000 or re.search("[<>]", description):
        return bad_request("invalidDescription", "The request metadata specifies an invalid video description.")
    tags = snippet.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags) or _tags_length(tags) > 500:
        return bad_request("invalidTags", "The request metadata specifies invalid video keywords.")
    if "categoryId" in snippet and snippet["categoryId"] not in CATEGORIES:
        return bad_request("invalidCategoryId", "The snippet.categoryId property specifies an invalid category ID.")
    return _language_problem(snippet)


def _tags_length(tags: list[str]) -> int:
    return sum(len(t) + (2 if " " in t else 0) for t in tags) + max(len(tags) - 1, 0)


def _language_problem(snippet: dict[str, Any]) -> Response | None:
    for name in ("defaultLanguage", "defaultAudioLanguage"):
        value = snippet.get(name)
        if value is not None and not (isinstance(value, str) and re.fullmatch(r"[A-Za-z]{2,3}(-[\w]{1,8})*", value)):
            return bad_request("invalidVideoMetadata", f"The request metadata specifies an invalid {name}.")
    return None


def _status_problem(status: dict[str, Any]) -> Response | None:
    if status.get("privacyStatus", "public") not in ("public", "unlisted", "private"):
        return bad_request("invalidValue", "Invalid value for status.privacyStatus.")
    flags = ("selfDeclaredMadeForKids", "embeddable", "publicStatsViewable", "containsSyntheticMedia")
    if any(name in status and not isinstance(status[name], bool) for name in flags):
        return bad_request("invalidValue", "Invalid value for a boolean status field.")
    return None


def _upload_headers_problem(request: Request) -> str:
    length, kind = request.headers.get("X-Upload-Content-Length", ""), request.headers.get("X-Upload-Content-Type", "")
    if not length.isdigit() or not 0 < int(length) <= MAX_BYTES:
        return "X-Upload-Content-Length must give the file size (at most 256 GB)."
    if not (kind.startswith("video/") or kind == "application/octet-stream"):
        return "X-Upload-Content-Type must be video/* or application/octet-stream."
    return ""


# --- opening a session ------------------------------------------------------------------------


@route("POST", "/www.googleapis.com/upload/youtube/v3/videos")
@_signed_in
def open_session(ctx: Context, request: Request, account: str, **values: Any) -> Response:
    if request.args.get("uploadType") != "resumable":
        return bad_request("badRequest", "This stand-in takes uploadType=resumable only.")
    body = json_body(request)
    refused = _metadata_problem(request, body)
    if refused is not None:
        return refused
    return _answer_open(ctx, request, account, body)


def _metadata_problem(request: Request, body: Any) -> Response | None:
    reason = _fields_problem(body) or _parts_problem(request, body) or _upload_headers_problem(request)
    if reason:
        return bad_request("badRequest", reason)
    snippet, status = body.get("snippet") or {}, body.get("status") or {}
    return _snippet_problem(snippet) or _status_problem(status) or _declarations_problem(snippet, status)


def _declarations_problem(snippet: dict[str, Any], status: dict[str, Any]) -> Response | None:
    """YouTube itself defaults both when they are left out, but policy requires every upload to
    declare its audience (COPPA) and an outside strict check of our requests wants the category
    named: the stand-in refuses an upload without either, so the client can never drop them."""
    if "selfDeclaredMadeForKids" not in status:
        return bad_request("invalidVideoMetadata", "The request metadata must declare status.selfDeclaredMadeForKids.")
    if "categoryId" not in snippet:
        return bad_request("invalidVideoMetadata", "The request metadata must name snippet.categoryId.")
    return None


def _answer_open(ctx: Context, request: Request, account: str, body: dict[str, Any]) -> Response:
    outcome = ctx.state.take_outcome("youtube")
    if outcome == "error":
        return google_error(403, "forbidden", "The request is not properly authorized to upload this video.")
    if outcome == "rate_limited":
        return rate_limited()
    upload_id = secrets.token_urlsafe(24)
    _store(ctx, "sessions")[upload_id] = {
        "account": account, "body": body, "total": int(request.headers["X-Upload-Content-Length"]),
        "received": 0, "head": b"", "outcome": outcome, "video_id": "",
    }  # fmt: skip
    query = urlencode({"uploadType": "resumable", "part": request.args["part"], "upload_id": upload_id})
    return Response(b"", status=200, headers={"Location": f"{UPLOAD_URL}?{query}", "X-GUploader-UploadID": upload_id})


# --- sending bytes ---------------------------------------------------------------------------


@route("PUT", "/www.googleapis.com/upload/youtube/v3/videos")
def upload_bytes(ctx: Context, request: Request, **values: Any) -> Response:
    session = _store(ctx, "sessions").get(request.args.get("upload_id", ""))
    if session is None:
        return json_response({"error": {"code": 404, "message": "Not Found"}}, status=404)
    match = _RANGE.fullmatch(request.headers.get("Content-Range", ""))
    if match is None:
        return bad_request("badRequest", "Content-Range must be bytes a-b/total or bytes */total.")
    if match.group(1) is None:
        return _session_state(ctx, session)
    if session["video_id"]:
        return _video_answer(ctx, session)
    return _chunk(ctx, session, request, (int(match.group(1)), int(match.group(2)), match.group(3)))


def _session_state(ctx: Context, session: dict[str, Any]) -> Response:
    """The answer to `Content-Range: bytes */N`: how far the session got, or the video."""
    if session["video_id"]:
        return _video_answer(ctx, session)
    headers = {"Range": f"bytes=0-{session['received'] - 1}"} if session["received"] else {}
    return Response(b"", status=308, headers=headers)


def _chunk(ctx: Context, session: dict[str, Any], request: Request, span: tuple[int, int, str]) -> Response:
    start, end, total = span
    data = request.get_data()
    if total != str(session["total"]) or start != session["received"] or end - start + 1 != len(data):
        return bad_request("badRequest", f"Content-Range does not continue the upload at {session['received']}.")
    last = end + 1 == session["total"]
    if not last and len(data) % CHUNK_UNIT:
        return bad_request("badRequest", "Chunks other than the last must be a multiple of 256 KiB.")
    session["received"], session["head"] = end + 1, session["head"] or data[:16]
    if not last:
        return Response(b"", status=308, headers={"Range": f"bytes=0-{end}"})
    _create_video(ctx, session)
    if session["outcome"] == "timeout":
        ctx.hold()
    return _video_answer(ctx, session)


def _create_video(ctx: Context, session: dict[str, Any]) -> None:
    video_id = secrets.token_urlsafe(8)[:11]
    playable = media.is_iso_video(session["head"])
    checks = PROCESSING_CHECKS if session["outcome"] == "processing" else 0
    video = {
        "account": session["account"], "body": session["body"], "published_at": _now(), "checks_left": checks,
        "upload_status": "uploaded" if playable else "failed", "posted": False,
    }  # fmt: skip
    _store(ctx, "videos")[video_id] = video
    session["video_id"] = video_id
    if playable and session["outcome"] != "processing":
        _add_post(ctx, video_id, video)


def _add_post(ctx: Context, video_id: str, video: dict[str, Any]) -> None:
    snippet = video["body"].get("snippet") or {}
    ctx.state.add_post(
        "youtube", video["account"], snippet.get("description", ""), 1, post_id=video_id, title=snippet.get("title")
    )
    video["posted"] = True


def _video_answer(ctx: Context, session: dict[str, Any]) -> Response:
    video_id = session["video_id"]
    parts = {"snippet", "status"} | set(session["body"])
    return json_response(_resource(ctx, video_id, _store(ctx, "videos")[video_id], parts))


# --- the video resource ------------------------------------------------------------------------


def _resource(ctx: Context, video_id: str, video: dict[str, Any], parts: set[str]) -> dict[str, Any]:
    resource: dict[str, Any] = {"kind": "youtube#video", "etag": _etag(), "id": video_id}
    builders = {"snippet": _snippet, "status": _status, "processingDetails": _processing, "statistics": _statistics}
    for part in sorted(parts & set(builders)):
        resource[part] = builders[part](ctx, video_id, video)
    return resource


def _snippet(ctx: Context, video_id: str, video: dict[str, Any]) -> dict[str, Any]:
    given = video["body"].get("snippet") or {}
    return {
        "publishedAt": video["published_at"], "channelId": channel_id(video["account"]),
        "title": given.get("title", ""), "description": given.get("description", ""),
        "channelTitle": f"Sandbox {video['account']}", "categoryId": given.get("categoryId", "22"),
        "liveBroadcastContent": "none", **{k: given[k] for k in OPTIONAL_SNIPPET if k in given},
    }  # fmt: skip


def _status(ctx: Context, video_id: str, video: dict[str, Any]) -> dict[str, Any]:
    given = video["body"].get("status") or {}
    status: dict[str, Any] = {
        "uploadStatus": video["upload_status"], "privacyStatus": given.get("privacyStatus", "public"),
        "license": "youtube", "embeddable": True, "publicStatsViewable": True,
        "madeForKids": bool(given.get("selfDeclaredMadeForKids", False)),
    }  # fmt: skip
    if "selfDeclaredMadeForKids" in given:
        status["selfDeclaredMadeForKids"] = given["selfDeclaredMadeForKids"]
    if video["upload_status"] == "failed":
        status["failureReason"] = "invalidFile"
    return status


def _processing(ctx: Context, video_id: str, video: dict[str, Any]) -> dict[str, Any]:
    state = {"uploaded": "processing", "processed": "succeeded"}.get(video["upload_status"], "failed")
    return {"processingStatus": state}


def _statistics(ctx: Context, video_id: str, video: dict[str, Any]) -> dict[str, str]:
    counts = ctx.state.metrics_of("youtube", video_id)
    return {
        "viewCount": str(counts["views"]), "likeCount": str(counts["likes"]), "dislikeCount": "0",
        "favoriteCount": "0", "commentCount": str(counts["comments"]),
    }  # fmt: skip


def _advance(ctx: Context, video_id: str, video: dict[str, Any]) -> None:
    """One status check: a finished upload counts down its checks, then is processed."""
    if video["upload_status"] != "uploaded" or not media.check_done(video):
        return
    video["upload_status"] = "processed"
    if not video["posted"]:
        _add_post(ctx, video_id, video)


# --- reading ---------------------------------------------------------------------------------


def _list(
    kind: str, items: list[dict[str, Any]], *, total: int | None = None, per_page: int | None = None, **tokens_of: str
) -> Response:
    """A list answer: `nextPageToken`/`prevPageToken` (given only where there is such a page)
    before `pageInfo`, as Google orders them."""
    total = len(items) if total is None else total
    page = {"totalResults": total, "resultsPerPage": max(len(items), 5) if per_page is None else per_page}
    body = {"kind": f"youtube#{kind}ListResponse", "etag": _etag(), **tokens_of, "pageInfo": page, "items": items}
    return json_response(body)


def _read_parts(request: Request, allowed: frozenset[str]) -> set[str] | Response:
    parts = {p for p in request.args.get("part", "").split(",") if p}
    if not parts:
        return bad_request("missingRequiredParameter", "No filter selected. Required parameter: part")
    if parts - allowed:
        return bad_request("unknownPart", f"'{sorted(parts - allowed)[0]}'")
    return parts


@route("GET", "/www.googleapis.com/youtube/v3/videos")
@_signed_in
def list_videos(ctx: Context, request: Request, account: str, **values: Any) -> Response:
    parts = _read_parts(request, VIDEO_PARTS)
    if isinstance(parts, Response):
        return parts
    ids = [i for i in request.args.get("id", "").split(",") if i]
    if not 1 <= len(ids) <= 50:
        return bad_request("missingRequiredParameter", "No filter selected. Expected one of: myRating, chart, id")
    return _list("video", [_listed(ctx, account, i, parts) for i in ids if _present(ctx, i)])


def _present(ctx: Context, video_id: str) -> bool:
    """Whether a video is there: uploaded and not deleted (a processed video is a sandbox post,
    and one taken down is a post no longer)."""
    video = _store(ctx, "videos").get(video_id)
    return video is not None and not (video["posted"] and ctx.state.find_post("youtube", video_id) is None)


def _listed(ctx: Context, account: str, video_id: str, parts: set[str]) -> dict[str, Any]:
    video = _store(ctx, "videos")[video_id]
    if video["account"] == account and parts & {"status", "processingDetails"}:
        with ctx.state.lock:
            _advance(ctx, video_id, video)
    return _resource(ctx, video_id, video, parts)


@route("GET", "/www.googleapis.com/youtube/v3/channels")
@_signed_in
def list_channels(ctx: Context, request: Request, account: str, **values: Any) -> Response:
    parts = _read_parts(request, frozenset({"id", "snippet", "contentDetails", "statistics", "status"}))
    if isinstance(parts, Response):
        return parts
    if request.args.get("mine") != "true":
        return bad_request("missingRequiredParameter", "No filter selected. This stand-in takes mine=true.")
    return _list("channel", [_channel(account, parts)])


def _channel(account: str, parts: set[str]) -> dict[str, Any]:
    channel: dict[str, Any] = {"kind": "youtube#channel", "etag": _etag(), "id": channel_id(account)}
    if "snippet" in parts:
        handle = "@sandbox" + re.sub(r"\W", "", channel_id(account)[2:10]).lower()
        snippet = {
            "title": f"Sandbox {account}",
            "description": "",
            "customUrl": handle,
            "publishedAt": "2020-01-01T00:00:00Z",
        }
        channel["snippet"] = snippet
    if "contentDetails" in parts:
        channel["contentDetails"] = {"relatedPlaylists": {"likes": "", "uploads": uploads_playlist(account)}}
    return channel


@route("GET", "/www.googleapis.com/youtube/v3/videoCategories")
@_signed_in
def list_video_categories(ctx: Context, request: Request, account: str, **values: Any) -> Response:
    """The categories of a region (`regionCode`, ISO 3166-1 alpha-2) or of `id`s; exactly one
    of the two filters, as YouTube requires."""
    parts = _read_parts(request, frozenset({"snippet"}))
    if isinstance(parts, Response):
        return parts
    region, ids = request.args.get("regionCode"), request.args.get("id")
    if (region is None) == (ids is None):
        return bad_request("missingRequiredParameter", "No filter selected. Expected one of: regionCode, id")
    if region is not None and not _REGION.fullmatch(region):
        return google_error(404, "regionNotFound", "The specified region could not be found.")
    wanted = set(ids.split(",")) if ids is not None else None
    items = [_category(c, title, assignable) for c, title, assignable in CATEGORY_LIST if not wanted or c in wanted]
    return _list("videoCategory", items)


def _category(category_id: str, title: str, assignable: bool) -> dict[str, Any]:
    snippet = {"title": title, "assignable": assignable, "channelId": YOUTUBE_CHANNEL}
    return {"kind": "youtube#videoCategory", "etag": _etag(), "id": category_id, "snippet": snippet}


@route("GET", "/www.googleapis.com/youtube/v3/playlistItems")
@_signed_in
def list_playlist_items(ctx: Context, request: Request, account: str, **values: Any) -> Response:
    """The uploads playlist newest first, `maxResults` (0-50, 5 by default) a page, paged with
    `pageToken`; a token no page gave out is 400 invalidPageToken."""
    parts = _read_parts(request, frozenset({"id", "snippet", "contentDetails", "status"}))
    if isinstance(parts, Response):
        return parts
    playlist, limit = request.args.get("playlistId", ""), request.args.get("maxResults", "5")
    if playlist != uploads_playlist(account):
        return google_error(
            404, "playlistNotFound", "The playlist identified with the request's playlistId parameter cannot be found."
        )
    if not limit.isdigit() or not 0 <= int(limit) <= 50:
        return bad_request("invalidValue", "maxResults must be between 0 and 50.")
    start = _page_offset(request.args.get("pageToken"))
    if start is None:
        return bad_request("invalidPageToken", "The request specifies an invalid page token.")
    mine = [
        (i, v)
        for i, v in reversed(_store(ctx, "videos").items())
        if v["account"] == account and v["upload_status"] != "failed" and _present(ctx, i)
    ]
    end = start + int(limit)
    items = [_playlist_item(playlist, start + n, i, v, parts) for n, (i, v) in enumerate(mine[start:end])]
    tokens_of = {
        **({"nextPageToken": _page_token(end)} if end < len(mine) else {}),
        **({"prevPageToken": _page_token(max(0, start - int(limit)))} if start > 0 and int(limit) else {}),
    }
    return _list("playlistItem", items, total=len(mine), per_page=int(limit), **tokens_of)


def _page_token(offset: int) -> str:
    """A page token as Google writes them ("CAUQAA" is the page from offset 5): field 1 the
    offset (a protobuf varint), field 2 zero, unpadded URL-safe base64. Opaque to clients."""
    varint = b""
    while True:
        varint += bytes([(offset & 0x7F) | (0x80 if offset > 0x7F else 0)])
        offset >>= 7
        if not offset:
            break
    return base64.urlsafe_b64encode(b"\x08" + varint + b"\x10\x00").decode().rstrip("=")


def _page_offset(token: str | None) -> int | None:
    """The offset a page token names (0 without one); None for a token no page gave out."""
    if token is None:
        return 0
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except ValueError:
        return None
    offset = 0
    for index, byte in enumerate(raw[1:6]):
        offset |= (byte & 0x7F) << (7 * index)
        if not byte & 0x80:
            break
    return offset if raw[:1] == b"\x08" and _page_token(offset) == token else None


def _playlist_item(
    playlist: str, position: int, video_id: str, video: dict[str, Any], parts: set[str]
) -> dict[str, Any]:
    item: dict[str, Any] = {"kind": "youtube#playlistItem", "etag": _etag(), "id": f"{playlist}.{video_id}"}
    given = video["body"].get("snippet") or {}
    if "snippet" in parts:
        item["snippet"] = {
            "publishedAt": video["published_at"], "channelId": channel_id(video["account"]),
            "title": given.get("title", ""), "description": given.get("description", ""), "playlistId": playlist,
            "position": position, "resourceId": {"kind": "youtube#video", "videoId": video_id},
        }  # fmt: skip
    if "contentDetails" in parts:
        item["contentDetails"] = {"videoId": video_id, "videoPublishedAt": video["published_at"]}
    return item


# --- deleting a video ------------------------------------------------------------------------


def _not_found(what: str) -> Response:
    return google_error(404, f"{what}NotFound", f"The {what} identified by the id parameter could not be found.")


@route("DELETE", "/www.googleapis.com/youtube/v3/videos")
@_signed_in
def delete_video(ctx: Context, request: Request, account: str, **values: Any) -> Response:
    """videos.delete: the channel's own video, 204 with no body; one not there is videoNotFound."""
    video_id = request.args.get("id", "")
    if not video_id:
        return bad_request("missingRequiredParameter", "No filter selected. Required parameter: id")
    if not _present(ctx, video_id):
        return _not_found("video")
    if _store(ctx, "videos")[video_id]["account"] != account:
        return google_error(403, "forbidden", "The video that you are trying to delete cannot be deleted.")
    return publish_outcome(ctx, "youtube", OUTCOME_REFUSALS, lambda _: _delete_video(ctx, video_id))


def _delete_video(ctx: Context, video_id: str) -> Response:
    ctx.state.remove_post("youtube", video_id)
    _store(ctx, "videos").pop(video_id, None)
    return Response(status=204)


# --- comments --------------------------------------------------------------------------------

MAX_COMMENT = 10000
THREAD_PARTS = frozenset({"id", "snippet", "replies"})
OUTCOME_REFUSALS = {
    "error": lambda: google_error(403, "forbidden", "The request is not properly authorized.", "youtube.commentThread"),
    "rate_limited": rate_limited,
}


@route("POST", "/www.googleapis.com/youtube/v3/commentThreads")
@_signed_in
def insert_comment_thread(ctx: Context, request: Request, account: str, **values: Any) -> Response:
    """commentThreads.insert: a top-level comment (`textOriginal`) on a video that is there."""
    parts = _read_parts(request, THREAD_PARTS)
    if isinstance(parts, Response):
        return parts
    body = json_body(request)
    refused = _thread_problem(body)
    if refused is not None:
        return refused
    video_id = body["snippet"]["videoId"]
    if not _present(ctx, video_id):
        return google_error(
            404,
            "videoNotFound",
            "The video identified by the videoId parameter could not be found.",
            "youtube.commentThread",
        )
    text = body["snippet"]["topLevelComment"]["snippet"]["textOriginal"]
    return publish_outcome(ctx, "youtube", OUTCOME_REFUSALS, lambda _: _add_comment(ctx, account, video_id, text))


def _thread_problem(body: Any) -> Response | None:
    snippet = body.get("snippet") if isinstance(body, dict) else None
    top = snippet.get("topLevelComment") if isinstance(snippet, dict) else None
    text = ((top or {}).get("snippet") or {}).get("textOriginal") if isinstance(top, dict) else None
    if not isinstance(snippet, dict) or not isinstance(snippet.get("videoId"), str) or not isinstance(text, str):
        message = "The comment thread needs snippet.videoId and snippet.topLevelComment.snippet.textOriginal."
        return google_error(400, "invalidCommentMetadata", message, "youtube.commentThread")
    if not text.strip():
        return google_error(400, "commentTextRequired", "The comment must contain text.", "youtube.commentThread")
    if len(text) > MAX_COMMENT:
        return google_error(400, "commentTextTooLong", "The comment is too long.", "youtube.commentThread")
    return None


def _add_comment(ctx: Context, account: str, video_id: str, text: str) -> Response:
    comment_id = "Ug" + secrets.token_urlsafe(18)[:24]
    comment = ctx.state.add_comment("youtube", video_id, account, text, comment_id=comment_id, at=_now())
    return json_response(_thread(comment, {"id", "snippet"}))


def _thread(comment: Any, parts: set[str]) -> dict[str, Any]:
    thread: dict[str, Any] = {"kind": "youtube#commentThread", "etag": _etag(), "id": comment.id}
    if "snippet" in parts:
        thread["snippet"] = {
            "channelId": channel_id(comment.account), "videoId": comment.post_id, "canReply": True,
            "totalReplyCount": 0, "isPublic": True, "topLevelComment": _comment_resource(comment),
        }  # fmt: skip
    return thread


def _comment_resource(comment: Any) -> dict[str, Any]:
    channel = channel_id(comment.account)
    snippet = {
        "channelId": channel, "videoId": comment.post_id, "textDisplay": comment.text,
        "textOriginal": comment.text, "authorDisplayName": f"Sandbox {comment.account}",
        "authorChannelUrl": f"http://www.youtube.com/channel/{channel}", "authorChannelId": {"value": channel},
        "canRate": True, "viewerRating": "none", "likeCount": 0, "publishedAt": comment.extra["at"],
        "updatedAt": comment.extra["at"],
    }  # fmt: skip
    return {"kind": "youtube#comment", "etag": _etag(), "id": comment.id, "snippet": snippet}


@route("GET", "/www.googleapis.com/youtube/v3/commentThreads")
@_signed_in
def list_comment_threads(ctx: Context, request: Request, account: str, **values: Any) -> Response:
    """commentThreads.list by `id` or by `videoId` (one filter, as YouTube requires), the
    oldest first, `maxResults` (1-100, 20 by default) a page, paged with `pageToken`."""
    parts = _read_parts(request, THREAD_PARTS)
    if isinstance(parts, Response):
        return parts
    args = request.args
    if sum(name in args for name in ("id", "videoId", "allThreadsRelatedToChannelId", "channelId")) != 1:
        return bad_request("missingRequiredParameter", "No filter selected. Expected one of: id, videoId")
    if "id" in args:
        wanted = [ctx.state.find_comment("youtube", i) for i in args["id"].split(",") if i]
        return _list("commentThread", [_thread(c, parts) for c in wanted if c is not None])
    if "videoId" not in args:
        return bad_request("invalidValue", "This stand-in lists comment threads by id or videoId.")
    if not _present(ctx, args["videoId"]):
        return google_error(
            404,
            "videoNotFound",
            "The video identified by the videoId parameter could not be found.",
            "youtube.commentThread",
        )
    return _thread_page(ctx, request, parts, ctx.state.comments_of("youtube", args["videoId"]))


def _thread_page(ctx: Context, request: Request, parts: set[str], comments: list[Any]) -> Response:
    limit, start = request.args.get("maxResults", "20"), _page_offset(request.args.get("pageToken"))
    if not limit.isdigit() or not 1 <= int(limit) <= 100:
        return bad_request("invalidValue", "maxResults must be between 1 and 100.")
    if start is None:
        return bad_request("invalidPageToken", "The request specifies an invalid page token.")
    end = start + int(limit)
    items = [_thread(c, parts) for c in comments[start:end]]
    more = {"nextPageToken": _page_token(end)} if end < len(comments) else {}
    return _list("commentThread", items, total=len(comments), per_page=int(limit), **more)


@route("DELETE", "/www.googleapis.com/youtube/v3/comments")
@_signed_in
def delete_comment(ctx: Context, request: Request, account: str, **values: Any) -> Response:
    """comments.delete: only the comment's author deletes it; 204 with no body."""
    comment_id = request.args.get("id", "")
    if not comment_id:
        return bad_request("missingRequiredParameter", "No filter selected. Required parameter: id")
    comment = ctx.state.find_comment("youtube", comment_id)
    if comment is None:
        return google_error(
            404, "commentNotFound", "The comment identified by the id parameter could not be found.", "youtube.comment"
        )
    if comment.account != account:
        return google_error(403, "forbidden", "The comment could not be deleted: it is not yours.", "youtube.comment")
    return publish_outcome(ctx, "youtube", OUTCOME_REFUSALS, lambda _: _delete_comment(ctx, comment_id))


def _delete_comment(ctx: Context, comment_id: str) -> Response:
    ctx.state.remove_comment("youtube", comment_id)
    return Response(status=204)


# --- YouTube Analytics -----------------------------------------------------------------------

ANALYTICS_METRICS = {"views": "views", "likes": "likes", "comments": "comments", "shares": "shares"}


@route("GET", "/youtubeanalytics.googleapis.com/v2/reports")
@_signed_in
def analytics_report(ctx: Context, request: Request, account: str, **values: Any) -> Response:
    args = request.args
    metrics = [m for m in args.get("metrics", "").split(",") if m]
    missing = [n for n in ("ids", "startDate", "endDate", "metrics") if not args.get(n)]
    if missing or args.get("ids") != "channel==MINE" or set(metrics) - set(ANALYTICS_METRICS):
        return google_error(400, "badRequest", f"Query is invalid: {', '.join(missing) or 'ids or metrics'}.", "global")
    if args.get("dimensions") != "video" or not args.get("filters", "").startswith("video=="):
        return google_error(
            400, "badRequest", "This stand-in reports dimensions=video with a video== filter.", "global"
        )
    return json_response(_report(ctx, account, args["filters"].removeprefix("video==").split(","), metrics))


def _report(ctx: Context, account: str, video_ids: list[str], metrics: list[str]) -> dict[str, Any]:
    headers = [{"name": "video", "columnType": "DIMENSION", "dataType": "STRING"}]
    headers += [{"name": m, "columnType": "METRIC", "dataType": "INTEGER"} for m in metrics]
    videos = _store(ctx, "videos")
    owned = [v for v in video_ids if v in videos and videos[v]["account"] == account]
    rows = [[v, *(ctx.state.metrics_of("youtube", v)[ANALYTICS_METRICS[m]] for m in metrics)] for v in owned]
    return {"kind": "youtubeAnalytics#resultTable", "columnHeaders": headers, "rows": rows}


# --- Google OAuth 2.0 --------------------------------------------------------------------------

PROVIDER = oauth.Provider(
    "youtube",
    oauth.Page(
        "Sign in - Google Accounts", "{client} wants access to your Google Account", "Error 400: invalid_request", " "
    ),
    new_account=lambda: "UC" + secrets.token_urlsafe(17)[:22],
    wording=oauth.Wording(
        missing="Required parameter is missing: {first}",
        response_type="Required parameter is missing: response_type=code",
        method="Invalid code_challenge_method.",
    ),
    pkce=("S256", "plain"),
    pkce_default="plain",
    code_lifetime=60,
    code_prefix="4/",
    code_bytes=32,
    redirect=("state", "code", "scope"),
)
REFUSALS = {
    "form": ("invalid_request", "Invalid content type."),
    "client": ("invalid_client", "The OAuth client was not found."),
    "grant_type": ("unsupported_grant_type", "Invalid grant_type: {grant_type}"),
    "unknown": ("invalid_grant", "Malformed auth code."),
    "redirect_uri": ("redirect_uri_mismatch", "Bad Request"),
    "verifier": ("invalid_grant", "Invalid code verifier."),
    "refresh": ("invalid_grant", "Token has been expired or revoked."),
}


def _issue(grant: oauth.Grant) -> Response:
    """Google gives a refresh token for `access_type=offline` codes only, and never rotates it."""
    access, refresh = oauth.token_pair("youtube", grant.account, access=3599, refresh=180 * 86400)
    body = {"access_token": access, "expires_in": 3599, "scope": grant.scope, "token_type": "Bearer"}
    offline = grant.code is not None and grant.code.args.get("access_type") == "offline"
    return json_response({**body, **({"refresh_token": refresh} if offline else {})})


GRANTS = oauth.Grants(
    PROVIDER, functools.partial(oauth.form_client, secret=False), _issue, REFUSALS, refresh_scope=REFRESH_SCOPE
)


route("GET", "/accounts.google.com/o/oauth2/v2/auth")(oauth.authorize_endpoint(PROVIDER))
route("POST", "/oauth2.googleapis.com/token")(oauth.token_endpoint(GRANTS))


@route("POST", "/oauth2.googleapis.com/revoke")
def revoke(ctx: Context, request: Request) -> Response:
    """Google's revoke: the token (access or refresh) in the form or the query, no client
    authentication; either token ends the whole grant. One Google no longer honours is a 400."""
    token = request.form.get("token") or request.args.get("token", "")
    info = oauth.presented(ctx, token, "youtube") if token else "missing"
    if info == "missing":
        return _revoke_refusal("invalid_request", "Missing required parameter: token")
    if isinstance(info, str):
        return _revoke_refusal("invalid_token", "Token expired or revoked")
    oauth.revoke(ctx, token, info, grant=True)
    return json_response({})


def _revoke_refusal(error: str, description: str) -> Response:
    return json_response({"error": error, "error_description": description}, status=400)

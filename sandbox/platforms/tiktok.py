"""The TikTok stand-in: Content Posting API v2, Display API reads and Login Kit OAuth.

It answers with TikTok's own envelope, `{"data": ..., "error": {"code", "message", "log_id"}}`,
`error.code == "ok"` on success, and TikTok's error codes and statuses (400 `invalid_params`,
401 `access_token_invalid`, 403 posting refusals, 429 `rate_limit_exceeded`). TikTok documents
no rate-limit headers, so a 429 carries none. Strictness beyond TikTok's: unknown body fields
are refused (TikTok ignores them), so the client cannot lean on a misspelt field.

One outcome is taken per init call and applied where the post comes to exist: at the init for
PULL_FROM_URL videos and photos (the stand-in fetches every URL itself, at once, and a fetch or
type failure makes the job FAILED with `video_pull_failed`/`photo_pull_failed`/
`file_format_check_failed`, as TikTok reports it asynchronously), and at the last chunk for
FILE_UPLOAD. `processing` reports PROCESSING_UPLOAD/PROCESSING_DOWNLOAD for the next 3 status
checks, then PUBLISH_COMPLETE and the post exists.

Deviations kept on purpose: moderation is instant and `publicaly_available_post_id` is given for
every privacy level (TikTok gives it for public posts only); an inbox (MEDIA_UPLOAD) upload
reports SEND_TO_USER_INBOX once and then PUBLISH_COMPLETE, as if the creator finished the draft at
once; pull URLs may be plain http on loopback (TikTok wants https on a verified domain). The
creator is offered every privacy level (an audited app).
"""

from __future__ import annotations

import datetime as dt
import functools
import re
import secrets
import time
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlencode

from werkzeug.wrappers import Request, Response

from sandbox import media, oauth, tokens
from sandbox.http import Context, Endpoint, bearer_account, fields_problem, json_body, json_response, routes, signed_in
from sandbox.media import MB
from sandbox.state import SandboxPost

PLATFORM = "tiktok"
UPLOAD_HOST = "https://open-upload.tiktokapis.com/video/"
PRIVACY_LEVELS = ("PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "FOLLOWER_OF_CREATOR", "SELF_ONLY")
MAX_VIDEO_SECONDS = 600
VIDEO_TYPES = ("video/mp4", "video/quicktime", "video/webm")
PHOTO_MAX, VIDEO_MAX = 20 * MB, 4096 * MB
MIN_CHUNK, MAX_CHUNK, LAST_CHUNK_MAX = 5 * MB, 64 * MB, 128 * MB
VIDEO_INFO = {
    "title": str, "privacy_level": str, "disable_duet": bool, "disable_comment": bool, "disable_stitch": bool,
    "video_cover_timestamp_ms": int, "brand_content_toggle": bool, "brand_organic_toggle": bool, "is_aigc": bool,
}  # fmt: skip
PHOTO_INFO = {
    "title": str, "description": str, "privacy_level": str, "disable_comment": bool, "auto_add_music": bool,
    "brand_content_toggle": bool, "brand_organic_toggle": bool,
}  # fmt: skip
VIDEO_FIELDS = frozenset(
    {
        "id", "create_time", "cover_image_url", "share_url", "video_description", "duration", "height", "width",
        "title", "embed_html", "embed_link", "like_count", "comment_count", "share_count", "view_count",
    }
)  # fmt: skip
VIDEO_SOURCE = {"source": str, "video_size": int, "chunk_size": int, "total_chunk_count": int, "video_url": str}
PHOTO_SOURCE = {"source": str, "photo_images": list, "photo_cover_index": int}
PHOTO_BODY = {"post_info": dict, "source_info": dict, "post_mode": str, "media_type": str, "is_aigc": bool}
USER_FIELDS = frozenset({"open_id", "union_id", "avatar_url", "display_name", "username"})
SCOPES = frozenset(
    {"user.info.basic", "user.info.profile", "user.info.stats", "video.publish", "video.upload", "video.list"}
)


API = "/open.tiktokapis.com/v2"
RULES, route = routes()  # the endpoints below, each declared with @route


# --- answers ---------------------------------------------------------------------------------


def _log_id() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y%m%d%H%M%S") + secrets.token_hex(8).upper()


def ok(data: Any) -> Response:
    return json_response({"data": data, "error": {"code": "ok", "message": "", "log_id": _log_id()}})


def error(status: int, code: str, message: str) -> Response:
    return json_response({"data": {}, "error": {"code": code, "message": message, "log_id": _log_id()}}, status=status)


def invalid(message: str) -> Response:
    return error(400, "invalid_params", message)


_account = bearer_account(
    PLATFORM, lambda why: error(401, "access_token_invalid", "The access token is invalid or not found in the request.")
)

_signed_in = signed_in(_account)


def _jobs(ctx: Context) -> dict[str, Any]:
    return ctx.state.store(PLATFORM, "jobs")


def _utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


# --- request checks --------------------------------------------------------------------------


def _fields_problem(value: Any, schema: Mapping[str, type], where: str) -> str:
    problem = fields_problem(value, schema, f"{where} has unknown fields: {{names}}.", f"{where} must be an object.")
    if problem:
        return problem
    for name, kind in schema.items():
        if name in value and not (
            isinstance(value[name], kind) and (kind is bool or not isinstance(value[name], bool))
        ):
            return f"{where}.{name} must be a {kind.__name__}."
    return ""


def _privacy_problem(info: dict[str, Any], required: bool) -> str:
    level = info.get("privacy_level")
    if level is None and not required:
        return ""
    if level not in PRIVACY_LEVELS:
        return f"post_info.privacy_level must be one of {', '.join(PRIVACY_LEVELS)}."
    if info.get("brand_content_toggle") is True and level == "SELF_ONLY":
        return "Branded content cannot be posted with privacy_level SELF_ONLY."
    return ""


def _video_info_problem(info: Any) -> str:
    problem = _fields_problem(info, VIDEO_INFO, "post_info")
    if not problem and _utf16(info.get("title", "")) > 2200:
        problem = "post_info.title must be at most 2200 characters."
    return problem or _privacy_problem(info, required=True)


def _file_source_problem(source: dict[str, Any]) -> str:
    values = [source.get(k) for k in ("video_size", "chunk_size", "total_chunk_count")]
    if not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in values):
        return "source_info needs video_size, chunk_size and total_chunk_count (positive integers)."
    size, chunk, count = (int(v or 0) for v in values)
    if size > VIDEO_MAX:
        return "video_size must be at most 4 GB."
    if size < MIN_CHUNK and (chunk != size or count != 1):
        return "A video under 5 MB must be uploaded as one chunk of video_size bytes."
    if size >= MIN_CHUNK and not MIN_CHUNK <= chunk <= MAX_CHUNK:
        return "chunk_size must be between 5 MB and 64 MB."
    if count != max(1, size // chunk) or count > 1000 or size - (count - 1) * chunk > LAST_CHUNK_MAX:
        return "total_chunk_count must be floor(video_size / chunk_size), at most 1000."
    return ""


def _video_source_problem(source: Any) -> str:
    problem = _fields_problem(source, VIDEO_SOURCE, "source_info")
    if problem:
        return problem
    if source.get("source") == "FILE_UPLOAD":
        return "source_info.video_url is only for PULL_FROM_URL." if "video_url" in source else ""
    if source.get("source") == "PULL_FROM_URL":
        url = source.get("video_url", "")
        return "" if re.match(r"https?://", url) else "source_info.video_url must be an http(s) URL."
    return "source_info.source must be FILE_UPLOAD or PULL_FROM_URL."


def _photo_problem(body: Any) -> str:
    problem = _fields_problem(body, PHOTO_BODY, "body")
    if problem:
        return problem
    if body.get("media_type") != "PHOTO" or body.get("post_mode") not in ("DIRECT_POST", "MEDIA_UPLOAD"):
        return "media_type must be PHOTO and post_mode DIRECT_POST or MEDIA_UPLOAD."
    info = body.get("post_info", {})
    problem = _fields_problem(info, PHOTO_INFO, "post_info")
    if problem:
        return problem
    if _utf16(info.get("title", "")) > 90 or _utf16(info.get("description", "")) > 4000:
        return "post_info.title is at most 90 characters and post_info.description at most 4000."
    return _privacy_problem(info, required=body["post_mode"] == "DIRECT_POST") or _photo_source_problem(
        body.get("source_info")
    )


def _photo_source_problem(source: Any) -> str:
    problem = _fields_problem(source, PHOTO_SOURCE, "source_info")
    if problem:
        return problem
    images = source.get("photo_images")
    if source.get("source") != "PULL_FROM_URL":
        return "source_info.source must be PULL_FROM_URL for photos."
    if not isinstance(images, list) or not 1 <= len(images) <= 35 or not all(isinstance(u, str) for u in images):
        return "source_info.photo_images must hold 1 to 35 URLs."
    cover = source.get("photo_cover_index", 0)
    return "" if 0 <= cover < len(images) else "source_info.photo_cover_index is out of range."


# --- media pulls -----------------------------------------------------------------------------


def _pull_failure(urls: list[str], photo: bool) -> str:
    """TikTok's fail_reason for the pulled files, or "" when every one is usable."""
    limit = PHOTO_MAX if photo else VIDEO_MAX
    for url in urls:
        data = media.fetch(url, limit)
        if isinstance(data, str):
            return "photo_pull_failed" if photo else "video_pull_failed"
        kind = media.sniff(data)
        wanted = ("image/jpeg", "image/webp") if photo else VIDEO_TYPES
        if kind not in wanted or len(data) > limit:
            return "file_format_check_failed" if kind not in wanted else "picture_size_check_failed"
    return ""


# --- jobs ------------------------------------------------------------------------------------


def _new_job(ctx: Context, account: str, kind: str, **facts: Any) -> tuple[str, dict[str, Any]]:
    job_id = ctx.state.next_id()
    prefix = "p_pub_url" if kind == "photo" else f"v_{'inbox' if facts.get('inbox') else 'pub'}_{facts['source']}"
    publish_id = f"{prefix}~v2.{job_id}"
    job = {"account": account, "kind": kind, "state": "uploading", "pending": 0, "post_id": "", **facts}
    _jobs(ctx)[publish_id] = job
    return publish_id, job


def _complete(ctx: Context, job: dict[str, Any]) -> None:
    """The file is in: apply the job's outcome (the post exists now, or after 3 checks)."""
    failure = job.pop("failure", "")
    if failure:
        job.update(state="failed", fail_reason=failure)
    elif job["outcome"] == "processing":
        job.update(state="processing", pending=3)
    else:
        _finish(ctx, job)
    if job["outcome"] == "timeout":
        ctx.hold()


def _finish(ctx: Context, job: dict[str, Any]) -> None:
    post = ctx.state.add_post(
        PLATFORM, job["account"], job["text"], job["media_count"], kind=job["kind"], title=job.get("title", ""),
        request=job["request"],
    )  # fmt: skip
    job.update(state="inbox" if job.get("inbox") else "done", post_id=post.id)


def _refusal(ctx: Context) -> tuple[str, Response | None]:
    """The queued outcome, and the answer it calls for when it refuses the call."""
    outcome = ctx.state.take_outcome(PLATFORM)
    if outcome == "error":
        return outcome, error(403, "spam_risk_user_banned_from_posting", "The user is banned from making new posts.")
    if outcome == "rate_limited":
        return outcome, error(429, "rate_limit_exceeded", "The API rate limit was exceeded. Please try again later.")
    return outcome, None


# --- creator info and init -------------------------------------------------------------------


CREATOR_DEFAULTS: dict[str, Any] = {
    "privacy_level_options": list(PRIVACY_LEVELS),
    "comment_disabled": False,
    "duet_disabled": False,
    "stitch_disabled": False,
    "max_video_post_duration_sec": MAX_VIDEO_SECONDS,
}


def creator_settings(ctx: Context, account: str) -> dict[str, Any]:
    """What creator_info/query says of the account: the defaults, or what `set_creator` set."""
    return {**CREATOR_DEFAULTS, **ctx.state.store(PLATFORM, "creators").get(account, {})}


def set_creator(ctx: Context, account: str, settings: dict[str, Any]) -> dict[str, Any]:
    """Change what the creator is offered (the control API's `/_sandbox/tiktok/creator`)."""
    with ctx.state.lock:
        ctx.state.store(PLATFORM, "creators")[account] = {**creator_settings(ctx, account), **settings}
    return creator_settings(ctx, account)


def _mismatch(ctx: Context, account: str, info: dict[str, Any]) -> Response | None:
    level = info.get("privacy_level")
    if level is None or level in creator_settings(ctx, account)["privacy_level_options"]:
        return None
    return error(403, "privacy_level_option_mismatch", f"The privacy level {level} is not offered to this creator.")


@route("POST", f"{API}/post/publish/creator_info/query/")
@_signed_in
def creator_info(ctx: Context, request: Request, account: str, **values: Any) -> Response:
    handle = _handle(account)
    return ok(
        {
            "creator_avatar_url": f"https://p16-sign.tiktokcdn.com/sandbox/{handle}.jpeg",
            "creator_username": handle,
            "creator_nickname": f"Sandbox {handle}",
            **creator_settings(ctx, account),
        }
    )


def _handle(account: str) -> str:
    return re.sub(r"[^a-z0-9_.]", "_", account.lower())[:24] or "creator"


@route("POST", f"{API}/post/publish/video/init/")
@_signed_in
def video_init(ctx: Context, request: Request, account: str, **values: Any) -> Response:
    return _video_init(ctx, request, account, inbox=False)


@route("POST", f"{API}/post/publish/inbox/video/init/")
@_signed_in
def inbox_video_init(ctx: Context, request: Request, account: str, **values: Any) -> Response:
    return _video_init(ctx, request, account, inbox=True)


def _video_body_problem(body: Any, inbox: bool) -> str:
    top = {"source_info": dict} if inbox else {"source_info": dict, "post_info": dict}
    problem = _fields_problem(body, top, "body")
    if problem:
        return problem
    if set(top) - set(body):
        return f"{' and '.join(top)} required."
    source = body["source_info"]
    problem = _video_source_problem(source)
    if not problem and source["source"] == "FILE_UPLOAD":
        problem = _file_source_problem(source)
    return problem or ("" if inbox else _video_info_problem(body["post_info"]))


def _video_init(ctx: Context, request: Request, account: str, *, inbox: bool) -> Response:
    body = json_body(request)
    problem = _video_body_problem(body, inbox)
    if problem:
        return invalid(problem)
    mismatch = None if inbox else _mismatch(ctx, account, body["post_info"])
    if mismatch is not None:
        return mismatch
    outcome, refusal = _refusal(ctx)
    if refusal is not None:
        return refusal
    source = body["source_info"]
    facts = {"inbox": inbox, "text": "" if inbox else body["post_info"].get("title", ""), "media_count": 1}
    kind = "file" if source["source"] == "FILE_UPLOAD" else "url"
    publish_id, job = _new_job(ctx, account, "video", source=kind, outcome=outcome, request=body, **facts)
    if kind == "url":
        job["failure"] = _pull_failure([source["video_url"]], photo=False)
        _complete(ctx, job)
        return ok({"publish_id": publish_id})
    return ok({"publish_id": publish_id, "upload_url": _open_upload(ctx, job, source)})


def _open_upload(ctx: Context, job: dict[str, Any], source: dict[str, Any]) -> str:
    """An upload session for the job; its URL is valid for one hour, as TikTok's."""
    upload_id, token = ctx.state.next_id(), secrets.token_urlsafe(12)
    job.update(upload_token=token, received=0, head=b"", expires=time.time() + 3600)
    job.update({k: source[k] for k in ("video_size", "chunk_size", "total_chunk_count")})
    ctx.state.store(PLATFORM, "uploads")[upload_id] = job
    return f"{UPLOAD_HOST}?{urlencode({'upload_id': upload_id, 'upload_token': token})}"


@route("POST", f"{API}/post/publish/content/init/")
@_signed_in
def content_init(ctx: Context, request: Request, account: str, **values: Any) -> Response:
    body = json_body(request)
    problem = _photo_problem(body)
    if problem:
        return invalid(problem)
    mismatch = _mismatch(ctx, account, body["post_info"])
    if mismatch is not None:
        return mismatch
    outcome, refusal = _refusal(ctx)
    if refusal is not None:
        return refusal
    info, images = body["post_info"], body["source_info"]["photo_images"]
    facts = {"text": info.get("description", ""), "title": info.get("title", ""), "media_count": len(images)}
    inbox = body["post_mode"] == "MEDIA_UPLOAD"
    publish_id, job = _new_job(ctx, account, "photo", source="url", inbox=inbox, outcome=outcome, request=body, **facts)
    job["failure"] = _pull_failure(images, photo=True)
    _complete(ctx, job)
    return ok({"publish_id": publish_id})


# --- chunk upload ----------------------------------------------------------------------------

_RANGE = re.compile(r"bytes (\d+)-(\d+)/(\d+)")


def _upload_job(ctx: Context, request: Request) -> dict[str, Any] | None:
    job: dict[str, Any] | None = ctx.state.store(PLATFORM, "uploads").get(request.args.get("upload_id", ""))
    if job is None or job.get("upload_token") != request.args.get("upload_token") or job["state"] != "uploading":
        return None
    return job if job["expires"] > time.time() else None


def _range_problem(job: dict[str, Any], request: Request, size: int) -> str:
    match = _RANGE.fullmatch(request.headers.get("Content-Range", ""))
    if match is None:
        return "Content-Range must be bytes first-last/total."
    first, last, total = map(int, match.groups())
    index = job["received"] // job["chunk_size"]
    final = index == job["total_chunk_count"] - 1
    expected = job["video_size"] - job["received"] if final else job["chunk_size"]
    if total != job["video_size"] or first != job["received"] or last - first + 1 != size or size != expected:
        return f"Expected bytes {job['received']}-{job['received'] + expected - 1}/{job['video_size']}."
    return ""


@route("PUT", "/open-upload.tiktokapis.com/video/")
def upload_chunk(ctx: Context, request: Request, **values: Any) -> Response:
    job = _upload_job(ctx, request)
    if job is None:
        return Response("The upload URL is invalid or has expired.", status=403)
    if request.mimetype not in VIDEO_TYPES:
        return Response(f"Content-Type must be one of {', '.join(VIDEO_TYPES)}.", status=400)
    data = request.get_data(cache=True)
    problem = _range_problem(job, request, len(data))
    if problem:
        return Response(problem, status=416, headers={"Content-Range": f"bytes */{job['video_size']}"})
    job["head"] = job["head"] or data[:16]
    job["received"] += len(data)
    if job["received"] < job["video_size"]:
        return Response(status=206, headers={"Range": f"bytes=0-{job['received'] - 1}"})
    if media.sniff(job["head"]) not in VIDEO_TYPES:
        job["failure"] = "file_format_check_failed"
    _complete(ctx, job)
    return Response(status=201)


# --- status ----------------------------------------------------------------------------------


@route("POST", f"{API}/post/publish/status/fetch/")
@_signed_in
def status_fetch(ctx: Context, request: Request, account: str, **values: Any) -> Response:
    body = json_body(request)
    problem = _fields_problem(body, {"publish_id": str}, "body")
    job = _jobs(ctx).get(body.get("publish_id", "")) if not problem else None
    if job is None or job["account"] != account:
        return invalid(problem or "publish_id is invalid.")
    return ok(_status_of(ctx, job))


def _status_of(ctx: Context, job: dict[str, Any]) -> dict[str, Any]:
    """One status check: processing jobs count down, inbox drafts get finished by the creator."""
    with ctx.state.lock:
        if job["state"] == "processing":
            if not media.check_done(job, "pending"):
                return _status_body(job, "PROCESSING_UPLOAD" if job["source"] == "file" else "PROCESSING_DOWNLOAD")
            _finish(ctx, job)
        if job["state"] == "inbox":
            job["state"] = "inbox_seen"
            return _status_body(job, "SEND_TO_USER_INBOX")
        return _status_body(
            job, {"uploading": "PROCESSING_UPLOAD", "failed": "FAILED"}.get(job["state"], "PUBLISH_COMPLETE")
        )


def _status_body(job: dict[str, Any], status: str) -> dict[str, Any]:
    data: dict[str, Any] = {"status": status}
    if status == "FAILED":
        data["fail_reason"] = job.get("fail_reason", "internal")
    if status == "PUBLISH_COMPLETE":
        data["publicaly_available_post_id"] = [int(job["post_id"])]
    if job["source"] == "file":
        data["uploaded_bytes"] = job.get("received", 0)
    else:
        data["downloaded_bytes"] = 0 if status.startswith("PROCESSING") else job.get("video_size", 0)
    return data


# --- Display API reads -----------------------------------------------------------------------


def _reads(allowed: frozenset[str]) -> Callable[[Endpoint], Endpoint]:
    """A Display API read: the token's account, then `fields` naming only what `allowed` has; the
    endpoint is handed both."""

    def account_and_fields(ctx: Context, request: Request, **values: Any) -> tuple[str, list[str]] | Response:
        account = _account(ctx, request)
        if isinstance(account, Response):
            return account
        fields = [f for f in request.args.get("fields", "").split(",") if f]
        if not fields or not set(fields) <= allowed:
            return invalid(f"fields must be a comma-separated list of {', '.join(sorted(allowed))}.")
        return account, fields

    return signed_in(account_and_fields)


def _created(post: SandboxPost) -> int:
    return int(dt.datetime.fromisoformat(post.created_at.replace("Z", "+00:00")).timestamp())


def _video(ctx: Context, post: SandboxPost, fields: list[str]) -> dict[str, Any]:
    counts = ctx.state.metrics_of(PLATFORM, post.id)
    kind = "photo" if post.extra.get("kind") == "photo" else "video"
    full: dict[str, Any] = {
        "id": post.id, "create_time": _created(post), "title": post.extra.get("title") or post.text,
        "video_description": post.text, "share_url": f"https://www.tiktok.com/@{_handle(post.account)}/{kind}/{post.id}",
        "view_count": counts["views"], "like_count": counts["likes"], "comment_count": counts["comments"],
        "share_count": counts["shares"], "duration": 0, "height": 1920, "width": 1080,
        "cover_image_url": f"https://p16-sign.tiktokcdn.com/sandbox/{post.id}.jpeg",
        "embed_link": f"https://www.tiktok.com/player/v1/{post.id}", "embed_html": "",
    }  # fmt: skip
    return {name: full[name] for name in fields}


@route("POST", f"{API}/video/list/")
@_reads(VIDEO_FIELDS)
def video_list(ctx: Context, request: Request, read: tuple[str, list[str]], **values: Any) -> Response:
    (account, fields), body = read, json_body(request)
    problem = _fields_problem(body if body is not None else {}, {"cursor": int, "max_count": int}, "body")
    count = (body or {}).get("max_count", 10)
    if problem or not 1 <= count <= 20:
        return invalid(problem or "max_count must be between 1 and 20.")
    cursor = (body or {}).get("cursor") or int(time.time() * 1000) + 1
    posts = [p for p in reversed(ctx.state.posts_of(PLATFORM)) if p.account == account and _created(p) * 1000 < cursor]
    page = posts[:count]
    next_cursor = _created(page[-1]) * 1000 if page else cursor
    videos = [_video(ctx, p, fields) for p in page]
    return ok({"videos": videos, "cursor": next_cursor, "has_more": len(posts) > count})


@route("POST", f"{API}/video/query/")
@_reads(VIDEO_FIELDS)
def video_query(ctx: Context, request: Request, read: tuple[str, list[str]], **values: Any) -> Response:
    (account, fields), body = read, json_body(request)
    filters = body.get("filters") if isinstance(body, dict) else None
    ids = filters.get("video_ids") if isinstance(filters, dict) else None
    if not isinstance(ids, list) or not 1 <= len(ids) <= 20 or not all(isinstance(i, str) for i in ids):
        return invalid("filters.video_ids must hold 1 to 20 video ids (strings).")
    found = [ctx.state.find_post(PLATFORM, i) for i in ids]
    videos = [_video(ctx, p, fields) for p in found if p is not None and p.account == account]
    return ok({"videos": videos, "cursor": 0, "has_more": False})


@route("GET", f"{API}/user/info/")
@_reads(USER_FIELDS)
def user_info(ctx: Context, request: Request, read: tuple[str, list[str]], **values: Any) -> Response:
    account, fields = read
    user = {
        "open_id": account, "union_id": f"union-{account}", "display_name": f"Sandbox {_handle(account)}",
        "avatar_url": f"https://p16-sign.tiktokcdn.com/sandbox/{_handle(account)}.jpeg", "username": _handle(account),
    }  # fmt: skip
    return ok({"user": {name: user[name] for name in fields}})


# --- OAuth (Login Kit) -----------------------------------------------------------------------


def _scope_problem(scope: str) -> str:
    unknown = set(scope.split(",")) - SCOPES
    return f"Unknown scopes: {', '.join(sorted(unknown))}." if unknown else ""


PROVIDER = oauth.Provider(
    PLATFORM,
    oauth.Page("Authorize app", "{client} wants to access your TikTok account", "Something went wrong", scopes=","),
    new_account=lambda: f"open-{secrets.token_hex(8)}",
    required=("client_key", "scope", "redirect_uri", "state"),
    client_param="client_key",
    scope_problem=_scope_problem,
    pkce=("S256",),
    hex_challenge=True,
    code_lifetime=300,
    redirect=("code", "scopes", "state"),
)
REFUSALS = {
    "form": ("invalid_request", "The body must be form-encoded."),
    "client": ("invalid_client", "client_key and client_secret are required."),
    "grant_type": ("unsupported_grant_type", "Unsupported grant_type."),
    "unknown": ("invalid_grant", "Authorization code is expired or invalid."),
    "client_id": ("invalid_client", "client_key does not match the authorization."),
    "verifier": ("invalid_grant", "Code verifier or code challenge is invalid."),
    "refresh": ("invalid_grant", "Refresh token is invalid or expired."),
}


def _issue(grant: oauth.Grant) -> Response:
    access, refresh = oauth.token_pair(PLATFORM, grant.account, access=7200, refresh=180 * 86400)
    body = {"access_token": access, "expires_in": 7200, "open_id": grant.account, "refresh_expires_in": 180 * 86400}
    return json_response({**body, "refresh_token": refresh, "scope": grant.scope, "token_type": "Bearer"})


GRANTS = oauth.Grants(
    PROVIDER,
    functools.partial(oauth.form_client, name="client_key"),
    _issue,
    refuse=lambda reason, form: oauth.refusal(REFUSALS, reason, form, log_id=_log_id()),
    refresh_scope=",".join(sorted(SCOPES)),
    rotate=True,  # TikTok rotates refresh tokens: the old one stops working
)


route("POST", f"{API}/oauth/token/")(oauth.token_endpoint(GRANTS))
route("GET", "/www.tiktok.com/v2/auth/authorize/")(oauth.authorize_endpoint(PROVIDER))

REVOKE_REFUSALS = {**REFUSALS, "token": ("invalid_request", "The access token is invalid or not found in the request.")}


@route("POST", f"{API}/oauth/revoke/")
def revoke(ctx: Context, request: Request) -> Response:
    """Revoke an access token: the app is disconnected from the creator's account, so every
    token of it stops working. The app authenticates with its key and secret in the form."""
    info = _revoke_problem(ctx, request)
    if isinstance(info, str):
        return oauth.refusal(REVOKE_REFUSALS, info, request.form, log_id=_log_id())
    oauth.revoke(ctx, request.form["token"], info, grant=True)
    return json_response({})


def _revoke_problem(ctx: Context, request: Request) -> tokens.TokenInfo | str:
    if request.mimetype != oauth.FORM:
        return "form"
    if oauth.form_client(request, "client_key") is None:
        return "client"
    info = oauth.presented(ctx, request.form.get("token", ""), PLATFORM)
    return "token" if isinstance(info, str) else info

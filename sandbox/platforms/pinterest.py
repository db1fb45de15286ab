"""The Pinterest (API v5) stand-in: the endpoints the Pinterest client calls, as strict as Pinterest.

It answers with Pinterest's own shapes (specs/pinterest/openapi.json, v5.23): `{code, message}`
errors, `Pin` objects, paginated `{items, bookmark}` lists, the media registration + S3 POST
upload + status protocol, pin analytics, and OAuth 2.0 with HTTP Basic client authentication and
rotating ("continuous") refresh tokens; a pin is deleted with `DELETE /v5/pins/{id}` (204), after
which every read of it is a 404. Images are really fetched from the `image_url`s the pin
names (urllib, short timeout) and checked by their magic bytes and size; an uploaded video must
be an ISO BMFF file.

Every account has the board 549755885175, "Demo board" (CONTRACT.md); beyond the contract,
`POST /_sandbox/pinterest/boards` gives an account more (`add_boards`), and `GET /v5/boards` pages
through them with `bookmark` as Pinterest does. The outcome of a publish is taken by
`POST /v5/pins`; a queued `processing` is taken earlier, by `POST /v5/media` of a video, whose
status then reads `processing` for 3 checks before `succeeded` (an image pin is synchronous,
so `processing` acts as `ok` there). Pinterest's numeric error codes for the refusals the
sandbox makes up (403 for `error`, 429) follow the codes seen in Pinterest's answers; they
are not all documented. Not modelled: carousel image dimensions (the client checks them),
board sections, secret boards, and `pin_url`/base64 media sources.
"""

from __future__ import annotations

import base64
import datetime as dt
import html
import json
import secrets
import time
from typing import Any

from werkzeug.wrappers import Request, Response

from sandbox import media, oauth
from sandbox.http import (
    Context,
    bearer_account,
    fields_problem,
    json_body,
    json_response,
    publish_outcome,
    routes,
    signed_in,
)
from sandbox.media import MB
from sandbox.state import SandboxPost

PLATFORM = "pinterest"
BOARD_ID = "549755885175"
S3_HOST = "pinterest-media-upload.s3-accelerate.amazonaws.com"
IMAGE_MAX_BYTES = 20 * MB
VIDEO_MAX_BYTES = 2048 * MB
SLOW_CHECKS = 3
PIN_FIELDS = frozenset(
    {
        "alt_text", "board_id", "board_section_id", "description", "dominant_color", "link", "media_source",
        "parent_pin_id", "sponsor_id", "title", "note",
    }
)  # fmt: skip
STRING_LIMITS = {"title": 100, "description": 800, "link": 2048, "alt_text": 500, "note": 500, "dominant_color": 16}
IMAGE_MAGIC = ((b"\x89PNG", "image/png"), (b"\xff\xd8\xff", "image/jpeg"), (b"GIF8", "image/gif"), (b"BM", "image/bmp"))
METRICS = frozenset(
    {
        "IMPRESSION", "OUTBOUND_CLICK", "PIN_CLICK", "SAVE", "SAVE_RATE", "TOTAL_COMMENTS", "TOTAL_REACTIONS",
        "USER_FOLLOW", "PROFILE_VISIT", "VIDEO_MRC_VIEW", "VIDEO_10S_VIEW", "QUARTILE_95_PERCENT_VIEW",
        "VIDEO_V50_WATCH_TIME", "VIDEO_START", "VIDEO_AVG_WATCH_TIME",
    }
)  # fmt: skip
LIFETIME_METRICS = frozenset({"TOTAL_COMMENTS", "TOTAL_REACTIONS"})


API = "/api.pinterest.com/v5"
RULES, route = routes()  # the endpoints below, each declared with @route


# --- answers ---------------------------------------------------------------------------------


def error(status: int, code: int, message: str, headers: dict[str, str] | None = None) -> Response:
    return json_response({"code": code, "message": message}, status=status, headers=headers)


def invalid(message: str) -> Response:
    return error(400, 1, message)


def unauthorized() -> Response:
    return json_response({"code": 2, "message": "Authentication failed.", "status": "failure"}, status=401)


def rate_limited() -> Response:
    headers = {
        "Retry-After": "60",
        "x-ratelimit-limit": "100",
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset": str(int(time.time()) + 60),
    }
    return error(429, 8, "You have exceeded your rate limit. Try again later.", headers)


_account = bearer_account(PLATFORM, lambda why: unauthorized())
_signed_in = signed_in(_account)
OUTCOME_REFUSALS = {
    "error": lambda: error(403, 29, "You are not permitted to access that resource."),
    "rate_limited": rate_limited,
}


def _is_digits(value: object) -> bool:
    return isinstance(value, str) and value.isascii() and value.isdigit()


def _objects(ctx: Context, kind: str) -> dict[str, Any]:
    return ctx.state.store(PLATFORM, kind)


def _pin(post: SandboxPost) -> dict[str, Any]:
    body = post.extra["request"]
    media_type = post.extra["media_type"]
    return {
        "id": post.id,
        "created_at": post.created_at.removesuffix("Z").split(".")[0],
        "board_id": body["board_id"],
        "board_owner": {"username": f"sandbox_{post.account}"},
        "board_section_id": None,
        "title": body.get("title"),
        "description": body.get("description"),
        "link": body.get("link"),
        "alt_text": body.get("alt_text"),
        "dominant_color": None,
        "parent_pin_id": None,
        "creative_type": "VIDEO"
        if media_type == "video"
        else "CAROUSEL"
        if media_type == "multiple_images"
        else "REGULAR",
        "has_been_promoted": False,
        "is_owner": True,
        "is_standard": True,
        "media": {"media_type": media_type},
        "pin_metrics": None,
    }


# --- media pulled from URLs ------------------------------------------------------------------


def _fetch(url: object) -> bytes | str:
    """The bytes at `url`, or why Pinterest could not use them."""
    data = media.fetch(url, IMAGE_MAX_BYTES)
    if data == media.NOT_HTTP:
        return "url must be an http(s) URL."
    if isinstance(data, str):
        return f"Sorry, we could not fetch the image at {url}."
    return data if len(data) <= IMAGE_MAX_BYTES else "The image is larger than 20 MB."


def _image_type(data: bytes) -> str | None:
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if data[:4] in (b"II*\x00", b"MM\x00*"):
        return "image/tiff"
    return next((kind for magic, kind in IMAGE_MAGIC if data.startswith(magic)), None)


def _image_problem(url: object) -> str:
    data = _fetch(url)
    if isinstance(data, str):
        return data
    return "" if _image_type(data) else f"The file at {url} is not an image Pinterest accepts."


# --- creating pins ---------------------------------------------------------------------------


def _body_problem(body: Any) -> str:
    problem = fields_problem(body, PIN_FIELDS, "Unknown field(s): {names}.")
    if problem:
        return problem
    if not _is_digits(body.get("board_id")):
        return "board_id is required and must be a string of digits."
    for name, limit in STRING_LIMITS.items():
        value = body.get(name)
        if value is not None and (not isinstance(value, str) or len(value) > limit):
            return f"{name} must be a string of at most {limit} characters."
    return ""


def _source_problem(ctx: Context, account: str, source: Any) -> str:
    if not isinstance(source, dict):
        return "media_source is required."
    kind = source.get("source_type")
    if kind == "image_url":
        return _image_problem(source.get("url"))
    if kind == "multiple_image_urls":
        return _carousel_problem(source)
    if kind == "video_id":
        return _video_source_problem(ctx, account, source)
    return "media_source.source_type must be image_url, multiple_image_urls or video_id."


def _carousel_problem(source: dict[str, Any]) -> str:
    items = source.get("items")
    if not isinstance(items, list) or not 2 <= len(items) <= 5 or not all(isinstance(i, dict) for i in items):
        return "media_source.items must hold 2 to 5 images."
    return next((p for p in (_image_problem(i.get("url")) for i in items) if p), "")


def _video_source_problem(ctx: Context, account: str, source: dict[str, Any]) -> str:
    upload = _objects(ctx, "media").get(str(source.get("media_id")))
    if not _is_digits(source.get("media_id")) or upload is None or upload["account"] != account:
        return "media_id is not a media upload of this user."
    if upload["status"] != "succeeded":
        return "The video has not finished processing."
    frame = source.get("cover_image_key_frame_time")
    if frame is not None and (not isinstance(frame, int) or isinstance(frame, bool) or frame < 0):
        return "cover_image_key_frame_time must be a whole number of seconds."
    return ""


@route("POST", f"{API}/pins")
@_signed_in
def create_pin(ctx: Context, request: Request, account: str, **values: Any) -> Response:
    body = json_body(request)
    reason = _body_problem(body) or _source_problem(ctx, account, body.get("media_source"))
    if reason:
        return invalid(reason)
    if _board(ctx, account, body["board_id"]) is None:
        return error(404, 40, "Board not found.")
    return publish_outcome(ctx, PLATFORM, OUTCOME_REFUSALS, lambda _: _create(ctx, account, body))


def _create(ctx: Context, account: str, body: dict[str, Any]) -> Response:
    source = body["media_source"]
    kind = {"image_url": "image", "multiple_image_urls": "multiple_images", "video_id": "video"}[source["source_type"]]
    count = len(source["items"]) if kind == "multiple_images" else 1
    post = ctx.state.add_post(PLATFORM, account, body.get("description") or "", count, request=body, media_type=kind)
    return json_response(_pin(post), status=201)


# --- video upload ----------------------------------------------------------------------------


@route("POST", f"{API}/media")
@_signed_in
def register_media(ctx: Context, request: Request, account: str, **values: Any) -> Response:
    body = json_body(request)
    if not isinstance(body, dict) or set(body) != {"media_type"} or body["media_type"] != "video":
        return invalid("media_type is required and must be video.")
    media_id, key = ctx.state.next_id(), f"uploads/{secrets.token_hex(4)}/{account}:video"
    policy = base64.b64encode(json.dumps({"key": key}).encode()).decode()
    slow = SLOW_CHECKS if ctx.state.take_outcome_if(PLATFORM, "processing") else 0  # this video's outcome
    _objects(ctx, "media")[media_id] = {
        "account": account, "key": key, "policy": policy, "status": "registered", "slow": slow,
    }  # fmt: skip
    return json_response(
        {
            "media_id": media_id,
            "media_type": "video",
            "upload_url": f"https://{S3_HOST}/",
            "upload_parameters": _s3_fields(key, policy),
        },
        status=201,
    )


def _s3_fields(key: str, policy: str) -> dict[str, str]:
    now = dt.datetime.now(dt.UTC)
    return {
        "key": key,
        "policy": policy,
        "x-amz-algorithm": "AWS4-HMAC-SHA256",
        "x-amz-credential": f"ASIASANDBOX/{now:%Y%m%d}/us-east-1/s3/aws4_request",
        "x-amz-date": f"{now:%Y%m%dT%H%M%SZ}",
        "x-amz-security-token": secrets.token_urlsafe(16),
        "x-amz-signature": secrets.token_hex(32),
        "Content-Type": "multipart/form-data",
    }


def _s3_error(status: int, code: str, message: str) -> Response:
    body = f"<Error><Code>{code}</Code><Message>{html.escape(message)}</Message></Error>"
    xml = f"<?xml version='1.0' encoding='UTF-8'?>{body}"
    return Response(xml, status=status, content_type="application/xml")


@route("POST", f"/{S3_HOST}/")
def s3_upload(ctx: Context, request: Request, **values: Any) -> Response:
    """S3's POST object: the policy fields authorize it, never a bearer token."""
    if request.mimetype != "multipart/form-data":
        return _s3_error(412, "PreconditionFailed", "Bucket POST must be of the enclosure-type multipart/form-data")
    form, file = request.form, request.files.get("file")
    upload = next((u for u in _objects(ctx, "media").values() if u["key"] == form.get("key")), None)
    if upload is None or form.get("policy") != upload["policy"] or not form.get("x-amz-signature"):
        return _s3_error(403, "AccessDenied", "Invalid according to Policy: Policy Condition failed")
    if file is None:
        return _s3_error(400, "InvalidArgument", "POST requires exactly one file upload per request.")
    data = file.read(VIDEO_MAX_BYTES + 1)
    if len(data) > VIDEO_MAX_BYTES or not media.is_iso_video(data):
        return _s3_error(400, "EntityTooLarge" if len(data) > VIDEO_MAX_BYTES else "InvalidArgument", "not a video")
    upload["status"] = "processing"
    return Response(status=204)


@route("GET", f"{API}/media/<media_id>")
@_signed_in
def media_status(ctx: Context, request: Request, account: str, media_id: str) -> Response:
    upload = _objects(ctx, "media").get(media_id)
    if upload is None or upload["account"] != account:
        return error(404, 404, "Media upload not found.")
    if upload["status"] == "processing" and media.check_done(upload, "slow"):
        upload["status"] = "succeeded"
    return json_response({"media_id": media_id, "media_type": "video", "status": upload["status"]})


# --- reading ---------------------------------------------------------------------------------


def _own_pin(ctx: Context, account: str, pin_id: str) -> SandboxPost | None:
    post = ctx.state.find_post(PLATFORM, pin_id)
    return post if post is not None and post.account == account else None


@route("GET", f"{API}/pins/<pin_id>")
@_signed_in
def get_pin(ctx: Context, request: Request, account: str, pin_id: str) -> Response:
    post = _own_pin(ctx, account, pin_id)
    return json_response(_pin(post)) if post else error(404, 50, "Pin not found.")


@route("DELETE", f"{API}/pins/<pin_id>")
@_signed_in
def delete_pin(ctx: Context, request: Request, account: str, pin_id: str) -> Response:
    """Pinterest's `pins/delete`: 204 without a body; a pin of another account, or one already
    deleted, is not found. It takes the next queued outcome, as a publish does."""
    if _own_pin(ctx, account, pin_id) is None:
        return error(404, 50, "Pin not found.")
    return publish_outcome(ctx, PLATFORM, OUTCOME_REFUSALS, lambda _: _delete(ctx, pin_id))


def _delete(ctx: Context, pin_id: str) -> Response:
    ctx.state.remove_post(PLATFORM, pin_id)
    return Response(status=204)


@route("GET", f"{API}/boards/<board_id>/pins")
@_signed_in
def board_pins(ctx: Context, request: Request, account: str, board_id: str) -> Response:
    """The board's pins newest first, `page_size` (1-250, 25 by default) a page; `bookmark` is
    the cursor of the next page, null on the last one (the `Paginated` schema)."""
    size = request.args.get("page_size", "25")
    if not size.isdigit() or not 1 <= int(size) <= 250:
        return invalid("page_size must be between 1 and 250.")
    if _board(ctx, account, board_id) is None:
        return error(404, 40, "Board not found.")
    posts = [
        p
        for p in reversed(ctx.state.posts_of(PLATFORM))
        if p.account == account and p.extra["request"]["board_id"] == board_id
    ]
    bookmark = request.args.get("bookmark")
    if bookmark is not None:
        last = _bookmark_id(bookmark)
        ids = [p.id for p in posts]
        if last is None or last not in ids:
            return invalid("Invalid bookmark.")
        posts = posts[ids.index(last) + 1 :]
    items = [_pin(p) for p in posts[: int(size)]]
    more = len(posts) > int(size)
    return json_response({"items": items, "bookmark": _bookmark(items[-1]["id"]) if more else None})


def _bookmark(last_id: str, kind: str = "pin") -> str:
    # Opaque to clients, as Pinterest's are: the base64 of the last item served.
    return base64.b64encode(f"{kind}:{last_id}".encode()).decode()


def _bookmark_id(bookmark: str, kind: str = "pin") -> str | None:
    try:
        raw = base64.b64decode(bookmark, validate=True).decode()
    except (ValueError, UnicodeDecodeError):
        return None
    return raw.removeprefix(f"{kind}:") if raw.startswith(f"{kind}:") else None


# --- boards ----------------------------------------------------------------------------------


def _boards(ctx: Context, account: str) -> list[dict[str, Any]]:
    """The account's boards, oldest first: the contract's board, then those added."""
    added = [b for b in _objects(ctx, "boards").values() if b["owner"]["username"] == f"sandbox_{account}"]
    return [_board_object(account, BOARD_ID, "Demo board"), *added]


def _board(ctx: Context, account: str, board_id: str) -> dict[str, Any] | None:
    return next((b for b in _boards(ctx, account) if b["id"] == board_id), None)


def _board_object(account: str, board_id: str, name: str) -> dict[str, Any]:
    return {
        "id": board_id,
        "name": name,
        "description": "",
        "privacy": "PUBLIC",
        "owner": {"username": f"sandbox_{account}"},
    }


def add_boards(ctx: Context, account: str, names: list[str]) -> list[dict[str, Any]]:
    """Give the account more boards (the control API's `/_sandbox/pinterest/boards`)."""
    boards = [_board_object(account, ctx.state.next_id(), name) for name in names]
    with ctx.state.lock:
        _objects(ctx, "boards").update({board["id"]: board for board in boards})
    return boards


@route("GET", f"{API}/boards")
@_signed_in
def list_boards(ctx: Context, request: Request, account: str, **values: Any) -> Response:
    """The account's boards, `page_size` (1-250, 25 by default) a page; `bookmark` is the cursor
    of the next page, null on the last one (the `Paginated` schema)."""
    size = request.args.get("page_size", "25")
    if not size.isdigit() or not 1 <= int(size) <= 250:
        return invalid("page_size must be between 1 and 250.")
    if request.args.get("privacy", "ALL") not in ("ALL", "PUBLIC", "PROTECTED", "SECRET", "PUBLIC_AND_SECRET"):
        return invalid("privacy must be one of ALL, PUBLIC, PROTECTED, SECRET, PUBLIC_AND_SECRET.")
    boards = _boards(ctx, account)
    bookmark = request.args.get("bookmark")
    if bookmark is not None:
        last = _bookmark_id(bookmark, "board")
        ids = [b["id"] for b in boards]
        if last is None or last not in ids:
            return invalid("Invalid bookmark.")
        boards = boards[ids.index(last) + 1 :]
    items = boards[: int(size)]
    more = len(boards) > int(size)
    return json_response({"items": items, "bookmark": _bookmark(items[-1]["id"], "board") if more else None})


@route("GET", f"{API}/user_account")
@_signed_in
def user_account(ctx: Context, request: Request, account: str, **values: Any) -> Response:
    return json_response(
        {
            "id": account,
            "username": f"sandbox_{account}",
            "account_type": "BUSINESS",
            "business_name": f"Sandbox {account}",
        }
    )


@route("GET", f"{API}/pins/<pin_id>/analytics")
@_signed_in
def pin_analytics(ctx: Context, request: Request, account: str, pin_id: str) -> Response:
    wanted = [m for m in request.args.get("metric_types", "").split(",") if m]
    reason = _analytics_problem(request.args.get("start_date", ""), request.args.get("end_date", ""), wanted)
    if reason:
        return invalid(reason)
    if _own_pin(ctx, account, pin_id) is None:
        return error(404, 50, "Pin not found.")
    return json_response({"ALL": _report(ctx.state.metrics_of(PLATFORM, pin_id), wanted)})


def _analytics_problem(start: str, end: str, wanted: list[str]) -> str:
    try:
        first, last = dt.date.fromisoformat(start), dt.date.fromisoformat(end)
    except ValueError:
        return "start_date and end_date are required (YYYY-MM-DD)."
    if first > last or first < dt.datetime.now(dt.UTC).date() - dt.timedelta(days=90):
        return "start_date cannot be more than 90 days back, nor after end_date."
    if not wanted or set(wanted) - METRICS:
        return "metric_types must list known metric types."
    return ""


def _report(counts: dict[str, int], wanted: list[str]) -> dict[str, Any]:
    values = {
        "IMPRESSION": counts["views"], "SAVE": counts["shares"], "TOTAL_REACTIONS": counts["likes"],
        "TOTAL_COMMENTS": counts["comments"],
    }  # fmt: skip
    summary = {m: values.get(m, 0) for m in wanted if m not in LIFETIME_METRICS}
    lifetime = {m: values.get(m, 0) for m in wanted if m in LIFETIME_METRICS}
    today = dt.datetime.now(dt.UTC).date().isoformat()
    daily = [{"date": today, "data_status": "READY", "metrics": summary}]
    return {"daily_metrics": daily, "summary_metrics": summary, "lifetime_metrics": lifetime}


# --- OAuth 2.0 -------------------------------------------------------------------------------

SCOPES = "boards:read,boards:write,pins:read,pins:write,user_accounts:read"
ACCESS_LIFETIME = 30 * 86400
REFRESH_LIFETIME = 60 * 86400
_REFUSED = "response_type must be code; missing: {names}."
PROVIDER = oauth.Provider(
    PLATFORM,
    oauth.Page("Give access", "{client} wants to access your Pinterest account", "Something went wrong"),
    new_account=lambda: oauth.numeric_account(18),
    wording=oauth.Wording(missing=_REFUSED, response_type=_REFUSED, nothing="nothing"),
    binds=("client_id", "redirect_uri"),
)
REFUSALS = {  # reason -> (status, code, message)
    "form": (400, 1, "The body must be form-encoded."),
    "grant_type": (400, 1, "grant_type must be authorization_code or refresh_token."),
    "unknown": (400, 283, "Invalid authorization code."),
    "redirect_uri": (400, 283, "redirect_uri does not match the authorization request."),
    "refresh": (400, 283, "Invalid refresh token."),
}
REFUSALS["client_id"] = REFUSALS["unknown"]


def _refuse(reason: str, form: Any) -> Response:
    return unauthorized() if reason == "client" else error(*REFUSALS[reason])


def _issue(grant: oauth.Grant) -> Response:
    access, refresh = oauth.token_pair(PLATFORM, grant.account, access=ACCESS_LIFETIME, refresh=REFRESH_LIFETIME)
    body = {
        "access_token": access,
        "token_type": "bearer",
        "expires_in": ACCESS_LIFETIME,
        "scope": grant.scope,
        "response_type": "authorization_code" if grant.code else "refresh_token",
        "refresh_token": refresh,
        "refresh_token_expires_in": REFRESH_LIFETIME,
        "refresh_token_expires_at": int(time.time()) + REFRESH_LIFETIME,
    }
    return json_response(body)


# Pinterest's continuous refresh: each refresh token is good once.
_TOKEN = oauth.token_endpoint(
    oauth.Grants(PROVIDER, oauth.basic_client, _issue, refuse=_refuse, refresh_scope=SCOPES, rotate=True)
)


@route("POST", f"{API}/oauth/token")
def token(ctx: Context, request: Request, **values: Any) -> Response:
    # Pinterest authenticates the client (HTTP Basic) before it reads the body.
    return _TOKEN(ctx, request) if oauth.basic_client(request) else unauthorized()


route("GET", "/www.pinterest.com/oauth/")(oauth.authorize_endpoint(PROVIDER))

"""The Pinterest (API v5) stand-in: the endpoints the Pinterest client calls, as strict as Pinterest.

It answers with Pinterest's own shapes (specs/pinterest/openapi.json, v5.23): `{code, message}`
errors, `Pin` objects, paginated `{items, bookmark}` lists, the media registration + S3 POST
upload + status protocol, pin analytics, and OAuth 2.0 with HTTP Basic client authentication and
rotating ("continuous") refresh tokens. Images are really fetched from the `image_url`s the pin
names (urllib, short timeout) and checked by their magic bytes and size; an uploaded video must
be an ISO BMFF file.

Every account has one board, 549755885175 (CONTRACT.md). The outcome of a publish is taken by
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
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlencode

from werkzeug.routing import Rule
from werkzeug.wrappers import Request, Response

from sandbox import tokens
from sandbox.http import Context, bearer_token, json_body, json_response, token_problem
from sandbox.state import SandboxPost

PLATFORM = "pinterest"
BOARD_ID = "549755885175"
S3_HOST = "pinterest-media-upload.s3-accelerate.amazonaws.com"
MB = 1024 * 1024
IMAGE_MAX_BYTES = 20 * MB
VIDEO_MAX_BYTES = 2048 * MB
FETCH_TIMEOUT_SECONDS = 5
SLOW_CHECKS = 3
SCOPES = "boards:read,boards:write,pins:read,pins:write,user_accounts:read"
ACCESS_LIFETIME = 30 * 86400
REFRESH_LIFETIME = 60 * 86400
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


def _account(ctx: Context, request: Request) -> str | Response:
    info = token_problem(ctx, bearer_token(request), PLATFORM)
    return info.account if isinstance(info, tokens.TokenInfo) else unauthorized()


def _is_digits(value: object) -> bool:
    return isinstance(value, str) and value.isascii() and value.isdigit()


def _objects(ctx: Context, kind: str) -> dict[str, Any]:
    found: dict[str, Any] = ctx.state.objects[PLATFORM].setdefault(kind, {})
    return found


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
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        return "url must be an http(s) URL."
    try:
        with urllib.request.urlopen(url, timeout=FETCH_TIMEOUT_SECONDS) as answer:  # noqa: S310 (checked above)
            data: bytes = answer.read(IMAGE_MAX_BYTES + 1)
    except (urllib.error.URLError, OSError, ValueError):
        return f"Sorry, we could not fetch the image at {url}."
    if len(data) > IMAGE_MAX_BYTES:
        return "The image is larger than 20 MB."
    return data


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
    if not isinstance(body, dict):
        return "The request body must be a JSON object."
    unknown = sorted(set(body) - PIN_FIELDS)
    if unknown:
        return f"Unknown field(s): {', '.join(unknown)}."
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


def create_pin(ctx: Context, request: Request, **values: Any) -> Response:
    account = _account(ctx, request)
    if isinstance(account, Response):
        return account
    body = json_body(request)
    reason = _body_problem(body) or _source_problem(ctx, account, body.get("media_source"))
    if reason:
        return invalid(reason)
    if body["board_id"] != BOARD_ID:
        return error(404, 40, "Board not found.")
    return _answer_outcome(ctx, account, body)


def _answer_outcome(ctx: Context, account: str, body: dict[str, Any]) -> Response:
    outcome = ctx.state.take_outcome(PLATFORM)
    if outcome == "error":
        return error(403, 29, "You are not permitted to access that resource.")
    if outcome == "rate_limited":
        return rate_limited()
    source = body["media_source"]
    kind = {"image_url": "image", "multiple_image_urls": "multiple_images", "video_id": "video"}[source["source_type"]]
    count = len(source["items"]) if kind == "multiple_images" else 1
    post = ctx.state.add_post(PLATFORM, account, body.get("description") or "", count, request=body, media_type=kind)
    if outcome == "timeout":
        ctx.hold()
    return json_response(_pin(post), status=201)


# --- video upload ----------------------------------------------------------------------------


def register_media(ctx: Context, request: Request, **values: Any) -> Response:
    account = _account(ctx, request)
    if isinstance(account, Response):
        return account
    body = json_body(request)
    if not isinstance(body, dict) or set(body) != {"media_type"} or body["media_type"] != "video":
        return invalid("media_type is required and must be video.")
    media_id, key = ctx.state.next_id(), f"uploads/{secrets.token_hex(4)}/{account}:video"
    policy = base64.b64encode(json.dumps({"key": key}).encode()).decode()
    _objects(ctx, "media")[media_id] = {
        "account": account, "key": key, "policy": policy, "status": "registered", "slow": _take_processing(ctx),
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


def _take_processing(ctx: Context) -> int:
    """A queued `processing` is this video's outcome: 3 status checks in progress."""
    with ctx.state.lock:
        queue = ctx.state.outcomes[PLATFORM]
        if queue and queue[0] == "processing":
            queue.popleft()
            return SLOW_CHECKS
    return 0


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
    if len(data) > VIDEO_MAX_BYTES or data[4:8] != b"ftyp":
        return _s3_error(400, "EntityTooLarge" if len(data) > VIDEO_MAX_BYTES else "InvalidArgument", "not a video")
    upload["status"] = "processing"
    return Response(status=204)


def media_status(ctx: Context, request: Request, media_id: str) -> Response:
    account = _account(ctx, request)
    if isinstance(account, Response):
        return account
    upload = _objects(ctx, "media").get(media_id)
    if upload is None or upload["account"] != account:
        return error(404, 404, "Media upload not found.")
    if upload["status"] == "processing":
        if upload["slow"]:
            upload["slow"] -= 1
        else:
            upload["status"] = "succeeded"
    return json_response({"media_id": media_id, "media_type": "video", "status": upload["status"]})


# --- reading ---------------------------------------------------------------------------------


def _own_pin(ctx: Context, account: str, pin_id: str) -> SandboxPost | None:
    post = ctx.state.find_post(PLATFORM, pin_id)
    return post if post is not None and post.account == account else None


def get_pin(ctx: Context, request: Request, pin_id: str) -> Response:
    account = _account(ctx, request)
    if isinstance(account, Response):
        return account
    post = _own_pin(ctx, account, pin_id)
    return json_response(_pin(post)) if post else error(404, 50, "Pin not found.")


def board_pins(ctx: Context, request: Request, board_id: str) -> Response:
    account = _account(ctx, request)
    if isinstance(account, Response):
        return account
    size = request.args.get("page_size", "25")
    if not size.isdigit() or not 1 <= int(size) <= 250:
        return invalid("page_size must be between 1 and 250.")
    if board_id != BOARD_ID:
        return error(404, 40, "Board not found.")
    posts = [p for p in reversed(ctx.state.posts_of(PLATFORM)) if p.account == account]
    return json_response({"items": [_pin(p) for p in posts[: int(size)]], "bookmark": None})


def list_boards(ctx: Context, request: Request, **values: Any) -> Response:
    account = _account(ctx, request)
    if isinstance(account, Response):
        return account
    board = {
        "id": BOARD_ID,
        "name": "Demo board",
        "description": "",
        "privacy": "PUBLIC",
        "owner": {"username": f"sandbox_{account}"},
    }
    return json_response({"items": [board], "bookmark": None})


def user_account(ctx: Context, request: Request, **values: Any) -> Response:
    account = _account(ctx, request)
    if isinstance(account, Response):
        return account
    return json_response(
        {
            "id": account,
            "username": f"sandbox_{account}",
            "account_type": "BUSINESS",
            "business_name": f"Sandbox {account}",
        }
    )


def pin_analytics(ctx: Context, request: Request, pin_id: str) -> Response:
    account = _account(ctx, request)
    if isinstance(account, Response):
        return account
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


def authorize(ctx: Context, request: Request, **values: Any) -> Response:
    args = request.args
    missing = [name for name in ("client_id", "redirect_uri", "scope") if not args.get(name)]
    if args.get("response_type") != "code" or missing:
        reason = f"response_type must be code; missing: {', '.join(missing) or 'nothing'}."
        return Response(
            f"<h1>Something went wrong</h1><p>{html.escape(reason)}</p>", status=400, content_type="text/html"
        )
    code = secrets.token_urlsafe(24)
    account = str(10**17 + secrets.randbelow(9 * 10**17))
    _objects(ctx, "codes")[code] = {
        "client_id": args["client_id"], "redirect_uri": args["redirect_uri"], "account": account,
        "scope": args["scope"], "expires": time.time() + 600,
    }  # fmt: skip
    target = f"{args['redirect_uri']}?{urlencode({'code': code, 'state': args.get('state', '')})}"
    page = (
        f"<!doctype html><title>Give access</title><h1>{html.escape(args['client_id'])} wants to access your "
        f"Pinterest account</h1><p>{html.escape(args['scope'])}</p>"
        f'<a id="approve" href="{html.escape(target)}">Approve</a>'
    )
    return Response(page, content_type="text/html")


def _client_of(request: Request) -> str:
    auth = request.authorization
    return auth.username or "" if auth is not None and auth.type == "basic" else ""


def token(ctx: Context, request: Request, **values: Any) -> Response:
    client = _client_of(request)
    if not client:
        return unauthorized()
    if request.mimetype != "application/x-www-form-urlencoded":
        return invalid("The body must be form-encoded.")
    grant = request.form.get("grant_type")
    if grant == "authorization_code":
        return _code_grant(ctx, request, client)
    if grant == "refresh_token":
        return _refresh_grant(ctx, request)
    return invalid("grant_type must be authorization_code or refresh_token.")


def _code_grant(ctx: Context, request: Request, client: str) -> Response:
    form = request.form
    with ctx.state.lock:
        issued = _objects(ctx, "codes").pop(form.get("code", ""), None)
    if issued is None or issued["expires"] < time.time() or issued["client_id"] != client:
        return error(400, 283, "Invalid authorization code.")
    if issued["redirect_uri"] != form.get("redirect_uri"):
        return error(400, 283, "redirect_uri does not match the authorization request.")
    return _issue(issued["account"], issued["scope"], "authorization_code")


def _refresh_grant(ctx: Context, request: Request) -> Response:
    old = request.form.get("refresh_token", "")
    info = tokens.parse(old, kind="sbr")
    with ctx.state.lock:
        used = old in ctx.state.revoked
        ctx.state.revoked.add(old)
    if info is None or info.platform != PLATFORM or used or info.expired:
        return error(400, 283, "Invalid refresh token.")
    return _issue(info.account, SCOPES, "refresh_token")


def _issue(account: str, scope: str, grant: str) -> Response:
    refresh = tokens.issue(PLATFORM, account, kind="sbr", lifetime_seconds=REFRESH_LIFETIME)
    body = {
        "access_token": tokens.issue(PLATFORM, account, lifetime_seconds=ACCESS_LIFETIME),
        "token_type": "bearer",
        "expires_in": ACCESS_LIFETIME,
        "scope": scope,
        "response_type": grant,
        "refresh_token": refresh,
        "refresh_token_expires_in": REFRESH_LIFETIME,
        "refresh_token_expires_at": int(time.time()) + REFRESH_LIFETIME,
    }
    return json_response(body)


API = "/api.pinterest.com/v5"
RULES: list[Rule] = [
    Rule(f"{API}/pins", endpoint=create_pin, methods=["POST"]),
    Rule(f"{API}/pins/<pin_id>", endpoint=get_pin, methods=["GET"]),
    Rule(f"{API}/pins/<pin_id>/analytics", endpoint=pin_analytics, methods=["GET"]),
    Rule(f"{API}/media", endpoint=register_media, methods=["POST"]),
    Rule(f"{API}/media/<media_id>", endpoint=media_status, methods=["GET"]),
    Rule(f"{API}/boards", endpoint=list_boards, methods=["GET"]),
    Rule(f"{API}/boards/<board_id>/pins", endpoint=board_pins, methods=["GET"]),
    Rule(f"{API}/user_account", endpoint=user_account, methods=["GET"]),
    Rule(f"{API}/oauth/token", endpoint=token, methods=["POST"]),
    Rule(f"/{S3_HOST}/", endpoint=s3_upload, methods=["POST"]),
    Rule("/www.pinterest.com/oauth/", endpoint=authorize, methods=["GET"]),
]

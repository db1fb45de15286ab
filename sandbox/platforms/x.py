"""The X (Twitter API v2) stand-in: the endpoints the X client calls, as strict as X.

It answers with X's own shapes (specs/x/openapi.json): RFC 7807 problems, `data` envelopes,
the v2 dedicated media upload endpoints and OAuth 2.0 with PKCE (and `/2/oauth2/revoke`, which
ends the one token it is given), so the client cannot lean on anything X would refuse. What it
does not model: duplicate-content refusals (the `error` outcome answers a 403 instead), Super
Follows eligibility, and reply "summoning" rules. A deleted post is gone from every read, as
on X (a lookup answers its resource-not-found error).
The weighted counter is written again here: the sandbox runs without Django.

Videos process briefly: finalize answers `pending`, the first STATUS `in_progress`, the next
ones `succeeded`; X refuses to attach media that has not finished processing.
"""

from __future__ import annotations

import base64
import datetime as dt
import re
import time
import unicodedata
from typing import Any

from werkzeug.wrappers import Request, Response

from sandbox import oauth
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

PROBLEMS = "https://api.x.com/2/problems/"
TWEET_FIELDS = frozenset(
    {
        "card_uri", "community_id", "direct_message_deep_link", "edit_options", "for_super_followers_only",
        "geo", "made_with_ai", "media", "nullcast", "paid_partnership", "poll", "quote_tweet_id", "reply",
        "reply_settings", "share_with_followers", "text",
    }
)  # fmt: skip
BOOLEAN_FIELDS = ("for_super_followers_only", "made_with_ai", "nullcast", "paid_partnership", "share_with_followers")
# media_category -> (accepted media types, largest upload)
CATEGORIES: dict[str, tuple[frozenset[str], int]] = {
    "tweet_image": (
        frozenset({"image/jpeg", "image/png", "image/webp", "image/gif", "image/pjpeg", "image/bmp"}),
        5 * MB,
    ),
    "tweet_gif": (frozenset({"image/gif"}), 15 * MB),
    "tweet_video": (frozenset({"video/mp4", "video/quicktime"}), 512 * MB),
    "amplify_video": (frozenset({"video/mp4", "video/quicktime"}), 512 * MB),
}
SCOPES = "tweet.read tweet.write users.read media.write offline.access"
_LIGHT = ((0x0000, 0x10FF), (0x2000, 0x200D), (0x2010, 0x201F), (0x2032, 0x2037))
_URL = re.compile(r"https?://\S+", re.IGNORECASE)
_EMOJI = re.compile(
    "[\U0001f1e6-\U0001f1ff]{2}|[\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff\u2300-\u23ff]"
    "[\ufe0f\U0001f3fb-\U0001f3ff]*(?:\u200d[\U0001f000-\U0001faff\u2600-\u27bf][\ufe0f\U0001f3fb-\U0001f3ff]*)*"
)
RULES, route = routes()  # the endpoints below, each declared with @route


def weighted_length(text: str) -> int:
    text = unicodedata.normalize("NFC", text)
    without_urls, urls = _URL.subn("", text)
    plain, emoji = _EMOJI.subn("", without_urls)
    light = sum(1 for c in plain if any(lo <= ord(c) <= hi for lo, hi in _LIGHT))
    return 23 * urls + 2 * emoji + light + 2 * (len(plain) - light)


# --- answers ---------------------------------------------------------------------------------


def problem(status: int, title: str, detail: str, kind: str = "about:blank", **extra: Any) -> Response:
    body = {
        "title": title,
        "type": kind if kind.startswith(("about:", "http")) else PROBLEMS + kind,
        "status": status,
        "detail": detail,
        **extra,
    }
    return json_response(body, status=status, headers={"Content-Type": "application/problem+json"})


def invalid(detail: str) -> Response:
    return problem(400, "Invalid Request", detail, "invalid-request")


def unauthorized() -> Response:
    return problem(401, "Unauthorized", "Unauthorized")


def rate_limited() -> Response:
    headers = {
        "x-rate-limit-limit": "100",
        "x-rate-limit-remaining": "0",
        "x-rate-limit-reset": str(int(time.time()) + 900),
    }
    response = problem(429, "Too Many Requests", "Too Many Requests", "usage-capped")
    response.headers.update(headers)
    return response


_account = bearer_account("x", lambda why: unauthorized())
_signed_in = signed_in(_account)
OUTCOME_REFUSALS = {
    "error": lambda: problem(403, "Forbidden", "You are not permitted to perform this action."),
    "rate_limited": rate_limited,
}


def _is_id(value: object) -> bool:
    return isinstance(value, str) and value.isascii() and value.isdigit() and 0 < len(value) <= 19


def _tweet(ctx: Context, post: SandboxPost, fields: set[str]) -> dict[str, Any]:
    tweet: dict[str, Any] = {"id": post.id, "text": post.text, "edit_history_tweet_ids": [post.id]}
    if "author_id" in fields:
        tweet["author_id"] = post.account
    if "created_at" in fields:
        tweet["created_at"] = post.created_at
    if "public_metrics" in fields:
        tweet["public_metrics"] = _public_metrics(ctx.state.metrics_of("x", post.id))
    if "conversation_id" in fields:
        tweet["conversation_id"] = _conversation_of(ctx, post)
    return tweet


def _conversation_of(ctx: Context, post: SandboxPost) -> str:
    """The id of the first post of the thread `post` is in (its own id when it answers none),
    as it was when the post was made: X keeps a reply's conversation after its root is deleted."""
    return str(post.extra.get("conversation_id") or post.id)


def _conversation_at_creation(ctx: Context, parent: str | None) -> str | None:
    found = ctx.state.find_post("x", parent) if parent else None
    return None if found is None else _conversation_of(ctx, found)


def _public_metrics(counts: dict[str, int]) -> dict[str, int]:
    return {
        "impression_count": counts["views"],
        "like_count": counts["likes"],
        "reply_count": counts["comments"],
        "retweet_count": counts["shares"],
        "repost_count": counts["shares"],
        "quote_count": 0,
        "bookmark_count": 0,
    }


def _fields(request: Request) -> set[str]:
    raw = request.args.get("post.fields") or request.args.get("tweet.fields") or ""
    return {f for f in raw.split(",") if f}


# --- creating posts --------------------------------------------------------------------------


def _media_of(ctx: Context) -> dict[str, Any]:
    return ctx.state.store("x", "media")


def _body_problem(body: Any) -> str:
    problem = fields_problem(body, TWEET_FIELDS, "The following fields are not allowed: {names}.")
    if problem:
        return problem
    if not isinstance(body.get("text", ""), str):
        return "text must be a string."
    wrong = [name for name in BOOLEAN_FIELDS if name in body and not isinstance(body[name], bool)]
    if wrong:
        return f"{wrong[0]} must be a boolean."
    return _reference_problem(body)


def _reference_problem(body: dict[str, Any]) -> str:
    reply = body.get("reply")
    if reply is not None and (
        not isinstance(reply, dict)
        or set(reply) - {"in_reply_to_tweet_id", "exclude_reply_user_ids", "auto_populate_reply_metadata"}
        or not _is_id(reply.get("in_reply_to_tweet_id"))
    ):
        return "reply.in_reply_to_tweet_id must be a post id."
    if "quote_tweet_id" in body and not _is_id(body["quote_tweet_id"]):
        return "quote_tweet_id must be a post id."
    exclusive = [name for name in ("media", "poll", "quote_tweet_id", "card_uri") if name in body]
    if len(exclusive) > 1:
        return f"{' and '.join(exclusive)} are mutually exclusive."
    return ""


def _media_problem(ctx: Context, account: str, media: Any) -> str:
    if media is None:
        return ""
    if not isinstance(media, dict) or set(media) - {"media_ids", "tagged_user_ids"}:
        return "media must be an object with media_ids."
    ids = media.get("media_ids")
    if not isinstance(ids, list) or not 1 <= len(ids) <= 4 or not all(_is_id(i) for i in ids):
        return "media.media_ids must hold 1 to 4 media ids."
    uploads = [_media_of(ctx).get(i) for i in ids]
    if any(u is None or u["account"] != account or u["state"] != "succeeded" for u in uploads):
        return "Your media IDs are invalid."
    single = [u for u in uploads if u and u["category"] != "tweet_image"]
    return "A post takes up to 4 images, or 1 GIF, or 1 video." if single and len(ids) > 1 else ""


def _text_problem(body: dict[str, Any]) -> str:
    text = body.get("text", "")
    if not text and not body.get("media"):
        return "text is required unless media is provided."
    if weighted_length(text) > 280:
        return "Your Tweet text is too long."
    return ""


def _target_missing(ctx: Context, body: dict[str, Any]) -> Response | None:
    targets = [body.get("quote_tweet_id"), (body.get("reply") or {}).get("in_reply_to_tweet_id")]
    for target in (t for t in targets if t):
        if ctx.state.find_post("x", target) is None:
            return problem(
                403, "Forbidden", "You attempted to reply to or quote a Tweet that is deleted or not visible to you."
            )
    return None


@route("POST", "/api.x.com/2/tweets")
@_signed_in
def create_tweet(ctx: Context, request: Request, account: str, **values: Any) -> Response:
    body = json_body(request)
    reason = _body_problem(body) or _media_problem(ctx, account, body.get("media")) or _text_problem(body)
    if reason:
        return invalid(reason)
    refused = _target_missing(ctx, body)
    return refused or publish_outcome(ctx, "x", OUTCOME_REFUSALS, lambda _: _create(ctx, account, body))


def _create(ctx: Context, account: str, body: dict[str, Any]) -> Response:
    text = unicodedata.normalize("NFC", body.get("text", ""))
    media_count = len((body.get("media") or {}).get("media_ids", []))
    parent = (body.get("reply") or {}).get("in_reply_to_tweet_id")
    conversation = _conversation_at_creation(ctx, parent)
    post = ctx.state.add_post(
        "x", account, text, media_count, reply_to=parent, request=body, conversation_id=conversation
    )
    return json_response({"data": {"id": post.id, "text": post.text, "edit_history_tweet_ids": [post.id]}}, status=201)


# --- media upload ----------------------------------------------------------------------------


@route("POST", "/api.x.com/2/media/upload/initialize")
@_signed_in
def initialize_upload(ctx: Context, request: Request, account: str, **values: Any) -> Response:
    body = json_body(request)
    reason = _initialize_problem(body)
    if reason:
        return invalid(reason)
    media_id = ctx.state.next_id()
    _media_of(ctx)[media_id] = {
        "account": account, "media_type": body["media_type"], "category": body["media_category"],
        "total_bytes": body["total_bytes"], "segments": {}, "state": "initialized", "checks": 0,
    }  # fmt: skip
    return json_response({"data": {"id": media_id, "media_key": f"3_{media_id}", "expires_after_secs": 86400}})


def _initialize_problem(body: Any) -> str:
    if not isinstance(body, dict) or set(body) - {
        "media_type",
        "total_bytes",
        "media_category",
        "additional_owners",
        "shared",
    }:
        return "The body must be an object with media_type, total_bytes and media_category."
    category = CATEGORIES.get(body.get("media_category"))  # type: ignore[arg-type]
    if category is None:
        return f"media_category must be one of {', '.join(CATEGORIES)}."
    if body.get("media_type") not in category[0]:
        return f"media_type {body.get('media_type')!r} does not fit media_category {body['media_category']}."
    size = body.get("total_bytes")
    if not isinstance(size, int) or isinstance(size, bool) or not 0 < size <= category[1]:
        return f"total_bytes must be between 1 and {category[1]} for {body['media_category']}."
    return ""


def _upload_of(ctx: Context, request: Request, media_id: str) -> dict[str, Any] | Response:
    account = _account(ctx, request)
    if isinstance(account, Response):
        return account
    upload: dict[str, Any] | None = _media_of(ctx).get(media_id)
    if upload is None or upload["account"] != account:
        return problem(
            404,
            "Not Found Error",
            f"Could not find media with id: [{media_id}].",
            "resource-not-found",
            resource_type="media",
            resource_id=media_id,
            parameter="id",
            value=media_id,
        )
    return upload


@route("POST", "/api.x.com/2/media/upload/<id>/append")
def append_upload(ctx: Context, request: Request, id: str) -> Response:
    upload = _upload_of(ctx, request, id)
    if isinstance(upload, Response):
        return upload
    index, chunk = request.form.get("segment_index", ""), request.files.get("media")
    if request.mimetype != "multipart/form-data" or chunk is None or not index.isdigit() or int(index) > 999:
        return invalid("append takes multipart media and segment_index (0-999).")
    if upload["state"] != "initialized":
        return invalid("This upload is already finalized.")
    upload["segments"][int(index)] = len(chunk.read())
    return json_response({"data": {"expires_at": int(time.time()) + 86400}})


@route("POST", "/api.x.com/2/media/upload/<id>/finalize")
def finalize_upload(ctx: Context, request: Request, id: str) -> Response:
    upload = _upload_of(ctx, request, id)
    if isinstance(upload, Response):
        return upload
    segments = upload["segments"]
    if sorted(segments) != list(range(len(segments))) or sum(segments.values()) != upload["total_bytes"]:
        return invalid(
            f"File size mismatch: {sum(segments.values())} bytes received, {upload['total_bytes']} declared."
        )
    video = upload["category"] in ("tweet_video", "amplify_video")
    upload["state"] = "pending" if video else "succeeded"
    return json_response({"data": _media_data(id, upload)})


def _media_data(media_id: str, upload: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": media_id,
        "media_key": f"3_{media_id}",
        "size": upload["total_bytes"],
        "expires_after_secs": 86400,
    }
    if upload["state"] in ("pending", "in_progress"):
        data["processing_info"] = {"state": upload["state"], "check_after_secs": 0, "progress_percent": 50}
    elif upload["category"] != "tweet_image":
        data["processing_info"] = {"state": upload["state"], "progress_percent": 100}
    return data


@route("GET", "/api.x.com/2/media/upload")
def upload_status(ctx: Context, request: Request, **values: Any) -> Response:
    media_id = request.args.get("media_id", "")
    if request.args.get("command", "STATUS") != "STATUS" or not _is_id(media_id):
        return invalid("media_id is required; command may only be STATUS.")
    upload = _upload_of(ctx, request, media_id)
    if isinstance(upload, Response):
        return upload
    if upload["state"] == "initialized":
        return invalid("This upload has not been finalized.")
    _advance(upload)
    return json_response({"data": _media_data(media_id, upload)})


def _advance(upload: dict[str, Any]) -> None:
    """One STATUS check: pending -> in_progress -> succeeded."""
    upload["state"] = {"pending": "in_progress", "in_progress": "succeeded"}.get(upload["state"], upload["state"])


def _alt_text_problem(alt_text: Any) -> str:
    """The spec's `AltText`: an object with a `text` of at most 1000 characters."""
    if alt_text is None:
        return ""
    if not isinstance(alt_text, dict) or set(alt_text) != {"text"} or not isinstance(alt_text["text"], str):
        return "metadata.alt_text must be an object with a text."
    return "metadata.alt_text.text takes at most 1000 characters." if len(alt_text["text"]) > 1000 else ""


@route("POST", "/api.x.com/2/media/metadata")
def media_metadata(ctx: Context, request: Request, **values: Any) -> Response:
    body = json_body(request)
    if not isinstance(body, dict) or not _is_id(body.get("id")) or not isinstance(body.get("metadata", {}), dict):
        return invalid("id (a media id) is required; metadata must be an object.")
    problem = _alt_text_problem(body["metadata"].get("alt_text")) if "metadata" in body else ""
    if problem:
        return invalid(problem)
    upload = _upload_of(ctx, request, body["id"])
    if isinstance(upload, Response):
        return upload
    upload.setdefault("metadata", {}).update(body.get("metadata", {}))
    return json_response({"data": {"id": body["id"], "associated_metadata": upload["metadata"]}})


# --- reading ---------------------------------------------------------------------------------


@route("GET", "/api.x.com/2/tweets/<id>")
@_signed_in
def get_tweet(ctx: Context, request: Request, account: str, id: str) -> Response:
    post = ctx.state.find_post("x", id)
    if post is None:
        return json_response({"errors": [_not_found(id)]})
    return json_response({"data": _tweet(ctx, post, _fields(request))})


def _not_found(post_id: str) -> dict[str, str]:
    return {
        "value": post_id, "detail": f"Could not find tweet with id: [{post_id}].", "title": "Not Found Error",
        "resource_type": "tweet", "parameter": "id", "resource_id": post_id, "type": PROBLEMS + "resource-not-found",
    }  # fmt: skip


@route("DELETE", "/api.x.com/2/tweets/<id>")
@_signed_in
def delete_tweet(ctx: Context, request: Request, account: str, id: str) -> Response:
    """Only the author deletes a post; one that is not there (never was, or deleted already) is a
    resource-not-found problem."""
    if not _is_id(id):
        return invalid(f"The `id` query parameter value [{id}] does not match ^[0-9]{{1,19}}$")
    post = ctx.state.find_post("x", id)
    if post is None:
        detail = f"Could not find tweet with id: [{id}]."
        return problem(404, "Not Found Error", detail, "resource-not-found", resource_type="tweet", resource_id=id)
    if post.account != account:
        return problem(403, "Forbidden", "You are not allowed to delete this Tweet.")
    return publish_outcome(ctx, "x", OUTCOME_REFUSALS, lambda _: _delete(ctx, id))


def _delete(ctx: Context, post_id: str) -> Response:
    ctx.state.remove_post("x", post_id)
    return json_response({"data": {"deleted": True}})


@route("GET", "/api.x.com/2/tweets")
@_signed_in
def get_tweets(ctx: Context, request: Request, account: str, **values: Any) -> Response:
    ids = [i for i in request.args.get("ids", "").split(",") if i]
    if not 1 <= len(ids) <= 100 or not all(_is_id(i) for i in ids):
        return invalid("ids must hold 1 to 100 post ids.")
    fields = _fields(request)
    posts = {i: ctx.state.find_post("x", i) for i in ids}
    answer: dict[str, Any] = {"data": [_tweet(ctx, p, fields) for p in posts.values() if p]}
    missing = [_not_found(i) for i, p in posts.items() if p is None]
    return json_response({**answer, **({"errors": missing} if missing else {})})


@route("GET", "/api.x.com/2/users/me")
@_signed_in
def users_me(ctx: Context, request: Request, account: str, **values: Any) -> Response:
    handle = re.sub(r"\W", "_", account)
    return json_response({"data": {"id": account, "name": f"Sandbox {handle}", "username": f"sandbox_{handle}"}})


@route("GET", "/api.x.com/2/users/<id>/tweets")
@_signed_in
def user_tweets(ctx: Context, request: Request, account: str, id: str) -> Response:
    """The timeline newest first, `max_results` a page; `meta.next_token` only when more remain."""
    if id != account:
        return problem(403, "Forbidden", "Sandbox tokens may read only their own timeline.")
    limit, start = request.args.get("max_results", "10"), _instant(request.args.get("start_time", ""))
    if not limit.isdigit() or not 5 <= int(limit) <= 100:
        return invalid("max_results must be between 5 and 100.")
    if start is None:
        return invalid(f"The `start_time` query parameter value [{request.args['start_time']}] is not valid.")
    posts = [p for p in reversed(ctx.state.posts_of("x")) if p.account == account and _created(p) >= start]
    token = request.args.get("pagination_token")
    if token is not None:
        before = _token_id(token)
        if before is None:
            return invalid(f"The `pagination_token` query parameter value [{token}] is not valid for this endpoint.")
        posts = [p for p in posts if int(p.id) < before]
    return json_response(_timeline_page(ctx, request, posts, int(limit)))


def _timeline_page(ctx: Context, request: Request, posts: list[SandboxPost], limit: int) -> dict[str, Any]:
    data = [_tweet(ctx, p, _fields(request)) for p in posts[:limit]]
    meta: dict[str, Any] = {"result_count": len(data)}
    if data:
        meta.update(newest_id=data[0]["id"], oldest_id=data[-1]["id"])
    if len(posts) > limit:
        meta["next_token"] = _next_token(data[-1]["id"])
    return {"data": data, "meta": meta} if data else {"meta": meta}


def _instant(value: str) -> dt.datetime | None:
    """An RFC 3339 instant (X takes `YYYY-MM-DDTHH:mm:ssZ`, fractions allowed); absent is the epoch."""
    if not value:
        return dt.datetime.min.replace(tzinfo=dt.UTC)
    try:
        found = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return found if found.tzinfo else None


def _created(post: SandboxPost) -> dt.datetime:
    return dt.datetime.fromisoformat(post.created_at.replace("Z", "+00:00"))


def _next_token(last_id: str) -> str:
    # Opaque to clients, as X's are: the base32hex of the last id served; the next page is older.
    return base64.b32hexencode(last_id.encode()).decode().rstrip("=").lower()


def _token_id(token: str) -> int | None:
    try:
        raw = base64.b32hexdecode(token.upper() + "=" * (-len(token) % 8)).decode()
    except (ValueError, UnicodeDecodeError):
        return None
    return int(raw) if _is_id(raw) else None


# --- OAuth 2.0 with PKCE ---------------------------------------------------------------------

PROVIDER = oauth.Provider(
    "x",
    oauth.Page("Authorize app", "{client} wants to access your X account", "Something went wrong", scopes=" "),
    new_account=lambda: oauth.numeric_account(16),
    required=("client_id", "redirect_uri", "code_challenge"),
    default_scope=SCOPES,
    pkce=("S256",),
    binds=("redirect_uri",),
    code_lifetime=30,
)
REFUSALS = {
    "form": ("invalid_request", "The body must be form-encoded."),
    "client": ("invalid_client", "client_id is required."),
    "grant_type": ("unsupported_grant_type", "grant_type must be authorization_code or refresh_token."),
    "unknown": ("invalid_request", "Value passed for the authorization code was invalid."),
    "verifier": ("invalid_grant", "The code_verifier does not match the code_challenge."),
    "refresh": ("invalid_request", "Value passed for the token was invalid."),
}


def _client(request: Request) -> str | None:
    # A public client names itself in the form; a confidential one authenticates instead.
    return request.form.get("client_id") or ("" if request.authorization else None)


def _issue(grant: oauth.Grant) -> Response:
    access, refresh = oauth.token_pair("x", grant.account, access=7200, refresh=180 * 86400)
    body = {"token_type": "bearer", "expires_in": 7200, "access_token": access, "refresh_token": refresh}
    return json_response({**body, "scope": grant.scope})


GRANTS = oauth.Grants(PROVIDER, _client, _issue, REFUSALS, refresh_scope=SCOPES, rotate=True)
REVOKE_REFUSALS = {**REFUSALS, "token": ("invalid_request", "Missing required parameter [token].")}


@route("POST", "/api.x.com/2/oauth2/revoke")
def revoke(ctx: Context, request: Request) -> Response:
    """Revoke the one token named (access or refresh), authenticated as at the token endpoint.
    A token X does not know (or no longer honours) is answered as revoked, as RFC 7009 has it."""
    form = request.form
    if request.mimetype != oauth.FORM:
        return oauth.refusal(REVOKE_REFUSALS, "form", form)
    if _client(request) is None:
        return oauth.refusal(REVOKE_REFUSALS, "client", form)
    if not form.get("token"):
        return oauth.refusal(REVOKE_REFUSALS, "token", form)
    info = oauth.presented(ctx, form["token"], "x")
    if not isinstance(info, str):
        oauth.revoke(ctx, form["token"], info, grant=False)
    return json_response({"revoked": True})


route("POST", "/api.x.com/2/oauth2/token")(oauth.token_endpoint(GRANTS))
route("GET", "/x.com/i/oauth2/authorize")(oauth.authorize_endpoint(PROVIDER))

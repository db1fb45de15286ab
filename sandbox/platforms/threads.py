"""The Threads (graph.threads.net) stand-in: containers, threads_publish, reads, insights, OAuth.

It answers in Meta's Graph API shapes (`{"error": {message, type, code, error_subcode,
fbtrace_id}}`, `{"data": [...], "paging": ...}`) and is as strict as Threads: a valid Threads
token (Authorization: Bearer, or an `access_token` parameter), parameters read from the query
or a form body as the Graph API does, media fetched from `image_url`/`video_url` for real
(JPEG/PNG up to 8 MB, MP4/MOV up to 1 GB, checked by their bytes; a video whose `stsd` names a
codec other than H.264/HEVC ends in FAILED_PROCESSING_VIDEO), text of at most 500
characters with emoji counted by their UTF-8 bytes, at most 5 unique links, link_attachment
on TEXT only, topic_tag 1-50 characters without '.' or '&', carousels of 2-20 finished items.
Parameters Threads does not document are refused (Meta ignores some; refusing catches typos).

Outcomes: one is taken when a post's top container is created. `error` and `rate_limited`
refuse that call; `processing` leaves the container IN_PROGRESS for 3 status checks; `timeout`
lets threads_publish create the post and then holds the answer. A video container is
IN_PROGRESS for its first status check; a carousel is IN_PROGRESS while a child is.

OAuth: the authorize page, the code exchange (client id and secret required; no PKCE, as
Threads documents none), th_exchange_token (1-hour token -> 60-day token) and
th_refresh_token (only a long-lived token at least 24 h old; a new token, the old stays valid).
Replies: `reply_to_id` must name an existing thread (else refused as a missing object);
a reply is read with `is_reply`, `replied_to` and `root_post`, and listed under its parent's
`/{id}/replies` (newest first unless `reverse=false`) and under its user's `/{user-id}/replies`.
Deleting: `DELETE /{id}` takes down a thread or reply of the token's user (answering
`{"success": true, "deleted_id"}`, as the Postman collection shows), under the next queued
outcome; it is gone from every read since (code 100, subcode 33). Another user's thread is
refused with #10; its replies stay, as on Threads.
Not modelled: the 250-posts-a-day quota, quote/poll/GIF parameters beyond validation,
container expiry after 24 h.
"""

from __future__ import annotations

import base64
import datetime as dt
import re
import time
from typing import Any

import regex
from werkzeug.datastructures import MultiDict
from werkzeug.wrappers import Request, Response

from sandbox import graph, media, oauth, tokens
from sandbox.http import Context, json_response, publish_outcome, routes, signed_in, token_problem
from sandbox.media import MB

MAX_TEXT = 500
MAX_LINKS = 5
SHORT_LIFETIME, LONG_LIFETIME = 3600, 60 * 86400
IMAGE_TYPES = {"image/jpeg": 8 * MB, "image/png": 8 * MB}
VIDEO_TYPES = {"video/mp4": 1024 * MB, "video/quicktime": 1024 * MB}
CONTAINER_PARAMS = frozenset(
    {
        "media_type", "text", "image_url", "video_url", "is_carousel_item", "children", "alt_text",
        "reply_to_id", "reply_control", "link_attachment", "topic_tag", "quote_post_id", "location_id",
        "allowlisted_country_codes", "text_entities", "is_spoiler_media", "gif_attachment", "poll_attachment",
        "text_attachment", "auto_publish_text", "is_ghost_post", "access_token",
    }
)  # fmt: skip
MEDIA_FIELDS = frozenset(
    {
        "id", "media_product_type", "media_type", "media_url", "permalink", "owner", "username", "text",
        "timestamp", "shortcode", "thumbnail_url", "children", "is_quote_post", "has_replies", "alt_text",
        "link_attachment_url", "topic_tag", "is_reply", "replied_to", "root_post",
    }
)  # fmt: skip
CONTAINER_FIELDS = frozenset({"id", "status", "error_message"})
PROFILE_FIELDS = frozenset({"id", "username", "name", "threads_profile_picture_url", "threads_biography"})
METRICS = ("views", "likes", "replies", "reposts", "quotes", "shares")
_GRAPHEME = regex.compile(r"\X")
_EMOJI = regex.compile(r"\p{Emoji_Presentation}|\ufe0f|\u20e3|\p{Regional_Indicator}")
_URL = re.compile(r"https?://[^\s<>\"]+", re.IGNORECASE)
RULES, route = routes()  # the endpoints below, each declared with @route


def text_length(text: str) -> int:
    """As Threads counts: an emoji grapheme weighs its UTF-8 bytes, anything else its code points."""
    return sum(len(g.encode()) if _EMOJI.search(g) else len(g) for g in _GRAPHEME.findall(text))


# --- answers -------------------------------------------------------------------------------------


KIND = "THApiException"  # the error type of Threads' own refusals
TOKEN_REFUSALS = {**graph.TOKEN_REFUSALS, "invalid": (190, 467, graph.TOKEN_REFUSALS["invalid"][2])}


def invalid(message: str, subcode: int | None = None) -> Response:
    return graph.invalid(message, kind=KIND, subcode=subcode)


def rate_limited() -> Response:
    usage = '{"call_count":100,"total_cputime":25,"total_time":25}'
    business = '{"threads":[{"type":"threads","call_count":100,"total_cputime":25,"total_time":25,'
    business += '"estimated_time_to_regain_access":15}]}'
    response = graph.error(429, 4, "(#4) Application request limit reached", subcode=2446079, is_transient=True)
    response.headers.update({"X-App-Usage": usage, "X-Business-Use-Case-Usage": business})
    return response


def not_allowed() -> Response:
    return graph.error(
        400, 10, "(#10) The user is not allowed to publish.", kind=KIND, error_user_title="Can't post",
        error_user_msg="This account can't publish posts right now.",
    )  # fmt: skip


def _params(request: Request) -> MultiDict[str, str]:
    """The Graph API reads parameters from the query string and a form body alike."""
    merged: MultiDict[str, str] = MultiDict(request.args)
    merged.update(request.form)
    return merged


def _token(request: Request) -> str:
    return graph.token_of(request, _params(request))


def _account(ctx: Context, request: Request, user_id: str | None = None, **values: Any) -> str | Response:
    """The token's account (Threads refuses a bad token with a 401); a `user_id` in the path must
    be it (or "me")."""
    info = token_problem(ctx, _token(request), "threads")
    if not isinstance(info, tokens.TokenInfo):
        return graph.token_refused(info, TOKEN_REFUSALS, status=401)
    if user_id is not None and user_id not in ("me", info.account):
        return graph.error(403, 10, "(#10) Application does not have permission for this action", kind=KIND)
    return info.account


_signed_in = signed_in(_account)


def _fields(request: Request, allowed: frozenset[str], default: str) -> list[str] | Response:
    fields = [f for f in (request.args.get("fields") or default).split(",") if f]
    unknown = [f for f in fields if f not in allowed]
    return invalid(f"Tried accessing nonexisting field ({unknown[0]})") if unknown else fields


def _store(ctx: Context, name: str) -> dict[str, Any]:
    return ctx.state.store("threads", name)


# --- fetching media ------------------------------------------------------------------------------


# Threads takes HEVC or H.264 video; another codec fails the container when it is processed.
CODEC_REFUSED = "The video codec is not supported; use H.264 or HEVC."


def fetch(url: str, allowed: dict[str, int]) -> tuple[str, int] | str:
    """(content type, size) of the file at `url`, or why Meta would refuse it."""
    data = media.fetch(url, max(allowed.values()))
    if data == media.NOT_HTTP:
        return "The media URL must be an http(s) URL."
    if isinstance(data, str):
        return f"The media could not be downloaded: {data}"
    kind = media.sniff(data)
    if kind not in allowed:
        return f"The media type is not supported ({kind or 'unknown'})."
    if len(data) > allowed[kind]:
        return f"The media is larger than {allowed[kind]} bytes."
    codec = media.video_codec(data) if kind.startswith("video/") else ""
    if codec and codec not in media.H264_OR_HEVC:
        return CODEC_REFUSED
    return kind, len(data)


# --- containers ----------------------------------------------------------------------------------


@route("POST", "/graph.threads.net/v1.0/<user_id>/threads")
@_signed_in
def create_container(ctx: Context, request: Request, account: str, user_id: str) -> Response:
    params = _params(request)
    refused = _param_problem(params) or _text_problem(params) or _setting_problem(params)
    if refused:
        return invalid(refused)
    parent = params.get("reply_to_id")
    if parent is not None and ctx.state.find_post("threads", parent) is None:
        return graph.no_object(parent, kind=KIND)
    carousel_item = params.get("is_carousel_item") == "true"
    outcome = "ok" if carousel_item else ctx.state.take_outcome("threads")
    if outcome == "error":
        return not_allowed()
    if outcome == "rate_limited":
        return rate_limited()
    return _build(ctx, account, params, outcome)


def _param_problem(params: MultiDict[str, str]) -> str:
    unknown = sorted(set(params) - CONTAINER_PARAMS)
    if unknown:
        return f"Param {unknown[0]} is not a valid parameter."
    kind = params.get("media_type", "")
    if kind not in ("TEXT", "IMAGE", "VIDEO", "CAROUSEL"):
        return "Param media_type must be one of {TEXT, IMAGE, VIDEO, CAROUSEL}."
    if params.get("is_carousel_item", "false") not in ("true", "false"):
        return "Param is_carousel_item must be a boolean."
    if params.get("is_carousel_item") == "true" and kind not in ("IMAGE", "VIDEO"):
        return "Only IMAGE and VIDEO containers can be carousel items."
    needed = {"IMAGE": "image_url", "VIDEO": "video_url", "CAROUSEL": "children"}.get(kind)
    return f"Param {needed} is required for media_type {kind}." if needed and not params.get(needed) else ""


def _text_problem(params: MultiDict[str, str]) -> str:
    text = params.get("text", "")
    if params["media_type"] == "TEXT" and not text.strip():
        return "Param text is required for media_type TEXT."
    if text_length(text) > MAX_TEXT:
        return f"Param text must be at most {MAX_TEXT} characters long."
    links = {m.group().rstrip(".,;:!?'\")]}").lower() for m in _URL.finditer(text)}
    links |= {params["link_attachment"].lower()} if params.get("link_attachment") else set()
    return "THREADS_API__LINK_LIMIT_EXCEEDED: at most 5 unique links." if len(links) > MAX_LINKS else ""


def _setting_problem(params: MultiDict[str, str]) -> str:
    link, tag = params.get("link_attachment"), params.get("topic_tag")
    if link is not None and (params["media_type"] != "TEXT" or not _URL.fullmatch(link)):
        return "Param link_attachment must be a URL and is only allowed with media_type TEXT."
    if tag is not None and (not 1 <= len(tag) <= 50 or set(tag) & {".", "&"}):
        return "Param topic_tag must be 1-50 characters and cannot contain '.' or '&'."
    return ""


def _build(ctx: Context, account: str, params: MultiDict[str, str], outcome: str) -> Response:
    kind = params["media_type"]
    container: dict[str, Any] = {
        "account": account, "media_type": kind, "text": params.get("text", ""), "outcome": outcome,
        "carousel_item": params.get("is_carousel_item") == "true", "checks": 3 if outcome == "processing" else 0,
        "status": "IN_PROGRESS", "error_message": "", "children": [], "params": params.to_dict(),
    }  # fmt: skip
    refused = _attach(ctx, account, container, params)
    if refused:
        return refused
    container_id = ctx.state.next_id()
    _store(ctx, "containers")[container_id] = container
    return json_response({"id": container_id})


def _attach(ctx: Context, account: str, container: dict[str, Any], params: MultiDict[str, str]) -> Response | None:
    kind = container["media_type"]
    if kind == "IMAGE":
        fetched = fetch(params["image_url"], IMAGE_TYPES)
        if isinstance(fetched, str):
            return invalid(f"Media download has failed. {fetched}", subcode=2207052)
    if kind == "VIDEO":
        fetched = fetch(params["video_url"], VIDEO_TYPES)
        container["checks"] = max(container["checks"], 1)
        if isinstance(fetched, str):
            container["error_message"] = (
                "FAILED_PROCESSING_VIDEO" if fetched == CODEC_REFUSED else "FAILED_DOWNLOADING_VIDEO"
            )
    if kind == "CAROUSEL":
        return _attach_children(ctx, account, container, params["children"])
    return None


def _attach_children(ctx: Context, account: str, container: dict[str, Any], raw: str) -> Response | None:
    ids = [i for i in raw.split(",") if i]
    children = [_store(ctx, "containers").get(i) for i in ids]
    if not 2 <= len(ids) <= 20:
        return invalid("A carousel takes 2 to 20 children.")
    if any(c is None or c["account"] != account or not c["carousel_item"] for c in children):
        return invalid("Param children must list carousel item containers of this user.")
    container["children"] = ids
    return None


def _status(ctx: Context, container: dict[str, Any], *, advance: bool) -> str:
    """FINISHED, PUBLISHED, ERROR or IN_PROGRESS; a status check (`advance`) moves it on."""
    if container["status"] == "PUBLISHED" or container["error_message"]:
        return "PUBLISHED" if container["status"] == "PUBLISHED" else "ERROR"
    if container["checks"] > 0:
        container["checks"] -= advance
        return "IN_PROGRESS"
    children = [_store(ctx, "containers")[i] for i in container["children"]]
    states = [_status(ctx, child, advance=advance) for child in children]
    if "ERROR" in states:
        container["error_message"] = "Carousel item failed"
        return "ERROR"
    container["status"] = "IN_PROGRESS" if "IN_PROGRESS" in states else "FINISHED"
    return str(container["status"])


@route("POST", "/graph.threads.net/v1.0/<user_id>/threads_publish")
@_signed_in
def publish(ctx: Context, request: Request, account: str, user_id: str) -> Response:
    creation_id = _params(request).get("creation_id", "")
    container = _store(ctx, "containers").get(creation_id)
    if container is None or container["account"] != account or container["carousel_item"]:
        return invalid("Param creation_id must be a container of this user.", subcode=33)
    state = _status(ctx, container, advance=False)
    if state == "IN_PROGRESS":
        return graph.error(
            400, 9007, "Media ID is not available", kind=KIND, subcode=2207027,
            error_user_msg="The media is not ready for publishing, please wait for a moment.",
        )  # fmt: skip
    if state != "FINISHED":
        return invalid(f"The container cannot be published (status {state}).")
    return _create_post(ctx, account, creation_id, container)


def _create_post(ctx: Context, account: str, creation_id: str, container: dict[str, Any]) -> Response:
    media_count = {"TEXT": 0, "CAROUSEL": len(container["children"])}.get(container["media_type"], 1)
    post = ctx.state.add_post(
        "threads",
        account,
        container["text"],
        media_count,
        reply_to=container["params"].get("reply_to_id"),
        container_id=creation_id,
        params=container["params"],
    )
    container.update(status="PUBLISHED", post_id=post.id)
    if container["outcome"] == "timeout":
        ctx.hold()
    return json_response({"id": post.id})


# --- reading -------------------------------------------------------------------------------------


def _shortcode(post_id: str) -> str:
    return base64.urlsafe_b64encode(int(post_id).to_bytes(8, "big")).decode().rstrip("=")


def _username(account: str) -> str:
    return "sandbox_" + re.sub(r"\W", "_", account)


def _media(ctx: Context, post: Any, fields: list[str]) -> dict[str, Any]:
    params = post.extra.get("params", {})
    kinds = {0: "TEXT_POST", 1: "VIDEO" if "video_url" in params else "IMAGE"}
    values: dict[str, Any] = {
        "id": post.id, "media_product_type": "THREADS", "media_type": kinds.get(post.media_count, "CAROUSEL_ALBUM"),
        "permalink": f"https://www.threads.net/@{_username(post.account)}/post/{_shortcode(post.id)}",
        "owner": {"id": post.account}, "username": _username(post.account), "text": post.text,
        "timestamp": graph.timestamp(post.created_at), "shortcode": _shortcode(post.id), "is_quote_post": False,
        "has_replies": _replies_of(ctx, post.id) != [], "topic_tag": params.get("topic_tag"),
        "link_attachment_url": params.get("link_attachment"), "is_reply": "reply_to_id" in params,
    }  # fmt: skip
    if "reply_to_id" in params:
        values.update(replied_to={"id": params["reply_to_id"]}, root_post={"id": _root_of(ctx, post).id})
    return {name: values[name] for name in fields if values.get(name) is not None}


def _replies_of(ctx: Context, post_id: str) -> list[Any]:
    """The direct replies to a thread, oldest first."""
    return [p for p in ctx.state.posts_of("threads") if p.extra.get("params", {}).get("reply_to_id") == post_id]


def _root_of(ctx: Context, post: Any) -> Any:
    """The first thread of the conversation `post` belongs to."""
    while (parent := post.extra.get("params", {}).get("reply_to_id")) and ctx.state.find_post("threads", parent):
        post = ctx.state.find_post("threads", parent)
    return post


@route("GET", "/graph.threads.net/v1.0/<object_id>")
@_signed_in
def get_object(ctx: Context, request: Request, account: str, object_id: str) -> Response:
    if object_id == "me":
        return _profile(request, account)
    container = _store(ctx, "containers").get(object_id)
    if container is not None and container["account"] == account:
        return _container_answer(ctx, request, object_id, container)
    post = ctx.state.find_post("threads", object_id)
    if post is None:
        return graph.no_object(object_id, kind=KIND)
    fields = _fields(request, MEDIA_FIELDS, "id")
    return fields if isinstance(fields, Response) else json_response(_media(ctx, post, fields))


def _container_answer(ctx: Context, request: Request, object_id: str, container: dict[str, Any]) -> Response:
    fields = _fields(request, CONTAINER_FIELDS, "id")
    if isinstance(fields, Response):
        return fields
    values = {"id": object_id, "status": _status(ctx, container, advance=True)}
    if values["status"] == "ERROR":
        values["error_message"] = container["error_message"]
    return json_response({name: values[name] for name in fields if name in values})


def _profile(request: Request, account: str) -> Response:
    fields = _fields(request, PROFILE_FIELDS, "id")
    if isinstance(fields, Response):
        return fields
    values = {"id": account, "username": _username(account), "name": f"Sandbox {account}"}
    return json_response({name: values[name] for name in fields if name in values})


@route("DELETE", "/graph.threads.net/v1.0/<media_id>")
@_signed_in
def delete_thread(ctx: Context, request: Request, account: str, media_id: str) -> Response:
    post = ctx.state.find_post("threads", media_id)
    if post is None:
        return graph.no_object(media_id, verb="delete", kind=KIND)
    if post.account != account:
        return graph.error(403, 10, "(#10) Application does not have permission for this action", kind=KIND)
    refusals = {"error": not_allowed, "rate_limited": rate_limited}
    return publish_outcome(ctx, "threads", refusals, lambda _: _delete(ctx, media_id))


def _delete(ctx: Context, media_id: str) -> Response:
    ctx.state.remove_post("threads", media_id)
    return json_response({"success": True, "deleted_id": media_id})


@route("GET", "/graph.threads.net/v1.0/<user_id>/threads")
@_signed_in
def list_threads(ctx: Context, request: Request, account: str, user_id: str) -> Response:
    """The user's threads newest first, from `since` on, `limit` (1-100, 25 by default) a page:
    `paging.cursors` (before, after) as the Postman collection shows them, and Graph's `next`
    and `previous` links where there is such a page; a cursor naming no thread is refused."""
    fields = _fields(request, MEDIA_FIELDS, "id")
    if isinstance(fields, Response):
        return fields
    return _users_posts(ctx, request, account, fields, replies_only=False)


def _users_posts(ctx: Context, request: Request, account: str, fields: list[str], *, replies_only: bool) -> Response:
    """The user's threads (or only its replies) newest first, from `since` on, a page of `limit`."""
    limit, since = request.args.get("limit", "25"), request.args.get("since", "0")
    if not limit.isdigit() or not 1 <= int(limit) <= 100 or not since.isdigit():
        return invalid("limit must be 1-100 and since a unix timestamp.")
    start = dt.datetime.fromtimestamp(int(since), dt.UTC).isoformat().replace("+00:00", "Z")
    posts = [
        p
        for p in reversed(ctx.state.posts_of("threads"))
        if p.account == account and p.created_at >= start and (p.reply_to or not replies_only)
    ]
    return _page_of(ctx, request, posts, fields, int(limit))


def _page_of(ctx: Context, request: Request, posts: list[Any], fields: list[str], limit: int) -> Response:
    page = graph.cursor_page(request, posts, lambda p: p.id, limit)
    if page is None:
        return invalid("The after or before cursor is not valid for this edge.")
    chosen, paging = page
    data = [_media(ctx, p, fields) for p in chosen]
    return json_response({"data": data, **({"paging": paging} if paging else {})})


@route("GET", "/graph.threads.net/v1.0/<media_id>/replies")
@_signed_in
def list_replies(ctx: Context, request: Request, account: str, media_id: str) -> Response:
    """A thread's top-level replies, newest first (oldest first with `reverse=false`), paged by
    cursor as `/threads` is; for the token's user (its id, or `me`), every reply it made, newest
    first from `since` on, as the Postman collection's "Get a List of All a User's Replies"."""
    fields = _fields(request, MEDIA_FIELDS, "id")
    if isinstance(fields, Response):
        return fields
    if media_id in ("me", account):
        return _users_posts(ctx, request, account, fields, replies_only=True)
    if ctx.state.find_post("threads", media_id) is None:
        return graph.no_object(media_id, kind=KIND)
    limit, reverse = request.args.get("limit", "25"), request.args.get("reverse", "true")
    if not limit.isdigit() or not 1 <= int(limit) <= 100 or reverse not in ("true", "false"):
        return invalid("limit must be 1-100 and reverse true or false.")
    replies = _replies_of(ctx, media_id)
    return _page_of(ctx, request, replies[::-1] if reverse == "true" else replies, fields, int(limit))


@route("GET", "/graph.threads.net/v1.0/<media_id>/insights")
@_signed_in
def insights(ctx: Context, request: Request, account: str, media_id: str) -> Response:
    post = ctx.state.find_post("threads", media_id)
    if post is None or post.account != account:
        return graph.no_object(media_id, kind=KIND)
    wanted = [m for m in request.args.get("metric", "").split(",") if m]
    if not wanted or any(m not in METRICS for m in wanted):
        return invalid(f"Param metric must be one of {', '.join(METRICS)}.")
    counts = ctx.state.metrics_of("threads", media_id)
    values = {"views": counts["views"], "likes": counts["likes"], "replies": counts["comments"]}
    values |= {"reposts": counts["shares"], "quotes": 0, "shares": 0}
    data = [graph.insight(media_id, n, values[n], n.capitalize(), f"The number of {n} of your post.") for n in wanted]
    return json_response({"data": data})


# --- OAuth ---------------------------------------------------------------------------------------


PROVIDER = oauth.Provider(
    "threads",
    oauth.Page("Threads", "{client} would like to access your Threads profile", "Error"),
    new_account=lambda: oauth.numeric_account(17),
    required=("client_id", "redirect_uri", "scope", "state"),
)


def _oauth_error(message: str, code: int = 100) -> Response:
    return graph.error(400, code, message)


@route("POST", "/graph.threads.net/oauth/access_token")
def exchange_code(ctx: Context, request: Request) -> Response:
    params = _params(request)
    missing = [n for n in ("client_id", "client_secret", "code", "grant_type", "redirect_uri") if not params.get(n)]
    if missing or params["grant_type"] != "authorization_code":
        return _oauth_error(f"Missing or invalid parameter: {', '.join(missing) or 'grant_type'}.")
    code = oauth.redeem(ctx, PROVIDER, params, client=params["client_id"])
    if isinstance(code, str):
        return _oauth_error("Error validating verification code. Please make sure your redirect_uri is identical.")
    access = tokens.issue("threads", code.account, lifetime_seconds=SHORT_LIFETIME)
    _store(ctx, "short")[access] = True
    return json_response({"access_token": access, "user_id": code.account})


@route("GET", "/graph.threads.net/access_token")
def exchange_token(ctx: Context, request: Request) -> Response:
    params = _params(request)
    if params.get("grant_type") != "th_exchange_token" or not params.get("client_secret"):
        return _oauth_error("grant_type must be th_exchange_token and client_secret is required.")
    account = _account(ctx, request)
    if isinstance(account, Response):
        return account
    return _long_lived(account)


@route("GET", "/graph.threads.net/refresh_access_token")
def refresh_token(ctx: Context, request: Request) -> Response:
    if _params(request).get("grant_type") != "th_refresh_token":
        return _oauth_error("grant_type must be th_refresh_token.")
    account = _account(ctx, request)
    if isinstance(account, Response):
        return account
    token = _token(request)
    info = tokens.parse(token)
    age = LONG_LIFETIME - (info.expires_at - time.time()) if info else 0
    if token in _store(ctx, "short") or age < 86400:
        return _oauth_error("Only long-lived access tokens at least 24 hours old can be refreshed.", 190)
    return _long_lived(account)


def _long_lived(account: str) -> Response:
    return oauth.bearer(tokens.issue("threads", account, lifetime_seconds=LONG_LIFETIME), LONG_LIFETIME)


route("GET", "/www.threads.net/oauth/authorize")(oauth.authorize_endpoint(PROVIDER))

"""The Facebook Pages (Graph API v25.0) stand-in: the calls the facebook client makes, as strict as Graph.

It answers with Graph's own shapes: `{"error": {message, type, code, error_subcode,
fbtrace_id}}` envelopes (HTTP 400, 403 for permissions), error 190 with subcodes 463/460 for
expired/revoked tokens, throttling as code 32 with `X-Business-Use-Case-Usage` and
`X-Page-Usage` headers (CONTRACT.md asks for HTTP 429 here; real Graph often uses 400), and
node reads that refuse unknown `fields` ("Tried accessing nonexisting field"). Photos and
videos are fetched from the `url`/`file_url` the client gives (a short urllib timeout) and
checked by their magic bytes and Photo size (4 MB).

A Page token is `tokens.issue("facebook", page_id)`; a user token (what Facebook Login yields
and what `/me/accounts` needs) is the same with kind "sbr": a user manages exactly the Page
named in their token, so seeded demo accounts work without shared state.

rupload's `file_size` and `file_url` headers reach the stand-in (sandbox/server.py keeps
headers whose names contain "_"); a binary upload is checked against `Content-Length` and
`offset`, and a `file_url` header upload is fetched like the platform fetches it.

Comments live in `state.comments`: `POST /{post-or-video-id}/comments` (Page as author, at most
8000 characters), read with `GET /{comment-id}` and `GET /{id}/comments`. `DELETE /{id}` takes a
post, video, reel or comment down (the Page's own, or a comment on its posts); a node that is
gone answers every read and delete with code 100, subcode 33, as Graph does.

Not modelled: scheduled and unpublished feed posts (refused with #100), the Resumable Upload
API (`/{app-id}/uploads`), multipart `source` uploads, Reels `DRAFT`/`SCHEDULED` publishing
beyond DRAFT creating no post, and duplicate-post (#506) detection.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from werkzeug.wrappers import Request, Response

from sandbox import graph, media, oauth, tokens
from sandbox.http import Context, json_response, publish_outcome, routes, signed_in, token_problem
from sandbox.media import MB
from sandbox.state import SandboxComment, SandboxPost

VERSION = "v25.0"
PHOTO_MAX_BYTES = 4 * MB
VIDEO_MAX_BYTES = 64 * MB
PROCESSING_CHECKS = 3
MAX_TEXT = 63206
POST_FIELDS = frozenset(
    {"id", "message", "created_time", "updated_time", "permalink_url", "is_published", "shares", "reactions",
     "comments", "status_type", "from"}
)  # fmt: skip
VIDEO_FIELDS = frozenset(
    {"id", "description", "created_time", "updated_time", "permalink_url", "post_id", "published", "status",
     "views", "post_views", "likes", "comments", "length", "title", "from"}
)  # fmt: skip
PHOTO_FIELDS = frozenset({"id", "name", "created_time", "link", "page_story_id", "alt_text_custom", "from"})
COMMENT_FIELDS = frozenset(
    {"id", "message", "created_time", "from", "permalink_url", "like_count", "comment_count", "can_remove",
     "is_hidden", "object"}
)  # fmt: skip
COMMENT_MAX = 8000
INSIGHT_METRICS = {
    "post_total_media_view_unique": ("views", "Lifetime Post Total Media Viewers"),
    "post_reactions_by_type_total": ("likes", "Lifetime Total post Reactions by Type."),
    "post_clicks": ("clicks", "Lifetime Post Clicks"),
}
TASKS = ["ANALYZE", "ADVERTISE", "MODERATE", "CREATE_CONTENT", "MANAGE"]
TOKEN_REFUSALS = {
    **graph.TOKEN_REFUSALS,
    "revoked": (190, 460, "Error validating access token: The session has been invalidated because the user "
                          "changed their password or Facebook has changed the session for security reasons."),
}  # fmt: skip


GRAPH = f"/graph.facebook.com/{VERSION}"
RULES, route = routes()  # the endpoints below, each declared with @route


# --- answers -----------------------------------------------------------------------------------


def rate_limited(page_id: str) -> Response:
    usage = {"type": "pages", "call_count": 100, "total_cputime": 12, "total_time": 15}
    headers = {
        "X-Business-Use-Case-Usage": json.dumps({page_id: [{**usage, "estimated_time_to_regain_access": 15}]}),
        "X-Page-Usage": json.dumps({"call_count": 100, "total_cputime": 12, "total_time": 15}),
    }
    response = graph.error(429, 32, "(#32) Page request limit reached")
    response.headers.update(headers)
    return response


def refused() -> Response:
    return graph.error(400, 368, "(#368) The action attempted has been deemed abusive or is otherwise disallowed")


# --- tokens and parameters -----------------------------------------------------------------------


def _params(request: Request) -> dict[str, str]:
    return {**request.args.to_dict(), **request.form.to_dict()}


def _page_token(ctx: Context, request: Request, page_id: str | None = None, **values: Any) -> str | Response:
    """The Page the token speaks for, or Graph's refusal (190 for bad tokens, #200 for another Page)."""
    info = token_problem(ctx, graph.token_of(request, _params(request)), "facebook")
    if not isinstance(info, tokens.TokenInfo):
        return graph.token_refused(info, TOKEN_REFUSALS)
    if page_id is not None and page_id != info.account:
        return graph.error(403, 200, "(#200) The user hasn't authorized the application to perform this action")
    return info.account


_page = signed_in(_page_token)


def _user_token(ctx: Context, token: str) -> tokens.TokenInfo | Response:
    """A Facebook Login user token (kind "sbr"): an empty one is refused as unparsable."""
    info = token_problem(ctx, token, "facebook", kind="sbr")
    if isinstance(info, tokens.TokenInfo):
        return info
    return graph.token_refused("invalid" if info == "missing" else info, TOKEN_REFUSALS)


def _bool(params: dict[str, str], name: str, default: bool = True) -> bool | None:
    value = params.get(name)
    if value is None:
        return default
    return {"true": True, "1": True, "false": False, "0": False}.get(value.lower())


def _objects(ctx: Context, kind: str) -> dict[str, Any]:
    return ctx.state.store("facebook", kind)


def _fetch(url: str, limit: int) -> bytes | str:
    """The file at `url` (at most `limit` bytes), or why it could not be fetched."""
    data = media.fetch(url, limit)
    if data == media.NOT_HTTP:
        return "The URL must be http(s)."
    if isinstance(data, str):
        return f"The file could not be downloaded: {data}"
    return data if len(data) <= limit else f"The file is larger than {limit} bytes."


# --- creating posts --------------------------------------------------------------------------------


def _new_post(ctx: Context, page: str, text: str, media_count: int, kind: str, post_id: str = "") -> SandboxPost:
    post_id = post_id or f"{page}_{ctx.state.next_id()}"
    return ctx.state.add_post("facebook", page, text, media_count, post_id=post_id, kind=kind, page=page)


def _feed_problem(ctx: Context, page: str, params: dict[str, str]) -> str:
    attached = sorted(k for k in params if k.startswith("attached_media["))
    if not (params.get("message") or params.get("link") or attached):
        return "Missing message or attachment"
    if _bool(params, "published") is not True or "scheduled_publish_time" in params:
        return "The sandbox publishes feed posts immediately: published must be true"
    if params.get("link") and not params["link"].startswith(("http://", "https://")):
        return "Param link must be a valid URL"
    if len(params.get("message", "")) > MAX_TEXT:
        return "Param message is too long"
    return _attached_problem(ctx, page, params, attached)


def _attached_problem(ctx: Context, page: str, params: dict[str, str], keys: list[str]) -> str:
    if keys != [f"attached_media[{i}]" for i in range(len(keys))]:
        return "attached_media must be a list attached_media[0], attached_media[1], ..."
    photos = _objects(ctx, "photos")
    for key in keys:
        try:
            fbid = str(json.loads(params[key]).get("media_fbid", ""))
        except (ValueError, AttributeError):
            return f"Param {key} must be a JSON object with media_fbid"
        photo = photos.get(fbid)
        if photo is None or photo["page"] != page or photo["published"] or photo.get("attached"):
            return f"Param {key} has an invalid media_fbid: an unpublished photo of this Page is required"
    return ""


@route("POST", f"{GRAPH}/<page_id>/feed")
@_page
def create_feed(ctx: Context, request: Request, page: str, page_id: str) -> Response:
    params = _params(request)
    reason = _feed_problem(ctx, page, params)
    if reason:
        return graph.invalid(reason)
    return _outcome(ctx, page, lambda _: _feed_post(ctx, page, params))


def _feed_post(ctx: Context, page: str, params: dict[str, str]) -> dict[str, Any]:
    fbids = [json.loads(v)["media_fbid"] for k, v in sorted(params.items()) if k.startswith("attached_media[")]
    post = _new_post(ctx, page, params.get("message", ""), len(fbids), "post", "")
    for fbid in fbids:
        _objects(ctx, "photos")[str(fbid)].update(attached=True, post_id=post.id)
    post.extra["alt_texts"] = [_objects(ctx, "photos")[str(fbid)]["alt_text_custom"] for fbid in fbids]
    post.extra["link"] = params.get("link", "")
    return {"id": post.id}


def _outcome(ctx: Context, page: str, create: Callable[[str], dict[str, Any]]) -> Response:
    """One queued outcome per publishing call (CONTRACT.md); `create(outcome)` makes the post."""
    refusals = {"error": refused, "rate_limited": lambda: rate_limited(page)}
    return publish_outcome(ctx, "facebook", refusals, lambda outcome: json_response(create(outcome)))


@route("POST", f"{GRAPH}/<page_id>/photos")
@_page
def create_photo(ctx: Context, request: Request, page: str, page_id: str) -> Response:
    params = _params(request)
    published = _bool(params, "published")
    if published is None or not params.get("url"):
        return graph.invalid(
            "url is required and published must be a boolean"
            if published is not None
            else "Param published must be a boolean"
        )
    data = _fetch(params["url"], PHOTO_MAX_BYTES)
    if isinstance(data, str) or not media.image_type(data):
        return graph.error(
            400, 324, f"(#324) Missing or invalid image file: {data if isinstance(data, str) else 'not an image'}"
        )
    photo_id = ctx.state.next_id()
    text = params.get("message") or params.get("caption") or ""
    alt = params.get("alt_text_custom", "")
    photo = {"page": page, "published": published, "text": text, "bytes": len(data), "alt_text_custom": alt}
    _objects(ctx, "photos")[photo_id] = photo
    if not published:
        return json_response({"id": photo_id})
    return _outcome(ctx, page, lambda _: _photo_post(ctx, page, photo_id, text))


def _photo_post(ctx: Context, page: str, photo_id: str, text: str) -> dict[str, Any]:
    post = _new_post(ctx, page, text, 1, "photo")
    photo = _objects(ctx, "photos")[photo_id]
    photo["post_id"] = post.id
    post.extra["alt_texts"] = [photo["alt_text_custom"]]
    return {"id": photo_id, "post_id": post.id}


# --- videos and reels ------------------------------------------------------------------------------


@route("POST", f"/graph-video.facebook.com/{VERSION}/<page_id>/videos")
@_page
def create_video(ctx: Context, request: Request, page: str, page_id: str) -> Response:
    params = _params(request)
    if _bool(params, "published") is not True or not params.get("file_url"):
        return graph.invalid("file_url is required and published must be true")
    data = _fetch(params["file_url"], VIDEO_MAX_BYTES)
    if isinstance(data, str) or not media.is_iso_video(data):
        reason = data if isinstance(data, str) else "not a video file"
        return graph.error(
            400, 352, f"(#352) Sorry, the video file you selected is in a format that we don't support: {reason}"
        )
    video_id = ctx.state.next_id()
    video = {"page": page, "kind": "video", "text": params.get("description", ""), "uploaded": True, "checks_left": 0}
    _objects(ctx, "videos")[video_id] = video
    return _outcome(ctx, page, lambda outcome: _video_published(ctx, video_id, outcome, {"id": video_id}))


def _video_published(ctx: Context, video_id: str, outcome: str, body: dict[str, Any]) -> dict[str, Any]:
    """A video or reel is published: its post exists now, or (`processing`) after the status checks."""
    video = _objects(ctx, "videos")[video_id]
    if outcome == "processing":
        video["checks_left"], video["awaiting"] = PROCESSING_CHECKS, True
    else:
        _video_post(ctx, video_id)
    return body


def _video_post(ctx: Context, video_id: str) -> None:
    video = _objects(ctx, "videos")[video_id]
    if not video.get("posted"):
        video["posted"] = True
        _new_post(ctx, video["page"], video["text"], 1, video["kind"], video_id)


@route("POST", f"{GRAPH}/<page_id>/video_reels")
@_page
def video_reels(ctx: Context, request: Request, page: str, page_id: str) -> Response:
    params = _params(request)
    phase = params.get("upload_phase")
    if phase == "start":
        video_id = ctx.state.next_id()
        _objects(ctx, "videos")[video_id] = {
            "page": page,
            "kind": "reel",
            "text": "",
            "uploaded": False,
            "checks_left": 0,
        }
        return json_response(
            {"video_id": video_id, "upload_url": f"https://rupload.facebook.com/video-upload/{VERSION}/{video_id}"}
        )
    if phase == "finish":
        return _finish_reel(ctx, page, params)
    return graph.invalid("Param upload_phase must be one of {START, TRANSFER, FINISH}")


def _finish_reel(ctx: Context, page: str, params: dict[str, str]) -> Response:
    video = _objects(ctx, "videos").get(params.get("video_id", ""))
    if video is None or video["page"] != page or video["kind"] != "reel":
        return graph.invalid("Param video_id must be a reel upload of this Page")
    if not video["uploaded"]:
        return graph.error(400, 6000, "There was a problem uploading your video file. Please try again.")
    state = params.get("video_state")
    if state not in ("PUBLISHED", "DRAFT"):
        return graph.invalid("Param video_state must be one of {DRAFT, PUBLISHED} (SCHEDULED is not modelled)")
    video["text"] = params.get("description", "")
    if state == "DRAFT":
        return json_response({"success": True})
    return _outcome(ctx, page, lambda outcome: _video_published(ctx, params["video_id"], outcome, {"success": True}))


@route("POST", f"/rupload.facebook.com/video-upload/{VERSION}/<video_id>")
def rupload(ctx: Context, request: Request, video_id: str) -> Response:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    info = token_problem(ctx, token.strip() if scheme == "OAuth" else "", "facebook")
    if not isinstance(info, tokens.TokenInfo):
        return _upload_error(
            401, "AuthError", "Invalid OAuth access token: an `Authorization: OAuth <token>` header is required."
        )
    video = _objects(ctx, "videos").get(video_id)
    if video is None or video["page"] != info.account:
        return _upload_error(400, "ProcessingFailedError", "Request processing failed: unknown video id.")
    data = _rupload_bytes(request)
    if isinstance(data, str):
        return _upload_error(400, "ProcessingFailedError", data)
    video["uploaded"], video["bytes"] = True, len(data)
    return json_response({"success": True})


def _rupload_bytes(request: Request) -> bytes | str:
    if request.headers.get("file_url"):
        data = _fetch(request.headers["file_url"], VIDEO_MAX_BYTES)
    else:
        # werkzeug's server drops headers with "_" (file_size): Content-Length stands in for it.
        size = request.headers.get("file_size") or request.headers.get("Content-Length", "")
        if not size.isdigit() or request.headers.get("offset") != "0":
            return "The offset (0) and file_size headers are required."
        data = request.get_data()
        if len(data) != int(size):
            return f"file_size says {size} bytes; {len(data)} were sent."
    if isinstance(data, bytes) and not media.is_iso_video(data):
        return "The file is not an MP4 video."
    return data


def _upload_error(status: int, kind: str, message: str) -> Response:
    return json_response({"debug_info": {"retriable": False, "type": kind, "message": message}}, status=status)


# --- reading ---------------------------------------------------------------------------------------


def _node_of(ctx: Context, node_id: str) -> tuple[str, Any] | None:
    post = ctx.state.find_post("facebook", node_id)
    if post is not None and post.extra.get("kind") in ("post", "photo"):
        return "PagePost", post
    video = _objects(ctx, "videos").get(node_id)
    if video is not None and not (video.get("posted") and post is None):  # a posted video is gone with its post
        return "Video", node_id
    comment = ctx.state.find_comment("facebook", node_id)
    if comment is not None:
        return "Comment", comment
    if node_id in _objects(ctx, "photos"):
        return "Photo", node_id
    return None


def _summary(count: int) -> dict[str, Any]:
    return {"data": [], "summary": {"total_count": count}}


def _post_node(ctx: Context, post: SandboxPost, names: list[str]) -> dict[str, Any]:
    counts = ctx.state.metrics_of("facebook", post.id)
    page, number = post.id.split("_", 1)
    values = {
        "id": post.id, "message": post.text, "created_time": graph.timestamp(post.created_at),
        "updated_time": graph.timestamp(post.created_at), "permalink_url": f"https://www.facebook.com/{page}/posts/{number}",
        "is_published": True, "shares": {"count": counts["shares"]}, "reactions": _summary(counts["likes"]),
        "comments": _summary(counts["comments"]), "status_type": "mobile_status_update",
        "from": {"id": page, "name": f"Sandbox Page {page}"},
    }  # fmt: skip
    return {name: values[name] for name in ["id", *names] if name in values and (name != "message" or post.text)}


def _status_body(video: dict[str, Any]) -> dict[str, Any]:
    posted, busy = bool(video.get("posted")), bool(video.get("awaiting"))
    publishing = "complete" if posted else ("in_progress" if busy else "not_started")
    return {
        "video_status": "ready" if posted else ("processing" if busy else "upload_complete"),
        "uploading_phase": {"status": "complete" if video["uploaded"] else "not_started"},
        "processing_phase": {"status": "complete" if posted else ("in_progress" if busy else "not_started")},
        "publishing_phase": {"status": publishing, "publish_status": "published" if posted else "not_published"},
    }


def _video_node(ctx: Context, video_id: str, names: list[str]) -> dict[str, Any]:
    video = _objects(ctx, "videos")[video_id]
    if "status" in names:
        _advance(ctx, video_id)
    counts = ctx.state.metrics_of("facebook", video_id)
    post = ctx.state.find_post("facebook", video_id)
    values = {
        "id": video_id, "description": video["text"], "status": _status_body(video),
        "permalink_url": f"/{video['page']}/videos/{video_id}/", "published": bool(video.get("posted")),
        "views": counts["views"], "post_views": counts["views"], "likes": _summary(counts["likes"]),
        "comments": _summary(counts["comments"]), "from": {"id": video["page"], "name": "Sandbox Page"},
        "created_time": graph.timestamp(post.created_at) if post else None,
        "post_id": f"{video['page']}_{video_id}" if post else None,
    }  # fmt: skip
    return {name: values[name] for name in ["id", *names] if values.get(name) is not None}


def _advance(ctx: Context, video_id: str) -> None:
    """A status check: a `processing` video stays in progress for 3 checks, then its post exists."""
    video = _objects(ctx, "videos")[video_id]
    if media.check_done(video) and video.pop("awaiting", False):
        _video_post(ctx, video_id)


@route("GET", f"{GRAPH}/<node_id>")
@_page
def get_node(ctx: Context, request: Request, page: str, node_id: str) -> Response:
    found = _node_of(ctx, node_id)
    owner = _owner(ctx, found)
    if found is None or owner != page:
        return graph.no_object(node_id, kind="GraphMethodException")
    kind, node = found
    names = graph.field_names(request.args.get("fields", "id"))
    allowed = {"PagePost": POST_FIELDS, "Video": VIDEO_FIELDS, "Photo": PHOTO_FIELDS, "Comment": COMMENT_FIELDS}[kind]
    unknown = [n for n in names if n not in allowed]
    if unknown:
        return graph.invalid(f"Tried accessing nonexisting field ({unknown[0]}) on node type ({kind})")
    if kind == "PagePost":
        return json_response(_post_node(ctx, node, names))
    if kind == "Video":
        return json_response(_video_node(ctx, node, names))
    if kind == "Comment":
        return json_response(_comment_node(node, names))
    return json_response(_photo_node(ctx, node, names))


def _owner(ctx: Context, found: tuple[str, Any] | None) -> str:
    if found is None:
        return ""
    kind, node = found
    if kind == "PagePost":
        return str(node.account)
    if kind == "Comment":
        return _owner(ctx, _node_of(ctx, node.post_id))
    return str(_objects(ctx, "videos" if kind == "Video" else "photos")[node]["page"])


def _photo_node(ctx: Context, photo_id: str, names: list[str]) -> dict[str, Any]:
    photo = _objects(ctx, "photos")[photo_id]
    values = {"id": photo_id, "name": photo["text"] or None, "page_story_id": photo.get("post_id"),
              "link": f"https://www.facebook.com/photo.php?fbid={photo_id}"}  # fmt: skip
    return {name: values[name] for name in ["id", *names] if values.get(name) is not None}


@route("GET", f"{GRAPH}/<node_id>/insights")
@_page
def insights(ctx: Context, request: Request, page: str, node_id: str) -> Response:
    found = _node_of(ctx, node_id)
    if found is None or found[0] != "PagePost" or _owner(ctx, found) != page:
        return graph.no_object(node_id, kind="GraphMethodException")
    metrics = [m for m in request.args.get("metric", "").split(",") if m]
    if not metrics or any(m not in INSIGHT_METRICS for m in metrics):
        return graph.invalid("The value must be a valid insights metric")
    counts = ctx.state.metrics_of("facebook", node_id)
    return json_response({"data": [_insight(node_id, m, counts) for m in metrics], "paging": _paging()})


def _insight(node_id: str, metric: str, counts: dict[str, int]) -> dict[str, Any]:
    key, title = INSIGHT_METRICS[metric]
    value: Any = {"like": counts["likes"]} if key == "likes" else counts.get(key, 0)
    return graph.insight(node_id, metric, value, title, f"Lifetime: {title}.")


def _paging() -> dict[str, Any]:
    return {"cursors": {"before": "QVFI", "after": "QVFI"}}


def _limit(request: Request) -> int | None:
    raw = request.args.get("limit", "25")
    return int(raw) if raw.isdigit() and 1 <= int(raw) <= 100 else None


@route("GET", f"{GRAPH}/<page_id>/published_posts")
@_page
def published_posts(ctx: Context, request: Request, page: str, page_id: str) -> Response:
    return _listing(ctx, request, page, ("post", "photo"))


@route("GET", f"{GRAPH}/<page_id>/videos")
@_page
def page_videos(ctx: Context, request: Request, page: str, page_id: str) -> Response:
    return _listing(ctx, request, page, ("video",))


@route("GET", f"{GRAPH}/<page_id>/video_reels")
@_page
def page_reels(ctx: Context, request: Request, page: str, page_id: str) -> Response:
    return _listing(ctx, request, page, ("reel",))


def _listing(ctx: Context, request: Request, page: str, kinds: tuple[str, ...]) -> Response:
    """The Page's posts (or videos, or reels) newest first, `limit` (1-100, 25 by default) a page,
    paged by cursor as Graph pages: `paging.next` only while more remain."""
    limit, names = _limit(request), graph.field_names(request.args.get("fields", "id"))
    allowed = POST_FIELDS if "post" in kinds else VIDEO_FIELDS
    if limit is None or any(n not in allowed for n in names):
        return graph.invalid("limit must be 1-100 and fields must exist on the listed node type")
    posts = [p for p in reversed(ctx.state.posts_of("facebook")) if p.account == page and p.extra.get("kind") in kinds]
    page_of = graph.cursor_page(request, posts, lambda p: p.id, limit)
    if page_of is None:
        return graph.invalid("The after or before cursor is not valid for this edge")
    chosen, paging = page_of
    if "post" in kinds:
        data = [_post_node(ctx, p, names) for p in chosen]
    else:
        data = [_video_node(ctx, p.id, names) for p in chosen]
    return json_response({"data": data, **({"paging": paging} if paging else {})})


# --- comments and deleting -------------------------------------------------------------------------


def _commentable(ctx: Context, node_id: str) -> bool:
    """Posts and published videos take comments; a comment's replies are not modelled."""
    found = _node_of(ctx, node_id)
    if found is None or found[0] == "Photo" or found[0] == "Comment":
        return False
    return found[0] == "PagePost" or ctx.state.find_post("facebook", node_id) is not None


@route("POST", f"{GRAPH}/<node_id>/comments")
@_page
def create_comment(ctx: Context, request: Request, page: str, node_id: str) -> Response:
    params = _params(request)
    if not _commentable(ctx, node_id):
        return graph.no_object(node_id, verb="post", kind="GraphMethodException")
    message = params.get("message", "")
    if not message.strip() and not params.get("attachment_url") and not params.get("attachment_id"):
        return graph.invalid("Missing message or attachment")
    if len(message) > COMMENT_MAX:
        return graph.invalid(f"Param message must be at most {COMMENT_MAX} characters long")
    return _outcome(ctx, page, lambda _: {"id": _new_comment(ctx, page, node_id, message).id})


def _new_comment(ctx: Context, page: str, node_id: str, message: str) -> SandboxComment:
    number = node_id.rsplit("_", 1)[-1]
    return ctx.state.add_comment("facebook", node_id, page, message, comment_id=f"{number}_{ctx.state.next_id()}")


def _comment_node(comment: SandboxComment, names: list[str]) -> dict[str, Any]:
    page, number = comment.account, comment.post_id.rsplit("_", 1)[-1]
    values = {
        "id": comment.id, "message": comment.text, "created_time": graph.timestamp(comment.created_at),
        "from": {"id": page, "name": f"Sandbox Page {page}"}, "like_count": 0, "comment_count": 0,
        "permalink_url": f"https://www.facebook.com/{page}/posts/{number}?comment_id={comment.id.split('_')[-1]}",
        "can_remove": True, "is_hidden": False, "object": {"id": comment.post_id},
    }  # fmt: skip
    return {name: values[name] for name in ["id", *names] if name in values}


@route("GET", f"{GRAPH}/<node_id>/comments")
@_page
def list_comments(ctx: Context, request: Request, page: str, node_id: str) -> Response:
    """A post's or video's comments, oldest first (newest first with
    `order=reverse_chronological`), `limit` a page, paged by cursor."""
    if not _commentable(ctx, node_id) or _owner(ctx, _node_of(ctx, node_id)) != page:
        return graph.no_object(node_id, kind="GraphMethodException")
    limit, names = _limit(request), graph.field_names(request.args.get("fields", "id,message,created_time,from"))
    order = request.args.get("order", "chronological")
    if limit is None or order not in ("chronological", "reverse_chronological") or set(names) - COMMENT_FIELDS:
        return graph.invalid("limit must be 1-100, order (reverse_)chronological, and fields those of a Comment")
    comments = ctx.state.comments_of("facebook", node_id)
    listed = comments[::-1] if order == "reverse_chronological" else comments
    page_of = graph.cursor_page(request, listed, lambda c: c.id, limit)
    if page_of is None:
        return graph.invalid("The after or before cursor is not valid for this edge")
    chosen, paging = page_of
    return json_response({"data": [_comment_node(c, names) for c in chosen], **({"paging": paging} if paging else {})})


@route("DELETE", f"{GRAPH}/<node_id>")
@_page
def delete_node(ctx: Context, request: Request, page: str, node_id: str) -> Response:
    """A Page deletes its own posts, videos and reels, and its comments or any on its posts."""
    found = _node_of(ctx, node_id)
    if found is None or found[0] == "Photo" or not _may_delete(ctx, found, page):
        return graph.no_object(node_id, verb="delete", kind="GraphMethodException")
    return _outcome(ctx, page, lambda _: _delete(ctx, found))


def _may_delete(ctx: Context, found: tuple[str, Any], page: str) -> bool:
    kind, node = found
    return _owner(ctx, found) == page or (kind == "Comment" and node.account == page)


def _delete(ctx: Context, found: tuple[str, Any]) -> dict[str, Any]:
    kind, node = found
    if kind == "Comment":
        ctx.state.remove_comment("facebook", node.id)
    elif kind == "Video":
        ctx.state.remove_post("facebook", node)
    else:
        ctx.state.remove_post("facebook", node.id)
    return {"success": True}


# --- Facebook Login --------------------------------------------------------------------------------


PROVIDER = oauth.Provider(
    "facebook",
    oauth.Page("Log in with Facebook", "{client} wants to manage your Page", "Sorry, something went wrong.", ","),
    new_account=lambda: oauth.numeric_account(15),
    required=("client_id", "redirect_uri"),
    response_type="code",
    pkce=("S256",),
)
_REDIRECT_MISMATCH = (
    "Error validating verification code. Please make sure your redirect_uri is identical to the one "
    "you used in the OAuth dialog request"
)
CODE_REFUSALS = {  # reason -> (message, subcode)
    "unknown": ("This authorization code has been used.", 36009),
    "redirect_uri": (_REDIRECT_MISMATCH, 36008),
    "client_id": (_REDIRECT_MISMATCH, 36008),
    "verifier": ("Invalid code verifier.", 36008),
}


@route("GET", f"{GRAPH}/oauth/access_token")
def access_token(ctx: Context, request: Request, **values: Any) -> Response:
    args = request.args
    if not args.get("client_id"):
        return graph.invalid("Missing client_id parameter.")
    if args.get("grant_type") == "fb_exchange_token":
        return _exchange(ctx, args.get("fb_exchange_token", ""))
    if args.get("code"):
        return _code_grant(ctx, args)
    return graph.invalid("Missing code or grant_type=fb_exchange_token.")


def _code_grant(ctx: Context, args: Any) -> Response:
    """A code with a PKCE challenge needs its verifier; one without, the app secret."""
    code = oauth.redeem(ctx, PROVIDER, args, client=args["client_id"])
    if isinstance(code, str) or (not code.challenge and not args.get("client_secret")):
        message, subcode = CODE_REFUSALS[code if isinstance(code, str) else "verifier"]
        return graph.error(400, 100, message, subcode=subcode)
    return oauth.bearer(tokens.issue("facebook", code.account, kind="sbr", lifetime_seconds=3600), 3600)


def _exchange(ctx: Context, user_token: str) -> Response:
    info = _user_token(ctx, user_token)
    if isinstance(info, Response):
        return info
    lifetime = 5183944
    return oauth.bearer(tokens.issue("facebook", info.account, kind="sbr", lifetime_seconds=lifetime), lifetime)


@route("GET", f"{GRAPH}/me/accounts")
def me_accounts(ctx: Context, request: Request, **values: Any) -> Response:
    info = _user_token(ctx, graph.token_of(request, _params(request)))
    if isinstance(info, Response):
        return info
    page = info.account
    entry = {
        "access_token": tokens.issue("facebook", page, lifetime_seconds=10 * 365 * 86400),
        "category": "Brand", "category_list": [{"id": "1605186416478696", "name": "Brand"}],
        "name": f"Sandbox Page {page}", "id": page, "tasks": TASKS,
    }  # fmt: skip
    names = graph.field_names(request.args.get("fields", "access_token,category,category_list,name,id,tasks"))
    return json_response({"data": [{k: entry[k] for k in names if k in entry}], "paging": _paging()})


route("GET", f"/www.facebook.com/{VERSION}/dialog/oauth")(oauth.authorize_endpoint(PROVIDER))


@route("DELETE", f"{GRAPH}/me/permissions")
def delete_permissions(ctx: Context, request: Request) -> Response:
    """Take back the app's login with the user token: the user's tokens and the Page tokens they
    gave stop working. A Page token's node has no permissions edge."""
    token = graph.token_of(request, _params(request))
    if tokens.parse(token) is not None:
        return graph.invalid("Tried accessing nonexisting field (permissions) on node type (Page)")
    info = _user_token(ctx, token)
    if isinstance(info, Response):
        return info
    oauth.revoke(ctx, token, info, grant=True)
    return json_response({"success": True})

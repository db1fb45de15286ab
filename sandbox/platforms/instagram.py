"""The Instagram stand-in: the Instagram API with Instagram Login, as strict as Instagram.

It serves graph.instagram.com (v25.0), api.instagram.com's token endpoint and the
www.instagram.com authorize page, with Graph's own shapes: `{"error": {message, type, code,
error_subcode, is_transient, error_user_title, error_user_msg, fbtrace_id}}` (400) for
refusals, `{"id": ...}` for creations, `{"data": [...], "paging": ...}` for edges, and only the
fields a `fields=` parameter asks for. Parameters are read from the query, a form or a JSON body,
as Graph does.

Containers: the media is pulled from `image_url` / `video_url` at creation (urllib, short
timeout) and checked: images must be JPEG of at most 8 MB, videos MP4/MOV (an ISO BMFF `ftyp`)
of at most 300 MB whose picture track, when its `stsd` names one, is H.264 or HEVC (another
codec ends the container in ERROR, as on Instagram). Images are FINISHED at once; a video
reports IN_PROGRESS for one status check; the `processing` outcome makes it three.
`media_publish` refuses a container that is not FINISHED (9007/2207027) and one already
published.

Outcomes: one per publish call, taken when the top-level container is created (not for carousel
items): `error` and `rate_limited` answer there; `timeout` is kept on the container and applied
by `media_publish` (the post is created, then the answer held). Posting or deleting a comment
also takes an outcome, which is how a failing first comment or delete is simulated.

Comments live in `state.comments` (`POST /{media-id}/comments`, 1-2200 characters), are read
with `GET /{comment-id}` and listed newest first by `GET /{media-id}/comments`, and are deleted
with `DELETE /{comment-id}` by their author or the media's owner. Media cannot be deleted
through the API: `DELETE /{media-id}` is refused as Graph refuses an unsupported delete. A post
taken down (`state.remove_post`) answers every read with code 100, subcode 33.

Not modelled: resumable uploads (`upload_type=resumable`, rupload.facebook.com), the
publishing quota (content_publishing_limit), container expiry after 24 h, the "at least 24 h
old" rule of refresh_access_token, app-scoped ids (`id` and `user_id` of /me are the same), and
unknown parameters, which the sandbox refuses where Graph would often ignore them. The wording of
a second media_publish of one container is the sandbox's own.
"""

from __future__ import annotations

import json
import re
import secrets
import time
from typing import Any

from werkzeug.wrappers import Request, Response

from sandbox import graph, media, oauth, tokens
from sandbox.http import Context, json_body, json_response, publish_outcome, routes, signed_in, token_problem
from sandbox.media import MB
from sandbox.state import SandboxComment, SandboxPost

VERSION = "v25.0"
GRAPH = f"/graph.instagram.com/{VERSION}"
IMAGE_MAX, VIDEO_MAX = 8 * MB, 300 * MB
FETCH_TIMEOUT_SECONDS = 3.0
CONTAINER_PARAMS = frozenset(
    {
        "alt_text", "audio_name", "caption", "children", "collaborators", "cover_url", "image_url",
        "is_carousel_item", "location_id", "media_type", "product_tags", "share_to_feed", "thumb_offset",
        "trial_params", "upload_type", "user_tags", "video_url",
    }
)  # fmt: skip
MEDIA_TYPES = ("REELS", "VIDEO", "CAROUSEL", "STORIES")
CONTAINER_FIELDS = frozenset({"id", "status", "status_code", "video_status", "copyright_check_status"})
MEDIA_FIELDS = frozenset(
    {
        "id", "alt_text", "caption", "comments_count", "is_comment_enabled", "is_shared_to_feed", "like_count",
        "media_product_type", "media_type", "media_url", "owner", "permalink", "shortcode", "thumbnail_url",
        "timestamp", "username",
    }
)  # fmt: skip
COMMENT_FIELDS = frozenset(
    {"id", "text", "timestamp", "username", "from", "like_count", "hidden", "media", "parent_id"}
)
USER_FIELDS = frozenset({"id", "user_id", "username", "name", "account_type", "media_count", "profile_picture_url"})
METRICS = frozenset(
    {
        "views", "reach", "likes", "comments", "shares", "saved", "total_interactions", "profile_visits",
        "follows", "profile_activity", "replies", "navigation", "ig_reels_avg_watch_time",
        "ig_reels_video_view_total_time",
    }
)  # fmt: skip
SCOPES = frozenset(
    {
        "instagram_business_basic", "instagram_business_content_publish", "instagram_business_manage_comments",
        "instagram_business_manage_insights", "instagram_business_manage_messages",
    }
)  # fmt: skip
SHORT_LIVED, LONG_LIVED = 3600, 60 * 86400
_HASHTAG = re.compile(r"(?:^|(?<=\s))#\w+")
_MENTION = re.compile(r"(?:^|(?<=\s))@[\w.]+")

RULES, route = routes()  # the endpoints below, each declared with @route


# --- answers -------------------------------------------------------------------------------------


def rate_limited(account: str) -> Response:
    usage = {account: [{"type": "instagram", "call_count": 100, "total_cputime": 1, "total_time": 1,
                        "estimated_time_to_regain_access": 1}]}  # fmt: skip
    message = "There have been too many calls to this Instagram account. Wait a bit and try again."
    response = graph.error(429, 80002, message, is_transient=True)
    response.headers["X-Business-Use-Case-Usage"] = json_dumps(usage)
    return response


def json_dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _account(ctx: Context, request: Request, ig_id: str | None = None, **values: Any) -> str | Response:
    """The token's account; an `ig_id` in the path must be it (or "me")."""
    token = graph.token_of(request, request.args) or request.form.get("access_token", "")
    info = token_problem(ctx, token, "instagram")
    if not isinstance(info, tokens.TokenInfo):
        return graph.token_refused(info)
    if ig_id is not None and ig_id not in (info.account, "me"):
        return graph.no_object(ig_id, verb=request.method.lower())
    return info.account


_signed_in = signed_in(_account)


def _params(request: Request) -> dict[str, Any]:
    """Graph parameters from the query, a form body or a JSON body (access_token left out)."""
    params: dict[str, Any] = {k: v for k, v in request.args.items() if k != "access_token"}
    if request.mimetype == "application/x-www-form-urlencoded":
        params.update({k: v for k, v in request.form.items() if k != "access_token"})
    body = json_body(request)
    if isinstance(body, dict):
        params.update(body)
    return params


def _flag(value: Any) -> bool | None:
    """A Graph bool: true/false, or the strings "true"/"false"; None when it is neither."""
    if isinstance(value, bool):
        return value
    return {"true": True, "false": False}.get(str(value).lower()) if isinstance(value, str) else None


def _id_list(value: Any) -> list[str] | None:
    if isinstance(value, str):
        value = [part.strip() for part in value.split(",") if part.strip()]
    if isinstance(value, list) and all(isinstance(i, str | int) and str(i).isdigit() for i in value):
        return [str(i) for i in value]
    return None


def _fields(request: Request, allowed: frozenset[str], node: str) -> list[str] | Response:
    asked = [f for f in _params(request).get("fields", "id").split(",") if f]
    unknown = [f for f in asked if f not in allowed]
    if unknown:
        return graph.invalid(f"Tried accessing nonexisting field ({unknown[0]}) on node type ({node})")
    return ["id", *[f for f in asked if f != "id"]]


# --- scratch state -------------------------------------------------------------------------------


def _store(ctx: Context, kind: str) -> dict[str, Any]:
    return ctx.state.store("instagram", kind)


def _shortcode(media_id: str) -> str:
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    number, code = int(media_id), ""
    while number:
        number, rest = divmod(number, 64)
        code = alphabet[rest] + code
    return "C" + code


# --- containers ----------------------------------------------------------------------------------


def _caption_problem(caption: Any) -> str:
    if not isinstance(caption, str):
        return "Param caption must be a string"
    if len(caption) > 2200:
        return "The caption is longer than 2200 characters"
    if len(_HASHTAG.findall(caption)) > 30:
        return "The caption has more than 30 hashtags"
    return "The caption has more than 20 @-mentions" if len(_MENTION.findall(caption)) > 20 else ""


def _kind_problem(params: dict[str, Any]) -> str:
    """Which container the parameters describe is valid; "" when it is."""
    media_type, item = params.get("media_type"), _flag(params.get("is_carousel_item", False))
    if item is None:
        return "Param is_carousel_item must be a boolean"
    if media_type is not None and media_type not in MEDIA_TYPES:
        return f"Param media_type must be one of {{{', '.join(MEDIA_TYPES)}}}"
    needs = {None: "image_url", "REELS": "video_url", "VIDEO": "video_url"}.get(media_type)
    if needs and not isinstance(params.get(needs), str):
        return f"The parameter {needs} is required"
    if item and media_type in ("REELS", "CAROUSEL", "STORIES"):
        return f"A {media_type} container cannot be a carousel item"
    if media_type == "VIDEO" and not item:
        return "media_type VIDEO is only for carousel items; single videos are REELS"
    if media_type == "STORIES" and not (params.get("image_url") or params.get("video_url")):
        return "The parameter image_url or video_url is required"
    return ""


def _params_problem(params: dict[str, Any]) -> str:
    unknown = sorted(set(params) - CONTAINER_PARAMS)
    if unknown:
        return f"Param {unknown[0]} is not a valid parameter"
    if params.get("upload_type") is not None:
        return "upload_type=resumable is not supported by this stand-in; use image_url or video_url"
    return _kind_problem(params) or _alt_text_problem(params) or _caption_problem(params.get("caption", ""))


def _alt_text_problem(params: dict[str, Any]) -> str:
    """`alt_text`: a string of at most 1000 characters, on an image container only."""
    if "alt_text" not in params:
        return ""
    if not isinstance(params["alt_text"], str):
        return "Param alt_text must be a string"
    if params.get("media_type") is not None or not params.get("image_url"):
        return "Param alt_text is supported only for images"
    return "Param alt_text must be at most 1000 characters long" if len(params["alt_text"]) > 1000 else ""


def _fetch(url: str, limit: int) -> bytes | None:
    """The bytes at `url` (at most limit + 1 of them), or None when they cannot be fetched."""
    data = media.fetch(url, limit, FETCH_TIMEOUT_SECONDS) if url.isascii() else ""
    return None if isinstance(data, str) else data


def _fetch_failed(url: str) -> Response:
    return graph.error(
        400,
        9004,
        "Only photo or video can be accepted as media type.",
        subcode=2207052,
        is_transient=False,
        error_user_title="Media download has failed.",
        error_user_msg=f"The media could not be fetched from this uri: {url}",
    )


def _image_problem(url: str) -> Response | None:
    data = _fetch(url, IMAGE_MAX)
    if data is None:
        return _fetch_failed(url)
    if len(data) > IMAGE_MAX:
        return graph.error(
            400, 36000, "The image is too large.", subcode=2207004, error_user_msg="Images may be at most 8 MB."
        )
    if media.image_type(data) != "image/jpeg":
        return graph.error(
            400, 36001, "The image format is not supported.", subcode=2207005, error_user_msg="Use a JPEG image."
        )
    return None


def _video_state(url: str) -> tuple[str, str] | Response:
    """(status_code, status) a fetched video leads to: videos fail asynchronously on Instagram."""
    data = _fetch(url, VIDEO_MAX)
    if data is None:
        return _fetch_failed(url)
    if len(data) > VIDEO_MAX:
        return "ERROR", "Error: The video file is too large (2207026)."
    if not media.is_iso_video(data):
        return "ERROR", "Error: The video format is not supported (2207026)."
    codec = media.video_codec(data)
    if codec and codec not in media.H264_OR_HEVC:  # Reels: H.264 or HEVC only
        return "ERROR", f"Error: The video codec ({codec}) is not supported; use H.264 or HEVC (2207026)."
    return "IN_PROGRESS", "In Progress"


def _children_problem(ctx: Context, account: str, params: dict[str, Any]) -> str:
    if params.get("media_type") != "CAROUSEL":
        return ""
    children = _id_list(params.get("children"))
    if children is None or not 2 <= len(children) <= 10:
        return "Param children must hold 2 to 10 carousel item container ids"
    containers = [_store(ctx, "containers").get(child) for child in children]
    if any(c is None or c["account"] != account or not c["carousel_item"] for c in containers):
        return "Param children must be carousel item containers of this account"
    if any(c and c["status_code"] != "FINISHED" for c in containers):
        return "A carousel item is not ready: wait until its status_code is FINISHED"
    return ""


@route("POST", f"{GRAPH}/<ig_id>/media")
@_signed_in
def create_container(ctx: Context, request: Request, account: str, ig_id: str) -> Response:
    params = _params(request)
    reason = _params_problem(params) or _children_problem(ctx, account, params)
    if reason:
        return graph.invalid(reason)
    item = bool(_flag(params.get("is_carousel_item", False)))
    outcome = "ok" if item else ctx.state.take_outcome("instagram")
    if outcome in ("error", "rate_limited"):
        return _refused(outcome, account)
    state = _media_state(params)
    if isinstance(state, Response):
        return state
    return json_response({"id": _new_container(ctx, account, params, state, outcome)})


def _refused(outcome: str, account: str) -> Response:
    if outcome == "rate_limited":
        return rate_limited(account)
    return graph.error(
        400,
        36003,
        "The aspect ratio is not supported.",
        subcode=2207009,
        is_transient=False,
        error_user_title="Unsupported aspect ratio",
        error_user_msg="The submitted image with aspect ratio cannot be published. Use an aspect ratio "
        "between 4:5 and 1.91:1.",
    )


def _media_state(params: dict[str, Any]) -> tuple[str, str] | Response:
    if params.get("media_type") == "CAROUSEL":
        return "FINISHED", "Finished: Media has been uploaded and it is ready to be published."
    if params.get("video_url"):
        return _video_state(params["video_url"])
    problem = _image_problem(params["image_url"])
    return problem or ("FINISHED", "Finished: Media has been uploaded and it is ready to be published.")


def _new_container(ctx: Context, account: str, params: dict[str, Any], state: tuple[str, str], outcome: str) -> str:
    container_id = ctx.state.next_id()
    checks = 3 if outcome == "processing" else 1 if state[0] == "IN_PROGRESS" else 0
    if outcome == "processing" and state[0] == "FINISHED":
        state = ("IN_PROGRESS", "In Progress")
    _store(ctx, "containers")[container_id] = {
        "account": account, "params": params, "media_type": params.get("media_type") or "IMAGE",
        "carousel_item": bool(_flag(params.get("is_carousel_item", False))),
        "caption": params.get("caption", ""), "children": _id_list(params.get("children")) or [],
        "status_code": state[0], "status": state[1], "checks": checks, "outcome": outcome, "media_id": "",
    }  # fmt: skip
    return container_id


def _advance(container: dict[str, Any]) -> None:
    """One status check: IN_PROGRESS while checks remain, then FINISHED."""
    if container["status_code"] != "IN_PROGRESS" or not media.check_done(container, "checks"):
        return
    container["status_code"] = "FINISHED"
    container["status"] = "Finished: Media has been uploaded and it is ready to be published."


# --- publishing ----------------------------------------------------------------------------------


@route("POST", f"{GRAPH}/<ig_id>/media_publish")
@_signed_in
def media_publish(ctx: Context, request: Request, account: str, ig_id: str) -> Response:
    params = _params(request)
    creation_id = str(params.get("creation_id", ""))
    if set(params) != {"creation_id"} or not creation_id.isdigit():
        return graph.invalid("The parameter creation_id is required (and the only one)")
    container = _store(ctx, "containers").get(creation_id)
    if container is None or container["account"] != account or container["carousel_item"]:
        return graph.no_object(creation_id)
    refusal = _not_publishable(container)
    return refusal or _publish(ctx, account, creation_id, container)


def _not_publishable(container: dict[str, Any]) -> Response | None:
    state = container["status_code"]
    if state == "IN_PROGRESS":
        return graph.error(
            400,
            9007,
            "Media ID is not available",
            subcode=2207027,
            is_transient=False,
            error_user_title="Media not ready for publishing",
            error_user_msg="The media is not ready for publishing, please wait for a moment",
        )
    if state == "PUBLISHED":
        return graph.invalid("This media container has already been published")
    if state != "FINISHED":
        return graph.invalid(f"The media container cannot be published: {container['status']}")
    return None


def _alt_of(ctx: Context, container: dict[str, Any]) -> list[str]:
    children = [_store(ctx, "containers").get(child) or {} for child in container["children"]]
    return [str((c.get("params") or {}).get("alt_text", "")) for c in children or [container]]


def _publish(ctx: Context, account: str, creation_id: str, container: dict[str, Any]) -> Response:
    kind = container["media_type"]
    media_type = {"CAROUSEL": "CAROUSEL_ALBUM", "REELS": "VIDEO", "STORIES": "IMAGE"}.get(kind, kind)
    product = {"REELS": "REELS", "STORIES": "STORY"}.get(kind, "FEED")
    count = len(container["children"]) or 1
    with ctx.state.lock:
        post = ctx.state.add_post(
            "instagram", account, container["caption"], count,
            container_id=creation_id, media_type=media_type, product=product, request=container["params"],
        )  # fmt: skip
        container.update(status_code="PUBLISHED", status="Published", media_id=post.id)
        post.extra["alt_texts"] = _alt_of(ctx, container)
    if container["outcome"] == "timeout":
        ctx.hold()
    return json_response({"id": post.id})


# --- reading -------------------------------------------------------------------------------------


def _permalink(post: SandboxPost) -> str:
    section = "reel" if post.extra.get("product") == "REELS" else "p"
    return f"https://www.instagram.com/{section}/{_shortcode(post.id)}/"


def _media_node(ctx: Context, post: SandboxPost, fields: list[str]) -> dict[str, Any]:
    counts = ctx.state.metrics_of("instagram", post.id)
    values = {
        "id": post.id, "caption": post.text, "media_type": post.extra.get("media_type"),
        "media_product_type": post.extra.get("product"), "permalink": _permalink(post),
        "shortcode": _shortcode(post.id), "timestamp": graph.timestamp(post.created_at),
        "username": _username(post.account), "like_count": counts["likes"], "comments_count": counts["comments"],
        "is_comment_enabled": True, "is_shared_to_feed": True, "owner": {"id": post.account},
    }  # fmt: skip
    return {f: values[f] for f in fields if f in values}


def _username(account: str) -> str:
    return "sandbox_" + re.sub(r"\W", "_", account)


@route("GET", f"{GRAPH}/<node_id>")
@_signed_in
def get_node(ctx: Context, request: Request, account: str, node_id: str) -> Response:
    container = _store(ctx, "containers").get(node_id)
    if container is not None and container["account"] == account:
        return _container_answer(request, node_id, container)
    post = ctx.state.find_post("instagram", node_id)
    if post is not None and post.account == account:
        fields = _fields(request, MEDIA_FIELDS, "Media")
        return fields if isinstance(fields, Response) else json_response(_media_node(ctx, post, fields))
    comment = ctx.state.find_comment("instagram", node_id)
    if comment is not None and _may_moderate(ctx, comment, account):
        fields = _fields(request, COMMENT_FIELDS, "IGComment")
        return fields if isinstance(fields, Response) else json_response(_comment_node(comment, fields))
    if node_id in (account, "me"):
        return _user_answer(request, account)
    return graph.no_object(node_id)


def _container_answer(request: Request, node_id: str, container: dict[str, Any]) -> Response:
    fields = _fields(request, CONTAINER_FIELDS, "ShadowIGMediaBuilder")
    if isinstance(fields, Response):
        return fields
    if "status_code" in fields or "status" in fields:
        _advance(container)
    values = {"id": node_id, "status_code": container["status_code"], "status": container["status"]}
    return json_response({f: values[f] for f in fields if f in values})


def _user_answer(request: Request, account: str) -> Response:
    fields = _fields(request, USER_FIELDS, "User")
    if isinstance(fields, Response):
        return fields
    values = {
        "id": account, "user_id": account, "username": _username(account), "name": f"Sandbox {account}",
        "account_type": "BUSINESS", "media_count": 0, "profile_picture_url": "",
    }  # fmt: skip
    return json_response({f: values[f] for f in fields})


def _since(raw: str) -> str:
    """A `since` value (unix seconds or ISO) as the ISO prefix posts are compared with."""
    if raw.isdigit():
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(int(raw)))
    return raw[:19]


@route("GET", f"{GRAPH}/<ig_id>/media")
@_signed_in
def list_media(ctx: Context, request: Request, account: str, ig_id: str) -> Response:
    """The account's media newest first (stories left out), from `since` on, `limit` (1-100, 25
    by default) a page, paged by cursor as Graph pages: `paging.next` only while more remain."""
    fields = _fields(request, MEDIA_FIELDS, "Media")
    if isinstance(fields, Response):
        return fields
    limit = str(_params(request).get("limit", "25"))
    if not limit.isdigit() or not 1 <= int(limit) <= 100:
        return graph.invalid("Param limit must be between 1 and 100")
    since = _since(str(_params(request).get("since", "")))
    posts = [p for p in reversed(ctx.state.posts_of("instagram")) if p.account == account]
    listed = [p for p in posts if p.created_at[:19] >= since and p.extra.get("product") != "STORY"]
    page = graph.cursor_page(request, listed, lambda p: p.id, int(limit))
    if page is None:
        return graph.invalid("The after or before cursor is not valid for this edge")
    chosen, paging = page
    data = [_media_node(ctx, p, fields) for p in chosen]
    return json_response({"data": data, **({"paging": paging} if paging else {})})


# --- comments and insights -----------------------------------------------------------------------


@route("POST", f"{GRAPH}/<media_id>/comments")
@_signed_in
def create_comment(ctx: Context, request: Request, account: str, media_id: str) -> Response:
    if ctx.state.find_post("instagram", media_id) is None:
        return graph.no_object(media_id, verb="post")
    params = _params(request)
    message = params.get("message")
    if set(params) - {"message"} or not isinstance(message, str) or not 0 < len(message) <= 2200:
        return graph.invalid("The parameter message is required: a string of 1 to 2200 characters")
    refusals = {
        "error": lambda: graph.invalid("Comments are disabled for this media"),
        "rate_limited": lambda: rate_limited(account),
    }
    return publish_outcome(ctx, "instagram", refusals, lambda _: _comment(ctx, account, media_id, message))


def _comment(ctx: Context, account: str, media_id: str, message: str) -> Response:
    return json_response({"id": ctx.state.add_comment("instagram", media_id, account, message).id})


def _may_moderate(ctx: Context, comment: SandboxComment, account: str) -> bool:
    """The comment's author and the owner of its media may read and delete it."""
    media = ctx.state.find_post("instagram", comment.post_id)
    return comment.account == account or (media is not None and media.account == account)


def _comment_node(comment: SandboxComment, fields: list[str]) -> dict[str, Any]:
    values = {
        "id": comment.id, "text": comment.text, "timestamp": graph.timestamp(comment.created_at),
        "username": _username(comment.account), "from": {"id": comment.account, "username": _username(comment.account)},
        "like_count": 0, "hidden": False, "media": {"id": comment.post_id},
    }  # fmt: skip
    return {f: values[f] for f in fields if f in values}


@route("GET", f"{GRAPH}/<media_id>/comments")
@_signed_in
def list_comments(ctx: Context, request: Request, account: str, media_id: str) -> Response:
    """A media's comments newest first, `limit` (1-100, 25 by default) a page, paged by cursor."""
    post = ctx.state.find_post("instagram", media_id)
    if post is None or post.account != account:
        return graph.no_object(media_id)
    fields = _fields(request, COMMENT_FIELDS, "IGComment")
    if isinstance(fields, Response):
        return fields
    limit = str(_params(request).get("limit", "25"))
    if not limit.isdigit() or not 1 <= int(limit) <= 100:
        return graph.invalid("Param limit must be between 1 and 100")
    comments = ctx.state.comments_of("instagram", media_id)[::-1]
    page = graph.cursor_page(request, comments, lambda c: c.id, int(limit))
    if page is None:
        return graph.invalid("The after or before cursor is not valid for this edge")
    chosen, paging = page
    return json_response({"data": [_comment_node(c, fields) for c in chosen], **({"paging": paging} if paging else {})})


@route("DELETE", f"{GRAPH}/<node_id>")
@_signed_in
def delete_node(ctx: Context, request: Request, account: str, node_id: str) -> Response:
    """Only a comment can be deleted; a media (or anything else) is an unsupported delete."""
    comment = ctx.state.find_comment("instagram", node_id)
    if comment is None or not _may_moderate(ctx, comment, account):
        return graph.no_object(node_id, verb="delete")
    if set(_params(request)) - {"ad_id"}:
        return graph.invalid("DELETE /{ig-comment-id} takes no parameter but ad_id")
    refusals = {
        "error": lambda: graph.error(400, 10, "(#10) Application does not have permission for this action"),
        "rate_limited": lambda: rate_limited(account),
    }
    return publish_outcome(ctx, "instagram", refusals, lambda _: _delete_comment(ctx, node_id))


def _delete_comment(ctx: Context, comment_id: str) -> Response:
    ctx.state.remove_comment("instagram", comment_id)
    return json_response({"success": True})


@route("GET", f"{GRAPH}/<media_id>/insights")
@_signed_in
def media_insights(ctx: Context, request: Request, account: str, media_id: str) -> Response:
    post = ctx.state.find_post("instagram", media_id)
    if post is None or post.account != account:
        return graph.no_object(media_id)
    params = _params(request)
    metrics = [m for m in str(params.get("metric", "")).split(",") if m]
    wrong = [m for m in metrics if m not in METRICS]
    if not metrics or wrong or params.get("period", "lifetime") != "lifetime" or set(params) - {"metric", "period"}:
        return graph.invalid(f"metric must be one of the following values: {', '.join(sorted(METRICS))}")
    counts = ctx.state.metrics_of("instagram", media_id)
    return json_response({"data": [_insight(media_id, name, counts) for name in metrics]})


def _insight(media_id: str, name: str, counts: dict[str, int]) -> dict[str, Any]:
    interactions = counts["likes"] + counts["comments"] + counts["shares"]
    values = {**counts, "reach": counts["views"], "saved": 0, "total_interactions": interactions}
    words = name.replace("_", " ")
    return graph.insight(media_id, name, values.get(name, 0), words.capitalize(), f"The media's {words}.")


# --- OAuth (Instagram Login) ---------------------------------------------------------------------


def _oauth_error(message: str, status: int = 400) -> Response:
    return json_response({"error_type": "OAuthException", "code": status, "error_message": message}, status=status)


def _scope_problem(scope: str) -> str:
    scopes = set(scope.split(","))
    if scopes - SCOPES or "instagram_business_basic" not in scopes:
        return "Invalid scope: use instagram_business_* permissions, including instagram_business_basic."
    return ""


PROVIDER = oauth.Provider(
    "instagram",
    oauth.Page("Instagram", "{client} would like to access your Instagram professional account", "Invalid request"),
    new_account=lambda: "1784" + "".join(secrets.choice("0123456789") for _ in range(13)),
    scope_problem=_scope_problem,
)
CODE_REFUSALS = {
    "unknown": "Matching code was not found or was already used",
    "redirect_uri": "Error validating verification code. Please make sure your redirect_uri is identical",
}
CODE_REFUSALS["client_id"] = CODE_REFUSALS["redirect_uri"]


@route("POST", "/api.instagram.com/oauth/access_token")
def access_token(ctx: Context, request: Request, **values: Any) -> Response:
    form = request.form
    if request.mimetype not in (oauth.FORM, "multipart/form-data"):
        return _oauth_error("The request body must be form-encoded.")
    missing = [n for n in ("client_id", "client_secret", "grant_type", "redirect_uri", "code") if not form.get(n)]
    if missing:
        return _oauth_error(f"Missing required field {missing[0]}")
    if form["grant_type"] != "authorization_code":
        return _oauth_error("Invalid grant_type: only authorization_code is supported here")
    code = oauth.redeem(ctx, PROVIDER, form, client=form["client_id"])
    if isinstance(code, str):
        return _oauth_error(CODE_REFUSALS[code])
    short = tokens.issue("instagram", code.account, lifetime_seconds=SHORT_LIVED)
    return json_response({"data": [{"access_token": short, "user_id": code.account, "permissions": code.scope}]})


def _token_grant(ctx: Context, request: Request, grant: str) -> tokens.TokenInfo | Response:
    if request.args.get("grant_type") != grant:
        return graph.invalid(f"Param grant_type must be {grant}")
    info = token_problem(ctx, request.args.get("access_token", ""), "instagram")
    return info if isinstance(info, tokens.TokenInfo) else graph.token_refused(info)


def _long_lived(account: str) -> Response:
    return oauth.bearer(tokens.issue("instagram", account, lifetime_seconds=LONG_LIVED), LONG_LIVED)


@route("GET", "/graph.instagram.com/access_token")
def exchange_token(ctx: Context, request: Request, **values: Any) -> Response:
    info = _token_grant(ctx, request, "ig_exchange_token")
    if isinstance(info, Response):
        return info
    if not request.args.get("client_secret"):
        return graph.invalid("The parameter client_secret is required")
    return _long_lived(info.account)


@route("GET", "/graph.instagram.com/refresh_access_token")
def refresh_token(ctx: Context, request: Request, **values: Any) -> Response:
    """A new 60-day token for an unexpired long-lived one (the old one stays valid)."""
    info = _token_grant(ctx, request, "ig_refresh_token")
    if isinstance(info, Response):
        return info
    if info.expires_at - time.time() <= SHORT_LIVED + 60:
        return graph.invalid("Only long-lived access tokens can be refreshed")
    return _long_lived(info.account)


route("GET", "/www.instagram.com/oauth/authorize")(oauth.authorize_endpoint(PROVIDER))

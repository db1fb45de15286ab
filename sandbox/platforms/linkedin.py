"""The LinkedIn stand-in: the versioned REST endpoints the LinkedIn client calls, as strict as LinkedIn.

Shapes follow LinkedIn's documentation (platform docs §4; LinkedIn publishes no OpenAPI):
`LinkedIn-Version` and `X-Restli-Protocol-Version: 2.0.0` are required on /rest/ (a missing
version is a 400, a sunset one a 426), errors are `{"status", "code"|"serviceErrorCode",
"message"}` or 422s with `errorDetails.inputErrors`, the post URN comes back in `x-restli-id`
on an empty 201, and a 429 carries no rate-limit headers (LinkedIn sends none).

Commentary is parsed as LinkedIn's little text format: an escaped character is kept, `#word`
is a hashtag, `@[Name](urn)` a mention, and any other unescaped reserved character silently
cuts the post short (as LinkedIn does) while the answer is still 201. `/_sandbox/posts` shows
the text as rendered; GET /rest/posts gives the commentary as sent.

Media: images are AVAILABLE once their bytes (PNG/JPEG/GIF, checked by signature and size)
are PUT; videos are checked for the MP4 signature and their declared size, finalized with the
parts' ETags in order, then PROCESSING for one status check (three when the `processing`
outcome is queued: finalizeUpload takes it from the queue) before AVAILABLE. Posts refuse
media that is not AVAILABLE or not the author's. One outcome per POST /rest/posts.

Comments (socialActions/{post}/comments) are created, read, listed and deleted by their actor,
who must be the token's member; a deleted post answers 404 to every read, its comments with it,
and deleting it again answers 204 (LinkedIn's delete is idempotent).

Not modelled: organization page roles (an organization author is accepted for any token),
the 300-member minimum of a targeted audience, image pixel limits and video durations,
documents and articles, and "ghost" duplicates after a delete.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
from typing import Any
from urllib.parse import urlencode

from werkzeug.wrappers import Request, Response

from sandbox import oauth
from sandbox.http import Context, bearer_account, json_body, json_response, publish_outcome, routes, signed_in
from sandbox.media import MB, check_done, image_type, is_iso_video
from sandbox.state import SandboxPost

PLATFORM = "linkedin"
PART_BYTES = 4 * MB  # LinkedIn's video part size; tests may lower it
IMAGE_MAX_BYTES = 5 * MB
VIDEO_MAX_BYTES = 500 * MB
MAX_COMMENTARY = 3000
OLDEST_ACTIVE_VERSION = "202407"
UPLOAD_HOST = "https://www.linkedin.com/dms-uploads/sp/v2"
POST_FIELDS = frozenset(
    {
        "author", "commentary", "visibility", "distribution", "lifecycleState", "isReshareDisabledByAuthor",
        "content", "contentLandingPage", "contentCallToActionLabel", "reshareContext", "adContext", "container",
    }
)  # fmt: skip
VISIBILITIES = frozenset({"PUBLIC", "CONNECTIONS", "LOGGED_IN", "CONTAINER"})
FEEDS = frozenset({"MAIN_FEED", "NONE", "CONTAINER_ONLY"})
LIFECYCLES = frozenset({"PUBLISHED", "DRAFT", "PUBLISH_REQUESTED"})
TARGET_FACETS = frozenset(
    {
        "degrees", "fieldsOfStudy", "geoLocations", "industries", "interfaceLocales", "jobFunctions",
        "organizations", "seniorities", "staffCountRanges",
    }
)  # fmt: skip
METRIC_OF = {"IMPRESSION": "views", "MEMBERS_REACHED": "views", "REACTION": "likes", "COMMENT": "comments"}
METRIC_OF["RESHARE"] = "shares"
RESERVED = frozenset("\\|{}@[]()<>#*_~")
_MENTION = re.compile(r"@\[([^\]\\]*)\]\((urn:li:[A-Za-z]+:[^)\s]+)\)")
_PERSON = re.compile(r"urn:li:person:[A-Za-z0-9_-]+")
_ORGANIZATION = re.compile(r"urn:li:organization:\d+")
_ENTITY = re.compile(r"\((share|ugc):(urn:li:(?:share|ugcPost):\d+)\)")


RULES, route = routes()  # the endpoints below, each declared with @route


# --- little text -----------------------------------------------------------------------------


def render_little_text(text: str) -> str:
    """What LinkedIn shows for a commentary: escapes undone, mentions as names, and the text
    cut at the first reserved character that is neither escaped nor part of a hashtag."""
    shown, index = [], 0
    while index < len(text):
        piece, index = _next_piece(text, index)
        if piece is None:
            break
        shown.append(piece)
    return "".join(shown)


def _next_piece(text: str, index: int) -> tuple[str | None, int]:
    char = text[index]
    if char == "\\":
        return (text[index + 1], index + 2) if index + 1 < len(text) else (None, index)
    if char == "#" and index + 1 < len(text) and text[index + 1].isalnum():
        return char, index + 1
    mention = _MENTION.match(text, index)
    if mention:
        return mention.group(1), mention.end()
    return (None, index) if char in RESERVED else (char, index + 1)


# --- answers ---------------------------------------------------------------------------------


def error(status: int, message: str, code: str = "", service_code: int | None = None) -> Response:
    body: dict[str, Any] = {"status": status, "message": message}
    if code:
        body["code"] = code
    if service_code is not None:
        body["serviceErrorCode"] = service_code
    return json_response(body, status=status)


def input_error(message: str, code: str, field: str, status: int = 422) -> Response:
    detail = {"code": code, "description": message, "input": {"inputPath": {"fieldPath": field}}}
    body = {
        "status": status,
        "message": message,
        "errorDetailType": "com.linkedin.common.error.BadRequest",
        "errorDetails": {"inputErrors": [detail]},
    }
    return json_response(body, status=status)


TOKEN_ERRORS = {
    "missing": (65604, "EMPTY_ACCESS_TOKEN", "Empty oauth2 access token"),
    "invalid": (65600, "INVALID_ACCESS_TOKEN", "Invalid access token"),
    "expired": (65601, "EXPIRED_ACCESS_TOKEN", "The token used in the request has expired"),
    "revoked": (65602, "REVOKED_ACCESS_TOKEN", "The token used in the request has been revoked by the user"),
}


def _token_refused(why: str) -> Response:
    service_code, code, message = TOKEN_ERRORS[why]
    return error(401, message, code, service_code)


_account = bearer_account(PLATFORM, _token_refused)


def _version_problem(request: Request) -> Response | None:
    version = request.headers.get("LinkedIn-Version", "")
    if not version:
        message = "A version must be present. Please specify a version by adding the LinkedIn-Version header."
        return error(400, message, "VERSION_MISSING")
    if not re.fullmatch(r"20\d{4}(\.\d{2})?", version) or version[:6] < OLDEST_ACTIVE_VERSION:
        return error(426, f"Requested version {version} is not active", "NONEXISTENT_VERSION")
    if request.headers.get("X-Restli-Protocol-Version") != "2.0.0":
        return error(400, "X-Restli-Protocol-Version must be 2.0.0 for this resource", "ILLEGAL_ARGUMENT")
    return None


def _rest_account(ctx: Context, request: Request, **values: Any) -> str | Response:
    """The token's member for a /rest/ call, after the version headers LinkedIn requires."""
    account = _account(ctx, request)
    if isinstance(account, Response):
        return account
    return _version_problem(request) or account


_member, _rest_member = signed_in(_account), signed_in(_rest_account)


def _objects(ctx: Context, kind: str) -> dict[str, Any]:
    return ctx.state.store(PLATFORM, kind)


def _now_ms() -> int:
    return int(time.time() * 1000)


def _owner_problem(account: str, owner: Any) -> Response | None:
    if not isinstance(owner, str) or not (_PERSON.fullmatch(owner) or _ORGANIZATION.fullmatch(owner)):
        return input_error("owner must be a person or organization URN", "INVALID_VALUE", "/owner", 400)
    if owner.startswith("urn:li:person:") and owner != f"urn:li:person:{account}":
        return error(403, "Not enough permissions to act as this owner", "ACCESS_DENIED", 100)
    return None


# --- images ----------------------------------------------------------------------------------


@route("POST", "/api.linkedin.com/rest/images")
@_rest_member
def images_action(ctx: Context, request: Request, account: str, **values: Any) -> Response:
    if request.args.get("action") != "initializeUpload":
        return error(400, "action must be initializeUpload", "ILLEGAL_ARGUMENT")
    body = json_body(request)
    owner = (body.get("initializeUploadRequest") or {}).get("owner") if isinstance(body, dict) else None
    problem = _owner_problem(account, owner)
    if problem:
        return problem
    image_id = ctx.state.next_id()
    urn, upload_id = f"urn:li:image:{image_id}", secrets.token_urlsafe(12)
    _objects(ctx, "media")[urn] = {"owner": owner, "account": account, "status": "WAITING_UPLOAD", "kind": "image"}
    _objects(ctx, "uploads")[upload_id] = {"urn": urn, "part": 0}
    upload_url = f"{UPLOAD_HOST}/{upload_id}/uploaded-image/0"
    value = {"uploadUrlExpiresAt": _now_ms() + 86400_000, "uploadUrl": upload_url, "image": urn}
    return json_response({"value": value})


def _image_problem(data: bytes) -> str:
    if image_type(data) not in ("image/jpeg", "image/png", "image/gif"):
        return "The uploaded file is not a JPG, PNG or GIF image."
    return f"Images may be at most {IMAGE_MAX_BYTES} bytes." if len(data) > IMAGE_MAX_BYTES else ""


@route("PUT", "/www.linkedin.com/dms-uploads/sp/v2/<upload_id>/<kind>/<int:part>")
@_member
def upload(ctx: Context, request: Request, account: str, upload_id: str, kind: str, part: int) -> Response:
    target = _objects(ctx, "uploads").get(upload_id)
    media = _objects(ctx, "media").get(target["urn"]) if target else None
    if target is None or media is None or media["account"] != account or media["status"] != "WAITING_UPLOAD":
        return error(404, "Upload URL not found or expired", "NOT_FOUND")
    data = request.get_data(cache=True)
    if kind == "uploaded-image" and media["kind"] == "image":
        return _store_image(media, data)
    if kind == "uploaded-video" and media["kind"] == "video":
        return _store_part(media, part, data)
    return error(400, "Upload URL does not match the media kind", "ILLEGAL_ARGUMENT")


def _store_image(media: dict[str, Any], data: bytes) -> Response:
    reason = _image_problem(data)
    if reason:
        return error(400, reason, "INVALID_IMAGE")
    media.update(status="AVAILABLE", size=len(data))
    return Response(status=201)


@route("GET", "/api.linkedin.com/rest/images/<urn>")
@_rest_member
def get_image(ctx: Context, request: Request, account: str, urn: str) -> Response:
    return _media_answer(ctx, account, urn, "image")


def _media_answer(ctx: Context, account: str, urn: str, kind: str) -> Response:
    media = _objects(ctx, "media").get(urn)
    if media is None or media["kind"] != kind or media["account"] != account:
        return error(404, f"{kind} {urn} not found", "NOT_FOUND")
    if kind == "video":
        _advance(media)
    return json_response({"owner": media["owner"], "id": urn, "status": media["status"]})


# --- videos ----------------------------------------------------------------------------------


@route("POST", "/api.linkedin.com/rest/videos")
@_rest_member
def videos_action(ctx: Context, request: Request, account: str, **values: Any) -> Response:
    body = json_body(request)
    action = request.args.get("action")
    if action == "initializeUpload" and isinstance(body, dict):
        return _initialize_video(ctx, account, body.get("initializeUploadRequest"))
    if action == "finalizeUpload" and isinstance(body, dict):
        return _finalize_video(ctx, account, body.get("finalizeUploadRequest"))
    return error(400, "action must be initializeUpload or finalizeUpload with a JSON body", "ILLEGAL_ARGUMENT")


def _initialize_video(ctx: Context, account: str, request: Any) -> Response:
    if not isinstance(request, dict):
        return input_error("initializeUploadRequest is required", "MISSING_FIELD", "/initializeUploadRequest", 400)
    problem = _owner_problem(account, request.get("owner"))
    if problem:
        return problem
    size = request.get("fileSizeBytes")
    if not isinstance(size, int) or isinstance(size, bool) or not 0 < size <= VIDEO_MAX_BYTES:
        return input_error(f"fileSizeBytes must be 1 to {VIDEO_MAX_BYTES}", "INVALID_VALUE", "/fileSizeBytes", 400)
    urn, token = f"urn:li:video:{ctx.state.next_id()}", secrets.token_urlsafe(8)
    media = {"owner": request["owner"], "account": account, "status": "WAITING_UPLOAD", "kind": "video"}
    _objects(ctx, "media")[urn] = {**media, "size": size, "token": token, "parts": {}, "checks_left": 1}
    upload_id = secrets.token_urlsafe(12)
    _objects(ctx, "uploads")[upload_id] = {"urn": urn}
    value = {
        "uploadUrlsExpireAt": _now_ms() + 86400_000,
        "video": urn,
        "uploadInstructions": _instructions(upload_id, size),
        "uploadToken": token,
    }
    return json_response({"value": value})


def _instructions(upload_id: str, size: int) -> list[dict[str, Any]]:
    return [
        {"uploadUrl": f"{UPLOAD_HOST}/{upload_id}/uploaded-video/{n}", "firstByte": first,
         "lastByte": min(first + PART_BYTES, size) - 1}
        for n, first in enumerate(range(0, size, PART_BYTES))
    ]  # fmt: skip


def _store_part(media: dict[str, Any], part: int, data: bytes) -> Response:
    etag = hashlib.md5(data, usedforsecurity=False).hexdigest() + f"-{part}"
    media["parts"][part] = (etag, data)
    return Response(status=200, headers={"ETag": etag})


def _finalize_video(ctx: Context, account: str, request: Any) -> Response:
    media = _objects(ctx, "media").get(request.get("video", "")) if isinstance(request, dict) else None
    if media is None or media["kind"] != "video" or media["account"] != account:
        return input_error("video is not a video of this member", "INVALID_VALUE", "/video", 400)
    if request.get("uploadToken", "") != media["token"]:
        return input_error("uploadToken does not match", "INVALID_VALUE", "/uploadToken", 400)
    parts = [media["parts"][n] for n in sorted(media["parts"])]
    if request.get("uploadedPartIds") != [etag for etag, _ in parts]:
        return input_error(
            "uploadedPartIds must list every part's ETag in order", "INVALID_VALUE", "/uploadedPartIds", 400
        )
    data = b"".join(chunk for _, chunk in parts)
    if len(data) != media["size"] or not is_iso_video(data):
        return error(400, "The uploaded video is not an MP4 file of the declared size", "INVALID_VIDEO")
    slow = ctx.state.take_outcome_if(PLATFORM, "processing")  # a queued `processing` applies to this upload
    media.update(status="PROCESSING", checks_left=3 if slow else 1, parts={})
    return json_response({})


@route("GET", "/api.linkedin.com/rest/videos/<urn>")
@_rest_member
def get_video(ctx: Context, request: Request, account: str, urn: str) -> Response:
    return _media_answer(ctx, account, urn, "video")


def _advance(media: dict[str, Any]) -> None:
    """One status check of a processing video: in progress while checks are left, then AVAILABLE."""
    if media["status"] == "PROCESSING" and check_done(media):
        media["status"] = "AVAILABLE"


# --- posts -----------------------------------------------------------------------------------


@route("POST", "/api.linkedin.com/rest/posts")
@_rest_member
def create_post(ctx: Context, request: Request, account: str, **values: Any) -> Response:
    body = json_body(request)
    if not isinstance(body, dict):
        return error(400, "The request body must be a JSON object", "ILLEGAL_ARGUMENT")
    problem = _fields_problem(body) or _author_problem(account, body) or _content_problem(ctx, account, body)
    refused = problem or _duplicate(ctx, account, body)
    return refused or publish_outcome(ctx, PLATFORM, OUTCOME_REFUSALS, lambda _: _create(ctx, account, body))


def _fields_problem(body: dict[str, Any]) -> Response | None:
    unknown = sorted(set(body) - POST_FIELDS)
    if unknown:
        fields = ", ".join(f"/{name}" for name in unknown)
        return input_error(
            f"Unpermitted fields present in REQUEST_BODY: [{fields}]", "UNPERMITTED_FIELDS", f"/{unknown[0]}"
        )
    for name in ("author", "visibility", "distribution", "lifecycleState"):
        if name not in body:
            return input_error(f"Field /{name} is required", "MISSING_FIELD", f"/{name}")
    return _enum_problem(body) or _distribution_problem(body["distribution"])


def _enum_problem(body: dict[str, Any]) -> Response | None:
    if body["visibility"] not in VISIBILITIES:
        return input_error(f"visibility must be one of {sorted(VISIBILITIES)}", "INVALID_ENUM_VALUE", "/visibility")
    if body["lifecycleState"] not in LIFECYCLES:
        return input_error("lifecycleState is not a valid value", "INVALID_ENUM_VALUE", "/lifecycleState")
    if not isinstance(body.get("commentary", ""), str):
        return input_error("commentary must be a string", "INVALID_TYPE", "/commentary")
    if not isinstance(body.get("isReshareDisabledByAuthor", False), bool):
        return input_error("isReshareDisabledByAuthor must be a boolean", "INVALID_TYPE", "/isReshareDisabledByAuthor")
    return None


def _distribution_problem(distribution: Any) -> Response | None:
    if not isinstance(distribution, dict) or distribution.get("feedDistribution") not in FEEDS:
        return input_error(
            "distribution.feedDistribution is required", "MISSING_FIELD", "/distribution/feedDistribution"
        )
    targets = distribution.get("targetEntities", [])
    if not isinstance(targets, list) or not all(_is_target(t) for t in targets):
        return input_error("targetEntities holds targeting facets", "INVALID_VALUE", "/distribution/targetEntities")
    if not isinstance(distribution.get("thirdPartyDistributionChannels", []), list):
        return input_error("must be an array", "INVALID_TYPE", "/distribution/thirdPartyDistributionChannels")
    return None


def _is_target(target: Any) -> bool:
    if not isinstance(target, dict) or not target or set(target) - TARGET_FACETS:
        return False
    return all(isinstance(v, list) and all(isinstance(i, str) for i in v) for v in target.values())


def _author_problem(account: str, body: dict[str, Any]) -> Response | None:
    author = body["author"]
    problem = _owner_problem(account, author)
    if problem:
        return problem
    if author.startswith("urn:li:person:") and body["distribution"].get("targetEntities"):
        return input_error(
            "Targeting is available only for organization posts", "INVALID_VALUE", "/distribution/targetEntities"
        )
    return None


def _alt_text_problem(items: list[dict[str, Any]]) -> str:
    alts = [item["altText"] for item in items if "altText" in item]
    if not all(isinstance(alt, str) for alt in alts):
        return "altText must be a string"
    return "altText takes at most 4086 characters" if any(len(alt) > 4086 for alt in alts) else ""


def _content_ids(content: Any) -> list[tuple[str, str]] | str:
    """(media URN, kind) of each media item, or why the content is refused."""
    if not isinstance(content, dict) or len(content) != 1:
        return "content must hold exactly one of media, multiImage"
    if isinstance(content.get("media"), dict):
        media_id = content["media"].get("id")
        if not isinstance(media_id, str) or not media_id.startswith(("urn:li:image:", "urn:li:video:")):
            return "content.media.id must be an image or video URN"
        if set(content["media"]) - {"id", "title", "altText"}:
            return "content.media takes id, title and altText"
        if "altText" in content["media"] and not media_id.startswith("urn:li:image:"):
            return "content.media.altText is taken only with an image"
        return _alt_text_problem([content["media"]]) or [(media_id, media_id.split(":")[2])]
    images = (content.get("multiImage") or {}).get("images") if isinstance(content.get("multiImage"), dict) else None
    if not isinstance(images, list) or not 2 <= len(images) <= 20:
        return "content.multiImage.images must hold 2 to 20 images"
    if not all(isinstance(i, dict) and isinstance(i.get("id"), str) and not set(i) - {"id", "altText"} for i in images):
        return "each image takes id and altText"
    if problem := _alt_text_problem(images):
        return problem
    return [(i["id"], "image") if i["id"].startswith("urn:li:image:") else (i["id"], "video") for i in images]


def _content_problem(ctx: Context, account: str, body: dict[str, Any]) -> Response | None:
    commentary = body.get("commentary", "")
    if "content" not in body:
        return (
            None
            if commentary
            else input_error("commentary is required for a text post", "MISSING_FIELD", "/commentary")
        )
    items = _content_ids(body["content"])
    if isinstance(items, str):
        return input_error(items, "INVALID_VALUE", "/content")
    multi = "multiImage" in body["content"]
    for urn, kind in items:
        media = _objects(ctx, "media").get(urn)
        if media is None or media["account"] != account or media["kind"] != kind or (multi and kind != "image"):
            return input_error(f"{urn} is not a media of this member", "INVALID_VALUE", "/content")
        if media["status"] != "AVAILABLE":
            return input_error(
                f"{urn} is not AVAILABLE (status {media['status']})", "MEDIA_ASSET_NOT_READY", "/content"
            )
    return None


def _duplicate(ctx: Context, account: str, body: dict[str, Any]) -> Response | None:
    for post in ctx.state.posts_of(PLATFORM):
        sent = post.extra.get("request", {})
        same = (sent.get("commentary", ""), sent.get("content")) == (body.get("commentary", ""), body.get("content"))
        if post.account == account and same and sent.get("author") == body["author"]:
            message = f"Content is a duplicate of {post.id}"
            return input_error(message, "DUPLICATE_POST", "/commentary")
    return None


OUTCOME_REFUSALS = {
    "error": lambda: error(
        403, "Not enough permissions to access: partnerApiPostsExternal.CREATE.20250701", "ACCESS_DENIED", 100
    ),
    "rate_limited": lambda: error(
        429, "Resource level throttle MEMBER DAY limit for calls to this resource is reached."
    ),
}


def _create(ctx: Context, account: str, body: dict[str, Any]) -> Response:
    text = render_little_text(body.get("commentary", ""))
    urn = f"urn:li:share:{ctx.state.next_id()}"
    count = len(_content_ids(body["content"])) if "content" in body else 0
    ctx.state.add_post(PLATFORM, account, text, count, post_id=urn, request=body, created_ms=_now_ms())
    return Response(status=201, headers={"x-restli-id": urn})


def _post_json(post: SandboxPost) -> dict[str, Any]:
    sent, created = post.extra["request"], post.extra["created_ms"]
    return {**sent, "id": post.id, "createdAt": created, "publishedAt": created, "lastModifiedAt": created}


@route("GET", "/api.linkedin.com/rest/posts/<urn>")
@_rest_member
def get_post(ctx: Context, request: Request, account: str, urn: str) -> Response:
    post = ctx.state.find_post(PLATFORM, urn)
    if post is None:
        return error(404, f"Post {urn} not found", "NOT_FOUND")
    return json_response(_post_json(post))


@route("GET", "/api.linkedin.com/rest/posts")
@_rest_member
def find_posts(ctx: Context, request: Request, account: str, **values: Any) -> Response:
    args = request.args
    if args.get("q") != "author" or not args.get("author"):
        return error(400, "q=author and author are required", "ILLEGAL_ARGUMENT")
    if args["author"] != f"urn:li:person:{account}" and not _ORGANIZATION.fullmatch(args["author"]):
        return error(403, "Not enough permissions to read this author's posts", "ACCESS_DENIED", 100)
    count, start, sort = args.get("count", "10"), args.get("start", "0"), args.get("sortBy", "LAST_MODIFIED")
    if not count.isdigit() or not 1 <= int(count) <= 100 or sort not in ("LAST_MODIFIED", "CREATED"):
        return error(400, "count must be 1 to 100; sortBy LAST_MODIFIED or CREATED", "ILLEGAL_ARGUMENT")
    if not start.isdigit():
        return error(400, "start must be a non-negative integer", "ILLEGAL_ARGUMENT")
    mine = [p for p in reversed(ctx.state.posts_of(PLATFORM)) if p.extra["request"]["author"] == args["author"]]
    return json_response(_posts_page(request, mine, int(start), int(count)))


def _posts_page(request: Request, posts: list[SandboxPost], start: int, count: int) -> dict[str, Any]:
    """One page of a finder, as Rest.li pages: `paging` with the start and count asked for, and
    `links` to the previous and next pages where there are some."""
    links = []
    if start > 0:
        links.append(_page_link(request, "prev", max(0, start - count), count))
    if start + count < len(posts):
        links.append(_page_link(request, "next", start + count, count))
    elements = [_post_json(p) for p in posts[start : start + count]]
    return {"elements": elements, "paging": {"start": start, "count": count, "links": links}}


def _page_link(request: Request, rel: str, start: int, count: int) -> dict[str, str]:
    query = urlencode({**request.args.to_dict(), "start": start, "count": count})
    return {"rel": rel, "type": "application/json", "href": f"/rest/posts?{query}"}


@route("DELETE", "/api.linkedin.com/rest/posts/<urn>")
@_rest_member
def delete_post(ctx: Context, request: Request, account: str, urn: str) -> Response:
    """The author deletes a post (204), and deleting it again answers 204 too: LinkedIn's delete
    is idempotent. A URN no post ever had is a 404."""
    post = ctx.state.find_post(PLATFORM, urn)
    if post is None:
        gone = any(p.platform == PLATFORM and p.id == urn for p in ctx.state.removed)
        return Response(status=204) if gone else error(404, f"Post {urn} not found", "NOT_FOUND")
    if post.extra["request"]["author"] != f"urn:li:person:{account}":
        return error(403, "Not enough permissions to delete this post", "ACCESS_DENIED", 100)
    return publish_outcome(ctx, PLATFORM, OUTCOME_REFUSALS, lambda _: _remove(ctx, urn))


def _remove(ctx: Context, urn: str) -> Response:
    ctx.state.remove_post(PLATFORM, urn)
    return Response(status=204)


# --- comments --------------------------------------------------------------------------------

COMMENT_FIELDS = frozenset({"actor", "object", "message", "parentComment", "content"})
MAX_COMMENT = 1250
COMMENT_REFUSALS = {
    "error": lambda: error(
        403, "Not enough permissions to access: partnerApiSocialActions.CREATE.20250701", "ACCESS_DENIED", 100
    ),
    "rate_limited": OUTCOME_REFUSALS["rate_limited"],
}


@route("POST", "/api.linkedin.com/rest/socialActions/<urn>/comments")
@_rest_member
def create_comment(ctx: Context, request: Request, account: str, urn: str) -> Response:
    body = json_body(request)
    refused = _comment_problem(account, urn, body)
    if refused is None and ctx.state.find_post(PLATFORM, urn) is None:
        refused = error(404, f"Post {urn} not found", "NOT_FOUND")
    return refused or publish_outcome(ctx, PLATFORM, COMMENT_REFUSALS, lambda _: _add_comment(ctx, account, urn, body))


def _comment_problem(account: str, urn: str, body: Any) -> Response | None:
    if not isinstance(body, dict):
        return error(400, "The request body must be a JSON object", "ILLEGAL_ARGUMENT")
    unknown = sorted(set(body) - COMMENT_FIELDS)
    if unknown:
        fields = ", ".join(f"/{name}" for name in unknown)
        return input_error(f"Unpermitted fields present in REQUEST_BODY: [{fields}]", "UNPERMITTED_FIELDS", fields)
    for name in ("actor", "object", "message"):
        if name not in body:
            return input_error(f"Field /{name} is required", "MISSING_FIELD", f"/{name}")
    if body["object"] != urn:
        return input_error("object must be the URN the comment is created under", "INVALID_VALUE", "/object")
    text = body["message"].get("text") if isinstance(body["message"], dict) else None
    if not isinstance(text, str) or not text.strip():
        return input_error("message.text is required", "MISSING_FIELD", "/message/text")
    if len(text) > MAX_COMMENT:
        return input_error(f"message.text takes at most {MAX_COMMENT} characters", "INVALID_VALUE", "/message/text")
    return _owner_problem(account, body["actor"])


def _add_comment(ctx: Context, account: str, urn: str, body: dict[str, Any]) -> Response:
    comment_id = ctx.state.next_id()
    ctx.state.add_comment(
        PLATFORM, urn, account, body["message"]["text"], comment_id=comment_id, actor=body["actor"], at=_now_ms()
    )
    comment = ctx.state.find_comment(PLATFORM, comment_id)
    return json_response(_comment_json(comment), status=201, headers={"x-restli-id": comment_id})


def _comment_json(comment: Any) -> dict[str, Any]:
    urn = f"urn:li:comment:({comment.post_id},{comment.id})"
    stamp = {"actor": comment.extra["actor"], "time": comment.extra["at"]}
    return {
        "actor": comment.extra["actor"], "object": comment.post_id, "id": comment.id, "commentUrn": urn,
        "$URN": urn, "message": {"text": comment.text, "attributes": []}, "created": stamp, "lastModified": stamp,
    }  # fmt: skip


def _comment_of(ctx: Context, urn: str, comment_id: str) -> Any:
    comment = ctx.state.find_comment(PLATFORM, comment_id)
    return comment if comment is not None and comment.post_id == urn else None


@route("GET", "/api.linkedin.com/rest/socialActions/<urn>/comments/<comment_id>")
@_rest_member
def get_comment(ctx: Context, request: Request, account: str, urn: str, comment_id: str) -> Response:
    comment = _comment_of(ctx, urn, comment_id)
    if comment is None:
        return error(404, f"Comment {comment_id} on {urn} not found", "NOT_FOUND")
    return json_response(_comment_json(comment))


@route("GET", "/api.linkedin.com/rest/socialActions/<urn>/comments")
@_rest_member
def list_comments(ctx: Context, request: Request, account: str, urn: str) -> Response:
    """A post's comments, oldest first, `count` (1-100, 10 by default) a page from `start`."""
    if ctx.state.find_post(PLATFORM, urn) is None:
        return error(404, f"Post {urn} not found", "NOT_FOUND")
    count, start = request.args.get("count", "10"), request.args.get("start", "0")
    if not count.isdigit() or not 1 <= int(count) <= 100 or not start.isdigit():
        return error(400, "count must be 1 to 100 and start a non-negative integer", "ILLEGAL_ARGUMENT")
    comments = ctx.state.comments_of(PLATFORM, urn)
    elements = [_comment_json(c) for c in comments[int(start) : int(start) + int(count)]]
    paging = {"start": int(start), "count": int(count), "total": len(comments), "links": []}
    return json_response({"elements": elements, "paging": paging})


@route("DELETE", "/api.linkedin.com/rest/socialActions/<urn>/comments/<comment_id>")
@_rest_member
def delete_comment(ctx: Context, request: Request, account: str, urn: str, comment_id: str) -> Response:
    """The comment's own actor deletes it, named in `actor` as LinkedIn requires."""
    actor = request.args.get("actor", "")
    if not actor:
        return error(400, "actor is a required query parameter", "ILLEGAL_ARGUMENT")
    refused = _owner_problem(account, actor)
    if refused:
        return refused
    comment = _comment_of(ctx, urn, comment_id)
    if comment is None:
        return error(404, f"Comment {comment_id} on {urn} not found", "NOT_FOUND")
    if comment.extra["actor"] != actor:
        return error(403, "Not enough permissions to delete this comment", "ACCESS_DENIED", 100)
    return publish_outcome(ctx, PLATFORM, COMMENT_REFUSALS, lambda _: _remove_comment(ctx, comment_id))


def _remove_comment(ctx: Context, comment_id: str) -> Response:
    ctx.state.remove_comment(PLATFORM, comment_id)
    return Response(status=204)


# --- analytics and identity ------------------------------------------------------------------


@route("GET", "/api.linkedin.com/rest/memberCreatorPostAnalytics")
@_rest_member
def post_analytics(ctx: Context, request: Request, account: str, **values: Any) -> Response:
    args, entity = request.args, _ENTITY.fullmatch(request.args.get("entity", ""))
    if args.get("q") != "entity" or entity is None or args.get("queryType") not in METRIC_OF:
        return error(400, "q=entity, entity=(share:urn) or (ugc:urn) and a queryType are required", "ILLEGAL_ARGUMENT")
    if args.get("aggregation", "TOTAL") != "TOTAL":
        return error(400, "Only aggregation=TOTAL is supported without a dateRange", "ILLEGAL_ARGUMENT")
    post = ctx.state.find_post(PLATFORM, entity.group(2))
    if post is None or post.account != account:
        return error(403, "Not enough permissions to read this post's analytics", "ACCESS_DENIED", 100)
    count = ctx.state.metrics_of(PLATFORM, post.id)[METRIC_OF[args["queryType"]]]
    element = {"count": count, "metricType": args["queryType"], "targetEntity": {entity.group(1): post.id}}
    return json_response({"elements": [element], "paging": {"start": 0, "count": 10, "links": []}})


@route("GET", "/api.linkedin.com/v2/userinfo")
@_member
def userinfo(ctx: Context, request: Request, account: str, **values: Any) -> Response:
    return json_response(
        {"sub": account, "name": f"Sandbox {account}", "given_name": "Sandbox", "family_name": account,
         "locale": {"country": "US", "language": "en"}, "email_verified": True}
    )  # fmt: skip


# --- OAuth 2.0 -------------------------------------------------------------------------------

ACCESS_LIFETIME = 60 * 86400
REFRESH_LIFETIME = 365 * 86400
SCOPES = "openid,profile,w_member_social,r_member_postAnalytics"
_REFUSED = "response_type must be code; missing: {names}"
PROVIDER = oauth.Provider(
    PLATFORM,
    oauth.Page("LinkedIn", "{client} would like to access your LinkedIn account", "Bummer, something went wrong."),
    new_account=lambda: "sbx" + secrets.token_hex(5),
    wording=oauth.Wording(missing=_REFUSED, response_type=_REFUSED),
    code_lifetime=1800,
)
_UNABLE = "Unable to retrieve access token: "
REFUSALS = {
    "form": ("invalid_request", "The body must be form-encoded"),
    "client": ("invalid_client", "Client authentication failed"),
    "grant_type": ("unsupported_grant_type", "grant_type must be authorization_code or refresh_token"),
    "unknown": ("invalid_request", _UNABLE + "authorization code not found"),
    "redirect_uri": (
        "invalid_request",
        _UNABLE + "appid/redirect uri/code verifier does not match authorization code",
    ),
    "refresh": ("invalid_request", "The provided authorization grant or refresh token is invalid, expired or revoked"),
}


def _issue(grant: oauth.Grant) -> Response:
    """LinkedIn does not rotate: a refresh gives the same refresh token back, with its remaining life."""
    access, refresh = oauth.token_pair(PLATFORM, grant.account, access=ACCESS_LIFETIME, refresh=REFRESH_LIFETIME)
    refresh_left = int(grant.refreshed.expires_at - time.time()) if grant.refreshed else REFRESH_LIFETIME
    body = {"access_token": access, "expires_in": ACCESS_LIFETIME, "refresh_token": grant.refresh_token or refresh}
    return json_response({**body, "refresh_token_expires_in": refresh_left, "scope": ",".join(grant.scope.split())})


GRANTS = oauth.Grants(PROVIDER, oauth.form_client, _issue, REFUSALS, refresh_scope=SCOPES)


route("GET", "/www.linkedin.com/oauth/v2/authorization")(oauth.authorize_endpoint(PROVIDER))
route("POST", "/www.linkedin.com/oauth/v2/accessToken")(oauth.token_endpoint(GRANTS))

"""The bluesky stand-in: the XRPC endpoints the client uses, as strict as a PDS.

It checks what a PDS checks (the session tokens, the createRecord input and the post record
against the lexicons' rules, blobs uploaded by the same account) and answers with XRPC error
bodies, so a client that passes here sends what Bluesky accepts. Kept independent of the
service's client code on purpose: it is the other side of the wire.

- Accounts: a handle's DID is derived from the handle (stable); createSession takes any
  identifier with an app password shaped xxxx-xxxx-xxxx-xxxx.
- Records are stored as sandbox posts whose id is the record's at:// URI.
- One queued control outcome is taken per valid createRecord call (a post and a reply, a first
  comment among them, are both records) and per valid deleteRecord call; a duplicate rkey
  answers 500 like the real PDS. A deleted record is gone from getRecord (RecordNotFound),
  listRecords and getPosts.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
import re
import secrets
import time
from collections.abc import Callable
from typing import Any

import regex
from werkzeug.wrappers import Request, Response

from sandbox import oauth, tokens
from sandbox.http import (
    Context,
    bearer_token,
    json_body,
    json_response,
    publish_outcome,
    routes,
    signed_in,
    token_problem,
)

PLATFORM = "bluesky"
POST = "app.bsky.feed.post"
FACET = "app.bsky.richtext.facet"
REFRESH_LIFETIME_SECONDS = 90 * 86400
IMAGE_MAX, VIDEO_MAX = 2_000_000, 52_428_800  # the PDS blob cap; larger videos go to the video service
APP_PASSWORD = re.compile(r"[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}")
HANDLE = re.compile(r"([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?")
DID = re.compile(r"did:[a-z]+:[a-zA-Z0-9._:%-]*[a-zA-Z0-9._-]")
TID = re.compile(r"[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}")
AT_URI = re.compile(r"at://[^\s/]+(/[^\s/]+(/[^\s/]+)?)?")
CID = re.compile(r"[a-zA-Z0-9+=]{8,256}")
DATETIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})")
# Reserved top-level domains never resolve (atproto handle spec).
UNRESOLVABLE_TLDS = ("invalid", "test", "example", "local", "localhost", "alt", "arpa", "onion", "internal")
EMBEDS = (
    "app.bsky.embed.images",
    "app.bsky.embed.video",
    "app.bsky.embed.external",
    "app.bsky.embed.record",
    "app.bsky.embed.recordWithMedia",
    "app.bsky.embed.gallery",
)

XRPC = "/bsky.social/xrpc/"
RULES, route = routes()  # the endpoints below, each declared with @route


# --- identities, ids, text -------------------------------------------------------------------


def did_for(handle: str) -> str:
    """The stable did:plc of a sandbox handle."""
    digest = hashlib.sha256(handle.lower().encode()).digest()
    return "did:plc:" + base64.b32encode(digest).decode().lower()[:24]


def _cid(data: bytes, prefix: str = "bafyrei") -> str:
    return prefix + base64.b32encode(hashlib.sha256(data).digest()).decode().lower().rstrip("=")[:52]


def _tid() -> str:
    value = (time.time_ns() // 1000) << 10 | secrets.randbelow(1024)
    return "".join("234567abcdefghijklmnopqrstuvwxyz"[(value >> shift) & 31] for shift in range(60, -1, -5))


_GRAPHEME = regex.compile(r"\X")


def _graphemes(text: str) -> int:
    """Extended grapheme clusters, as the PDS counts `maxGraphemes`."""
    return len(_GRAPHEME.findall(text))


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _scratch(ctx: Context, name: str) -> dict[str, Any]:
    return ctx.state.store(PLATFORM, name)


def _handle_of(ctx: Context, did: str) -> str:
    return str(_scratch(ctx, "handles").get(did, "handle.invalid"))


def _did_of(repo: str) -> str:
    return repo if repo.startswith("did:") else did_for(repo)


# --- answers ---------------------------------------------------------------------------------


def xrpc_error(status: int, error: str, message: str, headers: dict[str, str] | None = None) -> Response:
    return json_response({"error": error, "message": message}, status=status, headers=headers)


def _invalid(message: str) -> Response:
    return xrpc_error(400, "InvalidRequest", message)


def _rate_limited() -> Response:
    headers = {
        "RateLimit-Limit": "5000",
        "RateLimit-Remaining": "0",
        "RateLimit-Reset": str(int(time.time()) + 30),
        "RateLimit-Policy": "5000;w=3600",
    }
    return xrpc_error(429, "RateLimitExceeded", "Rate Limit Exceeded", headers)


OUTCOME_REFUSALS = {
    "error": lambda: _invalid("Record was refused by the sandbox's queued error outcome"),
    "rate_limited": _rate_limited,
}


TOKEN_REFUSALS = {  # why a token is refused -> (status, error, message)
    "missing": (401, "AuthRequired", "Authentication Required"),
    "expired": (400, "ExpiredToken", "Token has expired"),
}


def _authenticated(ctx: Context, request: Request, **values: Any) -> tokens.TokenInfo | Response:
    info = token_problem(ctx, bearer_token(request), PLATFORM)
    if isinstance(info, tokens.TokenInfo):
        return info
    return xrpc_error(*TOKEN_REFUSALS.get(info, (401, "InvalidToken", "Token could not be verified")))


_signed_in = signed_in(_authenticated)


def _session(ctx: Context, did: str, handle: str) -> Response:
    _scratch(ctx, "handles")[did] = handle
    access = tokens.issue(PLATFORM, did)
    refresh = tokens.issue(PLATFORM, did, kind="sbr", lifetime_seconds=REFRESH_LIFETIME_SECONDS)
    return json_response({"accessJwt": access, "refreshJwt": refresh, "handle": handle, "did": did, "active": True})


# --- sessions --------------------------------------------------------------------------------


@route("POST", f"{XRPC}com.atproto.server.createSession")
def create_session(ctx: Context, request: Request) -> Response:
    body = json_body(request)
    if not isinstance(body, dict) or not isinstance(body.get("identifier"), str):
        return _invalid('Input must have the property "identifier"')
    identifier, password = body["identifier"].strip().lower(), body.get("password")
    known = DID.fullmatch(identifier) or HANDLE.fullmatch(identifier)
    if not known or not isinstance(password, str) or not APP_PASSWORD.fullmatch(password):
        return xrpc_error(401, "AuthenticationRequired", "Invalid identifier or password")
    if identifier.startswith("did:"):
        return _session(ctx, identifier, _handle_of(ctx, identifier))
    return _session(ctx, did_for(identifier), identifier)


@route("POST", f"{XRPC}com.atproto.server.refreshSession")
def refresh_session(ctx: Context, request: Request) -> Response:
    # A refresh token is good for one refresh.
    info = oauth.refresh_problem(ctx, PLATFORM, bearer_token(request), rotate=True)
    if isinstance(info, str):
        return xrpc_error(*TOKEN_REFUSALS.get(info, (400, "InvalidToken", "Token has been revoked")))
    return _session(ctx, info.account, _handle_of(ctx, info.account))


@route("POST", f"{XRPC}com.atproto.server.deleteSession")
def delete_session(ctx: Context, request: Request) -> Response:
    """End the session of the refresh token given as Bearer (the lexicon asks for the refreshJwt,
    not the accessJwt); its access token runs out on its own, as a PDS's stateless one does."""
    token = bearer_token(request)
    if tokens.parse(token) is not None:
        return xrpc_error(400, "InvalidToken", "Invalid token type")
    info = token_problem(ctx, token, PLATFORM, kind="sbr")
    if isinstance(info, str):
        return xrpc_error(*TOKEN_REFUSALS.get(info, (400, "InvalidToken", "Token has been revoked")))
    oauth.revoke(ctx, token, info, grant=False)
    return Response(status=200)


@route("GET", f"{XRPC}com.atproto.identity.resolveHandle")
def resolve_handle(ctx: Context, request: Request) -> Response:
    handle = request.args.get("handle", "").lower()
    if not HANDLE.fullmatch(handle):
        return _invalid("Error: handle must be a valid handle")
    if handle.rsplit(".", 1)[-1] in UNRESOLVABLE_TLDS:
        return xrpc_error(400, "HandleNotFound", "Unable to resolve handle")
    return json_response({"did": did_for(handle)})


# --- blobs -----------------------------------------------------------------------------------


@route("POST", f"{XRPC}com.atproto.repo.uploadBlob")
@_signed_in
def upload_blob(ctx: Context, request: Request, info: tokens.TokenInfo) -> Response:
    mime, data = request.mimetype or "", request.get_data(cache=True)
    problem = _upload_problem(mime, len(data))
    if problem:
        return problem
    link = _cid(data, "bafkrei")
    blob = {"$type": "blob", "ref": {"$link": link}, "mimeType": mime, "size": len(data)}
    _scratch(ctx, "blobs")[f"{info.account} {link}"] = blob
    return json_response({"blob": blob})


def _upload_problem(mime: str, size: int) -> Response | None:
    if not (mime.startswith("image/") or mime == "video/mp4"):
        return _invalid(f"Unsupported blob mimeType {mime or '(none)'}: use image/* or video/mp4")
    if size == 0:
        return _invalid("Blob is empty")
    limit = VIDEO_MAX if mime == "video/mp4" else IMAGE_MAX
    if size > limit:
        return xrpc_error(400, "BlobTooLarge", f"This file is too large. It is {size} bytes; at most {limit}.")
    return None


# --- record checks: each returns the problem, or "" --------------------------------------------


def _is_str(value: Any, pattern: re.Pattern[str]) -> bool:
    return isinstance(value, str) and pattern.fullmatch(value) is not None


def _strong_ref_problem(value: Any, where: str) -> str:
    if not isinstance(value, dict) or not _is_str(value.get("uri"), AT_URI) or not _is_str(value.get("cid"), CID):
        return f"{where} must be a strongRef {{uri: at-uri, cid}}"
    return ""


def _blob_problem(ctx: Context, did: str, value: Any, accept: str, limit: int) -> str:
    if not isinstance(value, dict) or value.get("$type") != "blob" or not isinstance(value.get("ref"), dict):
        return "must be a blob {$type: blob, ref: {$link}, mimeType, size}"
    stored = _scratch(ctx, "blobs").get(f"{did} {value['ref'].get('$link')}")
    if stored is None or stored["mimeType"] != value.get("mimeType") or stored["size"] != value.get("size"):
        return "blob was not uploaded by this account"
    if not str(value["mimeType"]).startswith(accept) or value["size"] > limit:
        return f"blob must be {accept}* and at most {limit} bytes"
    return ""


def _aspect_problem(value: Any) -> str:
    if value is None:
        return ""
    sides = [value.get(k) for k in ("width", "height")] if isinstance(value, dict) else [None]
    ok = all(isinstance(s, int) and not isinstance(s, bool) and s >= 1 for s in sides)
    return "" if ok else "aspectRatio must be {width >= 1, height >= 1}"


def _image_problem(ctx: Context, did: str, item: Any) -> str:
    if not isinstance(item, dict) or not isinstance(item.get("alt"), str):
        return "each image needs image and alt (a string)"
    return _blob_problem(ctx, did, item.get("image"), "image/", IMAGE_MAX) or _aspect_problem(item.get("aspectRatio"))


def _images_problem(ctx: Context, did: str, embed: dict[str, Any]) -> str:
    images = embed.get("images")
    if not isinstance(images, list) or not 1 <= len(images) <= 4:
        return "images must be a list of 1 to 4 images"
    return next((p for p in (_image_problem(ctx, did, i) for i in images) if p), "")


def _video_problem(ctx: Context, did: str, embed: dict[str, Any]) -> str:
    if "alt" in embed and not isinstance(embed["alt"], str):
        return "alt must be a string"
    return _blob_problem(ctx, did, embed.get("video"), "video/mp4", VIDEO_MAX) or _aspect_problem(
        embed.get("aspectRatio")
    )


def _external_problem(ctx: Context, did: str, embed: dict[str, Any]) -> str:
    external = embed.get("external")
    if not isinstance(external, dict) or not all(isinstance(external.get(k), str) for k in ("title", "description")):
        return "external must have uri, title and description"
    uri = external.get("uri")
    return "" if isinstance(uri, str) and re.fullmatch(r"[a-z][a-z0-9+.-]*:\S+", uri) else "external.uri must be a URI"


def _quote_problem(ctx: Context, did: str, embed: dict[str, Any]) -> str:
    return _strong_ref_problem(embed.get("record"), "embed.record")


EMBED_CHECKS: dict[str, Callable[[Context, str, dict[str, Any]], str]] = {
    "app.bsky.embed.images": _images_problem,
    "app.bsky.embed.video": _video_problem,
    "app.bsky.embed.external": _external_problem,
    "app.bsky.embed.record": _quote_problem,
}


def _embed_problem(ctx: Context, did: str, embed: Any) -> str:
    if embed is None:
        return ""
    if not isinstance(embed, dict) or embed.get("$type") not in EMBEDS:
        return f"Record/embed $type must be one of {', '.join(EMBEDS)}"
    check = EMBED_CHECKS.get(embed["$type"])
    problem = check(ctx, did, embed) if check else ""
    return f"Record/embed: {problem}" if problem else ""


def _feature_problem(feature: Any) -> str:
    kind = feature.get("$type") if isinstance(feature, dict) else None
    valid = {
        f"{FACET}#mention": lambda f: _is_str(f.get("did"), DID),
        f"{FACET}#link": lambda f: isinstance(f.get("uri"), str) and ":" in f["uri"],
        f"{FACET}#tag": lambda f: isinstance(f.get("tag"), str) and 0 < _graphemes(f["tag"]) <= 64,
    }
    if kind not in valid:
        return f"facet feature $type must be one of {', '.join(valid)}"
    return "" if valid[kind](feature) else f"facet feature {kind} is malformed"


def _slice_problem(index: Any, data: bytes) -> str:
    start, end = (index.get("byteStart"), index.get("byteEnd")) if isinstance(index, dict) else (None, None)
    if not (isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(data)):
        return "facet index must be a byte range within the text"
    try:
        data[start:end].decode()
    except UnicodeDecodeError:
        return "facet index splits a UTF-8 character"
    return ""


def _facets_problem(record: dict[str, Any]) -> str:
    facets, data = record.get("facets", []), str(record.get("text", "")).encode()
    if not isinstance(facets, list):
        return "Record/facets must be a list"
    for facet in facets:
        features = facet.get("features") if isinstance(facet, dict) else None
        if not isinstance(facet, dict) or not isinstance(features, list) or not features:
            return "Record/facets: each facet needs index and features"
        problem = _slice_problem(facet.get("index"), data) or next(filter(None, map(_feature_problem, features)), "")
        if problem:
            return f"Record/facets: {problem}"
    return ""


def _text_problem(record: dict[str, Any]) -> str:
    text = record.get("text")
    if not isinstance(text, str):
        return 'Record must have the property "text"'
    if len(text.encode()) > 3000 or _graphemes(text) > 300:
        return "Record/text must not be longer than 300 graphemes (3000 bytes)"
    return ""


def _created_at_problem(record: dict[str, Any]) -> str:
    value = record.get("createdAt")
    if not _is_str(value, DATETIME):
        return "Record/createdAt must be a valid datetime"
    try:
        dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return "Record/createdAt must be a valid datetime"
    return ""


def _reply_problem(record: dict[str, Any]) -> str:
    reply = record.get("reply")
    if reply is None:
        return ""
    if not isinstance(reply, dict):
        return "Record/reply must be an object"
    return _strong_ref_problem(reply.get("root"), "Record/reply/root") or _strong_ref_problem(
        reply.get("parent"), "Record/reply/parent"
    )


def _langs_problem(record: dict[str, Any]) -> str:
    langs = record.get("langs", [])
    ok = isinstance(langs, list) and len(langs) <= 3 and all(isinstance(x, str) for x in langs)
    return "" if ok else "Record/langs must be at most 3 language tags"


def _record_problem(ctx: Context, did: str, record: Any) -> str:
    if not isinstance(record, dict) or record.get("$type") != POST:
        return f"Record/$type must be {POST}"
    checks = (_text_problem, _created_at_problem, _facets_problem, _reply_problem, _langs_problem)
    problem = next((p for p in (check(record) for check in checks) if p), "")
    return problem or _embed_problem(ctx, did, record.get("embed"))


def _input_problem(ctx: Context, did: str, body: Any) -> str:
    if not isinstance(body, dict):
        return "Request body must be a JSON object"
    if _did_of(str(body.get("repo", ""))) != did:
        return "Input/repo must be the authenticated account"
    if body.get("collection") != POST:
        return f"Input/collection: the sandbox hosts {POST} records only"
    if "rkey" in body and not _is_str(body["rkey"], TID):
        return f"Input/rkey must be a valid TID (the record key type of {POST})"
    return _record_problem(ctx, did, body.get("record"))


# --- records ---------------------------------------------------------------------------------


def _media_count(record: dict[str, Any]) -> int:
    embed = record.get("embed") or {}
    if embed.get("$type") == "app.bsky.embed.images":
        return len(embed["images"])
    return 1 if embed.get("$type") == "app.bsky.embed.video" else 0


def _store(ctx: Context, did: str, rkey: str, record: dict[str, Any]) -> dict[str, Any]:
    uri, cid = f"at://{did}/{POST}/{rkey}", _cid(json.dumps(record, sort_keys=True).encode())
    parent = ((record.get("reply") or {}).get("parent") or {}).get("uri")
    ctx.state.add_post(
        PLATFORM, did, record["text"], _media_count(record), reply_to=parent, post_id=uri, record=record, cid=cid
    )
    commit = {"cid": _cid(f"{uri} {cid}".encode()), "rev": _tid()}
    return {"uri": uri, "cid": cid, "commit": commit, "validationStatus": "valid"}


@route("POST", f"{XRPC}com.atproto.repo.createRecord")
@_signed_in
def create_record(ctx: Context, request: Request, info: tokens.TokenInfo) -> Response:
    body = json_body(request)
    problem = _input_problem(ctx, info.account, body)
    if problem:
        return _invalid(problem)
    rkey = body.get("rkey") or _tid()
    if ctx.state.find_post(PLATFORM, f"at://{info.account}/{POST}/{rkey}"):
        return xrpc_error(500, "InternalServerError", "Internal Server Error")  # as the PDS does today
    record = body["record"]
    return publish_outcome(
        ctx, PLATFORM, OUTCOME_REFUSALS, lambda _: json_response(_store(ctx, info.account, rkey, record))
    )


@route("POST", f"{XRPC}com.atproto.repo.deleteRecord")
@_signed_in
def delete_record(ctx: Context, request: Request, info: tokens.TokenInfo) -> Response:
    """Delete a record of the signed-in account, or ensure it does not exist: a record that is
    not there is no error (the lexicon's words), and the answer then has no commit."""
    body = json_body(request)
    problem = _delete_problem(info.account, body)
    if problem:
        return _invalid(problem)
    uri = f"at://{info.account}/{body['collection']}/{body['rkey']}"
    return publish_outcome(ctx, PLATFORM, OUTCOME_REFUSALS, lambda _: _delete(ctx, uri))


def _delete_problem(did: str, body: Any) -> str:
    if not isinstance(body, dict) or not all(isinstance(body.get(k), str) for k in ("repo", "collection", "rkey")):
        return "Input must have the properties repo, collection and rkey"
    if set(body) - {"repo", "collection", "rkey", "swapRecord", "swapCommit"}:
        return "Input has properties deleteRecord does not take"
    if _did_of(body["repo"]) != did:
        return "Input/repo must be the authenticated account"
    return "" if body["rkey"] and "/" not in body["rkey"] else "Input/rkey must be a valid record key"


def _delete(ctx: Context, uri: str) -> Response:
    if ctx.state.remove_post(PLATFORM, uri) is None:
        return json_response({})
    return json_response({"commit": {"cid": _cid(f"delete {uri}".encode()), "rev": _tid()}})


def _found(ctx: Context, uri: str) -> Any:
    return ctx.state.find_post(PLATFORM, uri)


@route("GET", f"{XRPC}com.atproto.repo.getRecord")
def get_record(ctx: Context, request: Request) -> Response:
    args = request.args
    if not all(args.get(k) for k in ("repo", "collection", "rkey")):
        return _invalid("Params must have the properties repo, collection and rkey")
    uri = f"at://{_did_of(args['repo'])}/{args['collection']}/{args['rkey']}"
    post = _found(ctx, uri)
    if post is None:
        return xrpc_error(400, "RecordNotFound", f"Could not locate record: {uri}")
    return json_response({"uri": uri, "cid": post.extra["cid"], "value": post.extra["record"]})


@route("GET", f"{XRPC}com.atproto.repo.listRecords")
def list_records(ctx: Context, request: Request) -> Response:
    """Newest record key first (oldest with reverse=true), `limit` (1-100) a page; `cursor` is the
    last record key served, answered whenever the page holds records (as the PDS does)."""
    args, reverse = request.args, request.args.get("reverse") == "true"
    did, collection, limit = _did_of(args.get("repo", "")), args.get("collection", ""), args.get("limit", "50")
    if not limit.isdigit() or not 1 <= int(limit) <= 100:
        return _invalid("limit must be an integer from 1 to 100")
    prefix = f"at://{did}/{collection}/"
    posts = sorted((p for p in ctx.state.posts_of(PLATFORM) if p.id.startswith(prefix)), key=lambda p: p.id)
    posts = posts if reverse else posts[::-1]
    cursor = args.get("cursor")
    if cursor:
        posts = [p for p in posts if (p.id > prefix + cursor if reverse else p.id < prefix + cursor)]
    records = [{"uri": p.id, "cid": p.extra["cid"], "value": p.extra["record"]} for p in posts[: int(limit)]]
    page = {"records": records}
    return json_response({**page, "cursor": records[-1]["uri"].rsplit("/", 1)[-1]} if records else page)


@route("GET", "/public.api.bsky.app/xrpc/app.bsky.feed.getPosts")
def get_posts(ctx: Context, request: Request) -> Response:
    uris = request.args.getlist("uris")
    if not uris or len(uris) > 25 or not all(AT_URI.fullmatch(u) for u in uris):
        return _invalid("Params must have 1 to 25 uris, each an at-uri")
    views = [_post_view(ctx, post) for post in (_found(ctx, uri) for uri in uris) if post is not None]
    return json_response({"posts": views})


def _post_view(ctx: Context, post: Any) -> dict[str, Any]:
    metrics = ctx.state.metrics_of(PLATFORM, post.id)
    return {
        "uri": post.id,
        "cid": post.extra["cid"],
        "author": {"did": post.account, "handle": _handle_of(ctx, post.account)},
        "record": post.extra["record"],
        "likeCount": metrics["likes"],
        "replyCount": metrics["comments"],
        "repostCount": metrics["shares"],
        "quoteCount": 0,
        "bookmarkCount": 0,
        "indexedAt": post.created_at,
    }

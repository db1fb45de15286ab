"""Bluesky (AT Protocol) client: app-password sessions and records written over plain XRPC.

Why it looks the way it does:

- Bluesky has no OAuth 2 code flow for a service like ours (its OAuth needs PAR + DPoP), so an
  account connects with an app password: `login()` calls createSession, `refresh()` calls
  refreshSession with the refresh token and replaces both tokens.
- Idempotency: the record key (a TID) is chosen here and saved with `conn.save_ref` BEFORE
  createRecord. After an UNKNOWN outcome `check()` reads that exact record back with getRecord;
  creating again would be wrong (the PDS answers a duplicate key with a 500).
- `post_id` is the record's at:// URI: it names the account and the record, and it is what the
  public getPosts (metrics) takes. `ref` keeps repo, rkey, uri and cid.
- The post URL uses the DID (`bsky.app/profile/<did>/post/<rkey>`), stable across handle changes.
- Nothing is auto-linked by Bluesky: links, @mentions and #hashtags become facets with UTF-8
  byte offsets here. A mention whose handle does not resolve stays plain text.
- Video takes the simple path (uploadBlob + app.bsky.embed.video). The video service
  (getServiceAuth + video.bsky.app uploadVideo + getJobStatus) is the later improvement: it is
  needed for files over the PDS blob cap and gives processing status.
- first_comment is a second record replying to the new post. If it fails the post is still
  PUBLISHED; the failure is put in error_code FIRST_COMMENT_FAILED / error_message.
- Refreshed tokens are written into `conn.credentials`; the caller persists them.
- Every URL goes through `conn.url()` against the entryway bsky.social (the account's PDS from
  its didDoc is kept in metadata for a later step).
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import re
import secrets
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import regex
import requests

from accounts.platforms.base import (
    UNKNOWN_STATUSES,
    Connection,
    Credentials,
    Media,
    Metrics,
    Outcome,
    OutcomeKind,
    PlatformClient,
    PlatformError,
    Post,
    Problem,
    json_object,
    outcome_of_exception,
    retry_after_seconds,
)

XRPC = "https://bsky.social/xrpc/"
PUBLIC_XRPC = "https://public.api.bsky.app/xrpc/"
POST = "app.bsky.feed.post"
FACET = "app.bsky.richtext.facet"
MAX_GRAPHEMES, MAX_BYTES = 300, 3000
GETPOSTS_BATCH = 25
AUTH_ERRORS = frozenset({"AuthRequired", "InvalidToken", "ExpiredToken", "AuthenticationRequired"})

# --- graphemes ---------------------------------------------------------------------------------


_GRAPHEME = regex.compile(r"\X")


def graphemes(text: str) -> list[str]:
    """Extended grapheme clusters: what Bluesky counts against its 300-character limit."""
    return list(_GRAPHEME.findall(text))


def grapheme_count(text: str) -> int:
    return len(graphemes(text))


# --- record keys -------------------------------------------------------------------------------

_B32_SORTABLE = "234567abcdefghijklmnopqrstuvwxyz"
_tid_lock = threading.Lock()
_last_micros = 0


def new_tid() -> str:
    """A TID (atproto spec): 53 bits of microseconds since the epoch and a random 10-bit clock
    id, written as 13 base32-sortable characters; strictly increasing within this process."""
    global _last_micros
    with _tid_lock:
        _last_micros = max(time.time_ns() // 1000, _last_micros + 1)
        value = (_last_micros << 10) | secrets.randbelow(1024)
    return "".join(_B32_SORTABLE[(value >> shift) & 31] for shift in range(60, -1, -5))


def _now_iso() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


# --- errors ------------------------------------------------------------------------------------


class BlueskyError(PlatformError):
    """An XRPC call that did not succeed; `outcome` says how (raised by login/refresh/metrics)."""


_json = json_object


def _error_name(response: requests.Response) -> str:
    return str(_json(response).get("error") or "")


def outcome_of_response(response: requests.Response, *, session_call: bool = False) -> Outcome:
    """An XRPC error answer as an Outcome; `session_call` marks a createSession/refreshSession
    call, where any 400/401 means the credentials are no good."""
    body = _json(response)
    code, message = str(body.get("error") or f"HTTP_{response.status_code}"), str(body.get("message") or "")
    status = response.status_code
    if status == 429:
        wait = retry_after_seconds(response, "RateLimit-Reset")
        return Outcome(
            OutcomeKind.NOT_SENT, error_code=code, error_message=message, http_status=status, retry_after=wait
        )
    if status in UNKNOWN_STATUSES:
        return Outcome(OutcomeKind.UNKNOWN, error_code=code, error_message=message, http_status=status)
    auth = status == 401 or code in AUTH_ERRORS or (session_call and status == 400)
    return Outcome(OutcomeKind.FAILED, error_code=code, error_message=message, http_status=status, auth_failed=auth)


# --- facets ------------------------------------------------------------------------------------

_URL = re.compile(r"https?://[^\s<>\"]+")
_MENTION = re.compile(
    r"(?:^|(?<=\s)|(?<=\())@((?:[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)"
)
_TAG = re.compile(r"(?:^|(?<=\s))[#\uff03](\w*[^\W\d]\w*)")  # '#' or the full-width number sign
_TRAILING = ".,;:!?'\")]}"


def _byte_slice(text: str, start: int, end: int) -> dict[str, int]:
    byte_start = len(text[:start].encode())
    return {"byteStart": byte_start, "byteEnd": byte_start + len(text[start:end].encode())}


def _facet(text: str, span: tuple[int, int], feature: dict[str, str]) -> dict[str, Any]:
    return {"index": _byte_slice(text, *span), "features": [feature]}


def link_facets(text: str) -> list[dict[str, Any]]:
    facets = []
    for match in _URL.finditer(text):
        url = match.group().rstrip(_TRAILING)
        span = (match.start(), match.start() + len(url))
        facets.append(_facet(text, span, {"$type": f"{FACET}#link", "uri": url}))
    return facets


def tag_facets(text: str) -> list[dict[str, Any]]:
    facets = []
    for match in _TAG.finditer(text):
        tag = match.group(1)
        if grapheme_count(tag) <= 64 and len(tag.encode()) <= 640:
            facets.append(_facet(text, match.span(), {"$type": f"{FACET}#tag", "tag": tag}))
    return facets


def mention_spans(text: str) -> list[tuple[tuple[int, int], str]]:
    """((start, end) of '@handle' in characters, handle) for each mention-looking word."""
    return [(match.span(), match.group(1).lower()) for match in _MENTION.finditer(text)]


# --- validation --------------------------------------------------------------------------------


def _text_problems(text: str, field_name: str) -> list[Problem]:
    if grapheme_count(text) > MAX_GRAPHEMES:
        return [Problem(field_name, "TEXT_TOO_LONG", f"At most {MAX_GRAPHEMES} graphemes on Bluesky.")]
    if len(text.encode()) > MAX_BYTES:
        return [Problem(field_name, "TEXT_TOO_LONG", f"At most {MAX_BYTES} UTF-8 bytes on Bluesky.")]
    return []


def _is_at_ref(value: Any) -> bool:
    if not isinstance(value, Mapping):
        return False
    uri, cid = value.get("uri"), value.get("cid")
    return isinstance(uri, str) and uri.startswith("at://") and isinstance(cid, str) and bool(cid)


def _reply_problems(value: Any) -> list[Problem]:
    if _is_at_ref(value.get("root")) and _is_at_ref(value.get("parent")):
        return []
    message = "reply must be an object with root and parent, each {uri: at://..., cid}."
    return [Problem("reply", "INVALID_SETTING", message)]


def _is_external(value: Any) -> bool:
    if not isinstance(value, Mapping):
        return False
    uri = value.get("uri")
    texts = isinstance(value.get("title"), str) and isinstance(value.get("description"), str)
    return isinstance(uri, str) and uri.startswith(("http://", "https://")) and texts


def _embed_problems(value: Any, post: Post) -> list[Problem]:
    if not _is_external(value.get("external")):
        message = "embed must be {external: {uri: http(s) URL, title: string, description: string}}."
        return [Problem("embed", "INVALID_SETTING", message)]
    if post.media:
        return [Problem("embed", "EMBED_WITH_MEDIA", "A Bluesky post has one embed: a link card or media, not both.")]
    return []


def _settings_problems(post: Post) -> list[Problem]:
    checks: dict[str, Callable[[Any], list[Problem]]] = {
        "first_comment": lambda value: _text_problems(value, "first_comment"),
        "reply": _reply_problems,
        "embed": lambda value: _embed_problems(value, post),
    }
    return [p for key, check in checks.items() if key in post.settings for p in check(post.settings[key])]


# --- the client --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Call:
    method: str
    nsid: str
    json: Mapping[str, Any] | None = None
    params: Sequence[tuple[str, str]] = ()
    upload: Media | None = None
    auth: bool = True
    host: str = XRPC
    headers: Mapping[str, str] = field(default_factory=dict)


class Client(PlatformClient):
    platform = "bluesky"
    setting_types = {"first_comment": ("string",), "reply": ("object",), "embed": ("object",)}
    metrics_batch_size = GETPOSTS_BATCH

    # --- connecting ----------------------------------------------------------------------

    def authorize_url(self, *, state: str, code_challenge: str, redirect_uri: str, sandbox: bool) -> str:
        raise NotImplementedError("Bluesky connects with an app password: use Client.login().")

    def exchange_code(self, *, code: str, code_verifier: str, redirect_uri: str, sandbox: bool) -> Credentials:
        raise NotImplementedError("Bluesky connects with an app password: use Client.login().")

    def login(self, *, identifier: str, app_password: str, sandbox: bool) -> Credentials:
        """createSession with an app password. Raises BlueskyError (auth_failed) if refused."""
        conn = Connection(Credentials(access_token=""), sandbox=sandbox)
        body = {"identifier": identifier, "password": app_password}
        return _session_credentials(self._session_call(conn, _Call("POST", "com.atproto.server.createSession", body)))

    def refresh(self, conn: Connection) -> Credentials:
        """refreshSession with the refresh token as Bearer: a new pair that replaces both."""
        token = conn.credentials.refresh_token
        call = _Call(
            "POST", "com.atproto.server.refreshSession", auth=False, headers={"Authorization": f"Bearer {token}"}
        )
        return _session_credentials(self._session_call(conn, call))

    def _session_call(self, conn: Connection, call: _Call) -> dict[str, Any]:
        response = self._send(conn, call)
        if not response.ok:
            raise BlueskyError(outcome_of_response(response, session_call=True))
        return _json(response)

    # --- validation ----------------------------------------------------------------------

    def validate(self, post: Post) -> list[Problem]:
        problems = _text_problems(post.text, "text")
        if not post.text and not post.media and "embed" not in post.settings:
            problems.append(Problem("text", "EMPTY_POST", "A Bluesky post needs text, media or a link card."))
        return problems + self.media_problems(post.media) + _settings_problems(post)

    # --- publishing ----------------------------------------------------------------------

    def publish(self, conn: Connection, post: Post) -> Outcome:
        did, rkey = conn.credentials.external_id, new_tid()
        conn.save_ref({"rkey": rkey, "repo": did})
        try:
            record = self._record(conn, post)
        except BlueskyError as exc:
            return _nothing_created(exc.outcome)
        try:
            created = self._create(conn, rkey, record)
        except BlueskyError as exc:
            return replace(exc.outcome, ref={"rkey": rkey, "repo": did})
        outcome = _published(did, rkey, created.get("uri"), created.get("cid"))
        return self._first_comment(conn, post, outcome)

    def _create(self, conn: Connection, rkey: str, record: Mapping[str, Any]) -> dict[str, Any]:
        body = {"repo": conn.credentials.external_id, "collection": POST, "rkey": rkey, "record": record}
        return self._xrpc(conn, _Call("POST", "com.atproto.repo.createRecord", body))

    def _record(self, conn: Connection, post: Post, *, reply: Any = None) -> dict[str, Any]:
        record: dict[str, Any] = {"$type": POST, "text": post.text, "createdAt": _now_iso()}
        facets = self._facets(conn, post.text)
        embed = self._embed(conn, post)
        reply = reply or post.settings.get("reply")
        for key, value in (("facets", facets), ("embed", embed), ("reply", reply)):
            if value:
                record[key] = value
        return record

    def _first_comment(self, conn: Connection, post: Post, outcome: Outcome) -> Outcome:
        text = post.settings.get("first_comment")
        if not isinstance(text, str) or not text:
            return outcome
        parent = {"uri": outcome.ref["uri"], "cid": outcome.ref["cid"]}
        rkey = new_tid()
        try:
            record = self._record(conn, Post(text=text), reply={"root": parent, "parent": parent})
            created = self._create(conn, rkey, record)
        except BlueskyError as exc:
            message = f"The post exists; its first comment failed ({exc.outcome.kind}): {exc}"
            return replace(outcome, error_code="FIRST_COMMENT_FAILED", error_message=message)
        return replace(outcome, ref={**outcome.ref, "comment_rkey": rkey, "comment_uri": str(created.get("uri", ""))})

    # --- facets and embeds ---------------------------------------------------------------

    def _facets(self, conn: Connection, text: str) -> list[dict[str, Any]]:
        facets = link_facets(text) + self._mention_facets(conn, text) + tag_facets(text)
        return sorted(facets, key=lambda facet: facet["index"]["byteStart"])

    def _mention_facets(self, conn: Connection, text: str) -> list[dict[str, Any]]:
        facets = []
        for span, handle in mention_spans(text):
            did = self._resolve(conn, handle)
            if did:
                facets.append(_facet(text, span, {"$type": f"{FACET}#mention", "did": did}))
        return facets

    def _resolve(self, conn: Connection, handle: str) -> str:
        """The handle's DID, or "" when it does not resolve (the mention stays plain text)."""
        call = _Call("GET", "com.atproto.identity.resolveHandle", params=[("handle", handle)], auth=False)
        try:
            return str(self._xrpc(conn, call).get("did") or "")
        except BlueskyError:
            return ""

    def _embed(self, conn: Connection, post: Post) -> dict[str, Any] | None:
        if post.media and post.media[0].is_video:
            return self._video_embed(conn, post.media[0])
        if post.media:
            images = [{"image": self._upload(conn, m), "alt": _alt(m), **_aspect(m)} for m in post.media]
            return {"$type": "app.bsky.embed.images", "images": images}
        embed = post.settings.get("embed")
        external = embed.get("external") if isinstance(embed, Mapping) else None
        if isinstance(external, Mapping):
            fields = {k: external[k] for k in ("uri", "title", "description")}
            return {"$type": "app.bsky.embed.external", "external": fields}
        return None

    def _video_embed(self, conn: Connection, media: Media) -> dict[str, Any]:
        embed = {"$type": "app.bsky.embed.video", "video": self._upload(conn, media), **_aspect(media)}
        return {**embed, "alt": _alt(media)} if _alt(media) else embed

    def _upload(self, conn: Connection, media: Media) -> Any:
        return self._xrpc(conn, _Call("POST", "com.atproto.repo.uploadBlob", upload=media)).get("blob")

    # --- reading back --------------------------------------------------------------------

    def check(self, conn: Connection, ref: Mapping[str, str]) -> Outcome:
        repo, rkey = ref.get("repo") or conn.credentials.external_id, ref["rkey"]
        params = [("repo", repo), ("collection", POST), ("rkey", rkey)]
        try:
            found = self._xrpc(conn, _Call("GET", "com.atproto.repo.getRecord", params=params, auth=False))
        except BlueskyError as exc:
            if exc.outcome.error_code == "RecordNotFound":
                return Outcome(OutcomeKind.FAILED, ref=ref, error_code="NOT_FOUND", error_message=str(exc))
            return replace(exc.outcome, ref=ref)
        return _published(repo, rkey, found.get("uri"), found.get("cid"))

    def find_recent(self, conn: Connection, post: Post, since: dt.datetime) -> Outcome:
        """The account's latest records (listRecords, newest first): one with the same text,
        created at or after `since`, is the post."""
        did = conn.credentials.external_id
        params = [("repo", did), ("collection", POST), ("limit", "50")]
        try:
            records = self._xrpc(conn, _Call("GET", "com.atproto.repo.listRecords", params=params, auth=False))
        except BlueskyError as exc:
            return exc.outcome
        for item in records.get("records") or []:
            if _same_post(item, post, since):
                uri = str(item["uri"])
                return _published(did, uri.rsplit("/", 1)[-1], uri, item.get("cid"))
        return Outcome(OutcomeKind.FAILED, error_code="NOT_FOUND", error_message="No recent post with this text.")

    def metrics(self, conn: Connection, post_ids: Sequence[str]) -> dict[str, Metrics]:
        """Public getPosts (no auth), 25 URIs a call. Bluesky has no view counts: views is None;
        shares counts reposts and quotes."""
        uris = [p for p in post_ids if p.startswith("at://")]
        found: dict[str, Metrics] = {}
        for start in range(0, len(uris), GETPOSTS_BATCH):
            params = [("uris", uri) for uri in uris[start : start + GETPOSTS_BATCH]]
            call = _Call("GET", "app.bsky.feed.getPosts", params=params, auth=False, host=PUBLIC_XRPC)
            for view in self._xrpc(conn, call).get("posts") or []:
                found[str(view.get("uri"))] = _metrics_of(view)
        return found

    # --- HTTP ----------------------------------------------------------------------------

    def _xrpc(self, conn: Connection, call: _Call) -> dict[str, Any]:
        """One XRPC call; an expired access token is refreshed once and the SAME call repeated."""
        response = self._send(conn, call)
        if call.auth and response.status_code == 400 and _error_name(response) == "ExpiredToken":
            conn.credentials = self.refresh(conn)
            response = self._send(conn, call)
        if not response.ok:
            raise BlueskyError(outcome_of_response(response))
        return _json(response)

    def _send(self, conn: Connection, call: _Call) -> requests.Response:
        headers = dict(call.headers)
        if call.auth:
            headers["Authorization"] = f"Bearer {conn.credentials.access_token}"
        url = conn.url(call.host + call.nsid)
        try:
            if call.upload is not None:
                return self._send_upload(url, headers, call.upload)
            return self.session.request(
                call.method, url, json=call.json, params=list(call.params), headers=headers, timeout=self.timeout
            )
        except requests.RequestException as exc:
            raise BlueskyError(outcome_of_exception(exc)) from exc

    def _send_upload(self, url: str, headers: dict[str, str], media: Media) -> requests.Response:
        headers = {**headers, "Content-Type": media.content_type}
        with media.open() as stream:  # streamed: a video may be large
            return self.session.post(url, data=stream, headers=headers, timeout=self.timeout)


# --- small helpers -----------------------------------------------------------------------------


def _alt(media: Media) -> str:
    return str(getattr(media, "alt", "") or "")


def _aspect(media: Media) -> dict[str, Any]:
    if media.width and media.height and media.width > 0 and media.height > 0:
        return {"aspectRatio": {"width": media.width, "height": media.height}}
    return {}


def post_url(did: str, rkey: str) -> str:
    return f"https://bsky.app/profile/{did}/post/{rkey}"


def _published(did: str, rkey: str, uri: Any, cid: Any) -> Outcome:
    uri = str(uri or f"at://{did}/{POST}/{rkey}")
    ref = {"repo": did, "rkey": rkey, "uri": uri, "cid": str(cid or "")}
    return Outcome(OutcomeKind.PUBLISHED, post_id=uri, url=post_url(did, rkey), ref=ref)


def _nothing_created(outcome: Outcome) -> Outcome:
    """A failure before createRecord (an upload, a lookup) cannot have created the post."""
    if outcome.kind is OutcomeKind.UNKNOWN:
        return replace(outcome, kind=OutcomeKind.NOT_SENT)
    return outcome


def _same_post(item: Mapping[str, Any], post: Post, since: dt.datetime) -> bool:
    value = item.get("value") or {}
    try:
        created = dt.datetime.fromisoformat(str(value.get("createdAt", "")).replace("Z", "+00:00"))
    except ValueError:
        return False
    return value.get("text") == post.text and "reply" not in value and created >= since


def _metrics_of(view: Mapping[str, Any]) -> Metrics:
    def count(name: str) -> int:
        return int(view.get(name) or 0)

    extra = {"quoteCount": count("quoteCount"), "bookmarkCount": count("bookmarkCount")}
    shares = count("repostCount") + count("quoteCount")
    return Metrics(views=None, likes=count("likeCount"), comments=count("replyCount"), shares=shares, extra=extra)


def _jwt_expiry(token: str) -> dt.datetime | None:
    """The `exp` of a JWT access token; None for tokens that are not JWTs (the sandbox's)."""
    parts = token.split(".")
    if len(parts) != 3:
        return None
    try:
        claims = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
        return dt.datetime.fromtimestamp(int(claims["exp"]), dt.UTC)
    except (ValueError, KeyError, TypeError):
        return None


def _pds_of(did_doc: Any) -> str:
    services = did_doc.get("service", []) if isinstance(did_doc, Mapping) else []
    return next((str(s.get("serviceEndpoint")) for s in services if str(s.get("id", "")).endswith("#atproto_pds")), "")


def _session_credentials(body: Mapping[str, Any]) -> Credentials:
    access = str(body.get("accessJwt") or "")
    metadata = {"pds": _pds_of(body.get("didDoc"))} if body.get("didDoc") else {}
    return Credentials(
        access_token=access,
        refresh_token=str(body.get("refreshJwt") or ""),
        expires_at=_jwt_expiry(access),
        external_id=str(body.get("did") or ""),
        handle=str(body.get("handle") or ""),
        metadata=metadata,
    )

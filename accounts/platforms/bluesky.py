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
- A first comment is a reply post like a thread's later item: publishing sends it once the post
  is published, as a Post whose `reply_to` carries the post's uri and cid (the strong references
  a reply record needs).
- Deleting is `com.atproto.repo.deleteRecord` with the repo, collection and record key read from
  the post's at:// URI; it answers a success whether or not the record was there ("delete, or
  ensure it doesn't exist"). `exists()` reads the record with getRecord: RecordNotFound is gone.
- Refreshed tokens are written into `conn.credentials`; the caller persists them.
- Every URL goes through `conn.url()` against the entryway bsky.social (the account's PDS from
  its didDoc is kept in metadata for a later step).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import requests

from accounts.platforms.atproto import (
    FACET,
    facet,
    grapheme_count,
    jwt_expiry,
    link_facets,
    mention_spans,
    new_tid,
    now_iso,
    pds_of,
    tag_facets,
)
from accounts.platforms.base import (
    FIT_SETTING,
    MAX_RECENT_PAGES,
    Connection,
    Credentials,
    ErrorWords,
    HttpClient,
    Media,
    Metrics,
    Outcome,
    OutcomeKind,
    PlatformError,
    Post,
    Problem,
    bare_connection,
    json_object,
)
from accounts.platforms.interface import REPLY

XRPC = "https://bsky.social/xrpc/"
PUBLIC_XRPC = "https://public.api.bsky.app/xrpc/"
POST = "app.bsky.feed.post"
MAX_GRAPHEMES, MAX_BYTES = 300, 3000
GETPOSTS_BATCH = 25
LIST_LIMIT = 50  # records per listRecords page (the lexicon allows 1-100)
AUTH_ERRORS = frozenset({"AuthRequired", "InvalidToken", "ExpiredToken", "AuthenticationRequired"})

# --- errors ------------------------------------------------------------------------------------


class BlueskyError(PlatformError):
    """An XRPC call that did not succeed; `outcome` says how (raised by login/refresh/metrics)."""


def error_words(response: requests.Response) -> ErrorWords:
    """XRPC's `{error, message}` body; the error names in AUTH_ERRORS refuse the token."""
    body = json_object(response)
    code = str(body.get("error") or f"HTTP_{response.status_code}")
    return ErrorWords(code, str(body.get("message") or ""), auth=code in AUTH_ERRORS)


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


class Client(HttpClient[tuple[str, dict[str, Any]]]):
    platform = "bluesky"
    first_comment = REPLY
    reset_headers = ("RateLimit-Reset",)
    rate_limited_code = ""  # XRPC names it (RateLimitExceeded)
    setting_types = {**FIT_SETTING, "reply": ("object",), "embed": ("object",)}
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

    def revoke(self, conn: Connection) -> bool:
        """deleteSession with the refresh token as Bearer, as the lexicon requires: the session
        ends and its refresh token with it (the short-lived access token runs out on its own)."""
        token = conn.credentials.refresh_token
        if not token:
            return False
        headers = {"Authorization": f"Bearer {token}"}
        self.revocation(conn, "POST", f"{XRPC}com.atproto.server.deleteSession", headers=headers)
        return True

    def _session_call(self, conn: Connection, call: _Call) -> dict[str, Any]:
        """createSession/refreshSession, where any 400/401 means the credentials are no good."""
        response = self._send(conn, call)
        if not response.ok:
            outcome = self.refusal(response)
            raise BlueskyError(replace(outcome, auth_failed=outcome.auth_failed or response.status_code == 400))
        return json_object(response)

    # --- validation ----------------------------------------------------------------------

    def text_length(self, text: str) -> int:
        return grapheme_count(text)

    def validate(self, post: Post) -> list[Problem]:
        problems = _text_problems(post.text, "text")
        if not post.text and not post.media and "embed" not in post.settings:
            problems.append(Problem("text", "EMPTY_POST", "A Bluesky post needs text, media or a link card."))
        return problems + self.media_problems(post.media) + _settings_problems(post)

    # --- publishing ----------------------------------------------------------------------

    def prepare(self, conn: Connection, post: Post) -> tuple[str, dict[str, Any]]:
        """The record key, saved before anything is sent, and the record with its blobs uploaded."""
        rkey = new_tid()
        conn.save_ref({"rkey": rkey, "repo": conn.credentials.external_id})
        return rkey, self._record(conn, post)

    def create(self, conn: Connection, post: Post, prepared: tuple[str, dict[str, Any]]) -> Outcome:
        (rkey, record), did = prepared, conn.credentials.external_id
        try:
            created = self._create(conn, rkey, record)
        except PlatformError as exc:
            return replace(exc.outcome, ref={"rkey": rkey, "repo": did})
        return _published(did, rkey, created.get("uri"), created.get("cid"))

    def _create(self, conn: Connection, rkey: str, record: Mapping[str, Any]) -> dict[str, Any]:
        body = {"repo": conn.credentials.external_id, "collection": POST, "rkey": rkey, "record": record}
        return self._xrpc(conn, _Call("POST", "com.atproto.repo.createRecord", body))

    def _record(self, conn: Connection, post: Post) -> dict[str, Any]:
        record: dict[str, Any] = {"$type": POST, "text": post.text, "createdAt": now_iso()}
        facets = self._facets(conn, post.text)
        embed = self._embed(conn, post)
        reply = _reply_of(post) or post.settings.get("reply")
        for key, value in (("facets", facets), ("embed", embed), ("reply", reply)):
            if value:
                record[key] = value
        return record

    # --- facets and embeds ---------------------------------------------------------------

    def _facets(self, conn: Connection, text: str) -> list[dict[str, Any]]:
        facets = link_facets(text) + self._mention_facets(conn, text) + tag_facets(text)
        return sorted(facets, key=lambda facet: facet["index"]["byteStart"])

    def _mention_facets(self, conn: Connection, text: str) -> list[dict[str, Any]]:
        facets = []
        for span, handle in mention_spans(text):
            did = self._resolve(conn, handle)
            if did:
                facets.append(facet(text, span, {"$type": f"{FACET}#mention", "did": did}))
        return facets

    def _resolve(self, conn: Connection, handle: str) -> str:
        """The handle's DID, or "" when it does not resolve (the mention stays plain text)."""
        call = _Call("GET", "com.atproto.identity.resolveHandle", params=[("handle", handle)], auth=False)
        try:
            return str(self._xrpc(conn, call).get("did") or "")
        except PlatformError:
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
        except PlatformError as exc:
            if exc.outcome.error_code == "RecordNotFound":
                return Outcome(OutcomeKind.FAILED, ref=ref, error_code="NOT_FOUND", error_message=str(exc))
            return replace(exc.outcome, ref=ref)
        return _published(repo, rkey, found.get("uri"), found.get("cid"))

    def find_recent(self, conn: Connection, post: Post, since: dt.datetime) -> Outcome:
        """The account's records (listRecords, newest first), page after page through `cursor`:
        one with the same text, created at or after `since`, is the post. A page that reaches back
        before `since` is the last one read: the records after it are older still."""
        did, cursor = conn.credentials.external_id, ""
        for _ in range(MAX_RECENT_PAGES):
            try:
                page = self._xrpc(conn, _list_call(did, cursor))
            except PlatformError as exc:
                return exc.outcome
            records = [item for item in page.get("records") or [] if isinstance(item, dict)]
            found = next((item for item in records if _same_post(item, post, since)), None)
            if found is not None:
                uri = str(found["uri"])
                return _published(did, uri.rsplit("/", 1)[-1], uri, found.get("cid"))
            cursor = str(page.get("cursor") or "")
            if not cursor or not records or any(_older(item, since) for item in records):
                break
        return Outcome(OutcomeKind.FAILED, error_code="NOT_FOUND", error_message="No recent post with this text.")

    # --- deleting and reading back --------------------------------------------------------

    def delete(self, conn: Connection, post_id: str, ref: Mapping[str, str]) -> Outcome:
        """deleteRecord of the post's record: a success also when the record was gone already."""
        try:
            self._xrpc(conn, _Call("POST", "com.atproto.repo.deleteRecord", record_of(post_id)))
        except PlatformError as exc:
            return exc.outcome
        return Outcome(OutcomeKind.PUBLISHED, post_id=post_id)

    def exists(self, conn: Connection, post_id: str, ref: Mapping[str, str]) -> bool:
        params = list(record_of(post_id).items())
        try:
            self._xrpc(conn, _Call("GET", "com.atproto.repo.getRecord", params=params, auth=False))
        except PlatformError as exc:
            if exc.outcome.error_code == "RecordNotFound":
                return False
            raise
        return True

    def metrics(self, conn: Connection, post_ids: Sequence[str]) -> dict[str, Metrics]:
        return super().metrics(conn, [p for p in post_ids if p.startswith("at://")])

    def metrics_batch(self, conn: Connection, post_ids: Sequence[str]) -> dict[str, Metrics]:
        """Public getPosts (no auth). Bluesky has no view counts: views is None; shares counts
        reposts and quotes."""
        params = [("uris", uri) for uri in post_ids]
        call = _Call("GET", "app.bsky.feed.getPosts", params=params, auth=False, host=PUBLIC_XRPC)
        return {str(view.get("uri")): _metrics_of(view) for view in self._xrpc(conn, call).get("posts") or []}

    # --- HTTP ----------------------------------------------------------------------------

    def error_words(self, response: requests.Response) -> ErrorWords:
        return error_words(response)

    def _xrpc(self, conn: Connection, call: _Call) -> dict[str, Any]:
        """One XRPC call; an expired access token is refreshed once and the SAME call repeated."""
        response = self._send(conn, call)
        if call.auth and response.status_code == 400 and error_words(response).code == "ExpiredToken":
            conn.credentials = self.refresh(conn)
            response = self._send(conn, call)
        if not response.ok:
            raise BlueskyError(self.refusal(response))
        return json_object(response)

    def _send(self, conn: Connection, call: _Call) -> requests.Response:
        """The call with the account's token (or none, for public and session calls)."""
        sender = conn if call.auth else bare_connection(conn.sandbox)
        url, params = call.host + call.nsid, list(call.params)
        if call.upload is None:
            return self.send(sender, call.method, url, json=call.json, params=params, headers=dict(call.headers))
        with call.upload.open() as stream:  # streamed: a video may be large
            headers = {**call.headers, "Content-Type": call.upload.content_type}
            return self.send(sender, call.method, url, data=stream, headers=headers)


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


def record_of(uri: str) -> dict[str, str]:
    """The repo, collection and record key an at:// URI names (at://<did>/<collection>/<rkey>)."""
    repo, _, rest = uri.removeprefix("at://").partition("/")
    collection, _, rkey = rest.partition("/")
    return {"repo": repo, "collection": collection, "rkey": rkey}


def _list_call(did: str, cursor: str) -> _Call:
    """One page of the account's posts; `cursor` is the one the previous page answered."""
    params = [("repo", did), ("collection", POST), ("limit", str(LIST_LIMIT))]
    params += [("cursor", cursor)] if cursor else []
    return _Call("GET", "com.atproto.repo.listRecords", params=params, auth=False)


def _created(item: Mapping[str, Any]) -> dt.datetime | None:
    value = item.get("value") or {}
    try:
        created = dt.datetime.fromisoformat(str(value.get("createdAt", "")).replace("Z", "+00:00"))
    except ValueError:
        return None
    return created if created.tzinfo else created.replace(tzinfo=dt.UTC)


def _older(item: Mapping[str, Any], since: dt.datetime) -> bool:
    created = _created(item)
    return created is not None and created < since


def _reply_of(post: Post) -> dict[str, Any] | None:
    """A thread item's `reply`: strong references to its thread's first post and its parent."""
    to = post.reply_to
    if to is None:
        return None
    return {"root": {"uri": to.root_id, "cid": to.root_cid}, "parent": {"uri": to.parent_id, "cid": to.parent_cid}}


def _same_post(item: Mapping[str, Any], post: Post, since: dt.datetime) -> bool:
    """The same text, created since `since`, and a reply to the same parent (or no reply)."""
    value, created = item.get("value") or {}, _created(item)
    parent = ((value.get("reply") or {}).get("parent") or {}).get("uri")
    wanted = post.reply_to.parent_id if post.reply_to else None
    return value.get("text") == post.text and parent == wanted and created is not None and created >= since


def _metrics_of(view: Mapping[str, Any]) -> Metrics:
    def count(name: str) -> int:
        return int(view.get(name) or 0)

    extra = {"quoteCount": count("quoteCount"), "bookmarkCount": count("bookmarkCount")}
    shares = count("repostCount") + count("quoteCount")
    return Metrics(views=None, likes=count("likeCount"), comments=count("replyCount"), shares=shares, extra=extra)


def _session_credentials(body: Mapping[str, Any]) -> Credentials:
    access = str(body.get("accessJwt") or "")
    metadata = {"pds": pds_of(body.get("didDoc"))} if body.get("didDoc") else {}
    return Credentials(
        access_token=access,
        refresh_token=str(body.get("refreshJwt") or ""),
        expires_at=jwt_expiry(access),
        external_id=str(body.get("did") or ""),
        handle=str(body.get("handle") or ""),
        metadata=metadata,
    )

"""Threads (Meta Threads API on graph.threads.net): containers, then threads_publish.

Why it looks the way it does:

- Every post is a container first (`POST /v1.0/{user-id}/threads`, media_type TEXT, IMAGE,
  VIDEO or CAROUSEL with `children`), then `POST /v1.0/{user-id}/threads_publish?creation_id=`.
  The container is `prepare()` and its id is saved with `conn.save_ref` before anything else
  happens to it, so an UNKNOWN threads_publish is settled exactly: the container's status
  PUBLISHED means it went out (the post id is then read from the account's recent threads),
  FINISHED means it is safe to publish again. `auto_publish_text` (Meta's one-step text
  shortcut) is deliberately not used: it would leave nothing to save before the call that
  creates the post.
- Meta pulls media from URLs; there is no byte upload. `image_url`/`video_url` are the
  short-lived URLs `media.pull_url()` gives. A carousel (2-20 items, mixed) is one child
  container per item with `is_carousel_item=true`, then the CAROUSEL container.
- Containers are polled (`GET /{container-id}?fields=id,status,error_message`) at most
  `status_polls` times inside publish(); still IN_PROGRESS afterwards (Meta says video takes
  about 30 s) answers PROCESSING with the container in `ref`, and `check()` finishes it.
- Parameters go in a form body rather than the query string the Postman collection shows (the
  Graph API reads both) and the token goes in the `Authorization: Bearer` header rather than
  an `access_token` parameter, so neither post text nor tokens end up in URLs. Deviation: the
  collection's paths have no version; the developer docs' `/v1.0/` prefix is used here.
- Errors are read as `graph.py` reads every Graph answer, with Threads' codes (`CODES`):
  `error_code` keeps Meta's numeric code (`"190"`, or `"100/33"` with a subcode); 190, 102
  and 104 are token problems (auth_failed); 4, 17, 32, 613 and HTTP 429 are rate limits
  (NOT_SENT). 9007 on threads_publish means the container is not ready yet: PROCESSING.
- OAuth: Threads documents no PKCE, so the challenge and verifier are not sent; `state` is.
  The code gives a 1-hour token that is exchanged at once for a 60-day one
  (th_exchange_token); `refresh()` extends that token (th_refresh_token). There is no refresh
  token: `Credentials.refresh_token` stays empty and the access token itself is refreshed.
- Text counts emoji by their UTF-8 bytes (limits notes); other graphemes count their code
  points. At most 5 unique links (text plus link_attachment), one topic tag of 1-50
  characters without '.' or '&', and link_attachment only on text posts.
- A first comment is a reply (`first_comment = REPLY`): a thread item with `reply_to_id`.
  A thread or reply is deleted with `DELETE /{threads-media-id}` (scope `threads_delete`,
  answering `{"success": true, "deleted_id"}`) and read back with `GET /{id}`, as every Graph
  node is (`GraphClient.delete`, `exists`).
- Metrics: `GET /{media-id}/insights?metric=views,likes,replies,reposts,quotes,shares`;
  `comments` = replies and `shares` = reposts + quotes + shares; the raw counts stay in `extra`.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import regex

from accounts.platforms.base import (
    FIT_SETTING,
    Connection,
    Credentials,
    Media,
    Metrics,
    Outcome,
    OutcomeKind,
    PlatformError,
    Post,
    Problem,
    ReplyTo,
    bare_connection,
    before_create,
)
from accounts.platforms.graph import (
    GraphClient,
    GraphCodes,
    Missing,
    created_since,
    graph_error,
    insight_values,
    reaches_before,
    read_failure,
)
from accounts.platforms.interface import REPLY

GRAPH = "https://graph.threads.net"
API = f"{GRAPH}/v1.0"
AUTHORIZE_URL = "https://www.threads.net/oauth/authorize"
# threads_read_replies: a thread's later items are read back among their parent's replies;
# threads_delete: `DELETE /{threads-media-id}` (GraphClient.delete) needs it.
SCOPES = "threads_basic,threads_content_publish,threads_manage_insights,threads_read_replies,threads_delete"
SANDBOX_CLIENT_SECRET = "sandbox-threads-secret"  # noqa: S105 - a fixed value only the sandbox accepts
MAX_LINKS = 5
MAX_TOPIC_TAG = 50
MAX_ASPECT_RATIO = 10.0
POST_METRICS = ("views", "likes", "replies", "reposts", "quotes", "shares")
POST_FIELDS = "id,permalink,shortcode,text,timestamp,username"
REPLY_FIELDS = "id,permalink,text,timestamp,replied_to"
PAGE_LIMIT = 50  # threads per page of the find_recent() listing (the collection's example)
CODES = GraphCodes(auth=frozenset({102, 104, 190}), throttled=frozenset({4, 17, 32, 613}))
NOT_READY_CODE = 9007

_GRAPHEME = regex.compile(r"\X")
_EMOJI = regex.compile(r"\p{Emoji_Presentation}|\ufe0f|\u20e3|\p{Regional_Indicator}")
_URL = re.compile(r"https?://[^\s<>\"]+", re.IGNORECASE)
_URL_TRAILING = ".,;:!?'\")]}"


def text_length(text: str) -> int:
    """Threads' count: an emoji grapheme weighs its UTF-8 bytes, anything else its code points."""
    return sum(len(g.encode()) if _EMOJI.search(g) else len(g) for g in _GRAPHEME.findall(text))


def unique_links(text: str, extra: str = "") -> set[str]:
    """The distinct links of a post: URLs in its text plus the link attachment."""
    found = [m.group() for m in _URL.finditer(text)] + ([extra] if extra else [])
    return {link.rstrip(_URL_TRAILING).lower() for link in found}


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _user(conn: Connection) -> str:
    return conn.credentials.external_id or "me"


def _media_params(media: Media, *, carousel: bool) -> dict[str, str]:
    kind, key = ("VIDEO", "video_url") if media.is_video else ("IMAGE", "image_url")
    params = {"media_type": kind, key: media.pull_url()}
    alt = str(getattr(media, "alt", "") or "")
    if alt:
        params["alt_text"] = alt
    return {**params, "is_carousel_item": "true"} if carousel else params


def _setting_params(post: Post) -> dict[str, str]:
    params = {key: str(post.settings[key]) for key in ("link_attachment", "topic_tag") if key in post.settings}
    return {**params, "reply_to_id": post.reply_to.parent_id} if post.reply_to else params


def _in_progress(status: Mapping[str, Any]) -> bool:
    return status.get("status") == "IN_PROGRESS"


def _container_outcome(status: Mapping[str, Any], ref: Mapping[str, str]) -> Outcome:
    state = str(status.get("status") or "")
    if state == "IN_PROGRESS":
        return Outcome(OutcomeKind.PROCESSING, ref=ref)
    message = str(status.get("error_message") or state)
    return Outcome(OutcomeKind.FAILED, ref=ref, error_code=state or "NO_STATUS", error_message=message)


def _is_url(value: Any) -> bool:
    return isinstance(value, str) and bool(re.fullmatch(r"https?://[^\s/$.?#][^\s]*", value, re.IGNORECASE))


def _link_problems(post: Post) -> list[Problem]:
    value = post.settings.get("link_attachment")
    if value is None:
        return []
    if not _is_url(value):
        return [Problem("link_attachment", "INVALID_SETTING", "link_attachment must be an http(s) URL.")]
    if post.media:
        message = "Threads attaches a link preview to text posts only."
        return [Problem("link_attachment", "INVALID_COMBINATION", message)]
    return []


def _topic_problems(value: Any) -> list[Problem]:
    if isinstance(value, str) and 1 <= len(value) <= MAX_TOPIC_TAG and not set(value) & {".", "&"}:
        return []
    message = f"topic_tag must be 1-{MAX_TOPIC_TAG} characters without '.' or '&'."
    return [Problem("topic_tag", "INVALID_SETTING", message)]


def _aspect_problems(media: Sequence[Media]) -> list[Problem]:
    problems = []
    for index, item in enumerate(media):
        if item.width and item.height and item.width > 0 and item.height > 0:
            ratio = max(item.width / item.height, item.height / item.width)
            if ratio > MAX_ASPECT_RATIO:
                message = f"Threads takes media up to a {MAX_ASPECT_RATIO:g}:1 aspect ratio."
                problems.append(Problem(f"media[{index}]", "INVALID_ASPECT_RATIO", message))
    return problems


class Client(GraphClient[dict[str, str]]):
    platform = "threads"
    first_comment = REPLY
    api = API
    codes = CODES
    authorize_endpoint = AUTHORIZE_URL
    scopes = SCOPES
    sandbox_client_secret = SANDBOX_CLIENT_SECRET
    pkce = False
    renews_with_access_token = True  # refresh(): the long-lived token renews itself
    setting_types = {**FIT_SETTING, "link_attachment": ("string", "null"), "topic_tag": ("string",)}  # null: no link
    status_polls = 3  # status checks inside publish() before answering PROCESSING
    poll_seconds = 2.0  # between those checks

    # --- validation ------------------------------------------------------------------------

    def text_length(self, text: str) -> int:
        return text_length(text)

    def validate(self, post: Post) -> list[Problem]:
        problems = self._text_problems(post) + self.media_problems(post.media)
        problems += [] if problems else _aspect_problems(post.media)
        problems += _link_problems(post)
        if "topic_tag" in post.settings:
            problems += _topic_problems(post.settings["topic_tag"])
        return problems

    def _text_problems(self, post: Post) -> list[Problem]:
        if not post.text.strip() and not post.media:
            return [Problem("text", "EMPTY_POST", "A Threads text post needs text.")]
        length, limit = self.text_length(post.text), self.limits.text.max_length or 500
        if length > limit:
            message = f"Text counts {length} of Threads' {limit} characters (emoji count their UTF-8 bytes)."
            return [Problem("text", "TEXT_TOO_LONG", message)]
        link = post.settings.get("link_attachment")
        if len(unique_links(post.text, link if isinstance(link, str) else "")) > MAX_LINKS:
            return [Problem("text", "TOO_MANY_LINKS", f"Threads takes at most {MAX_LINKS} unique links a post.")]
        return []

    # --- publishing ------------------------------------------------------------------------

    def prepare(self, conn: Connection, post: Post) -> dict[str, str]:
        """The post's container, saved before anything else happens to it."""
        ref = {"container_id": self._container(conn, post), "text": post.text, "since": _now().isoformat()}
        if post.reply_to:  # a reply is listed among its parent's replies, not the account's threads
            ref["reply_to_id"] = post.reply_to.parent_id
        conn.save_ref(ref)
        return ref

    def create(self, conn: Connection, post: Post, prepared: dict[str, str]) -> Outcome:
        return self._finish(conn, prepared, self.status_polls)

    def _container(self, conn: Connection, post: Post) -> str:
        params: dict[str, str] = {"text": post.text} if post.text else {}
        params.update(_setting_params(post))
        if len(post.media) > 1:
            children = [self._new_container(conn, _media_params(m, carousel=True)) for m in post.media]
            return self._new_container(conn, {**params, "media_type": "CAROUSEL", "children": ",".join(children)})
        if post.media:
            return self._new_container(conn, {**params, **_media_params(post.media[0], carousel=False)})
        return self._new_container(conn, {**params, "media_type": "TEXT"})

    def _new_container(self, conn: Connection, params: Mapping[str, str]) -> str:
        container = str(self.call(conn, "POST", f"/{_user(conn)}/threads", data=params).get("id") or "")
        if not container:
            raise PlatformError(Outcome(OutcomeKind.FAILED, error_code="NO_ID", error_message="no container id"))
        return container

    def _finish(self, conn: Connection, ref: Mapping[str, str], polls: int) -> Outcome:
        """Wait (bounded) for the container, then publish it."""
        try:
            status = self._wait(conn, ref["container_id"], polls)
        except PlatformError as exc:
            return before_create(replace(exc.outcome, ref=ref))
        if status.get("status") == "PUBLISHED":
            return self._published_since(conn, ref)
        if status.get("status") != "FINISHED":
            return _container_outcome(status, ref)
        return self._publish_container(conn, ref)

    def _wait(self, conn: Connection, container: str, polls: int) -> dict[str, Any]:
        fields = {"fields": "id,status,error_message"}
        return self.poll(lambda: self.call(conn, "GET", f"/{container}", params=fields), _in_progress, polls)

    def _publish_container(self, conn: Connection, ref: Mapping[str, str]) -> Outcome:
        path = f"/{_user(conn)}/threads_publish"
        try:
            response = self.send(conn, "POST", path, data={"creation_id": ref["container_id"]})
        except PlatformError as exc:
            return replace(exc.outcome, ref=ref)
        post_id = str(self.body(response).get("id") or "") if self.succeeded(response) else ""
        if post_id:
            return self._published(conn, post_id, ref)
        if graph_error(response).get("code") == NOT_READY_CODE:
            return Outcome(OutcomeKind.PROCESSING, ref=ref, error_code=str(NOT_READY_CODE))
        if not self.succeeded(response):
            return replace(self.refusal(response), ref=ref)
        return Outcome(OutcomeKind.UNKNOWN, ref=ref, error_code="NO_ID")

    def _published(self, conn: Connection, post_id: str, ref: Mapping[str, str]) -> Outcome:
        """PUBLISHED with the permalink Meta gives (the URL is left empty if that read fails)."""
        try:
            found = self.call(conn, "GET", f"/{post_id}", params={"fields": "id,permalink"})
        except PlatformError:
            found = {}
        url = str(found.get("permalink") or "")
        return Outcome(OutcomeKind.PUBLISHED, post_id=post_id, url=url, ref={**ref, "post_id": post_id})

    # --- settling --------------------------------------------------------------------------

    def check(self, conn: Connection, ref: Mapping[str, str]) -> Outcome:
        if ref.get("post_id"):
            return self._read_back(conn, ref)
        if ref.get("container_id"):
            return self._finish(conn, ref, polls=1)
        return Outcome(OutcomeKind.FAILED, error_code="NO_REF", error_message="nothing to check")

    def _read_back(self, conn: Connection, ref: Mapping[str, str]) -> Outcome:
        try:
            node = self.node(conn, f"/{ref['post_id']}", params={"fields": "id,permalink"})
        except PlatformError as exc:
            return replace(read_failure(exc), ref=ref)
        if str(node.get("id")) != ref["post_id"]:
            return Outcome(OutcomeKind.FAILED, ref=ref, error_code="NOT_FOUND")
        url = str(node.get("permalink") or "")
        return Outcome(OutcomeKind.PUBLISHED, post_id=ref["post_id"], url=url, ref=ref)

    def _published_since(self, conn: Connection, ref: Mapping[str, str]) -> Outcome:
        """The container says PUBLISHED: the post is the newest one with its text."""
        since = dt.datetime.fromisoformat(ref.get("since") or _now().isoformat()) - dt.timedelta(minutes=1)
        parent = ref.get("reply_to_id")
        reply_to = ReplyTo(parent_id=parent, root_id=parent) if parent else None
        found = self.find_recent(conn, Post(text=ref.get("text", ""), reply_to=reply_to), since)
        if found.kind is OutcomeKind.PUBLISHED:
            return replace(found, ref={**ref, "post_id": found.post_id})
        return Outcome(OutcomeKind.UNKNOWN, ref=ref, error_code="PUBLISHED_NOT_LISTED")

    def find_recent(self, conn: Connection, post: Post, since: dt.datetime) -> Outcome:
        """The account's threads since `since` (newest first), page after page (`after`) until
        one has the same text, a page comes back empty or without an `after` cursor (Threads
        documents its cursors, not a `next` link), or MAX_RECENT_PAGES were read. A reply is
        looked for among its parent's replies (`/{id}/replies`, newest first by default), or,
        once that parent is deleted, among the account's own replies (`/{user-id}/replies`)."""
        since_params = {"since": int(since.timestamp()), "limit": PAGE_LIMIT}
        try:
            if not post.reply_to:
                return self._look(conn, f"/{_user(conn)}/threads", {"fields": POST_FIELDS, **since_params}, post, since)
            try:
                return self._look(conn, f"/{post.reply_to.parent_id}/replies", {"fields": REPLY_FIELDS}, post, since)
            except Missing:
                return self._look(
                    conn, f"/{_user(conn)}/replies", {"fields": REPLY_FIELDS, **since_params}, post, since
                )
        except PlatformError as exc:
            return read_failure(exc)

    def _look(self, conn: Connection, path: str, params: dict[str, Any], post: Post, since: dt.datetime) -> Outcome:
        for threads in self.edge_pages(conn, path, params, needs_next=False):
            found = next((item for item in threads if _same(item, post, since)), None)
            if found is not None:
                url, post_id = str(found.get("permalink") or ""), str(found["id"])
                return Outcome(OutcomeKind.PUBLISHED, post_id=post_id, url=url, ref={"post_id": post_id})
            if reaches_before(threads, "timestamp", since):
                break
        return Outcome(OutcomeKind.FAILED, error_code="NOT_FOUND", error_message="No recent thread with this text.")

    # --- metrics ---------------------------------------------------------------------------

    def post_metrics(self, conn: Connection, post_id: str) -> Metrics | None:
        """The post's insights; None for a post Threads does not know."""
        params = {"metric": ",".join(POST_METRICS)}
        try:
            return self._metrics_of(insight_values(self.node(conn, f"/{post_id}/insights", params=params)))
        except Missing:
            return None

    @staticmethod
    def _metrics_of(counts: Mapping[str, int]) -> Metrics:
        extra = {name: counts.get(name, 0) for name in ("reposts", "quotes", "shares")}
        return Metrics(
            views=counts.get("views"),
            likes=counts.get("likes", 0),
            comments=counts.get("replies", 0),
            shares=sum(extra.values()),
            extra=extra,
        )

    # --- OAuth -----------------------------------------------------------------------------

    def revoke(self, conn: Connection) -> bool:
        """The Threads API documents no revoke call (only the uninstall callback, when the
        user removes the app), so nothing is sent."""
        return False

    def exchange_code(self, *, code: str, code_verifier: str, redirect_uri: str, sandbox: bool) -> Credentials:
        """Code -> 1-hour token -> 60-day token, then who it belongs to."""
        app = self.app(sandbox)
        form = {
            "client_id": app.client_id,
            "client_secret": app.client_secret,
            "code": code,
            "grant_type": "authorization_code",
            "redirect_uri": redirect_uri,
        }
        short = self.token_request(sandbox, "POST", f"{GRAPH}/oauth/access_token", data=form)
        params = {"grant_type": "th_exchange_token", "client_secret": app.client_secret}
        bearer = self.headers(bare_connection(sandbox, str(short["access_token"])))
        long_lived = self.token_request(sandbox, "GET", f"{GRAPH}/access_token", params=params, headers=bearer)
        return self._credentials(long_lived, sandbox)

    def refresh(self, conn: Connection) -> Credentials:
        """th_refresh_token: the long-lived token, at least a day old, gets 60 more days."""
        params = {"grant_type": "th_refresh_token"}
        url = f"{GRAPH}/refresh_access_token"
        token = self.token_request(conn.sandbox, "GET", url, params=params, headers=self.headers(conn))
        return self._credentials(token, conn.sandbox, conn.credentials)

    def _credentials(self, token: Mapping[str, Any], sandbox: bool, known: Credentials | None = None) -> Credentials:
        access = str(token["access_token"])
        me = self.call(bare_connection(sandbox, access), "GET", "/me", params={"fields": "id,username,name"})
        lifetime = int(token.get("expires_in") or 3600)
        return Credentials(
            access_token=access,
            expires_at=_now() + dt.timedelta(seconds=lifetime),
            external_id=str(me.get("id") or (known.external_id if known else "")),
            handle=str(me.get("username") or ""),
            display_name=str(me.get("name") or ""),
            metadata={"scope": SCOPES, "token_type": str(token.get("token_type") or "bearer")},
        )


def _same(item: Mapping[str, Any], post: Post, since: dt.datetime) -> bool:
    """Whether a listed thread is the post: the same text, created at or after `since` (and,
    for a reply, answering the same parent)."""
    if post.reply_to and str((item.get("replied_to") or {}).get("id") or "") != post.reply_to.parent_id:
        return False
    return str(item.get("text") or "").strip() == post.text.strip() and created_since(item.get("timestamp"), since)

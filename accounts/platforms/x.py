"""X (Twitter API v2): publish with plain `requests` against the endpoints X documents.

Why it looks the way it does:

- Media goes through the v2 dedicated upload endpoints (initialize, append, finalize, then
  STATUS while `processing_info` says so) for every type: one code path for images, GIFs and
  videos; the v1.1 `upload.twitter.com` endpoints are deprecated. A video still processing
  after a bounded number of polls yields PROCESSING; its ref carries the media ids and the
  prepared tweet body, so `check()` creates the tweet once the media is ready.
- platform_settings map to the fields of X's `CreatePostsRequest` (specs/x/openapi.json):
  `reply_to` -> `reply.in_reply_to_tweet_id`, `quote_tweet` -> `quote_tweet_id`,
  `for_super_followers_only` -> `for_super_followers_only`. X has no post-level "sensitive"
  field on creation; `sensitive=True` is honoured by marking every attached media with
  `POST /2/media/metadata` `sensitive_media_warning.other`, so on a text-only post it cannot
  be honoured and `validate()` reports it. X refuses media together with a quote. A file's
  alt text goes in the same metadata call (`alt_text.text`, at most 1000 characters).
- X hands out no id before the create call, so there is nothing to `save_ref`; an UNKNOWN
  create is settled by `find_recent()` over the account's timeline (an owned read), page by
  page (`pagination_token`), since a busy account may post more than a page in the meantime.
- Deleting is `DELETE /2/tweets/{id}` (`{"data": {"deleted": true}}`), for a post and a reply
  alike. A post that is gone already answers a resource-not-found problem (a 404, or a 200 whose
  `errors` say so, as reads of a deleted post do): that delete is done. `exists()` reads the post
  (`GET /2/tweets/{id}`): only a resource-not-found says it is gone; X answers others
  (not-authorized-for-resource: a protected or suspended account) for posts that still exist.
- A disconnect revokes the refresh token, then the access token (`/2/oauth2/revoke`, one token
  a call, authenticated as the token call is): X does not say that revoking one ends the other.
- Metrics: `shares` = reposts + quotes (both are re-shares of the post); the raw counts stay
  in `extra`. Reposts are `repost_count` in spec v2.167 and `retweet_count` in older
  descriptions; both are read. The fields parameter is `post.fields` as spec v2.167 names it.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import re
import time
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any
from urllib.parse import urlencode

import requests

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
    chunks,
    json_object,
    token_credentials,
)
from accounts.platforms.interface import REPLY

API = "https://api.x.com/2"
AUTHORIZE_URL = "https://x.com/i/oauth2/authorize"
TOKEN_URL = f"{API}/oauth2/token"
REVOKE_URL = f"{API}/oauth2/revoke"
SCOPES = "tweet.read tweet.write users.read media.write offline.access"
MB = 1024 * 1024
STATIC_IMAGE_MAX_BYTES = 5 * MB  # animated GIFs may be 15 MB (limits.py holds the larger cap)
MIN_VIDEO_SECONDS = 0.5
MAX_ALT_TEXT = 1000  # AltText.text's maxLength in the published spec
URL_WEIGHT = 23
MAX_IDS_PER_LOOKUP = 100
DUPLICATE_DETAIL = "duplicate content"
NOT_FOUND_PROBLEM = "https://api.x.com/2/problems/resource-not-found"

# twitter-text v3: code points in these ranges weigh 1, all others 2.
_LIGHT_RANGES = ((0x0000, 0x10FF), (0x2000, 0x200D), (0x2010, 0x201F), (0x2032, 0x2037))
_URL = re.compile(r"https?://[^\s]+", re.IGNORECASE)
_URL_TRAILING = ".,;:!?'\")]}"
_EMOJI_BASE = "[\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff\u2300-\u23ff]"
_EMOJI_TAIL = "[\ufe0f\U0001f3fb-\U0001f3ff\U000e0020-\U000e007f]*"
_EMOJI = re.compile(
    rf"[\U0001f1e6-\U0001f1ff]{{2}}|[0-9#*]\ufe0f?\u20e3"
    rf"|{_EMOJI_BASE}{_EMOJI_TAIL}(?:\u200d{_EMOJI_BASE}{_EMOJI_TAIL})*"
)


def _char_weight(char: str) -> int:
    point = ord(char)
    return 1 if any(low <= point <= high for low, high in _LIGHT_RANGES) else 2


def _plain_weight(text: str) -> int:
    emoji = list(_EMOJI.finditer(text))
    rest = _EMOJI.sub("", text)
    return 2 * len(emoji) + sum(_char_weight(c) for c in rest)


def weighted_length(text: str) -> int:
    """The length X counts: NFC text, URLs 23, emoji sequences 2, light ranges 1, others 2."""
    text = unicodedata.normalize("NFC", text)
    total, start = 0, 0
    for match in _URL.finditer(text):
        url = match.group().rstrip(_URL_TRAILING)
        total += _plain_weight(text[start : match.start()]) + URL_WEIGHT
        start = match.start() + len(url)
    return total + _plain_weight(text[start:])


def first_url(text: str) -> str | None:
    """The first URL in `text` as X finds it (the one it weighs 23), trailing punctuation off."""
    match = _URL.search(text)
    return match.group().rstrip(_URL_TRAILING) if match else None


def error_words(response: requests.Response) -> ErrorWords:
    """X's error code and message: an RFC 7807 problem, or the older `errors[]` list."""
    body: Mapping[str, Any] = json_object(response)
    errors = body.get("errors")
    if "title" not in body and isinstance(errors, list) and errors and isinstance(errors[0], dict):
        body = errors[0]
    if not body:
        return ErrorWords(f"HTTP_{response.status_code}", response.reason or "")
    detail = str(body.get("detail") or body.get("message") or body.get("title") or "")
    return ErrorWords(_problem_code(body, response.status_code), detail)


def _problem_code(body: Mapping[str, Any], status: int) -> str:
    kind = str(body.get("type") or "")
    if DUPLICATE_DETAIL in str(body.get("detail") or "").lower():
        return "DUPLICATE"
    if kind.startswith("https://api.x.com/2/problems/"):
        return kind.rsplit("/", 1)[-1].replace("-", "_").upper()
    title = str(body.get("title") or "")
    return re.sub(r"\W+", "_", title).strip("_").upper() or f"HTTP_{status}"


def _not_found(response: requests.Response) -> bool:
    """Whether X says the post does not exist: a resource-not-found problem, alone or in `errors`."""
    body = json_object(response)
    errors = body.get("errors")
    problems: list[Any] = errors if isinstance(errors, list) else [body]
    return response.status_code in (200, 404) and any(
        isinstance(p, dict) and p.get("type") == NOT_FOUND_PROBLEM for p in problems
    )


def _published(post_id: str) -> Outcome:
    return Outcome(OutcomeKind.PUBLISHED, post_id=post_id, url=f"https://x.com/i/web/status/{post_id}", http_status=201)


def _category(media: Media) -> str:
    if media.is_video:
        return "tweet_video"
    return "tweet_gif" if media.content_type == "image/gif" else "tweet_image"


def _is_id(value: object) -> bool:
    return isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 19


def _setting_problems(values: Mapping[str, Any]) -> list[Problem]:
    problems = []
    for key in ("reply_to", "quote_tweet"):
        if key in values and not _is_id(values[key]):
            problems.append(Problem(key, "INVALID_SETTING", f"{key} must be a post id (a string of digits)."))
    return problems


class Client(HttpClient[tuple[dict[str, Any], list[str]]]):
    platform = "x"
    first_comment = REPLY
    api = API
    reset_headers = ("x-rate-limit-reset",)
    authorize_endpoint = AUTHORIZE_URL
    scopes = SCOPES
    setting_types = {
        **FIT_SETTING,
        "reply_to": ("string",),
        "quote_tweet": ("string",),
        "sensitive": ("boolean",),
        "for_super_followers_only": ("boolean",),
    }
    metrics_batch_size = MAX_IDS_PER_LOOKUP
    chunk_bytes = 4 * MB
    status_polls = 5  # STATUS checks inside publish() before answering PROCESSING
    max_check_after_seconds = 5.0

    # --- validation ------------------------------------------------------------------------

    def validate(self, post: Post) -> list[Problem]:
        problems = self._text_problems(post) + self._media_problems(post.media)
        problems += _setting_problems(post.settings)
        return problems + self._combination_problems(post)

    def text_length(self, text: str) -> int:
        return weighted_length(text)

    def _text_problems(self, post: Post) -> list[Problem]:
        too_long = "Text counts {length} of X's {limit} weighted characters."
        return self.text_problems(post, self.text_length(post.text), empty="X needs text or media.", too_long=too_long)

    def _media_problems(self, media: Sequence[Media]) -> list[Problem]:
        """The shared limits, plus X's own: a GIF goes alone, still images stop at 5 MB (the
        table holds the GIF cap) and videos last at least 0.5 s."""
        if any(m.content_type == "image/gif" for m in media) and len(media) > 1:
            return [Problem("media", "MIXED_MEDIA", "X takes up to 4 images, or 1 GIF, or 1 video.")]
        problems = self.media_problems(media)
        return problems or [p for index, item in enumerate(media) for p in self._x_item_problems(index, item)]

    def _x_item_problems(self, index: int, media: Media) -> list[Problem]:
        where = f"media[{index}]"
        still = not media.is_video and media.content_type != "image/gif"
        if still and media.size_bytes > STATIC_IMAGE_MAX_BYTES:
            return [
                Problem(where, "MEDIA_TOO_LARGE", f"X takes still images of at most {STATIC_IMAGE_MAX_BYTES} bytes.")
            ]
        if media.is_video and media.duration_seconds is not None and media.duration_seconds < MIN_VIDEO_SECONDS:
            return [Problem(where, "VIDEO_TOO_SHORT", f"X takes videos of at least {MIN_VIDEO_SECONDS} seconds.")]
        return []

    def _combination_problems(self, post: Post) -> list[Problem]:
        problems = []
        if post.media and "quote_tweet" in post.settings:
            problems.append(
                Problem("quote_tweet", "INVALID_COMBINATION", "X cannot quote a post and attach media at once.")
            )
        if post.settings.get("sensitive") is True and not post.media:
            problems.append(Problem("sensitive", "UNSUPPORTED_SETTING", "X can mark only attached media as sensitive."))
        return problems

    # --- publishing ------------------------------------------------------------------------

    def prepare(self, conn: Connection, post: Post) -> tuple[dict[str, Any], list[str]]:
        """The tweet's body once its media are uploaded, and the media ids still processing."""
        states = dict(self._upload(conn, item) for item in post.media)
        media_ids = list(states)
        sensitive = post.settings.get("sensitive") is True
        for media_id, item in zip(media_ids, post.media, strict=True):
            self._describe(conn, media_id, item, sensitive=sensitive)
        return self._tweet_body(post, media_ids), self._wait_for_media(conn, states, self.status_polls)

    def create(self, conn: Connection, post: Post, prepared: tuple[dict[str, Any], list[str]]) -> Outcome:
        body, pending = prepared
        if pending:
            media_ids = ",".join(body["media"]["media_ids"])
            return Outcome(OutcomeKind.PROCESSING, ref={"media_ids": media_ids, "tweet": json.dumps(body)})
        return self._create(conn, body)

    def _tweet_body(self, post: Post, media_ids: list[str]) -> dict[str, Any]:
        body: dict[str, Any] = {"text": unicodedata.normalize("NFC", post.text)}
        if media_ids:
            body["media"] = {"media_ids": media_ids}
        if post.reply_to is not None:
            body["reply"] = {"in_reply_to_tweet_id": post.reply_to.parent_id}
        elif "reply_to" in post.settings:
            body["reply"] = {"in_reply_to_tweet_id": post.settings["reply_to"]}
        if "quote_tweet" in post.settings:
            body["quote_tweet_id"] = post.settings["quote_tweet"]
        if post.settings.get("for_super_followers_only") is True:
            body["for_super_followers_only"] = True
        return body

    def _create(self, conn: Connection, body: Mapping[str, Any]) -> Outcome:
        response = self.send(conn, "POST", "/tweets", json=body)
        post_id = self.body(response).get("id") if response.status_code in (200, 201) else None
        if isinstance(post_id, str) and post_id:
            return _published(post_id)
        if response.status_code >= 300:
            return self.refusal(response)
        return Outcome(OutcomeKind.FAILED, error_code="NO_ID", http_status=response.status_code)

    # --- media -----------------------------------------------------------------------------

    def _upload(self, conn: Connection, media: Media) -> tuple[str, dict[str, Any]]:
        """The media id, and the processing_info finalize gave (empty when there is none)."""
        init = {"media_type": media.content_type, "total_bytes": media.size_bytes, "media_category": _category(media)}
        media_id = str(self.call(conn, "POST", "/media/upload/initialize", json=init).get("id", ""))
        if not _is_id(media_id):
            raise PlatformError(Outcome(OutcomeKind.FAILED, error_code="NO_MEDIA_ID", error_message="no id"))
        for index, chunk in enumerate(chunks(media, self.chunk_bytes)):
            files = {"media": ("chunk", chunk, "application/octet-stream")}
            self.call(conn, "POST", f"/media/upload/{media_id}/append", files=files, data={"segment_index": str(index)})
        info = self.call(conn, "POST", f"/media/upload/{media_id}/finalize").get("processing_info")
        return media_id, info if isinstance(info, dict) else {}

    def _describe(self, conn: Connection, media_id: str, media: Media, *, sensitive: bool) -> None:
        """One metadata call per uploaded file: its alt text and the sensitive-media mark."""
        metadata: dict[str, Any] = {}
        if media.alt:
            metadata["alt_text"] = {"text": media.alt[:MAX_ALT_TEXT]}
        if sensitive:
            metadata["sensitive_media_warning"] = {"other": True}
        if metadata:
            self.call(conn, "POST", "/media/metadata", json={"id": media_id, "metadata": metadata})

    def _wait_for_media(self, conn: Connection, states: Mapping[str, dict[str, Any]], polls: int) -> list[str]:
        """The media ids still processing after at most `polls` STATUS checks each."""
        return [media_id for media_id, info in states.items() if not self._media_ready(conn, media_id, info, polls)]

    def _media_ready(self, conn: Connection, media_id: str, info: dict[str, Any], polls: int) -> bool:
        for _ in range(polls):
            if info.get("state", "succeeded") in ("succeeded", "failed"):
                break
            time.sleep(min(float(info.get("check_after_secs") or 0), self.max_check_after_seconds))
            info = self._media_state(conn, media_id)
        if info.get("state") == "failed":
            error = str(info.get("error", ""))
            raise PlatformError(Outcome(OutcomeKind.FAILED, error_code="MEDIA_PROCESSING_FAILED", error_message=error))
        return bool(info.get("state", "succeeded") == "succeeded")

    def _media_state(self, conn: Connection, media_id: str) -> dict[str, Any]:
        query = urlencode({"media_id": media_id, "command": "STATUS"})
        info = self.call(conn, "GET", f"/media/upload?{query}").get("processing_info")
        return info if isinstance(info, dict) else {}

    # --- answers ---------------------------------------------------------------------------

    def error_words(self, response: requests.Response) -> ErrorWords:
        return error_words(response)

    def body(self, response: requests.Response) -> dict[str, Any]:
        """The `data` object of X's envelope."""
        data = json_object(response).get("data") if response.content else {}
        return data if isinstance(data, dict) else {}

    # --- settling --------------------------------------------------------------------------

    def check(self, conn: Connection, ref: Mapping[str, str]) -> Outcome:
        if ref.get("post_id"):
            return self._read_back(conn, ref["post_id"])
        if ref.get("tweet") and ref.get("media_ids"):
            return self._finish_processing(conn, ref)
        return Outcome(OutcomeKind.FAILED, error_code="NO_REF", error_message="nothing to check")

    def _read_back(self, conn: Connection, post_id: str) -> Outcome:
        try:
            response = self.send(conn, "GET", f"/tweets/{post_id}")
        except PlatformError as exc:
            return replace(exc.outcome, kind=OutcomeKind.UNKNOWN)
        if self.body(response).get("id") == post_id:
            return _published(post_id)
        outcome = self.refusal(response)
        if outcome.kind is OutcomeKind.FAILED or response.status_code == 200:  # 200 + errors[]: gone
            return replace(outcome, kind=OutcomeKind.FAILED, error_code="NOT_FOUND", http_status=response.status_code)
        return Outcome(OutcomeKind.UNKNOWN, error_code=outcome.error_code, http_status=response.status_code)

    def _finish_processing(self, conn: Connection, ref: Mapping[str, str]) -> Outcome:
        """Create the tweet a PROCESSING outcome prepared, once every media is ready."""
        unknown = {"state": "pending", "check_after_secs": 0}
        states = dict.fromkeys(ref["media_ids"].split(","), unknown)
        return self.finish_processing(
            ref,
            ready=lambda: not self._wait_for_media(conn, states, polls=1),
            create=lambda: self._create(conn, json.loads(ref["tweet"])),
        )

    def find_recent(self, conn: Connection, post: Post, since: dt.datetime) -> Outcome:
        try:
            user_id = conn.credentials.external_id or str(self._me(conn).get("id", ""))
            return self._search_timeline(conn, user_id, post, since)
        except PlatformError as exc:
            return replace(exc.outcome, kind=OutcomeKind.UNKNOWN)

    def _search_timeline(self, conn: Connection, user_id: str, post: Post, since: dt.datetime) -> Outcome:
        """The timeline newest first, page after page (`meta.next_token` -> `pagination_token`)
        until a tweet has the post's text; `start_time` already keeps out what is older."""
        token = ""
        for _ in range(MAX_RECENT_PAGES):
            query = self._timeline_query(since, token, replies=post.reply_to is not None)
            response = self.send(conn, "GET", f"/users/{user_id}/tweets?{query}")
            if response.status_code == 404:
                return Outcome(OutcomeKind.UNKNOWN, error_code="USER_NOT_FOUND")
            if response.status_code != 200:
                return self.refusal(response)
            page = json_object(response)
            found = self._match(page.get("data") or [], post)
            token = str((page.get("meta") or {}).get("next_token") or "")
            if found is not None:
                return _published(found)
            if not token:
                break
        return Outcome(OutcomeKind.FAILED, error_code="NOT_FOUND", error_message="no matching post on the timeline")

    @staticmethod
    def _timeline_query(since: dt.datetime, token: str, *, replies: bool = False) -> str:
        """The timeline's query; a reply's read-back also asks each post's conversation (the id
        of its thread's first post: spec v2.167 lists no field naming the parent)."""
        start = since.astimezone(dt.UTC).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")
        query: dict[str, Any] = {"max_results": 100, "start_time": start}
        if replies:
            query["post.fields"] = "conversation_id"
        return urlencode({**query, **({"pagination_token": token} if token else {})})

    @staticmethod
    def _match(tweets: Sequence[Mapping[str, Any]], post: Post) -> str | None:
        """The id of the first tweet with the post's text (NFC, outer whitespace ignored) and,
        for a reply, in the same thread (another thread may hold the same text)."""
        wanted = unicodedata.normalize("NFC", post.text).strip()
        for tweet in tweets:
            if unicodedata.normalize("NFC", str(tweet.get("text", ""))).strip() != wanted:
                continue
            if post.reply_to is None or str(tweet.get("conversation_id") or "") == post.reply_to.root_id:
                return str(tweet["id"])
        return None

    # --- deleting and reading back --------------------------------------------------------

    def delete(self, conn: Connection, post_id: str, ref: Mapping[str, str]) -> Outcome:
        try:
            response = self.send(conn, "DELETE", f"/tweets/{post_id}")
        except PlatformError as exc:
            return exc.outcome
        if self.body(response).get("deleted") is True or _not_found(response):
            return Outcome(OutcomeKind.PUBLISHED, post_id=post_id, http_status=response.status_code)
        if response.ok:  # a 200 that neither deletes nor says the post is gone
            return Outcome(OutcomeKind.UNKNOWN, post_id=post_id, error_code="NOT_DELETED", http_status=200)
        return self.refusal(response)

    def exists(self, conn: Connection, post_id: str, ref: Mapping[str, str]) -> bool:
        response = self.send(conn, "GET", f"/tweets/{post_id}")
        if self.body(response).get("id") == post_id:
            return True
        if _not_found(response):
            return False
        outcome = self.refusal(response)
        raise PlatformError(outcome if not response.ok else replace(outcome, kind=OutcomeKind.UNKNOWN))

    # --- metrics ---------------------------------------------------------------------------

    def metrics_batch(self, conn: Connection, post_ids: Sequence[str]) -> dict[str, Metrics]:
        """A refused token expires the account; a 429 keeps its wait (both as PlatformError)."""
        query = urlencode({"ids": ",".join(post_ids), "post.fields": "public_metrics"})
        response = self.send(conn, "GET", f"/tweets?{query}")
        if not response.ok:
            raise PlatformError(self.refusal(response))
        tweets = json_object(response).get("data") or []
        return {str(t["id"]): self._metrics_of(t.get("public_metrics") or {}) for t in tweets}

    @staticmethod
    def _metrics_of(counts: Mapping[str, int]) -> Metrics:
        reposts = int(counts.get("repost_count", counts.get("retweet_count", 0)))
        quotes = int(counts.get("quote_count", 0))
        extra = {name: counts[name] for name in ("impression_count", "quote_count", "bookmark_count") if name in counts}
        return Metrics(
            views=counts.get("impression_count"),
            likes=int(counts.get("like_count", 0)),
            comments=int(counts.get("reply_count", 0)),
            shares=reposts + quotes,
            extra={**extra, "repost_count": reposts},
        )

    # --- OAuth 2.0 with PKCE ---------------------------------------------------------------

    def exchange_code(self, *, code: str, code_verifier: str, redirect_uri: str, sandbox: bool) -> Credentials:
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": redirect_uri,
            "code_verifier": code_verifier,
        }
        return self._token(form, sandbox)

    def refresh(self, conn: Connection) -> Credentials:
        form = {"grant_type": "refresh_token", "refresh_token": conn.credentials.refresh_token}
        return self._token(form, conn.sandbox)

    def _token(self, form: dict[str, str], sandbox: bool) -> Credentials:
        """POST the token endpoint, then read who the token belongs to (X rotates refresh tokens)."""
        data, headers = self._client_auth(form, sandbox)
        token = self.token_request(sandbox, "POST", TOKEN_URL, data=data, headers=headers)
        return self._credentials(token, self._me(bare_connection(sandbox, str(token["access_token"]))))

    def _client_auth(self, form: dict[str, str], sandbox: bool) -> tuple[dict[str, str], dict[str, str]]:
        """The form with the app's client_id, and Basic auth when the app is confidential."""
        app = self.app(sandbox)
        basic = base64.b64encode(f"{app.client_id}:{app.client_secret}".encode()).decode()
        headers = {"Authorization": f"Basic {basic}"} if app.client_secret else {}
        return {**form, "client_id": app.client_id}, headers

    def revoke(self, conn: Connection) -> bool:
        """Revoke the refresh token, then the access token; True when X confirms each."""
        held = (("refresh_token", conn.credentials.refresh_token), ("access_token", conn.credentials.access_token))
        revoked = [self._revoke(conn, token, hint) for hint, token in held if token]
        return bool(revoked) and all(revoked)

    def _revoke(self, conn: Connection, token: str, hint: str) -> bool:
        data, headers = self._client_auth({"token": token, "token_type_hint": hint}, conn.sandbox)
        response = self.revocation(conn, "POST", REVOKE_URL, data=data, headers=headers)
        return json_object(response).get("revoked") is True

    def _me(self, conn: Connection) -> dict[str, Any]:
        return self.call(conn, "GET", "/users/me")

    @staticmethod
    def _credentials(token: Mapping[str, Any], me: Mapping[str, Any]) -> Credentials:
        return token_credentials(
            token,
            lifetime=7200,
            external_id=str(me.get("id", "")),
            handle=str(me.get("username", "")),
            display_name=str(me.get("name", "")),
        )

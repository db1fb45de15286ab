"""LinkedIn (versioned REST Posts API): publish with plain `requests` against LinkedIn's documented endpoints.

Why it looks the way it does (facts: platform docs §4; LinkedIn publishes no machine-readable
description, so the field names come from its documentation):

- Every call to /rest/ carries `LinkedIn-Version` (configurable as LINKEDIN_API_VERSION: a sunset
  version is refused with 426) and `X-Restli-Protocol-Version: 2.0.0`. The post id is the URN in
  the `x-restli-id` header of the 201; the URL is `linkedin.com/feed/update/{urn}/`.
- Media: images go through /rest/images?action=initializeUpload and a PUT of the bytes (one image
  -> `content.media`, 2-20 -> `content.multiImage`); a video through /rest/videos initializeUpload,
  a PUT per part (ETags collected), finalizeUpload, then GET /rest/videos/{urn} until AVAILABLE.
  A video still processing after `status_polls` checks yields PROCESSING with the video URN and
  the prepared post body in `ref`; `check()` creates the post once the video is AVAILABLE.
- The media URNs are saved with `conn.save_ref` before POST /rest/posts, so an UNKNOWN outcome
  is settled by `check()` finding the author's post that holds them (GET /rest/posts?q=author).
  A text-only post has no id before creation; `find_recent()` matches its commentary instead.
- Commentary is LinkedIn's "little text" format: the reserved characters are backslash-escaped,
  otherwise LinkedIn silently cuts the post at the first one. A `#` that starts a word is left
  alone so hashtags stay hashtags. @-mentions are not built (they would need member URNs).
- platform_settings: `visibility` LOGGED_IN_MEMBERS is LinkedIn's `LOGGED_IN`; `title` becomes
  `content.media.title` (a single image or the video; a text or multi-image post has no place
  for it, so validate() reports it); `target_audience` becomes `distribution.targetEntities`
  (LinkedIn's targeting facets; LinkedIn takes targeting on organization posts only).
- OAuth: LinkedIn's standard 3-legged flow has no PKCE (its "native PKCE" flow is a separately
  enabled product), so `code_challenge`/`code_verifier` are not sent; the client secret is. The
  member id is `sub` of the OpenID userinfo. Refresh tokens exist only for approved partners
  and are not rotated (fixed 365-day life): the old one is kept unless a new one is returned.
- Rate limits are daily and reset at midnight UTC, with no headers: a 429 without Retry-After
  gets `retry_after` = the seconds until the next midnight UTC.
- Metrics: member posts through /rest/memberCreatorPostAnalytics, one call per metric type
  (IMPRESSION, MEMBERS_REACHED, REACTION, COMMENT, RESHARE). Organization posts' statistics
  (organizationalEntityShareStatistics) are not read yet.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any
from urllib.parse import quote, urlencode

import requests
from django.conf import settings

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

API = "https://api.linkedin.com/rest"
USERINFO_URL = "https://api.linkedin.com/v2/userinfo"
AUTHORIZE_URL = "https://www.linkedin.com/oauth/v2/authorization"
TOKEN_URL = "https://www.linkedin.com/oauth/v2/accessToken"  # noqa: S105 - an endpoint
SCOPES = "openid profile w_member_social r_member_postAnalytics"
SANDBOX_CLIENT_ID = "sandbox-linkedin-client"
SANDBOX_CLIENT_SECRET = "sandbox-linkedin-secret"  # noqa: S105 - the sandbox's public stand-in secret
DEFAULT_VERSION = "202507"
POST_URL = "https://www.linkedin.com/feed/update/{urn}/"
VISIBILITY = {"PUBLIC": "PUBLIC", "CONNECTIONS": "CONNECTIONS", "LOGGED_IN_MEMBERS": "LOGGED_IN"}
TARGET_FACETS = frozenset(
    {
        "degrees", "fieldsOfStudy", "geoLocations", "industries", "interfaceLocales", "jobFunctions",
        "organizations", "seniorities", "staffCountRanges",
    }
)  # fmt: skip
METRIC_TYPES = ("IMPRESSION", "MEMBERS_REACHED", "REACTION", "COMMENT", "RESHARE")
AUTH_CODES = frozenset({"INVALID_ACCESS_TOKEN", "EXPIRED_ACCESS_TOKEN", "REVOKED_ACCESS_TOKEN", "EMPTY_ACCESS_TOKEN"})
MIN_MULTI_IMAGES = 2
Matcher = Callable[[Mapping[str, Any]], bool]
RESERVED = frozenset("\\|{}@[]()<>#*_~")
_HASHTAG = re.compile(r"(?<!\S)#(?=[^\W_])")


def escape_little_text(text: str) -> str:
    """The commentary in LinkedIn's little text format: reserved characters escaped, hashtags kept."""
    keep = {match.start() for match in _HASHTAG.finditer(text)}
    return "".join(f"\\{c}" if c in RESERVED and i not in keep else c for i, c in enumerate(text))


def person_urn(external_id: str) -> str:
    """The author URN: an external id that is already a URN is used as it is."""
    return external_id if external_id.startswith("urn:li:") else f"urn:li:person:{external_id}"


def _quoted(urn: str) -> str:
    return quote(urn, safe="")


class _Stop(PlatformError):
    """Ends a publish early with the outcome that says why."""


# --- classifying answers -------------------------------------------------------------------------


_body = json_object


def _error_words(response: requests.Response) -> tuple[str, str]:
    """LinkedIn's error code (`code`, else the first input error's code) and its message."""
    body = _body(response)
    inputs = (body.get("errorDetails") or {}).get("inputErrors") if isinstance(body.get("errorDetails"), dict) else None
    first = inputs[0] if isinstance(inputs, list) and inputs and isinstance(inputs[0], dict) else {}
    code = str(first.get("code") or body.get("code") or f"HTTP_{response.status_code}")
    return code, str(body.get("message") or response.reason or "")


def seconds_to_midnight_utc() -> float:
    now = dt.datetime.now(dt.UTC)
    midnight = (now + dt.timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    return (midnight - now).total_seconds()


def _refusal(response: requests.Response) -> Outcome:
    """Any answer that is not a success, as an Outcome (the post may exist only on a 5xx)."""
    status = response.status_code
    code, message = _error_words(response)
    if status == 429:
        wait = retry_after_seconds(response)
        wait = seconds_to_midnight_utc() if wait is None else wait
        return Outcome(
            OutcomeKind.NOT_SENT, error_code="RATE_LIMITED", error_message=message, http_status=status, retry_after=wait
        )
    if status in UNKNOWN_STATUSES or status >= 500:
        return Outcome(OutcomeKind.UNKNOWN, error_code=code, error_message=message, http_status=status)
    auth = status == 401 or code in AUTH_CODES
    return Outcome(OutcomeKind.FAILED, error_code=code, error_message=message, http_status=status, auth_failed=auth)


def _before_create(outcome: Outcome) -> Outcome:
    """A refusal during media upload: no post can exist yet, so an unknown is NOT_SENT."""
    if outcome.kind is OutcomeKind.UNKNOWN:
        return replace(outcome, kind=OutcomeKind.NOT_SENT)
    return outcome


def _published(urn: str) -> Outcome:
    return Outcome(OutcomeKind.PUBLISHED, post_id=urn, url=POST_URL.format(urn=urn), http_status=201)


def _not_found(message: str, status: int | None = None) -> Outcome:
    return Outcome(OutcomeKind.FAILED, error_code="NOT_FOUND", error_message=message, http_status=status)


def _no_answer(exc: Exception) -> Outcome:
    return Outcome(OutcomeKind.UNKNOWN, error_code="NO_ANSWER", error_message=type(exc).__name__)


# --- validation ----------------------------------------------------------------------------------


def _visibility_problems(values: Mapping[str, Any]) -> list[Problem]:
    if "visibility" in values and values["visibility"] not in VISIBILITY:
        return [Problem("visibility", "INVALID_SETTING", f"visibility must be one of {', '.join(VISIBILITY)}.")]
    return []


def _is_facet_list(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, str) and v for v in value)


def _audience_problems(values: Mapping[str, Any]) -> list[Problem]:
    if "target_audience" not in values:
        return []
    audience = values["target_audience"]
    message = f"target_audience must be an object of LinkedIn targeting facets ({', '.join(sorted(TARGET_FACETS))})"
    if not isinstance(audience, Mapping) or not audience or set(audience) - TARGET_FACETS:
        return [Problem("target_audience", "INVALID_SETTING", message + ".")]
    if not all(_is_facet_list(v) for v in audience.values()):
        return [Problem("target_audience", "INVALID_SETTING", message + ", each a list of URNs.")]
    return []


def _title_problems(post: Post) -> list[Problem]:
    if "title" not in post.settings:
        return []
    if post.settings["title"] and len(post.media) != 1:
        message = "LinkedIn shows a title only on a single image or a video."
        return [Problem("title", "UNSUPPORTED_SETTING", message)]
    return []


# --- the client ----------------------------------------------------------------------------------


class Client(PlatformClient):
    platform = "linkedin"
    setting_types = {"title": ("string",), "visibility": ("string",), "target_audience": ("object",)}
    status_polls = 3  # video status checks inside publish() before answering PROCESSING
    poll_interval_seconds = 2.0

    # --- validation ------------------------------------------------------------------------

    def validate(self, post: Post) -> list[Problem]:
        problems = self._text_problems(post) + self._media_problems(post.media)
        problems += _visibility_problems(post.settings) + _audience_problems(post.settings)
        return problems + _title_problems(post)

    def _text_problems(self, post: Post) -> list[Problem]:
        if not post.text.strip() and not post.media:
            return [Problem("text", "EMPTY_POST", "LinkedIn needs commentary or media.")]
        limit = self.limits.text.max_length or 3000
        if len(post.text) > limit:
            return [
                Problem("text", "TEXT_TOO_LONG", f"Commentary has {len(post.text)} of LinkedIn's {limit} characters.")
            ]
        return []

    def _media_problems(self, media: Sequence[Media]) -> list[Problem]:
        return self.media_problems(media)

    # --- publishing ------------------------------------------------------------------------

    def publish(self, conn: Connection, post: Post) -> Outcome:
        author = person_urn(conn.credentials.external_id)
        try:
            content, pending_video = self._content(conn, author, post)
        except _Stop as stop:
            return _before_create(stop.outcome)
        except requests.RequestException as exc:
            return _before_create(outcome_of_exception(exc))
        body = self._post_body(author, post, content)
        media_ref = self._media_ref(author, content)
        if pending_video:
            return Outcome(OutcomeKind.PROCESSING, ref={**media_ref, "video": pending_video, "post": json.dumps(body)})
        if media_ref.get("media_ids"):
            conn.save_ref(media_ref)
        return self._create(conn, body, media_ref)

    @staticmethod
    def _post_body(author: str, post: Post, content: dict[str, Any] | None) -> dict[str, Any]:
        distribution: dict[str, Any] = {
            "feedDistribution": "MAIN_FEED",
            "targetEntities": [],
            "thirdPartyDistributionChannels": [],
        }
        if post.settings.get("target_audience"):
            distribution["targetEntities"] = [dict(post.settings["target_audience"])]
        body: dict[str, Any] = {
            "author": author,
            "commentary": escape_little_text(post.text),
            "visibility": VISIBILITY[post.settings.get("visibility", "PUBLIC")],
            "distribution": distribution,
            "lifecycleState": "PUBLISHED",
            "isReshareDisabledByAuthor": False,
        }
        return {**body, "content": content} if content else body

    @staticmethod
    def _media_ref(author: str, content: Mapping[str, Any] | None) -> dict[str, str]:
        if not content:
            return {"author": author}
        items = content["multiImage"]["images"] if "multiImage" in content else [content["media"]]
        return {"author": author, "media_ids": ",".join(item["id"] for item in items)}

    def _create(self, conn: Connection, body: Mapping[str, Any], ref: Mapping[str, str]) -> Outcome:
        try:
            response = self._send(conn, "POST", "/posts", json=body)
        except requests.RequestException as exc:
            return replace(outcome_of_exception(exc), ref=ref)
        urn = response.headers.get("x-restli-id", "")
        if response.status_code == 201 and urn:
            return _published(urn)
        if response.status_code < 300:
            return Outcome(OutcomeKind.UNKNOWN, ref=ref, error_code="NO_ID", http_status=response.status_code)
        outcome = _refusal(response)
        return replace(outcome, ref=ref) if outcome.kind is OutcomeKind.UNKNOWN else outcome

    # --- media -----------------------------------------------------------------------------

    def _content(self, conn: Connection, author: str, post: Post) -> tuple[dict[str, Any] | None, str]:
        """The post's `content` and the URN of a video still processing ('' when none)."""
        if not post.media:
            return None, ""
        title = post.settings.get("title") or ""
        if post.media[0].is_video:
            video = self._upload_video(conn, author, post.media[0])
            ready = self._video_ready(conn, video, self.status_polls)
            return self._single(video, title), "" if ready else video
        images = [self._upload_image(conn, author, item) for item in post.media]
        if len(images) >= MIN_MULTI_IMAGES:
            return {"multiImage": {"images": [{"id": urn} for urn in images]}}, ""
        return self._single(images[0], title), ""

    @staticmethod
    def _single(urn: str, title: str) -> dict[str, Any]:
        return {"media": {"id": urn, **({"title": title} if title else {})}}

    def _upload_image(self, conn: Connection, author: str, media: Media) -> str:
        value = self._ok(conn, "/images?action=initializeUpload", {"initializeUploadRequest": {"owner": author}})
        urn, upload_url = str(value.get("image", "")), str(value.get("uploadUrl", ""))
        if not urn or not upload_url:
            raise _Stop(Outcome(OutcomeKind.FAILED, error_code="NO_UPLOAD_URL", error_message="initializeUpload"))
        with media.open() as stream:
            self._put(conn, upload_url, stream.read())
        return urn

    def _upload_video(self, conn: Connection, author: str, media: Media) -> str:
        request = {
            "owner": author,
            "fileSizeBytes": media.size_bytes,
            "uploadCaptions": False,
            "uploadThumbnail": False,
        }
        value = self._ok(conn, "/videos?action=initializeUpload", {"initializeUploadRequest": request})
        video, instructions = str(value.get("video", "")), value.get("uploadInstructions")
        if not video or not isinstance(instructions, list) or not instructions:
            raise _Stop(Outcome(OutcomeKind.FAILED, error_code="NO_UPLOAD_URL", error_message="initializeUpload"))
        etags = [self._put(conn, part["uploadUrl"], chunk) for part, chunk in _parts(media, instructions)]
        finalize = {"video": video, "uploadToken": str(value.get("uploadToken") or ""), "uploadedPartIds": etags}
        self._ok(conn, "/videos?action=finalizeUpload", {"finalizeUploadRequest": finalize})
        return video

    def _put(self, conn: Connection, upload_url: str, data: bytes) -> str:
        """PUT bytes to an upload URL LinkedIn gave; the part's ETag."""
        headers = {
            "Authorization": f"Bearer {conn.credentials.access_token}",
            "Content-Type": "application/octet-stream",
        }
        response = self.session.put(conn.url(upload_url), data=data, headers=headers, timeout=self.timeout)
        if not 200 <= response.status_code < 300:
            raise _Stop(_refusal(response))
        return response.headers.get("ETag", "")

    def _video_ready(self, conn: Connection, video: str, polls: int) -> bool:
        for attempt in range(polls):
            if attempt:
                time.sleep(self.poll_interval_seconds)
            status = self._video_status(conn, video)
            if status == "AVAILABLE":
                return True
            if status == "PROCESSING_FAILED":
                raise _Stop(Outcome(OutcomeKind.FAILED, error_code="PROCESSING_FAILED", error_message=video))
        return False

    def _video_status(self, conn: Connection, video: str) -> str:
        response = self._send(conn, "GET", f"/videos/{_quoted(video)}")
        if response.status_code != 200:
            raise _Stop(_refusal(response))
        return str(_body(response).get("status", ""))

    # --- HTTP ------------------------------------------------------------------------------

    def _headers(self, conn: Connection) -> dict[str, str]:
        return {
            "Authorization": f"Bearer {conn.credentials.access_token}",
            "LinkedIn-Version": str(getattr(settings, "LINKEDIN_API_VERSION", "") or DEFAULT_VERSION),
            "X-Restli-Protocol-Version": "2.0.0",
        }

    def _send(self, conn: Connection, method: str, path: str, **kwargs: Any) -> requests.Response:
        url = conn.url(API + path)
        return self.session.request(method, url, headers=self._headers(conn), timeout=self.timeout, **kwargs)

    def _ok(self, conn: Connection, path: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """The `value` of a 2xx action answer; any other answer stops the publish with its outcome."""
        response = self._send(conn, "POST", path, json=body)
        if not 200 <= response.status_code < 300:
            raise _Stop(_refusal(response))
        value = _body(response).get("value")
        return value if isinstance(value, dict) else {}

    # --- settling --------------------------------------------------------------------------

    def check(self, conn: Connection, ref: Mapping[str, str]) -> Outcome:
        if ref.get("post_id"):
            return self._read_back(conn, ref["post_id"])
        if ref.get("post") and ref.get("video"):
            return self._finish_processing(conn, ref)
        if ref.get("media_ids"):
            return self._find(conn, ref.get("author") or person_urn(conn.credentials.external_id), _holds_media(ref))
        return Outcome(OutcomeKind.FAILED, error_code="NO_REF", error_message="nothing to check")

    def _read_back(self, conn: Connection, urn: str) -> Outcome:
        try:
            response = self._send(conn, "GET", f"/posts/{_quoted(urn)}")
        except requests.RequestException as exc:
            return _no_answer(exc)
        if response.status_code == 200 and _body(response).get("id") == urn:
            return _published(urn)
        outcome = _refusal(response)
        if response.status_code == 404:
            return _not_found(outcome.error_message, 404)
        return outcome if outcome.kind is not OutcomeKind.NOT_SENT else replace(outcome, kind=OutcomeKind.UNKNOWN)

    def _finish_processing(self, conn: Connection, ref: Mapping[str, str]) -> Outcome:
        """Create the post a PROCESSING outcome prepared, once its video is AVAILABLE."""
        try:
            ready = self._video_ready(conn, ref["video"], polls=1)
        except _Stop as stop:
            return _before_create(stop.outcome)
        except requests.RequestException as exc:
            return Outcome(OutcomeKind.PROCESSING, ref=ref, error_code="NO_ANSWER", error_message=type(exc).__name__)
        if not ready:
            return Outcome(OutcomeKind.PROCESSING, ref=ref)
        media_ref = {"author": ref.get("author", ""), "media_ids": ref.get("media_ids", ref["video"])}
        conn.save_ref(media_ref)
        return self._create(conn, json.loads(ref["post"]), media_ref)

    def find_recent(self, conn: Connection, post: Post, since: dt.datetime) -> Outcome:
        author = person_urn(conn.credentials.external_id)
        commentary = escape_little_text(post.text)
        after = since.timestamp() * 1000

        def matches(element: Mapping[str, Any]) -> bool:
            created = element.get("createdAt") or element.get("publishedAt") or 0
            return element.get("commentary") == commentary and float(created) >= after

        return self._find(conn, author, matches)

    def _find(self, conn: Connection, author: str, matches: Matcher) -> Outcome:
        """PUBLISHED with the newest of the author's recent posts that `matches`, else NOT_FOUND."""
        query = f"author={_quoted(author)}&q=author&count=50&sortBy=LAST_MODIFIED"
        try:
            response = self._send(conn, "GET", f"/posts?{query}")
        except requests.RequestException as exc:
            return _no_answer(exc)
        if response.status_code != 200:
            outcome = _refusal(response)
            return replace(outcome, kind=OutcomeKind.UNKNOWN) if outcome.kind is OutcomeKind.NOT_SENT else outcome
        elements = _body(response).get("elements") or []
        found = next((e for e in elements if isinstance(e, dict) and matches(e)), None)
        return _published(str(found["id"])) if found else _not_found("no matching post among the author's recent posts")

    # --- metrics ---------------------------------------------------------------------------

    def metrics(self, conn: Connection, post_ids: Sequence[str]) -> dict[str, Metrics]:
        return {urn: self._post_metrics(conn, urn) for urn in post_ids}

    def _post_metrics(self, conn: Connection, urn: str) -> Metrics:
        counts = {kind: self._metric(conn, urn, kind) for kind in METRIC_TYPES}
        return Metrics(
            views=counts["IMPRESSION"],
            likes=counts["REACTION"],
            comments=counts["COMMENT"],
            shares=counts["RESHARE"],
            extra={"impressions": counts["IMPRESSION"], "members_reached": counts["MEMBERS_REACHED"]},
        )

    def _metric(self, conn: Connection, urn: str, kind: str) -> int:
        entity = "ugc" if urn.startswith("urn:li:ugcPost:") else "share"
        query = f"q=entity&entity=({entity}:{_quoted(urn)})&queryType={kind}&aggregation=TOTAL"
        response = self._send(conn, "GET", f"/memberCreatorPostAnalytics?{query}")
        if not response.ok:  # a refused token expires the account; a 429 keeps its wait
            raise PlatformError(_refusal(response))
        elements = _body(response).get("elements") or []
        return sum(int(e.get("count", 0)) for e in elements if isinstance(e, dict))

    # --- OAuth 2.0 (authorization code, client secret) --------------------------------------

    @staticmethod
    def _client(sandbox: bool) -> tuple[str, str]:
        client_id = str(getattr(settings, "LINKEDIN_CLIENT_ID", "") or "")
        secret = str(getattr(settings, "LINKEDIN_CLIENT_SECRET", "") or "")
        if sandbox:
            return client_id or SANDBOX_CLIENT_ID, secret or SANDBOX_CLIENT_SECRET
        return client_id, secret

    @staticmethod
    def _connection(sandbox: bool, access_token: str = "") -> Connection:
        return Connection(credentials=Credentials(access_token=access_token), sandbox=sandbox)

    def authorize_url(self, *, state: str, code_challenge: str, redirect_uri: str, sandbox: bool) -> str:
        query = {
            "response_type": "code",
            "client_id": self._client(sandbox)[0],
            "redirect_uri": redirect_uri,
            "state": state,
            "scope": SCOPES,
        }
        return self._connection(sandbox).url(f"{AUTHORIZE_URL}?{urlencode(query)}")

    def exchange_code(self, *, code: str, code_verifier: str, redirect_uri: str, sandbox: bool) -> Credentials:
        token = self._token({"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri}, sandbox)
        me = self._userinfo(str(token["access_token"]), sandbox)
        return self._credentials(token, me, refresh_token="")

    def refresh(self, conn: Connection) -> Credentials:
        token = self._token(
            {"grant_type": "refresh_token", "refresh_token": conn.credentials.refresh_token}, conn.sandbox
        )
        old = conn.credentials
        me = {"sub": old.external_id, "name": old.display_name}
        if not old.external_id:
            me = self._userinfo(str(token["access_token"]), conn.sandbox)
        return replace(
            self._credentials(token, me, refresh_token=old.refresh_token), handle=old.handle or me.get("name", "")
        )

    def _token(self, form: dict[str, str], sandbox: bool) -> dict[str, Any]:
        client_id, secret = self._client(sandbox)
        url = self._connection(sandbox).url(TOKEN_URL)
        data = {**form, "client_id": client_id, "client_secret": secret}
        response = self.session.post(url, data=data, timeout=self.timeout)
        if response.status_code != 200 or not _body(response).get("access_token"):
            raise requests.HTTPError(f"LinkedIn refused the token request: {_oauth_error(response)}", response=response)
        return _body(response)

    def _userinfo(self, access_token: str, sandbox: bool) -> dict[str, Any]:
        conn = self._connection(sandbox, access_token)
        headers = {"Authorization": f"Bearer {access_token}"}
        response = self.session.get(conn.url(USERINFO_URL), headers=headers, timeout=self.timeout)
        if response.status_code != 200 or not _body(response).get("sub"):
            raise requests.HTTPError(f"LinkedIn refused /v2/userinfo: HTTP {response.status_code}", response=response)
        return _body(response)

    @staticmethod
    def _credentials(token: Mapping[str, Any], me: Mapping[str, Any], *, refresh_token: str) -> Credentials:
        lifetime = int(token.get("expires_in") or 60 * 86400)
        return Credentials(
            access_token=str(token["access_token"]),
            refresh_token=str(token.get("refresh_token") or refresh_token),
            expires_at=dt.datetime.now(dt.UTC) + dt.timedelta(seconds=lifetime),
            external_id=str(me.get("sub", "")),
            handle=str(me.get("name", "")),
            display_name=str(me.get("name", "")),
            metadata={"scope": str(token.get("scope", "")), "author_urn": person_urn(str(me.get("sub", "")))},
        )


def _holds_media(ref: Mapping[str, str]) -> Matcher:
    wanted = set(ref["media_ids"].split(","))

    def matches(element: Mapping[str, Any]) -> bool:
        content = element.get("content") or {}
        images = (content.get("multiImage") or {}).get("images") or [content.get("media") or {}]
        return {str(item.get("id", "")) for item in images} == wanted

    return matches


def _parts(media: Media, instructions: Sequence[Mapping[str, Any]]) -> Iterator[tuple[Mapping[str, Any], bytes]]:
    """Each upload instruction with its byte range of the file, read in order."""
    with media.open() as stream:
        for part in instructions:
            size = int(part["lastByte"]) - int(part["firstByte"]) + 1
            stream.seek(int(part["firstByte"]))
            yield part, stream.read(size)


def _oauth_error(response: requests.Response) -> str:
    """An OAuth error (`error`, `error_description`) without echoing anything secret."""
    body = _body(response)
    return f"HTTP {response.status_code} {body.get('error', '')} {body.get('error_description', '')}".strip()

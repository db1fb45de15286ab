"""LinkedIn (versioned REST Posts API): publish with plain `requests` against LinkedIn's documented endpoints.

Why it looks the way it does (facts: platform docs §4; LinkedIn publishes no machine-readable
description, so the field names come from its documentation):

- Every call carries `LinkedIn-Version` (LINKEDIN_API_VERSION; a sunset version is refused with
  426) and `X-Restli-Protocol-Version: 2.0.0` (`headers()`; /rest/ requires them). The post id
  is the URN in the `x-restli-id` header of the 201; the URL is `linkedin.com/feed/update/{urn}/`.
- Media: images go through /rest/images?action=initializeUpload and a PUT of the bytes (one image
  -> `content.media`, 2-20 -> `content.multiImage`); a video through /rest/videos initializeUpload,
  a PUT per part (ETags collected), finalizeUpload, then GET /rest/videos/{urn} until AVAILABLE;
  if it is not after `status_polls` checks, PROCESSING with the video URN and the prepared post
  body in `ref`, and `check()` creates the post once the video is AVAILABLE.
- The media URNs are saved with `conn.save_ref` before POST /rest/posts, so an UNKNOWN outcome
  is settled by `check()` finding the author's post that holds them (GET /rest/posts?q=author,
  paged with `start`/`count`).
  A text-only post has no id before creation; `find_recent()` matches its commentary instead.
- Commentary is LinkedIn's "little text": reserved characters are backslash-escaped, or LinkedIn
  silently cuts the post at the first one; a `#` that starts a word stays, so hashtags work.
  @-mentions are not built (they would need member URNs).
- platform_settings: `visibility` LOGGED_IN_MEMBERS is LinkedIn's `LOGGED_IN`; `title` becomes
  `content.media.title`, which only a single image or a video has (validate() says so);
  `target_audience` becomes `distribution.targetEntities` (targeting: organization posts only).
- A first comment is a comment by the member on the post (`POST /rest/socialActions/{post urn}
  /comments` with actor, object and `message.text`: plain text, comments take no little text;
  1,250 characters at most). Its post_id is the comment URN LinkedIn answers, its ref the post
  URN, the comment id and the actor, which is what reading it back (`GET .../comments/{id}`) and
  deleting it (`DELETE .../comments/{id}?actor=`) take. No comment id exists before the call, so
  an unknown outcome keeps the text and `check()` looks for it among the post's comments.
- Deleting a post is `DELETE /rest/posts/{urn}` (204, and 204 again for a post deleted already:
  the call is idempotent); a 404 says it is not there either. `exists()` reads the post or the
  comment back: only a 404 says it is gone.
- OAuth: the standard 3-legged flow has no PKCE ("native PKCE" is a separate product); the client
  secret is sent. The member id is `sub` of the OpenID userinfo. Refresh tokens (approved partners
  only) are not rotated (fixed 365-day life): the old one is kept unless a new one is returned.
- Rate limits are daily, reset at midnight UTC and come without headers: a 429 without
  Retry-After waits until the next midnight UTC (`error_words()`).
- Metrics: member posts through /rest/memberCreatorPostAnalytics, one call per metric type;
  organization posts' statistics (organizationalEntityShareStatistics) are not read yet.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any
from urllib.parse import quote

import requests
from django.conf import settings

from accounts.platforms.base import (
    FIT_SETTING,
    MAX_RECENT_PAGES,
    Connection,
    Credentials,
    ErrorWords,
    HttpClient,
    Media,
    Metrics,
    NoAnswer,
    Outcome,
    OutcomeKind,
    PlatformError,
    Post,
    Problem,
    bare_connection,
    failed,
    json_object,
    retry_after_seconds,
    token_credentials,
    unsettled,
)
from accounts.platforms.interface import COMMENT

API = "https://api.linkedin.com/rest"
USERINFO_URL = "https://api.linkedin.com/v2/userinfo"
AUTHORIZE_URL = "https://www.linkedin.com/oauth/v2/authorization"
TOKEN_URL = "https://www.linkedin.com/oauth/v2/accessToken"  # noqa: S105 - an endpoint
SCOPES = "openid profile w_member_social r_member_postAnalytics"
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
MAX_ALT_TEXT = 4086  # the Posts API's limit on an image's altText
PAGE_COUNT = 50  # posts per page of the q=author finder, comments per page of a post's comments
COMMENT_MAX_LENGTH = 1250  # the Comments API's limit on message.text
Matcher = Callable[[Mapping[str, Any]], bool]
Prepared = tuple[dict[str, Any], dict[str, str], str]  # the post's body, the ref of its media, a video processing
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


def seconds_to_midnight_utc() -> float:
    now = dt.datetime.now(dt.UTC)
    midnight = (now + dt.timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    return (midnight - now).total_seconds()


def error_words(response: requests.Response) -> ErrorWords:
    """LinkedIn's error code (the first input error's code, else `code`) and its message; a
    token code needs re-authorization, and a 429 waits for Retry-After or the daily reset."""
    body = json_object(response)
    inputs = body["errorDetails"].get("inputErrors") if isinstance(body.get("errorDetails"), dict) else None
    first = inputs[0] if isinstance(inputs, list) and inputs and isinstance(inputs[0], dict) else {}
    code = str(first.get("code") or body.get("code") or f"HTTP_{response.status_code}")
    message, wait = str(body.get("message") or response.reason or ""), None
    if response.status_code == 429:
        wait = retry_after_seconds(response)
        wait = seconds_to_midnight_utc() if wait is None else wait
    return ErrorWords(code, message, retry_after=wait, auth=code in AUTH_CODES)


def _author_query(author: str, start: int) -> str:
    """One page of the author's posts, the last changed first."""
    return f"author={_quoted(author)}&q=author&start={start}&count={PAGE_COUNT}&sortBy=LAST_MODIFIED"


def _reaches_before(elements: Sequence[Mapping[str, Any]], since_ms: float) -> bool:
    """Whether a page sorted by LAST_MODIFIED holds a post last changed before `since_ms`: every
    post after it was changed (so created) earlier still."""
    return any(float(e.get("lastModifiedAt") or e.get("createdAt") or 0) < since_ms for e in elements)


def _published(urn: str) -> Outcome:
    return Outcome(OutcomeKind.PUBLISHED, post_id=urn, url=POST_URL.format(urn=urn), http_status=201)


def _commented(urn: str, actor: str, comment_id: str, comment_urn: str) -> Outcome:
    """A comment on the post `urn`: its URN as post_id, linked under the post where LinkedIn
    gave it, and the ref that reads it back and deletes it."""
    comment_urn = comment_urn or f"urn:li:comment:({urn},{comment_id})"
    url = f"{POST_URL.format(urn=urn)}?commentUrn={_quoted(comment_urn)}"
    ref = {"object": urn, "actor": actor, "comment_id": comment_id, "comment_urn": comment_urn}
    return Outcome(OutcomeKind.PUBLISHED, post_id=comment_urn, url=url, ref=ref, http_status=201)


def _comment_matches(element: Mapping[str, Any], actor: str, text: str) -> bool:
    message = element.get("message")
    said = message.get("text") if isinstance(message, dict) else None
    return element.get("actor") == actor and said == text and bool(element.get("id"))


def _setting_problems(post: Post) -> list[Problem]:
    values, problems = post.settings, []
    if "visibility" in values and values["visibility"] not in VISIBILITY:
        problems.append(Problem("visibility", "INVALID_SETTING", f"visibility must be one of {', '.join(VISIBILITY)}."))
    problems += _audience_problems(values)
    if values.get("title") and len(post.media) != 1:
        message = "LinkedIn shows a title only on a single image or a video."
        problems.append(Problem("title", "UNSUPPORTED_SETTING", message))
    return problems


def _audience_problems(values: Mapping[str, Any]) -> list[Problem]:
    if "target_audience" not in values:
        return []
    audience = values["target_audience"]
    message = f"target_audience must be an object of LinkedIn targeting facets ({', '.join(sorted(TARGET_FACETS))})"
    if not isinstance(audience, Mapping) or not audience or set(audience) - TARGET_FACETS:
        return [Problem("target_audience", "INVALID_SETTING", message + ".")]
    if not all(isinstance(v, list) and v and all(isinstance(u, str) and u for u in v) for v in audience.values()):
        return [Problem("target_audience", "INVALID_SETTING", message + ", each a list of URNs.")]
    return []


class Client(HttpClient[Prepared]):
    platform = "linkedin"
    first_comment = COMMENT
    comment_max_length = COMMENT_MAX_LENGTH
    api = API
    authorize_endpoint = AUTHORIZE_URL
    scopes = SCOPES
    pkce = False
    sandbox_client_secret = "sandbox-linkedin-secret"  # noqa: S105 - the stand-in's public secret
    setting_types = {**FIT_SETTING, "title": ("string",), "visibility": ("string",), "target_audience": ("object",)}
    status_polls = 3  # video status checks inside publish() before answering PROCESSING
    poll_interval_seconds = 2.0

    # --- validation ------------------------------------------------------------------------

    def validate(self, post: Post) -> list[Problem]:
        return self._text_problems(post) + self.media_problems(post.media) + _setting_problems(post)

    def _text_problems(self, post: Post) -> list[Problem]:
        too_long = "Commentary has {length} of LinkedIn's {limit} characters."
        return self.text_problems(post, len(post.text), empty="LinkedIn needs commentary or media.", too_long=too_long)

    # --- publishing ------------------------------------------------------------------------

    def publish(self, conn: Connection, post: Post) -> Outcome:
        """A post, or with `reply_to` the member's comment on that post."""
        if post.reply_to is not None:
            return self._comment(conn, post.reply_to.parent_id, post.text)
        return super().publish(conn, post)

    def prepare(self, conn: Connection, post: Post) -> Prepared:
        """The post's body, the ref that finds it by its media, and a video still processing ('' if none)."""
        author = person_urn(conn.credentials.external_id)
        content, pending_video = self._content(conn, author, post)
        return self._post_body(author, post, content), self._media_ref(author, content), pending_video

    def create(self, conn: Connection, post: Post, prepared: Prepared) -> Outcome:
        body, media_ref, pending_video = prepared
        if pending_video:
            return Outcome(OutcomeKind.PROCESSING, ref={**media_ref, "video": pending_video, "post": json.dumps(body)})
        return self._create(conn, body, media_ref)

    @staticmethod
    def _post_body(author: str, post: Post, content: dict[str, Any] | None) -> dict[str, Any]:
        targets = [dict(post.settings["target_audience"])] if post.settings.get("target_audience") else []
        reach = {"feedDistribution": "MAIN_FEED", "targetEntities": targets, "thirdPartyDistributionChannels": []}
        body: dict[str, Any] = {
            "author": author,
            "commentary": escape_little_text(post.text),
            "visibility": VISIBILITY[post.settings.get("visibility", "PUBLIC")],
            "distribution": reach,
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
        """POST the post, its media saved first; an outcome that leaves it open keeps the ref that settles it."""
        if ref.get("media_ids"):
            conn.save_ref(ref)
        try:
            response = self.send(conn, "POST", "/posts", json=body)
        except NoAnswer as exc:
            return replace(exc.outcome, ref=ref)
        urn = response.headers.get("x-restli-id", "")
        if response.status_code == 201 and urn:
            return _published(urn)
        if response.status_code < 300:
            return Outcome(OutcomeKind.UNKNOWN, ref=ref, error_code="NO_ID", http_status=response.status_code)
        outcome = self.refusal(response)
        return replace(outcome, ref=ref) if outcome.kind is OutcomeKind.UNKNOWN else outcome

    # --- comments --------------------------------------------------------------------------

    def _comment(self, conn: Connection, urn: str, text: str) -> Outcome:
        """Comment on the post `urn` as the member; an outcome left open keeps what finds it."""
        actor = person_urn(conn.credentials.external_id)
        ref = {"object": urn, "actor": actor, "text": text}
        body = {"actor": actor, "object": urn, "message": {"text": text}}
        try:
            response = self.send(conn, "POST", f"/socialActions/{_quoted(urn)}/comments", json=body)
        except NoAnswer as exc:
            return replace(exc.outcome, ref=ref)
        comment = json_object(response)
        comment_id = str(comment.get("id") or response.headers.get("x-restli-id") or "")
        if response.status_code == 201 and comment_id:
            return _commented(urn, actor, comment_id, str(comment.get("commentUrn") or ""))
        if response.status_code < 300:
            return Outcome(OutcomeKind.UNKNOWN, ref=ref, error_code="NO_ID", http_status=response.status_code)
        outcome = self.refusal(response)
        return replace(outcome, ref=ref) if outcome.kind is OutcomeKind.UNKNOWN else outcome

    def _comment_path(self, ref: Mapping[str, str]) -> str:
        return f"/socialActions/{_quoted(ref['object'])}/comments/{ref['comment_id']}"

    def _find_comment(self, conn: Connection, urn: str, actor: str, text: str) -> Outcome:
        """PUBLISHED with the member's comment on `urn` that has `text`, page by page (`start`,
        `count`) until a short page or MAX_RECENT_PAGES; NOT_FOUND if none has it."""
        for start in range(0, MAX_RECENT_PAGES * PAGE_COUNT, PAGE_COUNT):
            query = f"start={start}&count={PAGE_COUNT}"
            try:
                response = self.send(conn, "GET", f"/socialActions/{_quoted(urn)}/comments?{query}")
            except NoAnswer as exc:
                return replace(exc.outcome, kind=OutcomeKind.UNKNOWN)
            if response.status_code == 404:
                return failed("NOT_FOUND", f"{urn} is not there to hold the comment", 404)
            if response.status_code != 200:
                return unsettled(self.refusal(response))
            elements = [e for e in json_object(response).get("elements") or [] if isinstance(e, dict)]
            found = next((e for e in elements if _comment_matches(e, actor, text)), None)
            if found is not None:
                return _commented(urn, actor, str(found["id"]), str(found.get("commentUrn") or ""))
            if len(elements) < PAGE_COUNT:
                break
        return failed("NOT_FOUND", "no comment of the member with this text on the post")

    # --- media -----------------------------------------------------------------------------

    def _content(self, conn: Connection, author: str, post: Post) -> tuple[dict[str, Any] | None, str]:
        """The post's `content` and the URN of a video still processing ('' when none)."""
        if not post.media:
            return None, ""
        title = {"title": post.settings["title"]} if post.settings.get("title") else {}
        if post.media[0].is_video:
            video = self._upload_video(conn, author, post.media[0])
            ready = self._video_ready(conn, video, self.status_polls)
            return {"media": {"id": video, **title}}, "" if ready else video
        images = [{"id": self._upload_image(conn, author, item), **_alt(item)} for item in post.media]
        if len(images) >= MIN_MULTI_IMAGES:
            return {"multiImage": {"images": images}}, ""
        return {"media": {**images[0], **title}}, ""

    def _upload_image(self, conn: Connection, author: str, media: Media) -> str:
        value = self._action(conn, "/images?action=initializeUpload", {"initializeUploadRequest": {"owner": author}})
        urn, upload_url = str(value.get("image", "")), str(value.get("uploadUrl", ""))
        if not urn or not upload_url:
            raise PlatformError(failed("NO_UPLOAD_URL", "initializeUpload gave no upload URL"))
        with media.open() as stream:
            self._put(conn, upload_url, stream.read())
        return urn

    def _upload_video(self, conn: Connection, author: str, media: Media) -> str:
        init = {"owner": author, "fileSizeBytes": media.size_bytes, "uploadCaptions": False, "uploadThumbnail": False}
        value = self._action(conn, "/videos?action=initializeUpload", {"initializeUploadRequest": init})
        video, instructions = str(value.get("video", "")), value.get("uploadInstructions")
        if not video or not isinstance(instructions, list) or not instructions:
            raise PlatformError(failed("NO_UPLOAD_URL", "initializeUpload gave no upload URL"))
        etags = [self._put(conn, part["uploadUrl"], chunk) for part, chunk in self._parts(media, instructions)]
        finalize = {"video": video, "uploadToken": str(value.get("uploadToken") or ""), "uploadedPartIds": etags}
        self._action(conn, "/videos?action=finalizeUpload", {"finalizeUploadRequest": finalize})
        return video

    @staticmethod
    def _parts(media: Media, instructions: Sequence[Mapping[str, Any]]) -> Iterator[tuple[Mapping[str, Any], bytes]]:
        """Each upload instruction with its byte range of the file, read in order."""
        with media.open() as stream:
            for part in instructions:
                size = int(part["lastByte"]) - int(part["firstByte"]) + 1
                stream.seek(int(part["firstByte"]))
                yield part, stream.read(size)

    def _action(self, conn: Connection, path: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """The `value` of a Rest.li action's answer."""
        value = self.call(conn, "POST", path, json=body).get("value")
        return value if isinstance(value, dict) else {}

    def _put(self, conn: Connection, upload_url: str, data: bytes) -> str:
        """PUT bytes to an upload URL LinkedIn gave; the part's ETag."""
        response = self.send(conn, "PUT", upload_url, data=data, headers={"Content-Type": "application/octet-stream"})
        if not self.succeeded(response):
            raise PlatformError(self.refusal(response))
        return response.headers.get("ETag", "")

    def _video_ready(self, conn: Connection, video: str, polls: int) -> bool:
        for attempt in range(polls):
            if attempt:
                time.sleep(self.poll_interval_seconds)
            status = str(self.call(conn, "GET", f"/videos/{_quoted(video)}").get("status", ""))
            if status == "AVAILABLE":
                return True
            if status == "PROCESSING_FAILED":
                raise PlatformError(failed("PROCESSING_FAILED", video))
        return False

    # --- requests and answers --------------------------------------------------------------

    def headers(self, conn: Connection) -> dict[str, str]:
        """The token, and the API version every /rest/ call must name."""
        version = str(getattr(settings, "LINKEDIN_API_VERSION", "") or DEFAULT_VERSION)
        return {**super().headers(conn), "LinkedIn-Version": version, "X-Restli-Protocol-Version": "2.0.0"}

    def error_words(self, response: requests.Response) -> ErrorWords:
        return error_words(response)

    # --- settling --------------------------------------------------------------------------

    def check(self, conn: Connection, ref: Mapping[str, str]) -> Outcome:
        if ref.get("comment_id"):
            published = _commented(ref["object"], ref["actor"], ref["comment_id"], ref.get("comment_urn", ""))
            return self.read_back(conn, self._comment_path(ref), ref["comment_id"], lambda: published)
        if ref.get("object") and ref.get("actor"):
            return self._find_comment(conn, ref["object"], ref["actor"], ref.get("text", ""))
        if ref.get("post_id"):
            return self._read_back(conn, ref["post_id"])
        if ref.get("post") and ref.get("video"):
            return self._finish_processing(conn, ref)
        if ref.get("media_ids"):
            author = ref.get("author") or person_urn(conn.credentials.external_id)
            return self._find(conn, author, self._holds_media(ref))
        return failed("NO_REF", "nothing to check")

    def _read_back(self, conn: Connection, urn: str) -> Outcome:
        return self.read_back(conn, f"/posts/{_quoted(urn)}", urn, lambda: _published(urn))

    def _finish_processing(self, conn: Connection, ref: Mapping[str, str]) -> Outcome:
        """Create the post a PROCESSING outcome prepared, once its video is AVAILABLE."""
        media_ref = {"author": ref.get("author", ""), "media_ids": ref.get("media_ids", ref["video"])}
        return self.finish_processing(
            ref,
            ready=lambda: self._video_ready(conn, ref["video"], polls=1),
            create=lambda: self._create(conn, json.loads(ref["post"]), media_ref),
        )

    def find_recent(self, conn: Connection, post: Post, since: dt.datetime) -> Outcome:
        if post.reply_to is not None:
            actor = person_urn(conn.credentials.external_id)
            return self._find_comment(conn, post.reply_to.parent_id, actor, post.text)
        commentary, after = escape_little_text(post.text), since.timestamp() * 1000

        def matches(element: Mapping[str, Any]) -> bool:
            created = element.get("createdAt") or element.get("publishedAt") or 0
            return element.get("commentary") == commentary and float(created) >= after

        return self._find(conn, person_urn(conn.credentials.external_id), matches, since_ms=after)

    def _find(self, conn: Connection, author: str, matches: Matcher, *, since_ms: float | None = None) -> Outcome:
        """PUBLISHED with the newest of the author's posts that `matches`, else NOT_FOUND. Pages
        (`start`, `count`) are read newest change first until one holds it, a page comes back
        short (the last one), a page reaches back before `since_ms` (the rest are older still),
        or MAX_RECENT_PAGES were read."""
        for start in range(0, MAX_RECENT_PAGES * PAGE_COUNT, PAGE_COUNT):
            try:
                response = self.send(conn, "GET", f"/posts?{_author_query(author, start)}")
            except PlatformError as exc:
                return replace(exc.outcome, kind=OutcomeKind.UNKNOWN)
            if response.status_code != 200:
                return unsettled(self.refusal(response))
            elements = [e for e in json_object(response).get("elements") or [] if isinstance(e, dict)]
            found = next((e for e in elements if matches(e)), None)
            if found is not None:
                return _published(str(found["id"]))
            if len(elements) < PAGE_COUNT or (since_ms is not None and _reaches_before(elements, since_ms)):
                break
        return failed("NOT_FOUND", "no matching post among the author's recent posts")

    @staticmethod
    def _holds_media(ref: Mapping[str, str]) -> Matcher:
        wanted = set(ref["media_ids"].split(","))

        def matches(element: Mapping[str, Any]) -> bool:
            content = element.get("content") or {}
            images = (content.get("multiImage") or {}).get("images") or [content.get("media") or {}]
            return {str(item.get("id", "")) for item in images} == wanted

        return matches

    # --- deleting and reading back --------------------------------------------------------

    def delete(self, conn: Connection, post_id: str, ref: Mapping[str, str]) -> Outcome:
        """The comment (its ref names one) or the post, deleted; a 404 is one already gone."""
        if ref.get("comment_id"):
            path = f"{self._comment_path(ref)}?actor={_quoted(ref['actor'])}"
        else:
            path = f"/posts/{_quoted(post_id)}"
        return self.delete_at(conn, path, post_id, headers={"X-RestLi-Method": "DELETE"})

    def exists(self, conn: Connection, post_id: str, ref: Mapping[str, str]) -> bool:
        path = self._comment_path(ref) if ref.get("comment_id") else f"/posts/{_quoted(post_id)}"
        response = self.send(conn, "GET", path)
        if response.status_code == 404:
            return False
        if not response.ok:
            raise PlatformError(self.refusal(response))
        return True

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
        """One metric's total; a refused token expires the account, a 429 keeps its wait."""
        entity = "ugc" if urn.startswith("urn:li:ugcPost:") else "share"
        query = f"q=entity&entity=({entity}:{_quoted(urn)})&queryType={kind}&aggregation=TOTAL"
        elements = self.call(conn, "GET", f"/memberCreatorPostAnalytics?{query}").get("elements") or []
        return sum(int(e.get("count", 0)) for e in elements if isinstance(e, dict))

    # --- OAuth 2.0 (authorization code, client secret) --------------------------------------

    def revoke(self, conn: Connection) -> bool:
        """LinkedIn documents no revoke call for member tokens (its OAuth pages list only the
        token and introspection endpoints), so nothing is sent; the member removes the app in
        their settings."""
        return False

    def exchange_code(self, *, code: str, code_verifier: str, redirect_uri: str, sandbox: bool) -> Credentials:
        token = self._token({"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri}, sandbox)
        me = self._userinfo(str(token["access_token"]), sandbox)
        return self._credentials(token, me, refresh_token="")

    def refresh(self, conn: Connection) -> Credentials:
        old = conn.credentials
        token = self._token({"grant_type": "refresh_token", "refresh_token": old.refresh_token}, conn.sandbox)
        me = {"sub": old.external_id, "name": old.display_name}
        if not old.external_id:
            me = self._userinfo(str(token["access_token"]), conn.sandbox)
        credentials = self._credentials(token, me, refresh_token=old.refresh_token)
        return replace(credentials, handle=old.handle or me.get("name", ""))

    def _token(self, form: dict[str, str], sandbox: bool) -> dict[str, Any]:
        """POST the token endpoint with the client secret in the form."""
        app = self.app(sandbox)
        data = {**form, "client_id": app.client_id, "client_secret": app.client_secret}
        return self.token_request(sandbox, "POST", TOKEN_URL, data=data)

    def _userinfo(self, access_token: str, sandbox: bool) -> dict[str, Any]:
        me = self.call(bare_connection(sandbox, access_token), "GET", USERINFO_URL)
        if not me.get("sub"):
            raise PlatformError(failed("NO_MEMBER_ID", "userinfo gave no member id"))
        return me

    @staticmethod
    def _credentials(token: Mapping[str, Any], me: Mapping[str, Any], *, refresh_token: str) -> Credentials:
        return token_credentials(
            token,
            lifetime=60 * 86400,
            refresh_token=refresh_token,
            metadata={"author_urn": person_urn(str(me.get("sub", "")))},
            external_id=str(me.get("sub", "")),
            handle=str(me.get("name", "")),
            display_name=str(me.get("name", "")),
        )


def _alt(media: Media) -> dict[str, str]:
    """An image's `altText`, left out when it has none (LinkedIn caps it at 4086 characters)."""
    return {"altText": media.alt[:MAX_ALT_TEXT]} if media.alt else {}

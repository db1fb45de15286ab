"""TikTok (Content Posting API v2, Login Kit, Display API): publish with plain `requests`.

Why it looks the way it does:

- Every publish starts with `creator_info/query` (TikTok's UX rules require it): the privacy
  levels the creator is offered, whether comments/duets/stitches are switched off, and the
  creator's own video cap (`max_video_post_duration_sec`). A requested privacy level that is not
  offered, or a video longer than the cap, is refused there, before anything is sent.
- **Unaudited apps can only post `SELF_ONLY`** (and only to private accounts); TikTok refuses
  anything else with `unaudited_client_can_only_post_to_private_accounts`. Privacy has no
  default in TikTok's UX; a post without `privacy_level` goes out as `SELF_ONLY`, the one level
  every app may use and the most private one (a documented choice of this service).
- What a post becomes on the wire (the init call's endpoint and body for a photo post, a video
  or an inbox draft, and the chunks of a FILE_UPLOAD) is `accounts.platforms.tiktok_payloads`.
  PULL_FROM_URL (photos always, videos when `video_source` says so) needs the domain of
  `media.pull_url()` verified for the app. Chunk PUTs go to a pre-signed `upload_url`, tokenless.
- The init answer's `publish_id` is saved with `conn.save_ref` at once. A FILE_UPLOAD init
  creates nothing until the last chunk arrives, so it runs in `prepare()` and the id is saved
  before the upload that completes the post. A pulling init starts the post itself
  (`create()`), so there is no id to save before it: an init that gets no answer is settled by
  `find_recent()` over `/v2/video/list/` (the caption as text).
- Status: `/v2/post/publish/status/fetch/` once inside `publish()` (processing takes minutes on
  TikTok), then `check()` follows `publish_id`. `PUBLISH_COMPLETE` carries the post id in
  `publicaly_available_post_id` (sic) only for public posts that passed moderation; for a
  private post the publish_id stands in as post id (no public URL exists then).
  `SEND_TO_USER_INBOX` stays PROCESSING: the creator finishes the post in the app.
  A FAILED status keeps TikTok's `fail_reason`; the retryable pull failures and `internal`
  created nothing, so they are NOT_SENT.
- Errors: TikTok answers `{"data": ..., "error": {"code", "message", "log_id"}}` and the body
  must be checked even on HTTP 200 (`succeeded()`; `body()` unwraps `data`). AUTH_ERRORS need
  re-authorization (auth_failed); `rate_limit_exceeded` (429, a one-minute sliding window, no
  rate-limit headers documented) and the DAILY_CAPS are NOT_SENT with TikTok's own code and a
  retry_after; `internal_error` leaves the outcome open (UNKNOWN).
- OAuth: Login Kit's authorize page with `client_key`, comma-separated scopes and PKCE (S256,
  RFC 7636 base64url; TikTok documents a hex challenge for desktop/mobile, web apps authenticate
  with the client secret). Refresh rotates the refresh token: always store the newest.
- Metrics: `/v2/video/query/` (20 ids a call): views, likes, comments, shares; `share_url` in extra.
- After publishing: the Content Posting API has no delete call and no comment call (no first
  comment). `exists()` asks `/v2/video/query/` for the id: a post absent from the answer is gone.
  A private post's stand-in id (its publish_id) is not a video id, so it cannot be read back.
"""

from __future__ import annotations

import datetime as dt
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
    NoAnswer,
    Outcome,
    OutcomeKind,
    PlatformError,
    Post,
    Problem,
    bare_connection,
    before_create,
    failed,
    json_object,
    retry_after_seconds,
    unsettled,
)
from accounts.platforms.tiktok_payloads import MB, POST_MODES, Plan, file_chunks, is_photo, mode, plan_for, privacy

API = "https://open.tiktokapis.com/v2"
AUTHORIZE_URL = "https://www.tiktok.com/v2/auth/authorize/"
TOKEN_URL = f"{API}/oauth/token/"
REVOKE_URL = f"{API}/oauth/revoke/"
SCOPES = "user.info.basic,user.info.profile,video.publish,video.upload,video.list"
JSON = "application/json; charset=UTF-8"
TOKEN_HEADERS = {"Content-Type": "application/x-www-form-urlencoded", "Cache-Control": "no-cache"}
CAPTION_MAX = 2200
PHOTO_TITLE_MAX = 90
VIDEO_SIDE_MIN, VIDEO_SIDE_MAX = 360, 4096
MAX_IDS_PER_QUERY = 20
LIST_PAGES = MAX_RECENT_PAGES
RATE_WINDOW_SECONDS = 60.0
DAILY_CAP_WAIT_SECONDS = 3600.0
VIDEO_FIELDS = "id,title,video_description,create_time,share_url"
METRIC_FIELDS = "id,share_url,view_count,like_count,comment_count,share_count"
USER_FIELDS = "open_id,union_id,avatar_url,display_name,username"

PRIVACY_LEVELS = ("PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "FOLLOWER_OF_CREATOR", "SELF_ONLY")
INTERACTION_SETTINGS = ("allows_comments", "allows_duet", "allows_stitch")
BOOL_SETTINGS = (*INTERACTION_SETTINGS, "brand_content_toggle", "brand_organic_toggle", "auto_add_music")
POST_INFO_SETTINGS = ("privacy_level", *BOOL_SETTINGS)
# What creator_info/query says that a form needs (the avatar URL expires within hours).
CREATOR_OPTIONS = (
    "creator_username",
    "creator_nickname",
    "privacy_level_options",
    "comment_disabled",
    "duet_disabled",
    "stitch_disabled",
    "max_video_post_duration_sec",
)
RATE_LIMITED = "rate_limit_exceeded"
INTERNAL_ERROR = "internal_error"  # TikTok cannot say whether the call took effect
AUTH_ERRORS = frozenset({"access_token_invalid", "scope_not_authorized", "scope_permission_missed"})
DAILY_CAPS = frozenset({"spam_risk_too_many_posts", "reached_active_user_cap", "spam_risk_too_many_pending_share"})
RETRYABLE_FAILS = frozenset({"internal", "video_pull_failed", "photo_pull_failed"})


def utf16_length(text: str) -> int:
    """TikTok counts captions in UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def _error(response: requests.Response) -> dict[str, Any]:
    error = json_object(response).get("error")
    return error if isinstance(error, dict) else {}


def error_words(response: requests.Response) -> ErrorWords:
    """TikTok's `error.code` and `message`, and what its codes say."""
    error = _error(response)
    code = str(error.get("code") or f"HTTP_{response.status_code}")
    message = str(error.get("message") or response.reason or "")
    throttled = code == RATE_LIMITED or code in DAILY_CAPS
    wait = _wait(code, response)
    return ErrorWords(code, message, throttled, wait, transient=code == INTERNAL_ERROR, auth=code in AUTH_ERRORS)


def _wait(code: str, response: requests.Response) -> float | None:
    """The sliding window: Retry-After, else a minute. A daily cap: an hour."""
    if response.status_code == 429 or code == RATE_LIMITED:
        return retry_after_seconds(response) or RATE_WINDOW_SECONDS
    return DAILY_CAP_WAIT_SECONDS if code in DAILY_CAPS else None


def _post_url(username: str, post_id: str, kind: str) -> str:
    return f"https://www.tiktok.com/@{username}/{'photo' if kind == 'photo' else 'video'}/{post_id}" if username else ""


def _status_outcome(data: Mapping[str, Any], ref: Mapping[str, str]) -> Outcome:
    """A status/fetch answer as an Outcome."""
    status = str(data.get("status", ""))
    if status == "PUBLISH_COMPLETE":
        ids = data.get("publicaly_available_post_id") or []
        post_id = str(ids[0]) if ids else ref["publish_id"]
        url = _post_url(ref.get("username", ""), post_id, ref.get("kind", "video")) if ids else ""
        return Outcome(OutcomeKind.PUBLISHED, post_id=post_id, url=url, ref=dict(ref), http_status=200)
    if status == "FAILED":
        reason = str(data.get("fail_reason") or "FAILED")
        kind = OutcomeKind.NOT_SENT if reason in RETRYABLE_FAILS else OutcomeKind.FAILED
        return Outcome(kind, error_code=reason, error_message=f"TikTok could not publish: {reason}")
    message = "Waiting for the creator to finish the post in the TikTok app." if status == "SEND_TO_USER_INBOX" else ""
    return Outcome(OutcomeKind.PROCESSING, ref=dict(ref), error_message=message)


def _value_problems(values: Mapping[str, Any]) -> list[Problem]:
    problems = []
    for key, allowed in (("tiktok_post_mode", POST_MODES), ("privacy_level", PRIVACY_LEVELS)):
        if key in values and values[key] not in allowed:
            problems.append(Problem(key, "INVALID_SETTING", f"{key} must be one of {', '.join(allowed)}."))
    if "title" in values and utf16_length(values["title"]) > PHOTO_TITLE_MAX:
        message = f"A TikTok photo title has at most {PHOTO_TITLE_MAX} characters."
        problems.append(Problem("title", "TITLE_TOO_LONG", message))
    return problems


def _unsupported(key: str, why: str) -> Problem:
    return Problem(key, "UNSUPPORTED_SETTING", f"{key}: {why}")


def _combination_problems(post: Post) -> list[Problem]:
    values, photo = post.settings, is_photo(post)
    inbox = mode(post) == "MEDIA_UPLOAD"
    problems = []
    if "title" in values and not photo:
        problems.append(_unsupported("title", "a TikTok video has no title; its caption is the text."))
    for key in ("allows_duet", "allows_stitch"):
        if photo and values.get(key) is True:
            problems.append(_unsupported(key, "duets and stitches do not apply to TikTok photos."))
    if not photo and values.get("auto_add_music") is True:
        problems.append(_unsupported("auto_add_music", "TikTok adds music to photo posts only."))
    if inbox:
        problems += _inbox_problems(values, photo)
    elif values.get("brand_content_toggle") is True and privacy(post) == "SELF_ONLY":
        message = "TikTok branded content cannot be SELF_ONLY; choose another privacy_level."
        problems.append(Problem("brand_content_toggle", "INVALID_COMBINATION", message))
    return problems


def _inbox_problems(values: Mapping[str, Any], photo: bool) -> list[Problem]:
    """MEDIA_UPLOAD: the creator picks privacy in the app; an inbox video takes the file only."""
    keys = ("privacy_level",) if photo else POST_INFO_SETTINGS
    why = "the creator sets it in the TikTok app for a MEDIA_UPLOAD post."
    return [_unsupported(key, why) for key in keys if key in values and values[key] is not False]


def _video_problems(media: Sequence[Media]) -> list[Problem]:
    problems = []
    for index, item in enumerate(media):
        sides = [s for s in (item.width, item.height) if s is not None]
        if item.is_video and any(not VIDEO_SIDE_MIN <= s <= VIDEO_SIDE_MAX for s in sides):
            message = f"TikTok takes videos of {VIDEO_SIDE_MIN} to {VIDEO_SIDE_MAX} pixels a side."
            problems.append(Problem(f"media[{index}]", "INVALID_DIMENSIONS", message))
    return problems


class Client(HttpClient[Plan]):
    platform = "tiktok"
    api = API
    rate_limited_code = ""  # TikTok's own code tells the sliding window from a daily cap
    authorize_endpoint = AUTHORIZE_URL
    scopes = SCOPES
    sandbox_client_secret = "sandbox-tiktok-secret"  # noqa: S105 (the stand-in's public test secret)
    setting_types = {
        **FIT_SETTING,
        "tiktok_post_mode": ("string",),
        "privacy_level": ("string",),
        "title": ("string",),
        **dict.fromkeys(BOOL_SETTINGS, ("boolean",)),
    }
    has_options = True
    metrics_batch_size = MAX_IDS_PER_QUERY
    chunk_bytes = 10 * MB
    video_source = "FILE_UPLOAD"  # or "PULL_FROM_URL" (needs the pull domain verified at TikTok)
    status_polls = 1  # status checks inside publish() before answering PROCESSING
    no_delete_reason = "TikTok has no delete call: delete it in the app."

    # --- validation ------------------------------------------------------------------------

    def validate(self, post: Post) -> list[Problem]:
        problems = self._text_problems(post) + self.media_problems(post.media)
        problems += _video_problems(post.media) + _value_problems(post.settings)
        return problems + _combination_problems(post)

    def text_length(self, text: str) -> int:
        return utf16_length(text)

    def text_limit(self, post: Post) -> int:
        """A photo's description takes the table's limit, a video's caption fewer."""
        return (self.limits.text.max_length or 4000) if is_photo(post) else CAPTION_MAX

    def _text_problems(self, post: Post) -> list[Problem]:
        limit = self.text_limit(post)
        if self.text_length(post.text) > limit:
            what = "photo description" if is_photo(post) else "video caption"
            return [Problem("text", "TEXT_TOO_LONG", f"A TikTok {what} has at most {limit} characters.")]
        return []

    # --- publishing ------------------------------------------------------------------------

    def prepare(self, conn: Connection, post: Post) -> Plan:
        """The plan the creator's settings allow and, for FILE_UPLOAD, the init (it creates
        nothing until the last chunk arrives)."""
        creator = self._creator(conn)
        self._check_creator(post, creator)
        plan = plan_for(post, creator, video_source=self.video_source, chunk_bytes=self.chunk_bytes)
        if plan.file_upload:
            self._init(conn, plan)
        return plan

    def create(self, conn: Connection, post: Post, prepared: Plan) -> Outcome:
        """The call that completes the post (the chunks, or a pulling init), then the status."""
        if prepared.file_upload:
            self._upload(conn, prepared)
        else:
            self._init(conn, prepared)
        return self._follow(conn, prepared.ref, self.status_polls, in_publish=True)

    def options(self, conn: Connection) -> dict[str, Any]:
        """The creator's privacy levels, switched-off interactions and video cap."""
        creator = self._creator(conn)
        return {key: creator[key] for key in CREATOR_OPTIONS if key in creator}

    def _creator(self, conn: Connection) -> dict[str, Any]:
        return self.call(conn, "POST", "/post/publish/creator_info/query/")

    @staticmethod
    def _check_creator(post: Post, creator: Mapping[str, Any]) -> None:
        """What the creator's settings rule out, before anything is sent."""
        offered = creator.get("privacy_level_options") or []
        if mode(post) == "DIRECT_POST" and privacy(post) not in offered:
            message = f"{privacy(post)} is not offered to this creator ({', '.join(map(str, offered))})."
            raise PlatformError(failed("privacy_level_option_mismatch", message))
        cap = creator.get("max_video_post_duration_sec")
        longest = max((m.duration_seconds or 0 for m in post.media if m.is_video), default=0)
        if isinstance(cap, int) and longest > cap:
            raise PlatformError(failed("VIDEO_TOO_LONG", f"This creator may post videos of at most {cap} seconds."))

    def _init(self, conn: Connection, plan: Plan) -> None:
        """The init call; its publish_id is saved before anything else is sent."""
        data = self.call(conn, "POST", plan.endpoint, json=plan.body)
        plan.ref.update(publish_id=str(data.get("publish_id", "")), kind=plan.kind, username=plan.username)
        plan.upload_url = str(data.get("upload_url", ""))
        conn.save_ref(dict(plan.ref))

    # --- media -----------------------------------------------------------------------------

    def _upload(self, conn: Connection, plan: Plan) -> None:
        """The chunks; only the last one completes the post, so a failure before it created nothing."""
        for offset, chunk, last in file_chunks(plan):
            try:
                self._put_chunk(conn, plan, offset, chunk)
            except PlatformError as exc:
                outcome = replace(exc.outcome, ref=dict(plan.ref)) if last else before_create(exc.outcome)
                raise PlatformError(outcome) from None

    def _put_chunk(self, conn: Connection, plan: Plan, offset: int, chunk: bytes) -> None:
        """One PUT to the pre-signed upload URL, without the account's token."""
        media = plan.media[0]
        headers = {
            "Content-Type": media.content_type,
            "Content-Range": f"bytes {offset}-{offset + len(chunk) - 1}/{media.size_bytes}",
        }
        response = self.send(bare_connection(conn.sandbox), "PUT", plan.upload_url, data=chunk, headers=headers)
        if response.status_code not in (201, 206):
            raise PlatformError(self.refusal(response))

    # --- answers ---------------------------------------------------------------------------

    def headers(self, conn: Connection) -> dict[str, str]:
        """TikTok's calls declare a JSON body, even the body-less ones (creator_info/query)."""
        return {**super().headers(conn), "Content-Type": JSON}

    def succeeded(self, response: requests.Response) -> bool:
        """A 2xx whose `error.code` is "ok": TikTok refuses inside an HTTP 200 too."""
        return super().succeeded(response) and _error(response).get("code") == "ok"

    def body(self, response: requests.Response) -> dict[str, Any]:
        """The `data` object of TikTok's envelope."""
        data = json_object(response).get("data")
        return data if isinstance(data, dict) else {}

    def error_words(self, response: requests.Response) -> ErrorWords:
        return error_words(response)

    # --- settling --------------------------------------------------------------------------

    def check(self, conn: Connection, ref: Mapping[str, str]) -> Outcome:
        if not ref.get("publish_id"):
            return Outcome(OutcomeKind.FAILED, error_code="NO_REF", error_message="nothing to check")
        return self._follow(conn, ref, 1, in_publish=False)

    def _follow(self, conn: Connection, ref: Mapping[str, str], polls: int, *, in_publish: bool) -> Outcome:
        outcome = Outcome(OutcomeKind.PROCESSING, ref=dict(ref))
        for _ in range(polls):
            outcome = self._status(conn, ref, in_publish=in_publish)
            if outcome.kind is not OutcomeKind.PROCESSING:
                break
        return outcome

    def _status(self, conn: Connection, ref: Mapping[str, str], *, in_publish: bool) -> Outcome:
        """Inside publish() the post is known to be on its way, so a status nobody could
        read is PROCESSING; in check() it settles nothing."""
        try:
            response = self.send(conn, "POST", "/post/publish/status/fetch/", json={"publish_id": ref["publish_id"]})
        except NoAnswer as exc:
            kind = OutcomeKind.PROCESSING if in_publish else OutcomeKind.UNKNOWN
            return replace(exc.outcome, kind=kind, ref=dict(ref))
        if not self.succeeded(response):
            return self._status_refusal(response, ref, in_publish=in_publish)
        return _status_outcome(self.body(response), ref)

    def _status_refusal(self, response: requests.Response, ref: Mapping[str, str], *, in_publish: bool) -> Outcome:
        outcome = self.refusal(response)
        if outcome.kind is OutcomeKind.FAILED and not outcome.auth_failed and response.status_code in (400, 404):
            return failed("NOT_FOUND", outcome.error_message)
        if in_publish and not outcome.auth_failed:
            return Outcome(OutcomeKind.PROCESSING, ref=dict(ref), error_code=outcome.error_code)
        return replace(unsettled(outcome), ref=dict(ref), retry_after=None)

    def find_recent(self, conn: Connection, post: Post, since: dt.datetime) -> Outcome:
        wanted, cutoff = post.text.strip(), since.timestamp()
        body: dict[str, Any] = {"max_count": 20}
        for _ in range(LIST_PAGES):
            try:
                data = self.call(conn, "POST", f"/video/list/?{urlencode({'fields': VIDEO_FIELDS})}", json=body)
            except PlatformError as exc:
                return unsettled(exc.outcome)
            videos = [v for v in data.get("videos") or [] if isinstance(v, dict)]
            found = self._match(videos, wanted, cutoff)
            if found is not None:
                return found
            if not data.get("has_more") or any(int(v.get("create_time", 0)) < cutoff for v in videos):
                break
            body["cursor"] = data.get("cursor")
        return failed("NOT_FOUND", "no matching post among the account's recent videos")

    @staticmethod
    def _match(videos: Sequence[Mapping[str, Any]], wanted: str, cutoff: float) -> Outcome | None:
        for video in videos:
            text = str(video.get("video_description") or video.get("title") or "").strip()
            if text == wanted and float(video.get("create_time", 0)) >= cutoff - 1:
                url = str(video.get("share_url") or "")
                return Outcome(OutcomeKind.PUBLISHED, post_id=str(video["id"]), url=url, http_status=200)
        return None

    # --- metrics ---------------------------------------------------------------------------

    def metrics_batch(self, conn: Connection, post_ids: Sequence[str]) -> dict[str, Metrics]:
        """A refused token expires the account; a rate limit keeps its wait (both as PlatformError)."""
        filters = {"filters": {"video_ids": list(post_ids)}}
        data = self.call(conn, "POST", f"/video/query/?{urlencode({'fields': METRIC_FIELDS})}", json=filters)
        videos = [v for v in data.get("videos") or [] if isinstance(v, dict)]
        return {str(v["id"]): self._metrics_of(v) for v in videos if "id" in v}

    def exists(self, conn: Connection, post_id: str, ref: Mapping[str, str]) -> bool:
        if post_id == ref.get("publish_id"):  # a private post: no video id to ask about
            raise PlatformError(failed("NOT_READABLE", "a private TikTok post cannot be read back"))
        filters = {"filters": {"video_ids": [post_id]}}
        data = self.call(conn, "POST", f"/video/query/?{urlencode({'fields': 'id'})}", json=filters)
        return any(isinstance(v, dict) and str(v.get("id")) == post_id for v in data.get("videos") or [])

    @staticmethod
    def _metrics_of(video: Mapping[str, Any]) -> Metrics:
        extra = {"share_url": video["share_url"]} if video.get("share_url") else {}
        return Metrics(
            views=int(video.get("view_count") or 0),
            likes=int(video.get("like_count") or 0),
            comments=int(video.get("comment_count") or 0),
            shares=int(video.get("share_count") or 0),
            extra=extra,
        )

    # --- OAuth 2.0 (Login Kit) -------------------------------------------------------------

    def authorize_params(self, *, state: str, code_challenge: str, redirect_uri: str, sandbox: bool) -> dict[str, str]:
        """TikTok names the app's id `client_key`."""
        params = super().authorize_params(
            state=state, code_challenge=code_challenge, redirect_uri=redirect_uri, sandbox=sandbox
        )
        return {"client_key": params.pop("client_id"), **params}

    def exchange_code(self, *, code: str, code_verifier: str, redirect_uri: str, sandbox: bool) -> Credentials:
        grant = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri}
        return self._token({**grant, "code_verifier": code_verifier}, sandbox)

    def refresh(self, conn: Connection) -> Credentials:
        form = {"grant_type": "refresh_token", "refresh_token": conn.credentials.refresh_token}
        return self._token(form, conn.sandbox)

    def _token(self, form: dict[str, str], sandbox: bool) -> Credentials:
        """POST the token endpoint (form-encoded, the app's key and secret in the form), then
        read who the token belongs to."""
        app = self.app(sandbox)
        form = {"client_key": app.client_id, "client_secret": app.client_secret, **form}
        token = self.token_request(sandbox, "POST", TOKEN_URL, data=form, headers=TOKEN_HEADERS)
        return self._credentials(token, self._user(bare_connection(sandbox, str(token["access_token"]))))

    def revoke(self, conn: Connection) -> bool:
        """Revoke the access token, which disconnects the app from the creator's account (its
        refresh token with it); the app's key and secret go in the form, as at the token call."""
        if not conn.credentials.access_token:
            return False
        app = self.app(conn.sandbox)
        form = {"client_key": app.client_id, "client_secret": app.client_secret, "token": conn.credentials.access_token}
        self.revocation(conn, "POST", REVOKE_URL, data=form, headers=TOKEN_HEADERS)
        return True

    def _user(self, conn: Connection) -> dict[str, Any]:
        user = self.call(conn, "GET", f"/user/info/?{urlencode({'fields': USER_FIELDS})}").get("user")
        return user if isinstance(user, dict) else {}

    @staticmethod
    def _credentials(token: Mapping[str, Any], user: Mapping[str, Any]) -> Credentials:
        now = dt.datetime.now(dt.UTC)
        refresh_lifetime = int(token.get("refresh_expires_in") or 0)
        metadata: dict[str, Any] = {"scope": str(token.get("scope", "")), "open_id": str(token.get("open_id", ""))}
        if refresh_lifetime:
            metadata["refresh_expires_at"] = (now + dt.timedelta(seconds=refresh_lifetime)).isoformat()
        return Credentials(
            access_token=str(token["access_token"]),
            refresh_token=str(token.get("refresh_token") or ""),
            expires_at=now + dt.timedelta(seconds=int(token.get("expires_in") or 7200)),
            external_id=str(token.get("open_id") or user.get("open_id") or ""),
            handle=str(user.get("username", "")),
            display_name=str(user.get("display_name", "")),
            metadata=metadata,
        )

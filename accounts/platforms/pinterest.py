"""Pinterest (API v5): pins created with plain `requests` against the endpoints Pinterest documents.

Why it looks the way it does:

- A pin always lives on a board: `boardId` is required (`validate()` says so before anything is
  sent). Pinterest has no text-only pin; the post's text becomes the pin `description`,
  `title`, `link`, `alt_text` map to the `PinCreate` fields of the same names
  (specs/pinterest/openapi.json, v5.23). Without an `alt_text` setting, the pin's alt text is
  the first image's own (the upload's, as the other networks get it), cut to Pinterest's 500.
- Images are never uploaded by us: Pinterest pulls them from `media.pull_url()`
  (`media_source.image_url`, or `multiple_image_urls` for a 2-5 image carousel).
- Video follows the documented protocol: `POST /v5/media` registers it, the bytes go as a
  multipart form with every `upload_parameters` field plus `file` to `upload_url` (S3, which
  takes no bearer token), then `GET /v5/media/{id}` is polled until `succeeded`. A video
  still processing after `status_polls` checks yields PROCESSING; its ref carries the media id
  and the prepared pin body so `check()` creates the pin once the video is ready.
- Pinterest hands out no pin id before the create call and has no idempotency key, so the
  ref saved before `POST /v5/pins` holds the board and the start time: an UNKNOWN create is
  settled by listing the board's recent pins and matching description, title and link, page
  after page (`bookmark`), since a busy board may get more than a page of pins meanwhile.
- Deviations: `note` (a private note) is sent as the pin's `note` field, which older v5
  descriptions document but v5.23 no longer lists; `cover_image_key_frame_time` is a number
  in our interface and an integer in Pinterest's, so it is sent rounded down. Pinterest's
  OAuth has no PKCE: the code challenge and verifier are not sent; the app authenticates at
  the token endpoint with HTTP Basic (client id and secret).
- A pin is deleted with `DELETE /v5/pins/{id}` (204; a 404 says it is already gone) and read
  back with `GET /v5/pins/{id}` (a 404 says it is gone). Pinterest has no comment call: no
  first comment (`first_comment` stays None).
- Metrics come from `GET /v5/pins/{id}/analytics` (the last 90 days, Pinterest's maximum):
  views = IMPRESSION, likes = TOTAL_REACTIONS, comments = TOTAL_COMMENTS, shares = SAVE (a
  save is Pinterest's re-share); the raw metrics stay in `extra`.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any
from urllib.parse import urlencode, urlsplit

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
    failed,
    json_object,
    token_credentials,
    unsettled,
)

API = "https://api.pinterest.com/v5"
AUTHORIZE_URL = "https://www.pinterest.com/oauth/"
TOKEN_URL = f"{API}/oauth/token"
PIN_URL = "https://www.pinterest.com/pin/{pin_id}/"
SCOPES = "boards:read,boards:write,pins:read,pins:write,user_accounts:read"
MAX_ALT_TEXT = 500
MAX_LINK = 2048
CAROUSEL_MIN = 2
ANALYTICS_DAYS = 90
METRIC_TYPES = "IMPRESSION,SAVE,PIN_CLICK,OUTBOUND_CLICK,TOTAL_COMMENTS,TOTAL_REACTIONS"
RATE_LIMIT_CODES = frozenset({8, 429})
AUTH_CODES = frozenset({2, 3})  # on a 403: the token was refused
STRING_SETTINGS = ("title", "link", "note", "alt_text")
BOARD_PAGE_SIZE = 50
BOARD_LIST_PAGE_SIZE, MAX_BOARD_PAGES = 100, 10  # GET /v5/boards: up to 1000 boards are offered
CLOCK_SLACK_SECONDS = 30
Prepared = tuple[dict[str, Any], str]  # the pin's body, and the media id of a video still processing ("" if none)


def resolve_settings(settings: Mapping[str, Any], account_id: str) -> dict[str, Any]:
    """The flat settings for one target: `per_account[account_id]` overrides, without `per_account`.
    A `per_account` that is not a map of objects is left in place, for `validate()` to refuse."""
    per_account = settings.get("per_account")
    if not _per_account_well_formed(per_account):
        return dict(settings)
    flat = {key: value for key, value in settings.items() if key != "per_account"}
    override = per_account.get(account_id) if isinstance(per_account, Mapping) else None
    return {**flat, **override} if isinstance(override, Mapping) else flat


def _per_account_well_formed(per_account: Any) -> bool:
    return per_account is None or (
        isinstance(per_account, Mapping) and all(isinstance(v, Mapping) for v in per_account.values())
    )


def error_words(response: requests.Response) -> ErrorWords:
    """Pinterest's `{code, message}` error body (schema Pinterest.Lib.Error), as `PINTEREST_<code>`."""
    body = json_object(response)
    message = str(body.get("message") or body.get("error") or "") if body else response.reason or ""
    code = body.get("code")
    if not isinstance(code, int):
        return ErrorWords(f"HTTP_{response.status_code}", message)
    auth = response.status_code == 403 and code in AUTH_CODES
    return ErrorWords(f"PINTEREST_{code}", message, throttled=code in RATE_LIMIT_CODES, auth=auth)


def _published(pin_id: str, status: int = 201) -> Outcome:
    return Outcome(OutcomeKind.PUBLISHED, post_id=pin_id, url=PIN_URL.format(pin_id=pin_id), http_status=status)


def _is_digits(value: object) -> bool:
    return isinstance(value, str) and value.isascii() and value.isdigit()


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _board_problems(values: Mapping[str, Any]) -> list[Problem]:
    if "boardId" not in values or values["boardId"] in ("", None):
        return [Problem("boardId", "BOARD_REQUIRED", "A pin needs a board: set boardId.")]
    if not _is_digits(values["boardId"]):
        return [Problem("boardId", "INVALID_SETTING", "boardId must be a Pinterest board id (a string of digits).")]
    return []


def _string_problems(values: Mapping[str, Any]) -> list[Problem]:
    problems = []
    link = values.get("link")
    if isinstance(link, str) and (len(link) > MAX_LINK or urlsplit(link).scheme not in ("http", "https")):
        message = f"link must be an http(s) URL of at most {MAX_LINK} characters."
        problems.append(Problem("link", "INVALID_SETTING", message))
    alt_text = values.get("alt_text")
    if isinstance(alt_text, str) and len(alt_text) > MAX_ALT_TEXT:
        problems.append(Problem("alt_text", "INVALID_SETTING", f"alt_text takes at most {MAX_ALT_TEXT} characters."))
    return problems


def _per_account_problems(values: Mapping[str, Any]) -> list[Problem]:
    if _per_account_well_formed(values.get("per_account")):
        return []
    return [Problem("per_account", "INVALID_SETTING", "per_account must map account ids to objects.")]


def _image_alt(media: Sequence[Media]) -> str:
    """The first image's alt text, cut to Pinterest's limit. The upload's description may hold
    1000 characters (X's limit): cut rather than refused, as the X client cuts its own, so
    one long description does not fail a pin that Pinterest would show with the first 500.
    An `alt_text` setting over 500, typed for this pin, is still refused by `validate()`."""
    alt = next((m.alt for m in media if not m.is_video and m.alt), "")
    return alt[:MAX_ALT_TEXT]


def _cover_problems(post: Post) -> list[Problem]:
    key = "cover_image_key_frame_time"
    if key not in post.settings:
        return []
    if not _is_number(post.settings[key]) or post.settings[key] < 0:
        return [Problem(key, "INVALID_SETTING", f"{key} must be seconds (a number of at least 0).")]
    if not any(m.is_video for m in post.media):
        return [Problem(key, "UNSUPPORTED_SETTING", "A cover frame applies to video pins only.")]
    return []


class Client(HttpClient[Prepared]):
    platform = "pinterest"
    api = API
    reset_headers = ("x-ratelimit-reset",)
    authorize_endpoint = AUTHORIZE_URL
    scopes = SCOPES
    pkce = False
    setting_types = {
        **FIT_SETTING,
        "boardId": ("string", "null"),  # null is a missing board: BOARD_REQUIRED
        **dict.fromkeys(STRING_SETTINGS, ("string",)),
        "cover_image_key_frame_time": ("number",),
        "per_account": ("object", "null"),
    }
    has_options = True
    status_polls = 2  # GET /v5/media/{id} checks inside publish() before answering PROCESSING
    poll_interval_seconds = 2.0

    # --- validation ------------------------------------------------------------------------

    def validate(self, post: Post) -> list[Problem]:
        problems = self._text_problems(post) + self._media_problems(post.media)
        problems += _board_problems(post.settings) + _string_problems(post.settings)
        return problems + _per_account_problems(post.settings) + _cover_problems(post)

    def _text_problems(self, post: Post) -> list[Problem]:
        problems, limit = [], self.limits.text.max_length or 800
        if len(post.text) > limit:
            problems.append(Problem("text", "TEXT_TOO_LONG", f"A pin description takes at most {limit} characters."))
        title, title_limit = post.settings.get("title"), self.limits.title.max_length or 100
        if isinstance(title, str) and len(title) > title_limit:
            problems.append(Problem("title", "TITLE_TOO_LONG", f"A pin title takes at most {title_limit} characters."))
        return problems

    def _media_problems(self, media: Sequence[Media]) -> list[Problem]:
        """The shared limits, plus Pinterest's carousel rule: 2-5 images of the same size."""
        problems = self.media_problems(media)
        if problems or len(media) < CAROUSEL_MIN:
            return problems
        if len({(m.width, m.height) for m in media}) > 1:
            message = "The images of a Pinterest carousel must all have the same dimensions."
            return [Problem("media", "INVALID_COMBINATION", message)]
        return []

    # --- publishing ------------------------------------------------------------------------

    def prepare(self, conn: Connection, post: Post) -> Prepared:
        """The pin's body once its video (if any) is uploaded, and the video's id if still processing."""
        video = next((m for m in post.media if m.is_video), None)
        if video is None:
            return self._pin_body(post, self._image_source(post.media)), ""
        media_id = self._upload_video(conn, video)
        body = self._pin_body(post, self._video_source(media_id, post.settings))
        return body, "" if self._wait_for_video(conn, media_id, self.status_polls) else media_id

    def create(self, conn: Connection, post: Post, prepared: Prepared) -> Outcome:
        body, pending = prepared
        if pending:
            return Outcome(OutcomeKind.PROCESSING, ref={"media_id": pending, "pin": json.dumps(body)})
        return self._create(conn, body)

    @staticmethod
    def _pin_body(post: Post, media_source: dict[str, Any]) -> dict[str, Any]:
        body: dict[str, Any] = {"board_id": post.settings["boardId"], "media_source": media_source}
        if post.text:
            body["description"] = post.text
        for key in STRING_SETTINGS:
            if isinstance(post.settings.get(key), str) and post.settings[key]:
                body[key] = post.settings[key]
        if "alt_text" not in body and (alt := _image_alt(post.media)):
            body["alt_text"] = alt
        return body

    @staticmethod
    def _image_source(media: Sequence[Media]) -> dict[str, Any]:
        if len(media) == 1:
            return {"source_type": "image_url", "url": media[0].pull_url()}
        return {"source_type": "multiple_image_urls", "items": [{"url": m.pull_url()} for m in media]}

    @staticmethod
    def _video_source(media_id: str, values: Mapping[str, Any]) -> dict[str, Any]:
        source: dict[str, Any] = {"source_type": "video_id", "media_id": media_id}
        frame = values.get("cover_image_key_frame_time", 0)
        source["cover_image_key_frame_time"] = int(frame) if isinstance(frame, int | float) else 0
        return source

    def _create(self, conn: Connection, body: Mapping[str, Any]) -> Outcome:
        """Save what finds the pin on its board (a pin has no id before this call), then create it."""
        # A little before now: the platform's clock and ours may differ slightly.
        started = (dt.datetime.now(dt.UTC) - dt.timedelta(seconds=CLOCK_SLACK_SECONDS)).isoformat()
        conn.save_ref({"board_id": str(body["board_id"]), "pin": json.dumps(body), "since": started})
        response = self.send(conn, "POST", "/pins", json=body)
        pin_id = self.body(response).get("id") if response.status_code in (200, 201) else None
        if _is_digits(pin_id):
            return _published(str(pin_id), response.status_code)
        if response.status_code < 300:
            return failed("NO_ID", status=response.status_code)
        return self.refusal(response)

    # --- video -----------------------------------------------------------------------------

    def _upload_video(self, conn: Connection, video: Media) -> str:
        registered = self.call(conn, "POST", "/media", json={"media_type": "video"})
        media_id, upload_url = registered.get("media_id"), registered.get("upload_url")
        if not _is_digits(media_id) or not isinstance(upload_url, str):
            raise PlatformError(failed("NO_MEDIA_ID", "POST /v5/media gave no upload"))
        conn.save_ref({"media_id": str(media_id)})
        self._post_to_s3(conn, upload_url, registered.get("upload_parameters") or {}, video)
        return str(media_id)

    def _post_to_s3(self, conn: Connection, upload_url: str, fields: Mapping[str, Any], video: Media) -> None:
        """The S3 POST form: every upload parameter, then `file` last (S3 ignores fields after it).
        S3 takes no bearer token, so the form goes through a connection without one."""
        data = {str(key): str(value) for key, value in fields.items()}
        with video.open() as stream:
            files = {"file": ("video", stream, video.content_type)}
            response = self.send(bare_connection(conn.sandbox), "POST", upload_url, data=data, files=files)
        if not self.succeeded(response):
            message = f"the upload was refused: HTTP {response.status_code}"
            raise PlatformError(failed("UPLOAD_FAILED", message, response.status_code))

    def _wait_for_video(self, conn: Connection, media_id: str, polls: int) -> bool:
        for attempt in range(polls):
            if attempt:
                time.sleep(self.poll_interval_seconds)
            status = self.call(conn, "GET", f"/media/{media_id}").get("status")
            if status == "succeeded":
                return True
            if status == "failed":
                raise PlatformError(failed("MEDIA_PROCESSING_FAILED", f"media {media_id} failed"))
        return False

    # --- answers ---------------------------------------------------------------------------

    def error_words(self, response: requests.Response) -> ErrorWords:
        return error_words(response)

    # --- settling --------------------------------------------------------------------------

    def check(self, conn: Connection, ref: Mapping[str, str]) -> Outcome:
        if ref.get("post_id"):
            return self._read_back(conn, ref["post_id"])
        if ref.get("since") and ref.get("board_id") and ref.get("pin"):
            return self._find_on_board(conn, ref["board_id"], json.loads(ref["pin"]), ref["since"])
        if ref.get("media_id") and ref.get("pin"):
            return self._finish_processing(conn, ref)
        return failed("NO_REF", "nothing to check")

    def _read_back(self, conn: Connection, pin_id: str) -> Outcome:
        return self.read_back(conn, f"/pins/{pin_id}", pin_id, lambda: _published(pin_id, 200))

    def _finish_processing(self, conn: Connection, ref: Mapping[str, str]) -> Outcome:
        """Create the pin a PROCESSING outcome prepared, once the video is ready."""
        return self.finish_processing(
            ref,
            ready=lambda: self._wait_for_video(conn, ref["media_id"], polls=1),
            create=lambda: self._create(conn, json.loads(ref["pin"])),
        )

    def find_recent(self, conn: Connection, post: Post, since: dt.datetime) -> Outcome:
        board_id = post.settings.get("boardId")
        if not _is_digits(board_id):
            return Outcome(OutcomeKind.UNKNOWN, error_code="NO_BOARD", error_message="the post names no board")
        wanted = self._pin_body(post, {})
        return self._find_on_board(conn, str(board_id), wanted, since.astimezone(dt.UTC).isoformat())

    def _find_on_board(self, conn: Connection, board_id: str, wanted: Mapping[str, Any], since: str) -> Outcome:
        """The board's pins newest first, page after page (the answer's `bookmark` sent back as
        `bookmark`), matched on description, title and link, created since `since`; it ends at a
        match, a page that reaches back before `since`, a null bookmark, or MAX_RECENT_PAGES."""
        bookmark = ""
        for _ in range(MAX_RECENT_PAGES):
            query = {"page_size": BOARD_PAGE_SIZE, **({"bookmark": bookmark} if bookmark else {})}
            try:
                response = self.send(conn, "GET", f"/boards/{board_id}/pins?{urlencode(query)}")
            except PlatformError as exc:
                return replace(exc.outcome, kind=OutcomeKind.UNKNOWN)
            if response.status_code != 200:
                return unsettled(self.refusal(response))
            page = self.body(response)
            pins = [pin for pin in page.get("items") or [] if isinstance(pin, dict)]
            found = next((pin for pin in pins if self._matches(pin, wanted, since)), None)
            if found is not None:
                return _published(str(found["id"]), 200)
            bookmark = str(page.get("bookmark") or "")
            if not bookmark or any("" < str(pin.get("created_at") or "") < since[:19] for pin in pins):
                break
        return failed("NOT_FOUND", "no matching pin on the board")

    @staticmethod
    def _matches(pin: Mapping[str, Any], wanted: Mapping[str, Any], since: str) -> bool:
        if not _is_digits(pin.get("id")) or str(pin.get("created_at") or "") < since[:19]:
            return False
        return all((pin.get(key) or "") == (wanted.get(key) or "") for key in ("description", "title", "link"))

    # --- after publishing ------------------------------------------------------------------

    def delete(self, conn: Connection, post_id: str, ref: Mapping[str, str]) -> Outcome:
        return self.delete_at(conn, f"/pins/{post_id}", post_id)

    def exists(self, conn: Connection, post_id: str, ref: Mapping[str, str]) -> bool:
        response = self.send(conn, "GET", f"/pins/{post_id}")
        if response.status_code == 404:
            return False
        if response.status_code != 200:
            raise PlatformError(self.refusal(response))
        return True

    # --- metrics ---------------------------------------------------------------------------

    def metrics(self, conn: Connection, post_ids: Sequence[str]) -> dict[str, Metrics]:
        found: dict[str, Metrics] = {}
        for pin_id in post_ids:
            counts = self._analytics(conn, pin_id)
            if counts is not None:
                found[pin_id] = self._metrics_of(counts)
        return found

    def _analytics(self, conn: Connection, pin_id: str) -> dict[str, Any] | None:
        """The pin's summary and lifetime metrics, or None when Pinterest does not know the pin; a
        refused token expires the account, a 429 keeps its wait (both as PlatformError)."""
        today = dt.datetime.now(dt.UTC).date()
        query = {
            "start_date": (today - dt.timedelta(days=ANALYTICS_DAYS - 1)).isoformat(),
            "end_date": today.isoformat(),
            "metric_types": METRIC_TYPES,
        }
        response = self.send(conn, "GET", f"/pins/{pin_id}/analytics?{urlencode(query)}")
        if response.status_code == 404:
            return None
        if not response.ok:
            raise PlatformError(self.refusal(response))
        report = self.body(response).get("ALL")
        if not isinstance(report, dict):
            return {}
        return {**(report.get("summary_metrics") or {}), **(report.get("lifetime_metrics") or {})}

    @staticmethod
    def _metrics_of(counts: Mapping[str, Any]) -> Metrics:
        def whole(name: str) -> int:
            value = counts.get(name, 0)
            return int(value) if isinstance(value, int | float) else 0

        return Metrics(
            views=whole("IMPRESSION") if "IMPRESSION" in counts else None,
            likes=whole("TOTAL_REACTIONS"),
            comments=whole("TOTAL_COMMENTS"),
            shares=whole("SAVE"),
            extra=dict(counts),
        )

    # --- OAuth 2.0 -------------------------------------------------------------------------

    def revoke(self, conn: Connection) -> bool:
        """Pinterest's `POST /oauth/token/revoke` takes only tokens issued for system users
        (specs/pinterest/openapi.json); the user tokens a connection holds are not among them, so
        nothing is sent."""
        return False

    def exchange_code(self, *, code: str, code_verifier: str, redirect_uri: str, sandbox: bool) -> Credentials:
        form = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri}
        return self._token(form, sandbox)

    def refresh(self, conn: Connection) -> Credentials:
        form = {"grant_type": "refresh_token", "refresh_token": conn.credentials.refresh_token}
        return self._token(form, conn.sandbox, previous=conn.credentials)

    def _token(self, form: dict[str, str], sandbox: bool, previous: Credentials | None = None) -> Credentials:
        """POST the token endpoint with HTTP Basic, then read the account and its boards."""
        app = self.app(sandbox)
        basic = base64.b64encode(f"{app.client_id}:{app.client_secret}".encode()).decode()
        token = self.token_request(sandbox, "POST", TOKEN_URL, data=form, headers={"Authorization": f"Basic {basic}"})
        conn = bare_connection(sandbox, str(token["access_token"]))
        return self._credentials(token, self.call(conn, "GET", "/user_account"), self._boards(conn), previous)

    def options(self, conn: Connection) -> dict[str, Any]:
        """The account's boards, the places a pin may go."""
        return {"boards": self._boards(conn)}

    def _boards(self, conn: Connection) -> list[dict[str, str]]:
        """The account's boards ({id, name}), page after page (`bookmark`), MAX_BOARD_PAGES at most."""
        boards: list[dict[str, str]] = []
        bookmark = ""
        for _ in range(MAX_BOARD_PAGES):
            query = {"page_size": BOARD_LIST_PAGE_SIZE, **({"bookmark": bookmark} if bookmark else {})}
            page = self.call(conn, "GET", f"/boards?{urlencode(query)}")
            items = [b for b in page.get("items") or [] if isinstance(b, dict) and _is_digits(b.get("id"))]
            boards += [{"id": str(b["id"]), "name": str(b.get("name") or b["id"])} for b in items]
            bookmark = str(page.get("bookmark") or "")
            if not bookmark:
                break
        return boards

    @staticmethod
    def _credentials(
        token: Mapping[str, Any], account: Mapping[str, Any], boards: list[dict[str, str]], previous: Credentials | None
    ) -> Credentials:
        return token_credentials(
            token,
            lifetime=30 * 86400,
            refresh_token=previous.refresh_token if previous else "",
            metadata={"boards": boards},
            external_id=str(account.get("id", "")),
            handle=str(account.get("username", "")),
            display_name=str(account.get("business_name") or account.get("username") or ""),
        )

"""`Client`: the typed client the `socialpub` command uses, over the generated one.

The generated package (`socialpub._generated`, from the API's OpenAPI document) knows every
operation and model; this facade adds what a caller should not repeat: the base URL and key
from the environment, one exception for every refusal (`ApiError`, carrying the error object
and the request id), paging through lists, the three-step media upload, the retries that the
Idempotency-Key makes safe, and the bulk create's CSV body, which the generated operation
(JSON only) cannot send.
"""

from __future__ import annotations

import json
import mimetypes
import os
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import httpx

from socialpub._generated.api.accounts import (
    accounts_destroy,
    accounts_list,
    accounts_schedule_retrieve,
    accounts_schedule_update,
)
from socialpub._generated.api.approvals import approvals_list
from socialpub._generated.api.connect_links import (
    connect_links_create,
    connect_links_destroy,
    connect_links_list,
    connect_links_retrieve,
)
from socialpub._generated.api.media import media_uploads_confirm_create, media_uploads_create
from socialpub._generated.api.publishes import (
    publishes_approve_create,
    publishes_bulk_create,
    publishes_create,
    publishes_reject_create,
    publishes_retrieve,
    publishes_unpublish_create,
)
from socialpub._generated.api.teams import (
    teams_create,
    teams_keys_create,
    teams_keys_destroy,
    teams_keys_list,
    teams_list,
)
from socialpub._generated.client import AuthenticatedClient
from socialpub._generated.models import (
    Account,
    AccountDisconnectedResponse,
    Approve,
    ApproveResponse,
    BrandingInputRequest,
    BulkDryRunResponse,
    BulkResponse,
    ConnectLink,
    ConnectLinkCreatePlatformsEnum,
    ConnectLinkCreateRequest,
    ConnectLinkResponse,
    ContentTypeEnum,
    CreateModeEnum,
    CreatePublishRequest,
    Media,
    MediaConfirmedResponse,
    MediaCreatedResponse,
    MediaCreateRequest,
    PaginatedAccountList,
    PaginatedConnectLinkList,
    PaginatedPublishList,
    PaginatedTeamKeyList,
    PlatformEnum,
    PostingSchedule,
    PostingScheduleInputRequest,
    PostingScheduleResponse,
    Publish,
    PublishCreatedResponse,
    PublishResponse,
    RejectRequest,
    ScheduleSlotRequest,
    ScopesEnum,
    TargetInputRequest,
    Team,
    TeamCreatedResponse,
    TeamCreateRequest,
    TeamKey,
    TeamKeyCreated,
    TeamKeyCreatedResponse,
    TeamKeyCreateRequest,
    TeamListResponse,
    UnpublishRequest,
    WeekdayEnum,
)
from socialpub._generated.types import Response

DEFAULT_URL = "http://127.0.0.1:8000"
URL_VARIABLE = "SOCIALPUB_URL"
KEY_VARIABLE = "SOCIALPUB_API_KEY"
PLATFORMS = tuple(platform.value for platform in PlatformEnum)  # from the API's document
# Statuses a target leaves no more on its own (`processing` still waits for the platform).
FINAL_TARGET_STATUSES = frozenset({"published", "failed"})
CREATE_TRIES = 4  # one request and three retries with the same Idempotency-Key
WEEKDAYS = tuple(day.value for day in WeekdayEnum)  # mon ... sun
SCOPES = tuple(scope.value for scope in ScopesEnum)  # accounts:read ... webhooks:write

BULK_PATH = "/api/v1/publishes/bulk"

BulkAnswer = BulkResponse | BulkDryRunResponse

T = TypeVar("T")
PAGE_SIZE = 100  # the API's largest
Progress = Callable[[int], None]


class ClientError(Exception):
    """Anything that stops a call; `str()` is the one line the command prints."""


class ApiError(ClientError):
    """The API refused the request: its status and error object (config/errors.py's shape)."""

    def __init__(self, status: int, body: Any, request_id: str | None) -> None:
        error = body.get("error") if isinstance(body, dict) else None
        error = error if isinstance(error, dict) else {}
        self.status = status
        self.type = str(error.get("type") or "error")
        self.code = str(error.get("code") or "")
        self.message = str(error.get("message") or f"HTTP {status}")
        self.details: dict[str, Any] = error.get("details") or {}
        self.request_id = request_id or error.get("request_id")
        super().__init__(str(self))

    def __str__(self) -> str:
        code = f" ({self.code})" if self.code else ""
        request = f" [request id: {self.request_id}]" if self.request_id else ""
        return f"{self.status} {self.type}{code}: {self.message}{request}"


class ConnectionFailed(ClientError):
    """The service could not be reached (refused, unresolvable) or did not answer (`maybe_sent`:
    the request may have arrived)."""

    def __init__(self, message: str, *, maybe_sent: bool) -> None:
        self.maybe_sent = maybe_sent
        super().__init__(message)


class Client:
    """The API at `url` (else $SOCIALPUB_URL, else http://127.0.0.1:8000) with `api_key` (else
    $SOCIALPUB_API_KEY). Each method returns the generated models or raises `ClientError`."""

    def __init__(self, url: str | None = None, api_key: str | None = None, *, timeout: float = 30.0) -> None:
        self.url = (url or os.environ.get(URL_VARIABLE) or DEFAULT_URL).rstrip("/")
        key = api_key or os.environ.get(KEY_VARIABLE)
        if not key:
            raise ClientError(f"no API key: set {KEY_VARIABLE} or pass --api-key-file PATH")
        self.timeout = timeout
        self.api = AuthenticatedClient(base_url=self.url, token=key, timeout=httpx.Timeout(timeout))

    # --- reads ----------------------------------------------------------------------------

    def accounts(self, *, platform: str | None = None, status: str | None = None) -> list[Account]:
        """Every account of the key's team (all pages), optionally of some platforms or a status."""
        filters = _given(platform=platform, status=status)
        return self._every_page(PaginatedAccountList, partial(accounts_list.sync_detailed, client=self.api, **filters))

    def publish(self, publish_id: str) -> Publish:
        call = partial(publishes_retrieve.sync_detailed, _uuid(publish_id), client=self.api)
        return self._call(PublishResponse, call).data

    def approvals(self) -> list[Publish]:
        """Every publish waiting for approval that the key may see (all pages)."""
        return self._every_page(PaginatedPublishList, partial(approvals_list.sync_detailed, client=self.api))

    def teams(self) -> list[Team]:
        """The teams the key's user owns, in creation order."""
        return self._call(TeamListResponse, partial(teams_list.sync_detailed, client=self.api)).data

    def team_keys(self, team_id: str) -> list[TeamKey]:
        """The team's live team keys (all pages), newest first: never the keys themselves."""
        listing = partial(teams_keys_list.sync_detailed, _uuid(team_id), client=self.api)
        return self._every_page(PaginatedTeamKeyList, listing)

    def connect_link(self, link_id: str) -> ConnectLink:
        """A connect link of the key's team, with its status and the accounts connected through it."""
        call = partial(connect_links_retrieve.sync_detailed, _uuid(link_id), client=self.api)
        return self._call(ConnectLinkResponse, call).data

    def connect_links(self) -> list[ConnectLink]:
        """Every connect link of the key's team (all pages), newest first, expired and revoked ones included."""
        return self._every_page(PaginatedConnectLinkList, partial(connect_links_list.sync_detailed, client=self.api))

    # --- writes ---------------------------------------------------------------------------

    def create_team(self, name: str) -> Team:
        """A new team owned by the key's user (a user key only: a team key is refused with 403
        `USER_KEY_REQUIRED`)."""
        call = partial(teams_create.sync_detailed, client=self.api, body=TeamCreateRequest(name=name))
        return self._call(TeamCreatedResponse, call).data

    def create_team_key(
        self, team_id: str, *, name: str, scopes: Sequence[str], expires_at: datetime | None = None
    ) -> TeamKeyCreated:
        """A team key locked to `team_id` with `scopes` (each one the calling key holds); its
        `key` is answered this once."""
        body = TeamKeyCreateRequest(
            name=name, scopes=[_scope(scope) for scope in scopes], **_given(expires_at=expires_at)
        )
        call = partial(teams_keys_create.sync_detailed, _uuid(team_id), client=self.api, body=body)
        return self._call(TeamKeyCreatedResponse, call).data

    def revoke_team_key(self, team_id: str, key_id: str) -> None:
        """Revoke a team key of `team_id`: it answers 401 from its next request."""
        call = partial(teams_keys_destroy.sync_detailed, _uuid(team_id), _uuid(key_id), client=self.api)
        self._call(type(None), call)

    def create_connect_link(
        self,
        *,
        redirect_url: str,
        platforms: Sequence[str] = (),
        expires_in: int | None = None,
        brand: str | None = None,
        logo_url: str | None = None,
        accent_color: str | None = None,
    ) -> ConnectLink:
        """A hosted page (`url`, no login) where someone connects accounts into the key's team,
        then is sent to `redirect_url`. `platforms` (default: every one the service can connect
        now) in the page's order; `brand`, `logo_url` and `accent_color` (#rrggbb) dress the page,
        the last two only with a `brand`."""
        if (logo_url or accent_color) and not brand:
            raise ClientError("a logo or an accent color needs a brand name")
        branding = (
            BrandingInputRequest(name=brand, **_given(logo_url=logo_url, accent_color=accent_color)) if brand else None
        )
        body = ConnectLinkCreateRequest(
            redirect_url=redirect_url,
            **_given(
                platforms=[_platform(platform) for platform in platforms] or None,
                expires_in=expires_in,
                branding=branding,
            ),
        )
        call = partial(connect_links_create.sync_detailed, client=self.api, body=body)
        return self._call(ConnectLinkResponse, call).data

    def revoke_connect_link(self, link_id: str) -> ConnectLink:
        """Revoke a connect link: its page answers 410 from now on; accounts connected through it stay."""
        call = partial(connect_links_destroy.sync_detailed, _uuid(link_id), client=self.api)
        return self._call(ConnectLinkResponse, call).data

    def disconnect(self, account_id: str) -> AccountDisconnectedResponse:
        """Disconnect an account: its tokens are forgotten and revoked at the platform where it
        can (`token_revoked`); `already_disconnected` when it was."""
        call = partial(accounts_destroy.sync_detailed, _uuid(account_id), client=self.api)
        return self._call(AccountDisconnectedResponse, call)

    def upload(self, path: Path, progress: Progress | None = None) -> Media:
        """Upload one file: create the upload, PUT its bytes to the presigned URL with the
        returned headers (`progress` gets each chunk's size), confirm it. The confirmed upload."""
        content_type = mimetypes.guess_type(path.name)[0] or ""
        if content_type not in {kind.value for kind in ContentTypeEnum}:
            allowed = ", ".join(sorted(kind.value for kind in ContentTypeEnum))
            raise ClientError(f"{path.name}: type {content_type or 'unknown'} is not one of {allowed}")
        try:
            size = path.stat().st_size
        except OSError as exc:
            raise ClientError(f"{path}: {exc.strerror}") from None
        request = MediaCreateRequest(filename=path.name, content_type=ContentTypeEnum(content_type), size_bytes=size)
        created = self._call(
            MediaCreatedResponse, partial(media_uploads_create.sync_detailed, client=self.api, body=request)
        ).data
        if created.upload_url:
            self._put(created.upload_url, path, dict(created.headers.additional_properties), progress)
        confirm = partial(media_uploads_confirm_create.sync_detailed, created.id, client=self.api)
        return self._call(MediaConfirmedResponse, confirm).data

    def create_publish(
        self,
        *,
        content: str,
        account_ids: list[str],
        media_ids: list[str] | None = None,
        scheduled_at: datetime | None = None,
        queue: bool = False,
        idempotency_key: str | None = None,
    ) -> Publish:
        """Create a publish to `account_ids`: immediate, scheduled when `scheduled_at` is given,
        or with `queue=True` at the first posting-schedule slot every account has free. An
        answer lost on the way, a 5xx or a 409 of the same request still in flight is retried
        with the same Idempotency-Key, so the post is made at most once."""
        return self.create_publish_answer(
            content=content,
            account_ids=account_ids,
            media_ids=media_ids,
            scheduled_at=scheduled_at,
            queue=queue,
            idempotency_key=idempotency_key,
        ).data

    def create_publish_answer(
        self,
        *,
        content: str,
        account_ids: list[str],
        media_ids: list[str] | None = None,
        scheduled_at: datetime | None = None,
        queue: bool = False,
        idempotency_key: str | None = None,
    ) -> PublishCreatedResponse:
        """`create_publish`'s whole answer: the publish and what else the service says of it
        (`warnings(answer)`)."""
        if queue and scheduled_at:
            raise ClientError("a queued publish takes its time from the posting schedule: give no scheduled_at")
        mode = CreateModeEnum.QUEUE if queue else CreateModeEnum.SCHEDULED if scheduled_at else CreateModeEnum.IMMEDIATE
        body = CreatePublishRequest(
            targets=[TargetInputRequest(account_id=_uuid(account)) for account in account_ids],
            content=content,
            media_ids=[_uuid(media) for media in media_ids or []],
            publish_mode=mode,
            **_given(scheduled_at=scheduled_at),
        )
        key = idempotency_key or str(uuid.uuid4())
        call = partial(publishes_create.sync_detailed, client=self.api, body=body, idempotency_key=key)
        return self._retried(lambda: self._call(PublishCreatedResponse, call))

    def bulk(
        self,
        rows: Sequence[CreatePublishRequest | Mapping[str, Any]],
        *,
        dry_run: bool = False,
        idempotency_key: str | None = None,
    ) -> BulkAnswer:
        """Create every row (a create body, as `POST /publishes` takes it) or none. `BulkResponse`
        with the publishes in row order; with `dry_run`, `BulkDryRunResponse` with each row's
        verdict and creates nothing. A refused batch is an `ApiError` (400 `INVALID_ROWS`, its
        `details["rows"]` each with the row's `index` from 0 and its `problems`). Rows given as
        mappings are sent as they are, for the service to judge."""
        body = {"publishes": [row.to_dict() if isinstance(row, CreatePublishRequest) else dict(row) for row in rows]}
        return self._bulk({"json": body}, dry_run=dry_run, idempotency_key=idempotency_key)

    def bulk_csv(
        self, document: str | bytes, *, dry_run: bool = False, idempotency_key: str | None = None
    ) -> BulkAnswer:
        """`bulk` with a CSV file's text (UTF-8, a header row; columns content, account_ids,
        publish_mode, scheduled_at, media_ids; ids space-separated)."""
        content = document.encode() if isinstance(document, str) else document
        request = {"content": content, "headers": {"Content-Type": "text/csv; charset=utf-8"}}
        return self._bulk(request, dry_run=dry_run, idempotency_key=idempotency_key)

    def schedule(self, account_id: str) -> PostingSchedule:
        """An account's posting schedule: its zone, weekly slots and next free slot instants."""
        call = partial(accounts_schedule_retrieve.sync_detailed, _uuid(account_id), client=self.api)
        return self._call(PostingScheduleResponse, call).data

    def set_schedule(self, account_id: str, *, timezone: str, slots: Sequence[tuple[str, str]]) -> PostingSchedule:
        """Replace an account's posting schedule: `slots` are (day, "HH:MM") pairs, day one of
        mon ... sun, wall-clock times in `timezone` (an IANA name); no slots clears it."""
        body = PostingScheduleInputRequest(
            timezone=timezone, slots=[ScheduleSlotRequest(day=_weekday(day), time=time) for day, time in slots]
        )
        call = partial(accounts_schedule_update.sync_detailed, _uuid(account_id), client=self.api, body=body)
        return self._call(PostingScheduleResponse, call).data

    def approve(self, publish_id: str) -> Approve:
        """Approve a publish waiting for approval (`already_approved` when it was)."""
        call = partial(publishes_approve_create.sync_detailed, _uuid(publish_id), client=self.api)
        return self._call(ApproveResponse, call).data

    def reject(self, publish_id: str, reason: str | None = None) -> Publish:
        body = RejectRequest(**_given(reason=reason))
        call = partial(publishes_reject_create.sync_detailed, _uuid(publish_id), client=self.api, body=body)
        return self._call(PublishResponse, call).data

    def unpublish(self, publish_id: str, target_ids: Sequence[str] | None = None) -> Publish:
        """Take the publish's posts down on their networks (every published target, or those
        named); the answer comes at once, each target's `removed_at` or `removal_error` later."""
        body = UnpublishRequest(**_given(target_ids=[_uuid(t) for t in target_ids] if target_ids else None))
        call = partial(publishes_unpublish_create.sync_detailed, _uuid(publish_id), client=self.api, body=body)
        return self._call(PublishResponse, call).data

    # --- plumbing -------------------------------------------------------------------------

    def _retried(self, send: Callable[[], T]) -> T:
        """`send()`, repeated while its failure is one the same Idempotency-Key makes safe to repeat."""
        for attempt in range(1, CREATE_TRIES + 1):
            try:
                return send()
            except (ApiError, ConnectionFailed) as exc:
                if attempt == CREATE_TRIES or not _worth_retrying(exc):
                    raise
                time.sleep(attempt)
        raise AssertionError("unreachable")

    def _bulk(self, request: dict[str, Any], *, dry_run: bool, idempotency_key: str | None) -> BulkAnswer:
        key = idempotency_key or str(uuid.uuid4())
        headers = {**request.pop("headers", {}), "Idempotency-Key": key}
        params = {"dry_run": "true" if dry_run else "false"}

        def send() -> Response[Any]:
            # The client's own session (base URL, key, timeout); the generated operation reads
            # the answer, so a CSV batch and a JSON one come back as the same models.
            http = self.api.get_httpx_client()
            answer = http.post(BULK_PATH, params=params, headers=headers, **request)
            return publishes_bulk_create._build_response(client=self.api, response=answer)

        if dry_run:
            return self._retried(lambda: self._call(BulkDryRunResponse, send))
        return self._retried(lambda: self._call(BulkResponse, send))

    def _every_page(self, expected: type[Any], listing: Callable[..., Response[Any]]) -> list[Any]:
        """Every item of a list, walking its pages of PAGE_SIZE (`listing` takes page and
        page_size). A list longer than its pages reach (`total_count_exact` false, and the last
        page they reach full) is refused rather than returned cut short."""
        found: list[Any] = []
        page: int | None = 1
        while True:
            listed = self._call(expected, partial(listing, page=page, page_size=PAGE_SIZE))
            found += listed.data
            page = listed.pagination.next_page
            if page is None:
                break
        if not listed.pagination.total_count_exact and len(listed.data) == PAGE_SIZE:
            raise ClientError(f"the list holds more than the {len(found):,} items its pages reach")
        return found

    def _call(self, expected: type[T], request: Callable[[], Response[Any]]) -> T:
        """The body of `request()`'s answer as `expected`, or the refusal or failure as a ClientError."""
        try:
            response = request()
        except httpx.ConnectError as exc:
            raise ConnectionFailed(f"cannot reach {self.url}: {_reason(exc)}", maybe_sent=False) from None
        except httpx.TimeoutException:
            raise ConnectionFailed(f"{self.url} did not answer within {self.timeout:g} s", maybe_sent=True) from None
        except httpx.HTTPError as exc:
            raise ConnectionFailed(f"{self.url}: {exc}", maybe_sent=True) from None
        parsed = response.parsed
        if response.status_code >= 400 or not isinstance(parsed, expected):
            raise ApiError(response.status_code, _json(response.content), response.headers.get("X-Request-Id"))
        return parsed

    def _put(self, url: str, path: Path, headers: dict[str, str], progress: Progress | None) -> None:
        def chunks() -> Iterator[bytes]:
            with path.open("rb") as file:
                while chunk := file.read(256 * 1024):
                    if progress:
                        progress(len(chunk))
                    yield chunk

        headers = {**headers, "Content-Length": str(path.stat().st_size)}
        try:
            response = httpx.put(url, content=chunks(), headers=headers, timeout=self.timeout)
        except httpx.HTTPError as exc:
            raise ConnectionFailed(f"uploading {path.name}: {_reason(exc)}", maybe_sent=True) from None
        if response.status_code >= 300:
            raise ApiError(response.status_code, _json(response.content), response.headers.get("X-Request-Id"))


def is_final(publish: Publish) -> bool:
    """Whether every target of `publish` has reached a status it will not leave on its own, and
    the publish's own status says so too (the publish and its targets are two reads: a target's
    answer can land between them)."""
    settled = all(str(target.status) in FINAL_TARGET_STATUSES for target in publish.targets)
    return settled and str(publish.status) != "publishing"


def _worth_retrying(exc: ClientError) -> bool:
    if isinstance(exc, ConnectionFailed):
        return exc.maybe_sent
    if not isinstance(exc, ApiError):
        return False
    # 409 IDEMPOTENCY_KEY_IN_USE: the first request with the key is still being processed.
    return exc.status >= 500 or exc.code == "IDEMPOTENCY_KEY_IN_USE"


def warnings(answer: PublishCreatedResponse | BulkAnswer) -> list[dict[str, Any]]:
    """The warnings an answer carries (`DUPLICATE_CONTENT`: an account already got this text),
    each `{"code", "account_id", "publish_id"}`; none when the service sent none."""
    found = answer.to_dict().get("warnings")
    return [item for item in found if isinstance(item, dict)] if isinstance(found, list) else []


def _weekday(day: str) -> WeekdayEnum:
    try:
        return WeekdayEnum(day.strip().lower()[:3])
    except ValueError:
        raise ClientError(f"{day!r} is not a day: one of {', '.join(WEEKDAYS)}") from None


def _scope(scope: str) -> ScopesEnum:
    try:
        return ScopesEnum(scope.strip())
    except ValueError:
        raise ClientError(f"{scope!r} is not a scope: one of {', '.join(SCOPES)}") from None


def _platform(platform: str) -> ConnectLinkCreatePlatformsEnum:
    try:
        return ConnectLinkCreatePlatformsEnum(platform.strip().lower())
    except ValueError:
        raise ClientError(f"{platform!r} is not a platform: one of {', '.join(PLATFORMS)}") from None


def _given(**values: Any) -> dict[str, Any]:
    """The keyword arguments that have a value (the generated code's UNSET stands for the rest)."""
    return {name: value for name, value in values.items() if value is not None}


def _uuid(value: str) -> uuid.UUID:
    try:
        return uuid.UUID(value)
    except ValueError:
        raise ClientError(f"{value!r} is not an id (a UUID)") from None


def _json(content: bytes) -> Any:
    try:
        return json.loads(content)
    except ValueError:
        return None


def _reason(exc: Exception) -> str:
    text = str(exc)
    return "connection refused (is the service running?)" if "refused" in text.lower() else text or type(exc).__name__

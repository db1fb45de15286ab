"""The MCP tools: each one is one documented REST operation, executed in-process (`rest`).

Who may do what is decided by the REST API alone. A tool forwards the caller's
`Authorization` header (the `/mcp` request's, or the key `manage.py mcp` was started with) to
the operation it stands for and returns that operation's JSON body unchanged. A refusal
(401, 403 `authorization_error`, 404, 429, a 400 with its field details...) becomes an error
result (`isError`) whose text is `{"status": ..., "error": {type, code, message, request_id,
details?}}`, the API's own error object. So a key without `posts:write` lists publishes but
cannot create one, exactly as over HTTP, and a tool sees only its caller's team.

The key is never logged: it travels only in the header of the in-process request.
"""

from __future__ import annotations

import contextvars
import json
from typing import Annotated, Any, Literal

from asgiref.sync import sync_to_async
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field

from config.middleware import current_request_id
from mcpserver import rest

# Set by `manage.py mcp` for its one caller; unset in the web process, where each request
# brings its own header.
stdio_authorization: contextvars.ContextVar[str | None] = contextvars.ContextVar("stdio_authorization", default=None)

server: MCPServer[Any] = MCPServer(
    name="social-publishing",
    title="Social Publishing",
    instructions=(
        "Publishes posts to X, Instagram, TikTok, YouTube, Facebook, LinkedIn, Pinterest, Threads and "
        "Bluesky. Find account ids with list_accounts, check a post with validate_publish, send or schedule "
        "it with create_publish, then follow it with get_publish until its status is published, failed "
        "or partial. publish_mode queue takes the first free slot of each account's posting schedule "
        "(get_posting_schedule, set_posting_schedule); bulk_create_publishes creates many posts at once, "
        "all or none, and checks them first with dry_run. Media is attached by id: upload_media_from_url, "
        "wait for fetch_status done, confirm_media_upload, then pass the id in media_ids. A SaaS serving its "
        "own customers, with a user key: create_team per customer, create_team_key for the key that acts in "
        "it, create_connect_link for a page where the customer connects accounts (get_connect_link shows "
        "which), disconnect_account to remove one."
    ),
)

Platform = Literal["x", "instagram", "tiktok", "youtube", "facebook", "linkedin", "pinterest", "threads", "bluesky"]
AccountStatus = Literal["active", "expired", "disabled", "disconnected"]
Scope = Literal[
    "accounts:read",
    "accounts:write",
    "analytics:read",
    "billing:read",
    "media:read",
    "media:write",
    "posts:read",
    "posts:write",
    "teams:read",
    "teams:write",
    "webhooks:read",
    "webhooks:write",
]
PublishStatus = Literal["draft", "scheduled", "publishing", "processing", "published", "failed", "partial"]
ContentType = Literal["image/jpeg", "image/png", "image/gif", "image/webp", "video/mp4", "video/quicktime"]
Weekday = Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
Uuid = Annotated[str, Field(description="An id (UUID) as the API returns it.")]
Page = Annotated[int | None, Field(ge=1, description="Page number, from 1.")]
PageSize = Annotated[int | None, Field(ge=1, le=100, description="Items per page (at most 100).")]

_READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
_WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=True)
# Writes that stay inside this service (no platform is called).
_LOCAL_WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
_REVOKE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False)


def _authorization(ctx: Context) -> str:
    fixed = stdio_authorization.get()
    if fixed is not None:
        return fixed
    headers = ctx.headers or {}
    return headers.get("authorization", "")


async def _api(
    ctx: Context,
    method: str,
    path: str,
    *,
    params: dict[str, Any] | None = None,
    body: Any = None,
    headers: dict[str, str] | None = None,
) -> CallToolResult:
    headers = dict(headers or {})
    request_id = current_request_id()
    if request_id != "-":  # the /mcp request's id: its log lines and the API's share it
        headers["X-Request-ID"] = request_id
    # thread_sensitive: under /mcp this runs on the web request's own thread (and database
    # connection); under stdio, on the one thread asgiref keeps for synchronous code.
    answer = await sync_to_async(rest.call, thread_sensitive=True)(
        method, path, authorization=_authorization(ctx), params=params, json_body=body, headers=headers
    )
    if not answer.ok:
        return CallToolResult(content=[TextContent(type="text", text=_error_text(answer))], is_error=True)
    body = answer.body if isinstance(answer.body, dict) else {"data": answer.body}
    return CallToolResult(content=[TextContent(type="text", text=json.dumps(body))], structured_content=body)


def _error_text(answer: rest.Answer) -> str:
    body = answer.body if isinstance(answer.body, dict) else {}
    error = body.get("error") or {
        "type": "api_error",
        "code": f"HTTP_{answer.status}",
        "message": "The API answered without an error object.",
        "request_id": answer.request_id,
    }
    return json.dumps({"status": answer.status, "error": error})


def _paging(page: int | None, page_size: int | None) -> dict[str, Any]:
    return {"page": page, "page_size": page_size}


# --- accounts --------------------------------------------------------------------------------


@server.tool(annotations=_READ)
async def list_accounts(
    ctx: Context,
    platform: Annotated[list[Platform] | None, Field(description="Only accounts on these platforms.")] = None,
    status: Annotated[list[AccountStatus] | None, Field(description="Only accounts in these states.")] = None,
    page: Page = None,
    page_size: PageSize = None,
) -> CallToolResult:
    """The team's connected social accounts (id, platform, handle, status, capabilities), oldest
    first. Needs accounts:read. Use an account's id as a target's account_id."""
    params = {"platform": platform, "status": status, **_paging(page, page_size)}
    return await _api(ctx, "GET", "/accounts", params=params)


class Slot(BaseModel):
    day: Weekday
    time: str = Field(description="Wall-clock time in the schedule's zone, HH:MM (00:00 to 23:59).")


@server.tool(annotations=_READ)
async def get_posting_schedule(ctx: Context, account_id: Uuid) -> CallToolResult:
    """An account's posting schedule: its time zone, weekly slots and next free slot instants
    (UTC), the slots publish_mode queue fills. Needs accounts:read."""
    return await _api(ctx, "GET", f"/accounts/{account_id}/schedule")


@server.tool(annotations=ToolAnnotations(read_only_hint=False, idempotent_hint=True, open_world_hint=False))
async def set_posting_schedule(
    ctx: Context,
    account_id: Uuid,
    timezone: Annotated[str, Field(description="IANA time zone name the slots are read in, e.g. Europe/Paris.")],
    slots: Annotated[list[Slot], Field(description="The weekly slots, at most 168; an empty list clears them.")],
) -> CallToolResult:
    """Replaces an account's posting schedule (zone and weekly slots); answers it with its next
    free slots. Needs accounts:write."""
    body = {"timezone": timezone, "slots": [slot.model_dump() for slot in slots]}
    return await _api(ctx, "PUT", f"/accounts/{account_id}/schedule", body=body)


@server.tool(annotations=_READ)
async def get_account_capabilities(
    ctx: Context,
    account_id: Uuid,
    refresh: Annotated[bool, Field(description="Read live options from the platform, not the cache.")] = False,
) -> CallToolResult:
    """What an account accepts: a JSON Schema of its platform_settings, its media limits and
    formats, and live options (TikTok creator info, Pinterest boards, YouTube categories).
    Needs accounts:read."""
    return await _api(ctx, "GET", f"/accounts/{account_id}/capabilities", params={"refresh": refresh})


@server.tool(
    annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=True)
)
async def disconnect_account(ctx: Context, account_id: Uuid) -> CallToolResult:
    """Disconnects an account: forgets its tokens and revokes them at the platform where it can
    (token_revoked says whether the platform confirmed). It leaves list_accounts, its published
    history stays, and publishes naming it are refused (ACCOUNT_DISCONNECTED). Disconnecting it
    again answers already_disconnected true. Needs accounts:write."""
    return await _api(ctx, "DELETE", f"/accounts/{account_id}")


# --- teams and their keys --------------------------------------------------------------------


@server.tool(annotations=_LOCAL_WRITE)
async def create_team(
    ctx: Context, name: Annotated[str, Field(description="The team's name, e.g. the customer's.")]
) -> CallToolResult:
    """Creates a team owned by the key's user, one per customer a SaaS serves: its accounts,
    publishes, media and webhooks stay apart. Mint its key with create_team_key. Needs
    teams:write and a user key: a team key gets 403 USER_KEY_REQUIRED."""
    return await _api(ctx, "POST", "/teams", body={"name": name})


@server.tool(annotations=_LOCAL_WRITE)
async def create_team_key(
    ctx: Context,
    team_id: Uuid,
    name: Annotated[str, Field(description="What the key is for, to tell keys apart.")],
    scopes: Annotated[
        list[Scope], Field(min_length=1, description="What the key may do; each one the calling key holds.")
    ],
    expires_at: Annotated[
        str | None, Field(description="ISO 8601 time in the future when it stops working; omitted: never.")
    ] = None,
) -> CallToolResult:
    """Creates a key locked to the team, acting as its owner; the answer shows the key (sk_...)
    this once. A scope the calling key lacks is 403 SCOPE_ESCALATION. The team's owner only, with
    a key bound to the team (a user key of its owner, or a team key of that team). Needs
    teams:write."""
    body: dict[str, Any] = {"name": name, "scopes": scopes}
    if expires_at is not None:
        body["expires_at"] = expires_at
    return await _api(ctx, "POST", f"/teams/{team_id}/keys", body=body)


@server.tool(annotations=_READ)
async def list_team_keys(ctx: Context, team_id: Uuid, page: Page = None, page_size: PageSize = None) -> CallToolResult:
    """The team's keys that are not revoked, newest first: name, public prefix, scopes, when
    made, last used and expiring. Never the key itself. The team's owner only. Needs teams:read."""
    return await _api(ctx, "GET", f"/teams/{team_id}/keys", params=_paging(page, page_size))


@server.tool(annotations=_REVOKE)
async def revoke_team_key(ctx: Context, team_id: Uuid, key_id: Uuid) -> CallToolResult:
    """Revokes a key of the team at once: its next request is refused (401 API_KEY_REVOKED).
    Answers data null; 404 API_KEY_NOT_FOUND for a key that is not a live key of this team. The
    team's owner only. Needs teams:write."""
    return await _api(ctx, "DELETE", f"/teams/{team_id}/keys/{key_id}")


# --- connect links ---------------------------------------------------------------------------


class Branding(BaseModel):
    name: str = Field(max_length=100, description='The brand the page names: "Connect your accounts to <name>".')
    logo_url: str | None = Field(
        default=None, description="A PNG, JPEG or GIF of at most 256 KB; the service fetches it once, now."
    )
    accent_color: str | None = Field(default=None, description="#rrggbb, the page's buttons and links.")


@server.tool(annotations=_LOCAL_WRITE)
async def create_connect_link(
    ctx: Context,
    redirect_url: Annotated[
        str,
        Field(
            description="Where the browser goes after each connection or a cancel, with connect_link, status "
            "and accounts added to its query. https (http only to localhost, in development)."
        ),
    ],
    platforms: Annotated[
        list[Platform] | None, Field(description="The platforms the page offers, in order; default: all it can.")
    ] = None,
    expires_in: Annotated[
        int | None, Field(ge=60, le=604800, description="Seconds the link stays usable; default 3600.")
    ] = None,
    branding: Annotated[Branding | None, Field(description="How the page presents itself; default plain.")] = None,
) -> CallToolResult:
    """Creates a connect link: a page on this service (url, no login) where someone outside the
    team, such as a SaaS's customer, connects their accounts into the key's team, then is sent
    to redirect_url. It stays usable until it expires or is revoked; follow it with
    get_connect_link. Needs accounts:write."""
    body: dict[str, Any] = {"redirect_url": redirect_url}
    if platforms is not None:
        body["platforms"] = platforms
    if expires_in is not None:
        body["expires_in"] = expires_in
    if branding is not None:
        body["branding"] = branding.model_dump(exclude_none=True)
    return await _api(ctx, "POST", "/connect-links", body=body)


@server.tool(annotations=_READ)
async def get_connect_link(ctx: Context, link_id: Uuid) -> CallToolResult:
    """A connect link: its url, status (pending, connected, cancelled, expired or revoked) and
    the accounts connected through it. Needs accounts:read."""
    return await _api(ctx, "GET", f"/connect-links/{link_id}")


@server.tool(annotations=_READ)
async def list_connect_links(ctx: Context, page: Page = None, page_size: PageSize = None) -> CallToolResult:
    """The team's connect links, newest first, expired and revoked ones included. Needs
    accounts:read."""
    return await _api(ctx, "GET", "/connect-links", params=_paging(page, page_size))


@server.tool(annotations=_REVOKE)
async def revoke_connect_link(ctx: Context, link_id: Uuid) -> CallToolResult:
    """Revokes a connect link: its page answers 410 from now on. Accounts already connected
    through it stay connected. Needs accounts:write."""
    return await _api(ctx, "DELETE", f"/connect-links/{link_id}")


# --- publishes -------------------------------------------------------------------------------


class ThreadItem(BaseModel):
    content: str = ""
    media_ids: list[str] = Field(default_factory=list, description="Confirmed media ids.")


class Target(BaseModel):
    account_id: str = Field(description="A connected account of the team (list_accounts).")
    content: str | None = Field(default=None, description="This target's own text; omitted inherits the post's.")
    media_ids: list[str] | None = Field(default=None, description="This target's own media; omitted inherits.")
    platform_settings: dict[str, Any] | None = Field(
        default=None, description="Platform options, as get_account_capabilities' schema describes them."
    )
    thread: list[ThreadItem] | None = Field(
        default=None, description="X, Bluesky and Threads: replies published after the post, in order."
    )


Content = Annotated[str, Field(description="Default text of every target.")]
MediaIds = Annotated[list[str] | None, Field(description="Ids of confirmed media; default media of every target.")]
Targets = Annotated[list[Target], Field(min_length=1, description="One entry per account to publish to.")]
PublishMode = Literal["immediate", "scheduled", "draft", "queue"]
Mode = Annotated[
    PublishMode | None,
    Field(
        description="Default: scheduled when scheduled_at is given, else immediate. queue (no scheduled_at): at "
        "the first posting-schedule slot every target's account has free."
    ),
]
ScheduledAt = Annotated[str | None, Field(description="ISO 8601 time in the future, e.g. 2030-01-01T09:00:00Z.")]


def _publish_body(
    content: str, media_ids: list[str] | None, targets: list[Target], mode: str | None, scheduled_at: str | None
) -> dict[str, Any]:
    body: dict[str, Any] = {"content": content, "targets": [t.model_dump(exclude_none=True) for t in targets]}
    optional = {"media_ids": media_ids, "publish_mode": mode, "scheduled_at": scheduled_at}
    body.update({name: value for name, value in optional.items() if value is not None})
    return body


@server.tool(annotations=_READ)
async def validate_publish(
    ctx: Context,
    targets: Targets,
    content: Content = "",
    media_ids: MediaIds = None,
    publish_mode: Mode = None,
    scheduled_at: ScheduledAt = None,
) -> CallToolResult:
    """Runs every check create_publish would run on the same arguments and creates nothing:
    answers valid, the status the create would answer, its error, and every problem per target
    (text length and limit as each platform counts them). Needs posts:write."""
    body = _publish_body(content, media_ids, targets, publish_mode, scheduled_at)
    return await _api(ctx, "POST", "/publishes/validate", body=body)


@server.tool(annotations=_WRITE)
async def create_publish(
    ctx: Context,
    targets: Targets,
    content: Content = "",
    media_ids: MediaIds = None,
    publish_mode: Mode = None,
    scheduled_at: ScheduledAt = None,
    idempotency_key: Annotated[
        str | None, Field(description="Makes a repeat of this call (same arguments) return the first publish.")
    ] = None,
) -> CallToolResult:
    """Creates a publish: sent now (status publishing), at scheduled_at (scheduled), at the
    accounts' next free posting-schedule slot (queue; 400 NO_QUEUE_SLOTS when an account has
    none), or kept as a draft. Follow it with get_publish. In a team that requires approval a member's publish waits
    as pending_approval. Needs posts:write."""
    body = _publish_body(content, media_ids, targets, publish_mode, scheduled_at)
    headers = {"Idempotency-Key": idempotency_key} if idempotency_key is not None else None
    return await _api(ctx, "POST", "/publishes", body=body, headers=headers)


class BulkRow(BaseModel):
    """One row of bulk_create_publishes: create_publish's arguments."""

    targets: list[Target] = Field(min_length=1, description="One entry per account to publish to.")
    content: str = Field(default="", description="Default text of every target.")
    media_ids: list[str] | None = Field(default=None, description="Confirmed media ids; default of every target.")
    publish_mode: PublishMode | None = Field(default=None, description="As create_publish's publish_mode.")
    scheduled_at: str | None = Field(default=None, description="ISO 8601 time in the future.")


@server.tool(annotations=_WRITE)
async def bulk_create_publishes(
    ctx: Context,
    rows: Annotated[list[BulkRow], Field(min_length=1, max_length=500, description="Up to 500 publishes.")],
    dry_run: Annotated[
        bool, Field(description="Check every row and answer each one's verdict; create nothing.")
    ] = False,
    idempotency_key: Annotated[
        str | None, Field(description="Makes a repeat of this call (same rows) return the first answer.")
    ] = None,
) -> CallToolResult:
    """Creates every row, all of them or none: the publishes in row order. When a row would be
    refused nothing is created and the error's details.rows names each one by index (from 0)
    with its problems. dry_run answers each row's verdict and meta.valid for the batch. Queued
    rows take successive slots. Every row counts against the month's posts. Needs posts:write."""
    body = {
        "publishes": [
            _publish_body(row.content, row.media_ids, row.targets, row.publish_mode, row.scheduled_at) for row in rows
        ]
    }
    headers = {"Idempotency-Key": idempotency_key} if idempotency_key is not None else None
    return await _api(ctx, "POST", "/publishes/bulk", params={"dry_run": dry_run}, body=body, headers=headers)


@server.tool(annotations=_WRITE)
async def reschedule_publish(
    ctx: Context,
    publish_id: Uuid,
    scheduled_at: Annotated[str, Field(description="The new ISO 8601 time, in the future.")],
) -> CallToolResult:
    """Moves a scheduled publish that has not been sent yet to a new time. Needs posts:write."""
    return await _api(ctx, "POST", f"/publishes/{publish_id}/reschedule", body={"scheduled_at": scheduled_at})


@server.tool(annotations=_READ)
async def get_publish(ctx: Context, publish_id: Uuid) -> CallToolResult:
    """A publish with every target's status, platform post id, live URL and failure evidence.
    Call it again to follow a publish until published, failed or partial. Needs posts:read."""
    return await _api(ctx, "GET", f"/publishes/{publish_id}")


@server.tool(annotations=_READ)
async def list_publishes(
    ctx: Context,
    status: Annotated[list[PublishStatus] | None, Field(description="Only publishes in these states.")] = None,
    platform: Annotated[list[Platform] | None, Field(description="Only publishes with a target there.")] = None,
    account_id: Annotated[str | None, Field(description="Only publishes with a target on this account.")] = None,
    created_after: Annotated[str | None, Field(description="ISO 8601; only publishes created after it.")] = None,
    created_before: Annotated[
        str | None, Field(description="ISO 8601; only publishes created before it (continues a list past 10,000).")
    ] = None,
    page: Page = None,
    page_size: PageSize = None,
) -> CallToolResult:
    """The team's publishes, newest first, with their targets and pagination. Needs posts:read."""
    params = {
        "status": status,
        "platform": platform,
        "account_id": account_id,
        "created_after": created_after,
        "created_before": created_before,
        **_paging(page, page_size),
    }
    return await _api(ctx, "GET", "/publishes", params=params)


# --- approvals -------------------------------------------------------------------------------


@server.tool(annotations=_READ)
async def list_approvals(ctx: Context, page: Page = None, page_size: PageSize = None) -> CallToolResult:
    """Publishes waiting for approval: all of the team's for owners and admins, a member's own
    otherwise. Needs posts:read."""
    return await _api(ctx, "GET", "/approvals", params=_paging(page, page_size))


@server.tool(annotations=_WRITE)
async def approve_publish(ctx: Context, publish_id: Uuid) -> CallToolResult:
    """Approves a publish waiting for approval and releases it (a scheduled one at its time).
    Owners and admins only. Needs posts:write."""
    return await _api(ctx, "POST", f"/publishes/{publish_id}/approve")


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False))
async def reject_publish(
    ctx: Context,
    publish_id: Uuid,
    reason: Annotated[str, Field(description="Why; recorded and sent with the post.rejected event.")] = "",
) -> CallToolResult:
    """Rejects a publish waiting for approval; it is never sent. Owners and admins only. Needs
    posts:write."""
    return await _api(ctx, "POST", f"/publishes/{publish_id}/reject", body={"reason": reason})


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=True))
async def unpublish_publish(
    ctx: Context,
    publish_id: Uuid,
    target_ids: Annotated[
        list[Uuid] | None,
        Field(description="The targets to take down; omit for every published target."),
    ] = None,
) -> CallToolResult:
    """Takes a publish's posts down: deletes them on their networks (with their replies and first
    comment on X, Bluesky and Threads). Each target then shows removed_at and removed_by "user",
    or removal_error where the network has no delete call (TikTok, Instagram) or refused.
    409 NOTHING_PUBLISHED when nothing is published. Needs posts:write."""
    body = {"target_ids": target_ids} if target_ids is not None else {}
    return await _api(ctx, "POST", f"/publishes/{publish_id}/unpublish", body=body)


# --- media -----------------------------------------------------------------------------------


@server.tool(annotations=_WRITE)
async def upload_media_from_url(
    ctx: Context,
    url: Annotated[str, Field(description="A public http(s) URL of the file; the service fetches it.")],
    filename: Annotated[str, Field(description="The file's name, e.g. launch.jpg.")],
    content_type: ContentType,
    size_bytes: Annotated[
        int | None, Field(ge=1, description="The file's size, when known: a larger download is refused.")
    ] = None,
) -> CallToolResult:
    """Starts an upload that the service fetches from url. Follow fetch_status with
    get_media_upload; once it is done, call confirm_media_upload, then use the media id in
    media_ids. Needs media:write."""
    body: dict[str, Any] = {"filename": filename, "content_type": content_type, "source_url": url}
    if size_bytes is not None:
        body["size_bytes"] = size_bytes
    return await _api(ctx, "POST", "/media/uploads", body=body)


@server.tool(annotations=_READ)
async def get_media_upload(ctx: Context, media_id: Uuid) -> CallToolResult:
    """An upload in any state, with the progress of its fetch (fetch_status, fetch_error) and,
    once confirmed, its probe. Needs media:read."""
    return await _api(ctx, "GET", f"/media/uploads/{media_id}")


@server.tool(annotations=_WRITE)
async def confirm_media_upload(ctx: Context, media_id: Uuid) -> CallToolResult:
    """Checks the fetched file's size and real type and marks it ready for media_ids (a 409
    FETCH_IN_PROGRESS means: wait and confirm again). Needs media:write."""
    return await _api(ctx, "POST", f"/media/uploads/{media_id}/confirm")


@server.tool(annotations=_READ)
async def list_media(ctx: Context, page: Page = None, page_size: PageSize = None) -> CallToolResult:
    """The team's confirmed media, newest first. Needs media:read."""
    return await _api(ctx, "GET", "/media", params=_paging(page, page_size))


# --- analytics -------------------------------------------------------------------------------


@server.tool(annotations=_READ)
async def list_post_analytics(
    ctx: Context,
    platform: Annotated[list[Platform] | None, Field(description="Count only targets on these platforms.")] = None,
    sort: Annotated[
        Literal["published_at", "total_views", "total_likes", "total_comments", "total_shares"] | None,
        Field(description="Default published_at."),
    ] = None,
    order: Literal["desc", "asc"] | None = None,
    page: Page = None,
    page_size: PageSize = None,
) -> CallToolResult:
    """Published posts with their total views, likes, comments and shares. Needs analytics:read."""
    params = {"platform": platform, "sort": sort, "order": order, **_paging(page, page_size)}
    return await _api(ctx, "GET", "/analytics/posts", params=params)


@server.tool(annotations=_READ)
async def get_post_analytics(ctx: Context, publish_id: Uuid) -> CallToolResult:
    """One published post's totals and, per platform, its metrics, live link and platform fields.
    Needs analytics:read."""
    return await _api(ctx, "GET", f"/analytics/posts/{publish_id}")

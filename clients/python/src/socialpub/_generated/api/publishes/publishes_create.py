from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.create_publish_request import CreatePublishRequest
from ...models.error_response import ErrorResponse
from ...models.publish_created_response import PublishCreatedResponse
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: CreatePublishRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/publishes",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | PublishCreatedResponse | None:
    if response.status_code == 201:
        response_201 = PublishCreatedResponse.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = ErrorResponse.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorResponse.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ErrorResponse.from_dict(response.json())

        return response_403

    if response.status_code == 409:
        response_409 = ErrorResponse.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = ErrorResponse.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = ErrorResponse.from_dict(response.json())

        return response_429

    if response.status_code == 500:
        response_500 = ErrorResponse.from_dict(response.json())

        return response_500

    if response.status_code == 503:
        response_503 = ErrorResponse.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorResponse | PublishCreatedResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: CreatePublishRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ErrorResponse | PublishCreatedResponse]:
    """Create a publish

     Requires scope `posts:write`.

    Creates one publish with one target per account. `publish_mode` is `immediate` (answers
    `publishing`; poll `GET /publishes/{id}`), `scheduled` (needs a future `scheduled_at`) or
    `draft` (nothing sent until `POST /publishes/{id}/confirm`). Without `publish_mode`, a
    request with `scheduled_at` is scheduled and one without is immediate.

    Each target's effective post (its own content/media_ids/platform_settings, else the
    publish's) is checked against its platform's limits; a problem is 400 with its code and
    `details.targets[]` naming the target. In a team that requires approval, a request from a
    member's key waits as `approval_status: pending_approval`. Immediate and scheduled publishes
    count against `posts_per_month` (429 `quota_exceeded` when used up); drafts count when confirmed.

    **Duplicate content**: when a target's text (trimmed, whitespace collapsed) went, or is set to
    go, to the same account within the team's window (`duplicate_window_hours`, 72 by default,
    before or after this publish's time), the answer's `warnings` names it:
    `{"code": "DUPLICATE_CONTENT", "account_id", "publish_id"}` (the most recent such publish),
    one per target at most; `[]` when none. Failed targets, unconfirmed drafts and rejected or
    discarded publishes do not count. In a team with `block_duplicates`, the create is refused
    instead: 409 `DUPLICATE_CONTENT` with `details.account_id` and `details.publish_id`, nothing
    created.

    **Idempotency-Key** (optional header, 1-255 characters, kept 24 hours per team): a repeat
    with the same body replays the first answer; 409 while the first is in flight or for a
    different body. After a 503 `PUBLISH_DISPATCH_UNCERTAIN` the same request with the same key
    sends that publish (`details.publish_id`) and creates no other.

    Args:
        idempotency_key (str | Unset):
        body (CreatePublishRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | PublishCreatedResponse]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: CreatePublishRequest,
    idempotency_key: str | Unset = UNSET,
) -> ErrorResponse | PublishCreatedResponse | None:
    """Create a publish

     Requires scope `posts:write`.

    Creates one publish with one target per account. `publish_mode` is `immediate` (answers
    `publishing`; poll `GET /publishes/{id}`), `scheduled` (needs a future `scheduled_at`) or
    `draft` (nothing sent until `POST /publishes/{id}/confirm`). Without `publish_mode`, a
    request with `scheduled_at` is scheduled and one without is immediate.

    Each target's effective post (its own content/media_ids/platform_settings, else the
    publish's) is checked against its platform's limits; a problem is 400 with its code and
    `details.targets[]` naming the target. In a team that requires approval, a request from a
    member's key waits as `approval_status: pending_approval`. Immediate and scheduled publishes
    count against `posts_per_month` (429 `quota_exceeded` when used up); drafts count when confirmed.

    **Duplicate content**: when a target's text (trimmed, whitespace collapsed) went, or is set to
    go, to the same account within the team's window (`duplicate_window_hours`, 72 by default,
    before or after this publish's time), the answer's `warnings` names it:
    `{"code": "DUPLICATE_CONTENT", "account_id", "publish_id"}` (the most recent such publish),
    one per target at most; `[]` when none. Failed targets, unconfirmed drafts and rejected or
    discarded publishes do not count. In a team with `block_duplicates`, the create is refused
    instead: 409 `DUPLICATE_CONTENT` with `details.account_id` and `details.publish_id`, nothing
    created.

    **Idempotency-Key** (optional header, 1-255 characters, kept 24 hours per team): a repeat
    with the same body replays the first answer; 409 while the first is in flight or for a
    different body. After a 503 `PUBLISH_DISPATCH_UNCERTAIN` the same request with the same key
    sends that publish (`details.publish_id`) and creates no other.

    Args:
        idempotency_key (str | Unset):
        body (CreatePublishRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | PublishCreatedResponse
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: CreatePublishRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ErrorResponse | PublishCreatedResponse]:
    """Create a publish

     Requires scope `posts:write`.

    Creates one publish with one target per account. `publish_mode` is `immediate` (answers
    `publishing`; poll `GET /publishes/{id}`), `scheduled` (needs a future `scheduled_at`) or
    `draft` (nothing sent until `POST /publishes/{id}/confirm`). Without `publish_mode`, a
    request with `scheduled_at` is scheduled and one without is immediate.

    Each target's effective post (its own content/media_ids/platform_settings, else the
    publish's) is checked against its platform's limits; a problem is 400 with its code and
    `details.targets[]` naming the target. In a team that requires approval, a request from a
    member's key waits as `approval_status: pending_approval`. Immediate and scheduled publishes
    count against `posts_per_month` (429 `quota_exceeded` when used up); drafts count when confirmed.

    **Duplicate content**: when a target's text (trimmed, whitespace collapsed) went, or is set to
    go, to the same account within the team's window (`duplicate_window_hours`, 72 by default,
    before or after this publish's time), the answer's `warnings` names it:
    `{"code": "DUPLICATE_CONTENT", "account_id", "publish_id"}` (the most recent such publish),
    one per target at most; `[]` when none. Failed targets, unconfirmed drafts and rejected or
    discarded publishes do not count. In a team with `block_duplicates`, the create is refused
    instead: 409 `DUPLICATE_CONTENT` with `details.account_id` and `details.publish_id`, nothing
    created.

    **Idempotency-Key** (optional header, 1-255 characters, kept 24 hours per team): a repeat
    with the same body replays the first answer; 409 while the first is in flight or for a
    different body. After a 503 `PUBLISH_DISPATCH_UNCERTAIN` the same request with the same key
    sends that publish (`details.publish_id`) and creates no other.

    Args:
        idempotency_key (str | Unset):
        body (CreatePublishRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | PublishCreatedResponse]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: CreatePublishRequest,
    idempotency_key: str | Unset = UNSET,
) -> ErrorResponse | PublishCreatedResponse | None:
    """Create a publish

     Requires scope `posts:write`.

    Creates one publish with one target per account. `publish_mode` is `immediate` (answers
    `publishing`; poll `GET /publishes/{id}`), `scheduled` (needs a future `scheduled_at`) or
    `draft` (nothing sent until `POST /publishes/{id}/confirm`). Without `publish_mode`, a
    request with `scheduled_at` is scheduled and one without is immediate.

    Each target's effective post (its own content/media_ids/platform_settings, else the
    publish's) is checked against its platform's limits; a problem is 400 with its code and
    `details.targets[]` naming the target. In a team that requires approval, a request from a
    member's key waits as `approval_status: pending_approval`. Immediate and scheduled publishes
    count against `posts_per_month` (429 `quota_exceeded` when used up); drafts count when confirmed.

    **Duplicate content**: when a target's text (trimmed, whitespace collapsed) went, or is set to
    go, to the same account within the team's window (`duplicate_window_hours`, 72 by default,
    before or after this publish's time), the answer's `warnings` names it:
    `{"code": "DUPLICATE_CONTENT", "account_id", "publish_id"}` (the most recent such publish),
    one per target at most; `[]` when none. Failed targets, unconfirmed drafts and rejected or
    discarded publishes do not count. In a team with `block_duplicates`, the create is refused
    instead: 409 `DUPLICATE_CONTENT` with `details.account_id` and `details.publish_id`, nothing
    created.

    **Idempotency-Key** (optional header, 1-255 characters, kept 24 hours per team): a repeat
    with the same body replays the first answer; 409 while the first is in flight or for a
    different body. After a 503 `PUBLISH_DISPATCH_UNCERTAIN` the same request with the same key
    sends that publish (`details.publish_id`) and creates no other.

    Args:
        idempotency_key (str | Unset):
        body (CreatePublishRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | PublishCreatedResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed

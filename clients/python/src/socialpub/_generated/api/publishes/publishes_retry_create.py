from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.publish_response import PublishResponse
from ...models.retry_publish_request import RetryPublishRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: UUID,
    *,
    body: RetryPublishRequest | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/publishes/{id}/retry".format(
            id=quote(str(id), safe=""),
        ),
    }

    if not isinstance(body, Unset):
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | PublishResponse | None:
    if response.status_code == 200:
        response_200 = PublishResponse.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorResponse.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorResponse.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ErrorResponse.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorResponse.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = ErrorResponse.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = ErrorResponse.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = ErrorResponse.from_dict(response.json())

        return response_429

    if response.status_code == 500:
        response_500 = ErrorResponse.from_dict(response.json())

        return response_500

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorResponse | PublishResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
    body: RetryPublishRequest | Unset = UNSET,
) -> Response[ErrorResponse | PublishResponse]:
    """Retry failed targets

     Requires scope `posts:write`.

    For a `failed` or `partial` publish (else 400): re-sends only the targets that failed with evidence;
    published targets and those whose outcome is unknown are never re-sent. Optional `targets[]` edits
    failed targets first: each entry names one by `target_id` (or `account_id`) and may set `content`,
    `media_ids`, `platform_settings`. An entry for a target that did not fail is 400; media the platform
    does not take is 422. In a team that requires approval, a member's retry that changes what a target
    sends does not re-send: the publish answers `approval_status: pending_approval` and approving it re-
    sends the edited targets (rejecting it keeps every target's outcome). A publish waiting for that
    approval, or rejected, cannot be retried (400 `NOT_RETRYABLE`).

    Args:
        id (UUID):
        body (RetryPublishRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | PublishResponse]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    *,
    client: AuthenticatedClient,
    body: RetryPublishRequest | Unset = UNSET,
) -> ErrorResponse | PublishResponse | None:
    """Retry failed targets

     Requires scope `posts:write`.

    For a `failed` or `partial` publish (else 400): re-sends only the targets that failed with evidence;
    published targets and those whose outcome is unknown are never re-sent. Optional `targets[]` edits
    failed targets first: each entry names one by `target_id` (or `account_id`) and may set `content`,
    `media_ids`, `platform_settings`. An entry for a target that did not fail is 400; media the platform
    does not take is 422. In a team that requires approval, a member's retry that changes what a target
    sends does not re-send: the publish answers `approval_status: pending_approval` and approving it re-
    sends the edited targets (rejecting it keeps every target's outcome). A publish waiting for that
    approval, or rejected, cannot be retried (400 `NOT_RETRYABLE`).

    Args:
        id (UUID):
        body (RetryPublishRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | PublishResponse
    """

    return sync_detailed(
        id=id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
    body: RetryPublishRequest | Unset = UNSET,
) -> Response[ErrorResponse | PublishResponse]:
    """Retry failed targets

     Requires scope `posts:write`.

    For a `failed` or `partial` publish (else 400): re-sends only the targets that failed with evidence;
    published targets and those whose outcome is unknown are never re-sent. Optional `targets[]` edits
    failed targets first: each entry names one by `target_id` (or `account_id`) and may set `content`,
    `media_ids`, `platform_settings`. An entry for a target that did not fail is 400; media the platform
    does not take is 422. In a team that requires approval, a member's retry that changes what a target
    sends does not re-send: the publish answers `approval_status: pending_approval` and approving it re-
    sends the edited targets (rejecting it keeps every target's outcome). A publish waiting for that
    approval, or rejected, cannot be retried (400 `NOT_RETRYABLE`).

    Args:
        id (UUID):
        body (RetryPublishRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | PublishResponse]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    *,
    client: AuthenticatedClient,
    body: RetryPublishRequest | Unset = UNSET,
) -> ErrorResponse | PublishResponse | None:
    """Retry failed targets

     Requires scope `posts:write`.

    For a `failed` or `partial` publish (else 400): re-sends only the targets that failed with evidence;
    published targets and those whose outcome is unknown are never re-sent. Optional `targets[]` edits
    failed targets first: each entry names one by `target_id` (or `account_id`) and may set `content`,
    `media_ids`, `platform_settings`. An entry for a target that did not fail is 400; media the platform
    does not take is 422. In a team that requires approval, a member's retry that changes what a target
    sends does not re-send: the publish answers `approval_status: pending_approval` and approving it re-
    sends the edited targets (rejecting it keeps every target's outcome). A publish waiting for that
    approval, or rejected, cannot be retried (400 `NOT_RETRYABLE`).

    Args:
        id (UUID):
        body (RetryPublishRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | PublishResponse
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
        )
    ).parsed

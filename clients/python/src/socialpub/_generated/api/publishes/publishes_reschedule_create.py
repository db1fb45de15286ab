from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.publish_response import PublishResponse
from ...models.reschedule_request import RescheduleRequest
from ...types import Response


def _get_kwargs(
    id: UUID,
    *,
    body: RescheduleRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/publishes/{id}/reschedule".format(
            id=quote(str(id), safe=""),
        ),
    }

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
    body: RescheduleRequest,
) -> Response[ErrorResponse | PublishResponse]:
    """Move a scheduled publish

     Requires scope `posts:write`.

    A scheduled publish not yet sent moves to a new future time (400 otherwise); else 422. In a team
    that requires approval, a member's move waits for approval again (`approval_status:
    pending_approval`); moving it to the time it has changes nothing.

    Args:
        id (UUID):
        body (RescheduleRequest):

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
    body: RescheduleRequest,
) -> ErrorResponse | PublishResponse | None:
    """Move a scheduled publish

     Requires scope `posts:write`.

    A scheduled publish not yet sent moves to a new future time (400 otherwise); else 422. In a team
    that requires approval, a member's move waits for approval again (`approval_status:
    pending_approval`); moving it to the time it has changes nothing.

    Args:
        id (UUID):
        body (RescheduleRequest):

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
    body: RescheduleRequest,
) -> Response[ErrorResponse | PublishResponse]:
    """Move a scheduled publish

     Requires scope `posts:write`.

    A scheduled publish not yet sent moves to a new future time (400 otherwise); else 422. In a team
    that requires approval, a member's move waits for approval again (`approval_status:
    pending_approval`); moving it to the time it has changes nothing.

    Args:
        id (UUID):
        body (RescheduleRequest):

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
    body: RescheduleRequest,
) -> ErrorResponse | PublishResponse | None:
    """Move a scheduled publish

     Requires scope `posts:write`.

    A scheduled publish not yet sent moves to a new future time (400 otherwise); else 422. In a team
    that requires approval, a member's move waits for approval again (`approval_status:
    pending_approval`); moving it to the time it has changes nothing.

    Args:
        id (UUID):
        body (RescheduleRequest):

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

from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.posting_schedule_input_request import PostingScheduleInputRequest
from ...models.posting_schedule_response import PostingScheduleResponse
from ...types import Response


def _get_kwargs(
    id: UUID,
    *,
    body: PostingScheduleInputRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/api/v1/accounts/{id}/schedule".format(
            id=quote(str(id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | PostingScheduleResponse | None:
    if response.status_code == 200:
        response_200 = PostingScheduleResponse.from_dict(response.json())

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
) -> Response[ErrorResponse | PostingScheduleResponse]:
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
    body: PostingScheduleInputRequest,
) -> Response[ErrorResponse | PostingScheduleResponse]:
    """Set an account's posting schedule

     Requires scope `accounts:write`.

    Replaces the time zone and the weekly slots (at most 168); an empty `slots` clears them. A slot is a
    wall-clock time in that zone. An unknown zone, day or time is a 400.

    Args:
        id (UUID):
        body (PostingScheduleInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | PostingScheduleResponse]
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
    body: PostingScheduleInputRequest,
) -> ErrorResponse | PostingScheduleResponse | None:
    """Set an account's posting schedule

     Requires scope `accounts:write`.

    Replaces the time zone and the weekly slots (at most 168); an empty `slots` clears them. A slot is a
    wall-clock time in that zone. An unknown zone, day or time is a 400.

    Args:
        id (UUID):
        body (PostingScheduleInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | PostingScheduleResponse
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
    body: PostingScheduleInputRequest,
) -> Response[ErrorResponse | PostingScheduleResponse]:
    """Set an account's posting schedule

     Requires scope `accounts:write`.

    Replaces the time zone and the weekly slots (at most 168); an empty `slots` clears them. A slot is a
    wall-clock time in that zone. An unknown zone, day or time is a 400.

    Args:
        id (UUID):
        body (PostingScheduleInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | PostingScheduleResponse]
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
    body: PostingScheduleInputRequest,
) -> ErrorResponse | PostingScheduleResponse | None:
    """Set an account's posting schedule

     Requires scope `accounts:write`.

    Replaces the time zone and the weekly slots (at most 168); an empty `slots` clears them. A slot is a
    wall-clock time in that zone. An unknown zone, day or time is a 400.

    Args:
        id (UUID):
        body (PostingScheduleInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | PostingScheduleResponse
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
        )
    ).parsed

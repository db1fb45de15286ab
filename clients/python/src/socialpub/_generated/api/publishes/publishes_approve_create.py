from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.approve_response import ApproveResponse
from ...models.error_response import ErrorResponse
from ...types import Response


def _get_kwargs(
    id: UUID,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/publishes/{id}/approve".format(
            id=quote(str(id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ApproveResponse | ErrorResponse | None:
    if response.status_code == 200:
        response_200 = ApproveResponse.from_dict(response.json())

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
) -> Response[ApproveResponse | ErrorResponse]:
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
) -> Response[ApproveResponse | ErrorResponse]:
    """Approve a pending publish

     Requires scope `posts:write`.

    Owners and admins of the team only (404 for anyone else). Releases the publish (a scheduled one at
    its time) and records approved_by/approved_at. Approving again answers `already_approved: true` and
    re-sends only jobs that never reached the queue. 400 when it is not pending approval; 503
    `PUBLISH_DISPATCH_UNCERTAIN` when the queue did not take the jobs (approve again to re-send them).

    Args:
        id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApproveResponse | ErrorResponse]
    """

    kwargs = _get_kwargs(
        id=id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    *,
    client: AuthenticatedClient,
) -> ApproveResponse | ErrorResponse | None:
    """Approve a pending publish

     Requires scope `posts:write`.

    Owners and admins of the team only (404 for anyone else). Releases the publish (a scheduled one at
    its time) and records approved_by/approved_at. Approving again answers `already_approved: true` and
    re-sends only jobs that never reached the queue. 400 when it is not pending approval; 503
    `PUBLISH_DISPATCH_UNCERTAIN` when the queue did not take the jobs (approve again to re-send them).

    Args:
        id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApproveResponse | ErrorResponse
    """

    return sync_detailed(
        id=id,
        client=client,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
) -> Response[ApproveResponse | ErrorResponse]:
    """Approve a pending publish

     Requires scope `posts:write`.

    Owners and admins of the team only (404 for anyone else). Releases the publish (a scheduled one at
    its time) and records approved_by/approved_at. Approving again answers `already_approved: true` and
    re-sends only jobs that never reached the queue. 400 when it is not pending approval; 503
    `PUBLISH_DISPATCH_UNCERTAIN` when the queue did not take the jobs (approve again to re-send them).

    Args:
        id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApproveResponse | ErrorResponse]
    """

    kwargs = _get_kwargs(
        id=id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    *,
    client: AuthenticatedClient,
) -> ApproveResponse | ErrorResponse | None:
    """Approve a pending publish

     Requires scope `posts:write`.

    Owners and admins of the team only (404 for anyone else). Releases the publish (a scheduled one at
    its time) and records approved_by/approved_at. Approving again answers `already_approved: true` and
    re-sends only jobs that never reached the queue. 400 when it is not pending approval; 503
    `PUBLISH_DISPATCH_UNCERTAIN` when the queue did not take the jobs (approve again to re-send them).

    Args:
        id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApproveResponse | ErrorResponse
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
        )
    ).parsed

from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.team_default_response import TeamDefaultResponse
from ...types import Response


def _get_kwargs(
    team_id: UUID,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/api/v1/teams/{team_id}/default".format(
            team_id=quote(str(team_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | TeamDefaultResponse | None:
    if response.status_code == 200:
        response_200 = TeamDefaultResponse.from_dict(response.json())

        return response_200

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

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorResponse | TeamDefaultResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    team_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Response[ErrorResponse | TeamDefaultResponse]:
    """Select the default team

     Requires scope `teams:write`.

    Makes the team the user's default: protected from deletion, the fallback when the user leaves a
    shared team and the preselected destination of a team deletion. The key must be bound to the team (a
    team key of that team, or a user key of one of its members): otherwise 403 `TEAM_MISMATCH`, also for
    a team the user is not in or an id that names no team. Its user must own it (403 `NOT_TEAM_OWNER`).
    Idempotent: selecting the current default answers 200 with `already_default: true`.

    Args:
        team_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | TeamDefaultResponse]
    """

    kwargs = _get_kwargs(
        team_id=team_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    team_id: UUID,
    *,
    client: AuthenticatedClient,
) -> ErrorResponse | TeamDefaultResponse | None:
    """Select the default team

     Requires scope `teams:write`.

    Makes the team the user's default: protected from deletion, the fallback when the user leaves a
    shared team and the preselected destination of a team deletion. The key must be bound to the team (a
    team key of that team, or a user key of one of its members): otherwise 403 `TEAM_MISMATCH`, also for
    a team the user is not in or an id that names no team. Its user must own it (403 `NOT_TEAM_OWNER`).
    Idempotent: selecting the current default answers 200 with `already_default: true`.

    Args:
        team_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | TeamDefaultResponse
    """

    return sync_detailed(
        team_id=team_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    team_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Response[ErrorResponse | TeamDefaultResponse]:
    """Select the default team

     Requires scope `teams:write`.

    Makes the team the user's default: protected from deletion, the fallback when the user leaves a
    shared team and the preselected destination of a team deletion. The key must be bound to the team (a
    team key of that team, or a user key of one of its members): otherwise 403 `TEAM_MISMATCH`, also for
    a team the user is not in or an id that names no team. Its user must own it (403 `NOT_TEAM_OWNER`).
    Idempotent: selecting the current default answers 200 with `already_default: true`.

    Args:
        team_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | TeamDefaultResponse]
    """

    kwargs = _get_kwargs(
        team_id=team_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    team_id: UUID,
    *,
    client: AuthenticatedClient,
) -> ErrorResponse | TeamDefaultResponse | None:
    """Select the default team

     Requires scope `teams:write`.

    Makes the team the user's default: protected from deletion, the fallback when the user leaves a
    shared team and the preselected destination of a team deletion. The key must be bound to the team (a
    team key of that team, or a user key of one of its members): otherwise 403 `TEAM_MISMATCH`, also for
    a team the user is not in or an id that names no team. Its user must own it (403 `NOT_TEAM_OWNER`).
    Idempotent: selecting the current default answers 200 with `already_default: true`.

    Args:
        team_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | TeamDefaultResponse
    """

    return (
        await asyncio_detailed(
            team_id=team_id,
            client=client,
        )
    ).parsed

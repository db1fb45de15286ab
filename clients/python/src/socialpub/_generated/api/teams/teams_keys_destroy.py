from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...types import Response


def _get_kwargs(
    team_id: UUID,
    key_id: UUID,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/api/v1/teams/{team_id}/keys/{key_id}".format(
            team_id=quote(str(team_id), safe=""),
            key_id=quote(str(key_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | ErrorResponse | None:
    if response.status_code == 204:
        response_204 = cast(Any, None)
        return response_204

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
) -> Response[Any | ErrorResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    team_id: UUID,
    key_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Response[Any | ErrorResponse]:
    """Revoke a team key

     Requires scope `teams:write`.

    Revokes the team key at once: from the next request it answers 401 `API_KEY_REVOKED`. 404
    `API_KEY_NOT_FOUND` for a key that is not a live team key of this team (another team's, a user key,
    an unknown id, or one already revoked).

    The key must be bound to the team: a team key of that team, or a user key of its owner (which may
    name any team its user owns). Otherwise 403 `TEAM_MISMATCH`, also for a team the user is not in or
    an id that names no team; a member who is not the owner gets 403 `NOT_TEAM_OWNER`.

    Args:
        team_id (UUID):
        key_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorResponse]
    """

    kwargs = _get_kwargs(
        team_id=team_id,
        key_id=key_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    team_id: UUID,
    key_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Any | ErrorResponse | None:
    """Revoke a team key

     Requires scope `teams:write`.

    Revokes the team key at once: from the next request it answers 401 `API_KEY_REVOKED`. 404
    `API_KEY_NOT_FOUND` for a key that is not a live team key of this team (another team's, a user key,
    an unknown id, or one already revoked).

    The key must be bound to the team: a team key of that team, or a user key of its owner (which may
    name any team its user owns). Otherwise 403 `TEAM_MISMATCH`, also for a team the user is not in or
    an id that names no team; a member who is not the owner gets 403 `NOT_TEAM_OWNER`.

    Args:
        team_id (UUID):
        key_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorResponse
    """

    return sync_detailed(
        team_id=team_id,
        key_id=key_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    team_id: UUID,
    key_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Response[Any | ErrorResponse]:
    """Revoke a team key

     Requires scope `teams:write`.

    Revokes the team key at once: from the next request it answers 401 `API_KEY_REVOKED`. 404
    `API_KEY_NOT_FOUND` for a key that is not a live team key of this team (another team's, a user key,
    an unknown id, or one already revoked).

    The key must be bound to the team: a team key of that team, or a user key of its owner (which may
    name any team its user owns). Otherwise 403 `TEAM_MISMATCH`, also for a team the user is not in or
    an id that names no team; a member who is not the owner gets 403 `NOT_TEAM_OWNER`.

    Args:
        team_id (UUID):
        key_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorResponse]
    """

    kwargs = _get_kwargs(
        team_id=team_id,
        key_id=key_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    team_id: UUID,
    key_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Any | ErrorResponse | None:
    """Revoke a team key

     Requires scope `teams:write`.

    Revokes the team key at once: from the next request it answers 401 `API_KEY_REVOKED`. 404
    `API_KEY_NOT_FOUND` for a key that is not a live team key of this team (another team's, a user key,
    an unknown id, or one already revoked).

    The key must be bound to the team: a team key of that team, or a user key of its owner (which may
    name any team its user owns). Otherwise 403 `TEAM_MISMATCH`, also for a team the user is not in or
    an id that names no team; a member who is not the owner gets 403 `NOT_TEAM_OWNER`.

    Args:
        team_id (UUID):
        key_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorResponse
    """

    return (
        await asyncio_detailed(
            team_id=team_id,
            key_id=key_id,
            client=client,
        )
    ).parsed

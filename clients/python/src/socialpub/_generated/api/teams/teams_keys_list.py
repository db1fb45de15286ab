from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.paginated_team_key_list import PaginatedTeamKeyList
from ...types import UNSET, Response, Unset


def _get_kwargs(
    team_id: UUID,
    *,
    page: int | Unset = 1,
    page_size: int | Unset = 20,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["page"] = page

    params["page_size"] = page_size

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/teams/{team_id}/keys".format(
            team_id=quote(str(team_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | PaginatedTeamKeyList | None:
    if response.status_code == 200:
        response_200 = PaginatedTeamKeyList.from_dict(response.json())

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

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorResponse | PaginatedTeamKeyList]:
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
    page: int | Unset = 1,
    page_size: int | Unset = 20,
) -> Response[ErrorResponse | PaginatedTeamKeyList]:
    """List a team's keys

     Requires scope `teams:read`.

    The team's team keys that are not revoked, whoever made them, newest first, expired ones included
    (see `expires_at`): name, public prefix, scopes and when each was made and last used (to the
    minute). Never the key itself.

    The key must be bound to the team: a team key of that team, or a user key of its owner (which may
    name any team its user owns). Otherwise 403 `TEAM_MISMATCH`, also for a team the user is not in or
    an id that names no team; a member who is not the owner gets 403 `NOT_TEAM_OWNER`.

    Args:
        team_id (UUID):
        page (int | Unset):  Default: 1.
        page_size (int | Unset):  Default: 20.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | PaginatedTeamKeyList]
    """

    kwargs = _get_kwargs(
        team_id=team_id,
        page=page,
        page_size=page_size,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    team_id: UUID,
    *,
    client: AuthenticatedClient,
    page: int | Unset = 1,
    page_size: int | Unset = 20,
) -> ErrorResponse | PaginatedTeamKeyList | None:
    """List a team's keys

     Requires scope `teams:read`.

    The team's team keys that are not revoked, whoever made them, newest first, expired ones included
    (see `expires_at`): name, public prefix, scopes and when each was made and last used (to the
    minute). Never the key itself.

    The key must be bound to the team: a team key of that team, or a user key of its owner (which may
    name any team its user owns). Otherwise 403 `TEAM_MISMATCH`, also for a team the user is not in or
    an id that names no team; a member who is not the owner gets 403 `NOT_TEAM_OWNER`.

    Args:
        team_id (UUID):
        page (int | Unset):  Default: 1.
        page_size (int | Unset):  Default: 20.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | PaginatedTeamKeyList
    """

    return sync_detailed(
        team_id=team_id,
        client=client,
        page=page,
        page_size=page_size,
    ).parsed


async def asyncio_detailed(
    team_id: UUID,
    *,
    client: AuthenticatedClient,
    page: int | Unset = 1,
    page_size: int | Unset = 20,
) -> Response[ErrorResponse | PaginatedTeamKeyList]:
    """List a team's keys

     Requires scope `teams:read`.

    The team's team keys that are not revoked, whoever made them, newest first, expired ones included
    (see `expires_at`): name, public prefix, scopes and when each was made and last used (to the
    minute). Never the key itself.

    The key must be bound to the team: a team key of that team, or a user key of its owner (which may
    name any team its user owns). Otherwise 403 `TEAM_MISMATCH`, also for a team the user is not in or
    an id that names no team; a member who is not the owner gets 403 `NOT_TEAM_OWNER`.

    Args:
        team_id (UUID):
        page (int | Unset):  Default: 1.
        page_size (int | Unset):  Default: 20.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | PaginatedTeamKeyList]
    """

    kwargs = _get_kwargs(
        team_id=team_id,
        page=page,
        page_size=page_size,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    team_id: UUID,
    *,
    client: AuthenticatedClient,
    page: int | Unset = 1,
    page_size: int | Unset = 20,
) -> ErrorResponse | PaginatedTeamKeyList | None:
    """List a team's keys

     Requires scope `teams:read`.

    The team's team keys that are not revoked, whoever made them, newest first, expired ones included
    (see `expires_at`): name, public prefix, scopes and when each was made and last used (to the
    minute). Never the key itself.

    The key must be bound to the team: a team key of that team, or a user key of its owner (which may
    name any team its user owns). Otherwise 403 `TEAM_MISMATCH`, also for a team the user is not in or
    an id that names no team; a member who is not the owner gets 403 `NOT_TEAM_OWNER`.

    Args:
        team_id (UUID):
        page (int | Unset):  Default: 1.
        page_size (int | Unset):  Default: 20.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | PaginatedTeamKeyList
    """

    return (
        await asyncio_detailed(
            team_id=team_id,
            client=client,
            page=page,
            page_size=page_size,
        )
    ).parsed

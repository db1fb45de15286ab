from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.team_key_create_request import TeamKeyCreateRequest
from ...models.team_key_created_response import TeamKeyCreatedResponse
from ...types import Response


def _get_kwargs(
    team_id: UUID,
    *,
    body: TeamKeyCreateRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/teams/{team_id}/keys".format(
            team_id=quote(str(team_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | TeamKeyCreatedResponse | None:
    if response.status_code == 201:
        response_201 = TeamKeyCreatedResponse.from_dict(response.json())

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
) -> Response[ErrorResponse | TeamKeyCreatedResponse]:
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
    body: TeamKeyCreateRequest,
) -> Response[ErrorResponse | TeamKeyCreatedResponse]:
    """Create a team key

     Requires scope `teams:write`.

    Creates a team key locked to the team, acting as its owner: give it to the customer the team serves,
    or keep it to act in that team. The answer shows the key once (`key`); only its hash is stored.

    The key must be bound to the team: a team key of that team, or a user key of its owner (which may
    name any team its user owns). Otherwise 403 `TEAM_MISMATCH`, also for a team the user is not in or
    an id that names no team; a member who is not the owner gets 403 `NOT_TEAM_OWNER`.

    **Scopes**: at least one, each one the calling key holds: a key never mints a stronger key (403
    `SCOPE_ESCALATION`, `details.missing_scopes` naming those it lacks; nothing is created). An unknown
    scope is a 400 `VALIDATION_ERROR`. `expires_at` must be in the future (400 `EXPIRES_AT_NOT_FUTURE`).

    Args:
        team_id (UUID):
        body (TeamKeyCreateRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | TeamKeyCreatedResponse]
    """

    kwargs = _get_kwargs(
        team_id=team_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    team_id: UUID,
    *,
    client: AuthenticatedClient,
    body: TeamKeyCreateRequest,
) -> ErrorResponse | TeamKeyCreatedResponse | None:
    """Create a team key

     Requires scope `teams:write`.

    Creates a team key locked to the team, acting as its owner: give it to the customer the team serves,
    or keep it to act in that team. The answer shows the key once (`key`); only its hash is stored.

    The key must be bound to the team: a team key of that team, or a user key of its owner (which may
    name any team its user owns). Otherwise 403 `TEAM_MISMATCH`, also for a team the user is not in or
    an id that names no team; a member who is not the owner gets 403 `NOT_TEAM_OWNER`.

    **Scopes**: at least one, each one the calling key holds: a key never mints a stronger key (403
    `SCOPE_ESCALATION`, `details.missing_scopes` naming those it lacks; nothing is created). An unknown
    scope is a 400 `VALIDATION_ERROR`. `expires_at` must be in the future (400 `EXPIRES_AT_NOT_FUTURE`).

    Args:
        team_id (UUID):
        body (TeamKeyCreateRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | TeamKeyCreatedResponse
    """

    return sync_detailed(
        team_id=team_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    team_id: UUID,
    *,
    client: AuthenticatedClient,
    body: TeamKeyCreateRequest,
) -> Response[ErrorResponse | TeamKeyCreatedResponse]:
    """Create a team key

     Requires scope `teams:write`.

    Creates a team key locked to the team, acting as its owner: give it to the customer the team serves,
    or keep it to act in that team. The answer shows the key once (`key`); only its hash is stored.

    The key must be bound to the team: a team key of that team, or a user key of its owner (which may
    name any team its user owns). Otherwise 403 `TEAM_MISMATCH`, also for a team the user is not in or
    an id that names no team; a member who is not the owner gets 403 `NOT_TEAM_OWNER`.

    **Scopes**: at least one, each one the calling key holds: a key never mints a stronger key (403
    `SCOPE_ESCALATION`, `details.missing_scopes` naming those it lacks; nothing is created). An unknown
    scope is a 400 `VALIDATION_ERROR`. `expires_at` must be in the future (400 `EXPIRES_AT_NOT_FUTURE`).

    Args:
        team_id (UUID):
        body (TeamKeyCreateRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | TeamKeyCreatedResponse]
    """

    kwargs = _get_kwargs(
        team_id=team_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    team_id: UUID,
    *,
    client: AuthenticatedClient,
    body: TeamKeyCreateRequest,
) -> ErrorResponse | TeamKeyCreatedResponse | None:
    """Create a team key

     Requires scope `teams:write`.

    Creates a team key locked to the team, acting as its owner: give it to the customer the team serves,
    or keep it to act in that team. The answer shows the key once (`key`); only its hash is stored.

    The key must be bound to the team: a team key of that team, or a user key of its owner (which may
    name any team its user owns). Otherwise 403 `TEAM_MISMATCH`, also for a team the user is not in or
    an id that names no team; a member who is not the owner gets 403 `NOT_TEAM_OWNER`.

    **Scopes**: at least one, each one the calling key holds: a key never mints a stronger key (403
    `SCOPE_ESCALATION`, `details.missing_scopes` naming those it lacks; nothing is created). An unknown
    scope is a 400 `VALIDATION_ERROR`. `expires_at` must be in the future (400 `EXPIRES_AT_NOT_FUTURE`).

    Args:
        team_id (UUID):
        body (TeamKeyCreateRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | TeamKeyCreatedResponse
    """

    return (
        await asyncio_detailed(
            team_id=team_id,
            client=client,
            body=body,
        )
    ).parsed

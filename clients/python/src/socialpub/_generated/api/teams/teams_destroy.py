from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.team_delete_request import TeamDeleteRequest
from ...models.team_deleted_response import TeamDeletedResponse
from ...types import Response


def _get_kwargs(
    team_id: UUID,
    *,
    body: TeamDeleteRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/api/v1/teams/{team_id}".format(
            team_id=quote(str(team_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | TeamDeletedResponse | None:
    if response.status_code == 200:
        response_200 = TeamDeletedResponse.from_dict(response.json())

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
) -> Response[ErrorResponse | TeamDeletedResponse]:
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
    body: TeamDeleteRequest,
) -> Response[ErrorResponse | TeamDeletedResponse]:
    """Delete a team, moving its content

     Requires scope `teams:write`.

    Deletes the team and moves its content to `destination_team_id`, in one transaction.

    **Who**: the team's owner, with a key bound to the team: a team key of that team, or a user key
    whose active team it is. The owner's selected default team is protected: select another default
    first.

    **Checks, in order**: 403 `TEAM_MISMATCH` when the key does not act in this team (also when its user
    is not a member of it, or no such team exists); 403 `NOT_TEAM_OWNER`; 403 `DEFAULT_TEAM_PROTECTED`;
    400 `VALIDATION_ERROR` for missing or malformed fields; 400 `CONFIRMATION_MISMATCH` unless
    `confirmation_name` equals the team name exactly (case and spaces count); 400 `INVALID_DESTINATION`
    unless the destination is another team the same user owns (an unknown id, the team itself or a team
    owned by someone else all count as invalid).

    **Moves**: connected accounts, publishes with their targets, attempts, analytics and schedules (a
    scheduled publish keeps its time and is sent from the destination), and media. An account the
    destination already has (same platform and platform account id) is merged: its publishes point to
    the destination's account, whose tokens and status are kept. Posts already counted against the plan
    are added to the destination's monthly count; moved accounts and media count against the
    destination's plan from now on, even above its limits.

    **Removes**: team keys of the team, webhooks with their pending deliveries, memberships, and the
    stored Idempotency-Keys. User keys whose active team was the team are revoked, not moved. The key
    that made the request is revoked (or deleted, for a team key): it answers 401 from now on.

    Args:
        team_id (UUID):
        body (TeamDeleteRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | TeamDeletedResponse]
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
    body: TeamDeleteRequest,
) -> ErrorResponse | TeamDeletedResponse | None:
    """Delete a team, moving its content

     Requires scope `teams:write`.

    Deletes the team and moves its content to `destination_team_id`, in one transaction.

    **Who**: the team's owner, with a key bound to the team: a team key of that team, or a user key
    whose active team it is. The owner's selected default team is protected: select another default
    first.

    **Checks, in order**: 403 `TEAM_MISMATCH` when the key does not act in this team (also when its user
    is not a member of it, or no such team exists); 403 `NOT_TEAM_OWNER`; 403 `DEFAULT_TEAM_PROTECTED`;
    400 `VALIDATION_ERROR` for missing or malformed fields; 400 `CONFIRMATION_MISMATCH` unless
    `confirmation_name` equals the team name exactly (case and spaces count); 400 `INVALID_DESTINATION`
    unless the destination is another team the same user owns (an unknown id, the team itself or a team
    owned by someone else all count as invalid).

    **Moves**: connected accounts, publishes with their targets, attempts, analytics and schedules (a
    scheduled publish keeps its time and is sent from the destination), and media. An account the
    destination already has (same platform and platform account id) is merged: its publishes point to
    the destination's account, whose tokens and status are kept. Posts already counted against the plan
    are added to the destination's monthly count; moved accounts and media count against the
    destination's plan from now on, even above its limits.

    **Removes**: team keys of the team, webhooks with their pending deliveries, memberships, and the
    stored Idempotency-Keys. User keys whose active team was the team are revoked, not moved. The key
    that made the request is revoked (or deleted, for a team key): it answers 401 from now on.

    Args:
        team_id (UUID):
        body (TeamDeleteRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | TeamDeletedResponse
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
    body: TeamDeleteRequest,
) -> Response[ErrorResponse | TeamDeletedResponse]:
    """Delete a team, moving its content

     Requires scope `teams:write`.

    Deletes the team and moves its content to `destination_team_id`, in one transaction.

    **Who**: the team's owner, with a key bound to the team: a team key of that team, or a user key
    whose active team it is. The owner's selected default team is protected: select another default
    first.

    **Checks, in order**: 403 `TEAM_MISMATCH` when the key does not act in this team (also when its user
    is not a member of it, or no such team exists); 403 `NOT_TEAM_OWNER`; 403 `DEFAULT_TEAM_PROTECTED`;
    400 `VALIDATION_ERROR` for missing or malformed fields; 400 `CONFIRMATION_MISMATCH` unless
    `confirmation_name` equals the team name exactly (case and spaces count); 400 `INVALID_DESTINATION`
    unless the destination is another team the same user owns (an unknown id, the team itself or a team
    owned by someone else all count as invalid).

    **Moves**: connected accounts, publishes with their targets, attempts, analytics and schedules (a
    scheduled publish keeps its time and is sent from the destination), and media. An account the
    destination already has (same platform and platform account id) is merged: its publishes point to
    the destination's account, whose tokens and status are kept. Posts already counted against the plan
    are added to the destination's monthly count; moved accounts and media count against the
    destination's plan from now on, even above its limits.

    **Removes**: team keys of the team, webhooks with their pending deliveries, memberships, and the
    stored Idempotency-Keys. User keys whose active team was the team are revoked, not moved. The key
    that made the request is revoked (or deleted, for a team key): it answers 401 from now on.

    Args:
        team_id (UUID):
        body (TeamDeleteRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | TeamDeletedResponse]
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
    body: TeamDeleteRequest,
) -> ErrorResponse | TeamDeletedResponse | None:
    """Delete a team, moving its content

     Requires scope `teams:write`.

    Deletes the team and moves its content to `destination_team_id`, in one transaction.

    **Who**: the team's owner, with a key bound to the team: a team key of that team, or a user key
    whose active team it is. The owner's selected default team is protected: select another default
    first.

    **Checks, in order**: 403 `TEAM_MISMATCH` when the key does not act in this team (also when its user
    is not a member of it, or no such team exists); 403 `NOT_TEAM_OWNER`; 403 `DEFAULT_TEAM_PROTECTED`;
    400 `VALIDATION_ERROR` for missing or malformed fields; 400 `CONFIRMATION_MISMATCH` unless
    `confirmation_name` equals the team name exactly (case and spaces count); 400 `INVALID_DESTINATION`
    unless the destination is another team the same user owns (an unknown id, the team itself or a team
    owned by someone else all count as invalid).

    **Moves**: connected accounts, publishes with their targets, attempts, analytics and schedules (a
    scheduled publish keeps its time and is sent from the destination), and media. An account the
    destination already has (same platform and platform account id) is merged: its publishes point to
    the destination's account, whose tokens and status are kept. Posts already counted against the plan
    are added to the destination's monthly count; moved accounts and media count against the
    destination's plan from now on, even above its limits.

    **Removes**: team keys of the team, webhooks with their pending deliveries, memberships, and the
    stored Idempotency-Keys. User keys whose active team was the team are revoked, not moved. The key
    that made the request is revoked (or deleted, for a team key): it answers 401 from now on.

    Args:
        team_id (UUID):
        body (TeamDeleteRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | TeamDeletedResponse
    """

    return (
        await asyncio_detailed(
            team_id=team_id,
            client=client,
            body=body,
        )
    ).parsed

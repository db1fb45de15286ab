from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.team_create_request import TeamCreateRequest
from ...models.team_created_response import TeamCreatedResponse
from ...types import Response


def _get_kwargs(
    *,
    body: TeamCreateRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/teams",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | TeamCreatedResponse | None:
    if response.status_code == 201:
        response_201 = TeamCreatedResponse.from_dict(response.json())

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
) -> Response[ErrorResponse | TeamCreatedResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: TeamCreateRequest,
) -> Response[ErrorResponse | TeamCreatedResponse]:
    """Create a team

     Requires scope `teams:write`.

    Creates a team owned by the key's user, who can then mint its keys (`POST /teams/{team_id}/keys`).
    For a SaaS that publishes for its own customers: one team per customer, each with its accounts,
    publishes, media and webhooks apart.

    **User keys only**: a team key is locked to its team and answers 403 `USER_KEY_REQUIRED`. The new
    team is on the plan of the team the key acts in, so making teams never escapes a plan's limits. It
    is not the default team (`is_default: false`) and the key keeps acting in the team it acted in. 400
    `VALIDATION_ERROR` for a missing, blank or too long `name`.

    Args:
        body (TeamCreateRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | TeamCreatedResponse]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: TeamCreateRequest,
) -> ErrorResponse | TeamCreatedResponse | None:
    """Create a team

     Requires scope `teams:write`.

    Creates a team owned by the key's user, who can then mint its keys (`POST /teams/{team_id}/keys`).
    For a SaaS that publishes for its own customers: one team per customer, each with its accounts,
    publishes, media and webhooks apart.

    **User keys only**: a team key is locked to its team and answers 403 `USER_KEY_REQUIRED`. The new
    team is on the plan of the team the key acts in, so making teams never escapes a plan's limits. It
    is not the default team (`is_default: false`) and the key keeps acting in the team it acted in. 400
    `VALIDATION_ERROR` for a missing, blank or too long `name`.

    Args:
        body (TeamCreateRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | TeamCreatedResponse
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: TeamCreateRequest,
) -> Response[ErrorResponse | TeamCreatedResponse]:
    """Create a team

     Requires scope `teams:write`.

    Creates a team owned by the key's user, who can then mint its keys (`POST /teams/{team_id}/keys`).
    For a SaaS that publishes for its own customers: one team per customer, each with its accounts,
    publishes, media and webhooks apart.

    **User keys only**: a team key is locked to its team and answers 403 `USER_KEY_REQUIRED`. The new
    team is on the plan of the team the key acts in, so making teams never escapes a plan's limits. It
    is not the default team (`is_default: false`) and the key keeps acting in the team it acted in. 400
    `VALIDATION_ERROR` for a missing, blank or too long `name`.

    Args:
        body (TeamCreateRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | TeamCreatedResponse]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: TeamCreateRequest,
) -> ErrorResponse | TeamCreatedResponse | None:
    """Create a team

     Requires scope `teams:write`.

    Creates a team owned by the key's user, who can then mint its keys (`POST /teams/{team_id}/keys`).
    For a SaaS that publishes for its own customers: one team per customer, each with its accounts,
    publishes, media and webhooks apart.

    **User keys only**: a team key is locked to its team and answers 403 `USER_KEY_REQUIRED`. The new
    team is on the plan of the team the key acts in, so making teams never escapes a plan's limits. It
    is not the default team (`is_default: false`) and the key keeps acting in the team it acted in. 400
    `VALIDATION_ERROR` for a missing, blank or too long `name`.

    Args:
        body (TeamCreateRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | TeamCreatedResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed

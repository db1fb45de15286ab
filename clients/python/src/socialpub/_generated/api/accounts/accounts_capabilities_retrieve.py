from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.account_capabilities_response import AccountCapabilitiesResponse
from ...models.error_response import ErrorResponse
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: UUID,
    *,
    refresh: bool | Unset = False,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["refresh"] = refresh

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/accounts/{id}/capabilities".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AccountCapabilitiesResponse | ErrorResponse | None:
    if response.status_code == 200:
        response_200 = AccountCapabilitiesResponse.from_dict(response.json())

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
) -> Response[AccountCapabilitiesResponse | ErrorResponse]:
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
    refresh: bool | Unset = False,
) -> Response[AccountCapabilitiesResponse | ErrorResponse]:
    """Get an account's capabilities

     Requires scope `accounts:read`.

    A JSON Schema of the account's platform_settings, its media limits, and the options its platform
    offers it now (TikTok creator info, Pinterest boards, YouTube categories), folded into the schema
    too. Live options are cached for a few minutes; a platform that cannot give them still answers 200,
    with the static schema and `live.available` false.

    Args:
        id (UUID):
        refresh (bool | Unset):  Default: False.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AccountCapabilitiesResponse | ErrorResponse]
    """

    kwargs = _get_kwargs(
        id=id,
        refresh=refresh,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    *,
    client: AuthenticatedClient,
    refresh: bool | Unset = False,
) -> AccountCapabilitiesResponse | ErrorResponse | None:
    """Get an account's capabilities

     Requires scope `accounts:read`.

    A JSON Schema of the account's platform_settings, its media limits, and the options its platform
    offers it now (TikTok creator info, Pinterest boards, YouTube categories), folded into the schema
    too. Live options are cached for a few minutes; a platform that cannot give them still answers 200,
    with the static schema and `live.available` false.

    Args:
        id (UUID):
        refresh (bool | Unset):  Default: False.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AccountCapabilitiesResponse | ErrorResponse
    """

    return sync_detailed(
        id=id,
        client=client,
        refresh=refresh,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
    refresh: bool | Unset = False,
) -> Response[AccountCapabilitiesResponse | ErrorResponse]:
    """Get an account's capabilities

     Requires scope `accounts:read`.

    A JSON Schema of the account's platform_settings, its media limits, and the options its platform
    offers it now (TikTok creator info, Pinterest boards, YouTube categories), folded into the schema
    too. Live options are cached for a few minutes; a platform that cannot give them still answers 200,
    with the static schema and `live.available` false.

    Args:
        id (UUID):
        refresh (bool | Unset):  Default: False.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AccountCapabilitiesResponse | ErrorResponse]
    """

    kwargs = _get_kwargs(
        id=id,
        refresh=refresh,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    *,
    client: AuthenticatedClient,
    refresh: bool | Unset = False,
) -> AccountCapabilitiesResponse | ErrorResponse | None:
    """Get an account's capabilities

     Requires scope `accounts:read`.

    A JSON Schema of the account's platform_settings, its media limits, and the options its platform
    offers it now (TikTok creator info, Pinterest boards, YouTube categories), folded into the schema
    too. Live options are cached for a few minutes; a platform that cannot give them still answers 200,
    with the static schema and `live.available` false.

    Args:
        id (UUID):
        refresh (bool | Unset):  Default: False.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AccountCapabilitiesResponse | ErrorResponse
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            refresh=refresh,
        )
    ).parsed

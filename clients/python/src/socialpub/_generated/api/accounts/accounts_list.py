from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.paginated_account_list import PaginatedAccountList
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    page: int | Unset = 1,
    page_size: int | Unset = 50,
    platform: str | Unset = UNSET,
    status: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["page"] = page

    params["page_size"] = page_size

    params["platform"] = platform

    params["status"] = status

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/accounts",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | PaginatedAccountList | None:
    if response.status_code == 200:
        response_200 = PaginatedAccountList.from_dict(response.json())

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
) -> Response[ErrorResponse | PaginatedAccountList]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    page: int | Unset = 1,
    page_size: int | Unset = 50,
    platform: str | Unset = UNSET,
    status: str | Unset = UNSET,
) -> Response[ErrorResponse | PaginatedAccountList]:
    """List connected accounts

     Requires scope `accounts:read`.

    The team's connected accounts, oldest first, each with its capabilities. Disconnected accounts are
    left out unless `status` names `disconnected`.

    Args:
        page (int | Unset):  Default: 1.
        page_size (int | Unset):  Default: 50.
        platform (str | Unset):  Example: x,instagram.
        status (str | Unset):  Example: active,expired.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | PaginatedAccountList]
    """

    kwargs = _get_kwargs(
        page=page,
        page_size=page_size,
        platform=platform,
        status=status,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    page: int | Unset = 1,
    page_size: int | Unset = 50,
    platform: str | Unset = UNSET,
    status: str | Unset = UNSET,
) -> ErrorResponse | PaginatedAccountList | None:
    """List connected accounts

     Requires scope `accounts:read`.

    The team's connected accounts, oldest first, each with its capabilities. Disconnected accounts are
    left out unless `status` names `disconnected`.

    Args:
        page (int | Unset):  Default: 1.
        page_size (int | Unset):  Default: 50.
        platform (str | Unset):  Example: x,instagram.
        status (str | Unset):  Example: active,expired.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | PaginatedAccountList
    """

    return sync_detailed(
        client=client,
        page=page,
        page_size=page_size,
        platform=platform,
        status=status,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    page: int | Unset = 1,
    page_size: int | Unset = 50,
    platform: str | Unset = UNSET,
    status: str | Unset = UNSET,
) -> Response[ErrorResponse | PaginatedAccountList]:
    """List connected accounts

     Requires scope `accounts:read`.

    The team's connected accounts, oldest first, each with its capabilities. Disconnected accounts are
    left out unless `status` names `disconnected`.

    Args:
        page (int | Unset):  Default: 1.
        page_size (int | Unset):  Default: 50.
        platform (str | Unset):  Example: x,instagram.
        status (str | Unset):  Example: active,expired.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | PaginatedAccountList]
    """

    kwargs = _get_kwargs(
        page=page,
        page_size=page_size,
        platform=platform,
        status=status,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    page: int | Unset = 1,
    page_size: int | Unset = 50,
    platform: str | Unset = UNSET,
    status: str | Unset = UNSET,
) -> ErrorResponse | PaginatedAccountList | None:
    """List connected accounts

     Requires scope `accounts:read`.

    The team's connected accounts, oldest first, each with its capabilities. Disconnected accounts are
    left out unless `status` names `disconnected`.

    Args:
        page (int | Unset):  Default: 1.
        page_size (int | Unset):  Default: 50.
        platform (str | Unset):  Example: x,instagram.
        status (str | Unset):  Example: active,expired.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | PaginatedAccountList
    """

    return (
        await asyncio_detailed(
            client=client,
            page=page,
            page_size=page_size,
            platform=platform,
            status=status,
        )
    ).parsed

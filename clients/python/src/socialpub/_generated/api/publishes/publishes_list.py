import datetime
from http import HTTPStatus
from typing import Any
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.paginated_publish_list import PaginatedPublishList
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    account_id: UUID | Unset = UNSET,
    created_after: datetime.datetime | Unset = UNSET,
    created_before: datetime.datetime | Unset = UNSET,
    page: int | Unset = 1,
    page_size: int | Unset = 20,
    platform: str | Unset = UNSET,
    status: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_account_id: str | Unset = UNSET
    if not isinstance(account_id, Unset):
        json_account_id = str(account_id)
    params["account_id"] = json_account_id

    json_created_after: str | Unset = UNSET
    if not isinstance(created_after, Unset):
        json_created_after = created_after.isoformat()
    params["created_after"] = json_created_after

    json_created_before: str | Unset = UNSET
    if not isinstance(created_before, Unset):
        json_created_before = created_before.isoformat()
    params["created_before"] = json_created_before

    params["page"] = page

    params["page_size"] = page_size

    params["platform"] = platform

    params["status"] = status

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/publishes",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | PaginatedPublishList | None:
    if response.status_code == 200:
        response_200 = PaginatedPublishList.from_dict(response.json())

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
) -> Response[ErrorResponse | PaginatedPublishList]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    account_id: UUID | Unset = UNSET,
    created_after: datetime.datetime | Unset = UNSET,
    created_before: datetime.datetime | Unset = UNSET,
    page: int | Unset = 1,
    page_size: int | Unset = 20,
    platform: str | Unset = UNSET,
    status: str | Unset = UNSET,
) -> Response[ErrorResponse | PaginatedPublishList]:
    """List publishes

     Requires scope `posts:read`.

    The team's publishes, newest first, with their targets.

    Args:
        account_id (UUID | Unset):
        created_after (datetime.datetime | Unset):
        created_before (datetime.datetime | Unset):
        page (int | Unset):  Default: 1.
        page_size (int | Unset):  Default: 20.
        platform (str | Unset):  Example: x,instagram.
        status (str | Unset):  Example: draft,scheduled.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | PaginatedPublishList]
    """

    kwargs = _get_kwargs(
        account_id=account_id,
        created_after=created_after,
        created_before=created_before,
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
    account_id: UUID | Unset = UNSET,
    created_after: datetime.datetime | Unset = UNSET,
    created_before: datetime.datetime | Unset = UNSET,
    page: int | Unset = 1,
    page_size: int | Unset = 20,
    platform: str | Unset = UNSET,
    status: str | Unset = UNSET,
) -> ErrorResponse | PaginatedPublishList | None:
    """List publishes

     Requires scope `posts:read`.

    The team's publishes, newest first, with their targets.

    Args:
        account_id (UUID | Unset):
        created_after (datetime.datetime | Unset):
        created_before (datetime.datetime | Unset):
        page (int | Unset):  Default: 1.
        page_size (int | Unset):  Default: 20.
        platform (str | Unset):  Example: x,instagram.
        status (str | Unset):  Example: draft,scheduled.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | PaginatedPublishList
    """

    return sync_detailed(
        client=client,
        account_id=account_id,
        created_after=created_after,
        created_before=created_before,
        page=page,
        page_size=page_size,
        platform=platform,
        status=status,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    account_id: UUID | Unset = UNSET,
    created_after: datetime.datetime | Unset = UNSET,
    created_before: datetime.datetime | Unset = UNSET,
    page: int | Unset = 1,
    page_size: int | Unset = 20,
    platform: str | Unset = UNSET,
    status: str | Unset = UNSET,
) -> Response[ErrorResponse | PaginatedPublishList]:
    """List publishes

     Requires scope `posts:read`.

    The team's publishes, newest first, with their targets.

    Args:
        account_id (UUID | Unset):
        created_after (datetime.datetime | Unset):
        created_before (datetime.datetime | Unset):
        page (int | Unset):  Default: 1.
        page_size (int | Unset):  Default: 20.
        platform (str | Unset):  Example: x,instagram.
        status (str | Unset):  Example: draft,scheduled.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | PaginatedPublishList]
    """

    kwargs = _get_kwargs(
        account_id=account_id,
        created_after=created_after,
        created_before=created_before,
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
    account_id: UUID | Unset = UNSET,
    created_after: datetime.datetime | Unset = UNSET,
    created_before: datetime.datetime | Unset = UNSET,
    page: int | Unset = 1,
    page_size: int | Unset = 20,
    platform: str | Unset = UNSET,
    status: str | Unset = UNSET,
) -> ErrorResponse | PaginatedPublishList | None:
    """List publishes

     Requires scope `posts:read`.

    The team's publishes, newest first, with their targets.

    Args:
        account_id (UUID | Unset):
        created_after (datetime.datetime | Unset):
        created_before (datetime.datetime | Unset):
        page (int | Unset):  Default: 1.
        page_size (int | Unset):  Default: 20.
        platform (str | Unset):  Example: x,instagram.
        status (str | Unset):  Example: draft,scheduled.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | PaginatedPublishList
    """

    return (
        await asyncio_detailed(
            client=client,
            account_id=account_id,
            created_after=created_after,
            created_before=created_before,
            page=page,
            page_size=page_size,
            platform=platform,
            status=status,
        )
    ).parsed

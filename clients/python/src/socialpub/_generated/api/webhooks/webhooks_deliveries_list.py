from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.paginated_webhook_delivery_list import PaginatedWebhookDeliveryList
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: UUID,
    *,
    event_type: str | Unset = UNSET,
    page: int | Unset = 1,
    page_size: int | Unset = 20,
    status: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["event_type"] = event_type

    params["page"] = page

    params["page_size"] = page_size

    params["status"] = status

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/webhooks/{id}/deliveries".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | PaginatedWebhookDeliveryList | None:
    if response.status_code == 200:
        response_200 = PaginatedWebhookDeliveryList.from_dict(response.json())

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
) -> Response[ErrorResponse | PaginatedWebhookDeliveryList]:
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
    event_type: str | Unset = UNSET,
    page: int | Unset = 1,
    page_size: int | Unset = 20,
    status: str | Unset = UNSET,
) -> Response[ErrorResponse | PaginatedWebhookDeliveryList]:
    """List a webhook's deliveries

     Requires scope `webhooks:read`.

    Its deliveries, newest first, each as its latest attempt left it: status, attempt number, the
    receiver's response code, duration and error. Kept for 30 days.

    Args:
        id (UUID):
        event_type (str | Unset):  Example: post.published,post.failed.
        page (int | Unset):  Default: 1.
        page_size (int | Unset):  Default: 20.
        status (str | Unset):  Example: pending,sending.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | PaginatedWebhookDeliveryList]
    """

    kwargs = _get_kwargs(
        id=id,
        event_type=event_type,
        page=page,
        page_size=page_size,
        status=status,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    *,
    client: AuthenticatedClient,
    event_type: str | Unset = UNSET,
    page: int | Unset = 1,
    page_size: int | Unset = 20,
    status: str | Unset = UNSET,
) -> ErrorResponse | PaginatedWebhookDeliveryList | None:
    """List a webhook's deliveries

     Requires scope `webhooks:read`.

    Its deliveries, newest first, each as its latest attempt left it: status, attempt number, the
    receiver's response code, duration and error. Kept for 30 days.

    Args:
        id (UUID):
        event_type (str | Unset):  Example: post.published,post.failed.
        page (int | Unset):  Default: 1.
        page_size (int | Unset):  Default: 20.
        status (str | Unset):  Example: pending,sending.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | PaginatedWebhookDeliveryList
    """

    return sync_detailed(
        id=id,
        client=client,
        event_type=event_type,
        page=page,
        page_size=page_size,
        status=status,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
    event_type: str | Unset = UNSET,
    page: int | Unset = 1,
    page_size: int | Unset = 20,
    status: str | Unset = UNSET,
) -> Response[ErrorResponse | PaginatedWebhookDeliveryList]:
    """List a webhook's deliveries

     Requires scope `webhooks:read`.

    Its deliveries, newest first, each as its latest attempt left it: status, attempt number, the
    receiver's response code, duration and error. Kept for 30 days.

    Args:
        id (UUID):
        event_type (str | Unset):  Example: post.published,post.failed.
        page (int | Unset):  Default: 1.
        page_size (int | Unset):  Default: 20.
        status (str | Unset):  Example: pending,sending.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | PaginatedWebhookDeliveryList]
    """

    kwargs = _get_kwargs(
        id=id,
        event_type=event_type,
        page=page,
        page_size=page_size,
        status=status,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    *,
    client: AuthenticatedClient,
    event_type: str | Unset = UNSET,
    page: int | Unset = 1,
    page_size: int | Unset = 20,
    status: str | Unset = UNSET,
) -> ErrorResponse | PaginatedWebhookDeliveryList | None:
    """List a webhook's deliveries

     Requires scope `webhooks:read`.

    Its deliveries, newest first, each as its latest attempt left it: status, attempt number, the
    receiver's response code, duration and error. Kept for 30 days.

    Args:
        id (UUID):
        event_type (str | Unset):  Example: post.published,post.failed.
        page (int | Unset):  Default: 1.
        page_size (int | Unset):  Default: 20.
        status (str | Unset):  Example: pending,sending.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | PaginatedWebhookDeliveryList
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            event_type=event_type,
            page=page,
            page_size=page_size,
            status=status,
        )
    ).parsed

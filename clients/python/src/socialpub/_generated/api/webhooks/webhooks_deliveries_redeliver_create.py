from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.webhook_redelivery_response import WebhookRedeliveryResponse
from ...types import Response


def _get_kwargs(
    id: UUID,
    delivery_id: UUID,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver".format(
            id=quote(str(id), safe=""),
            delivery_id=quote(str(delivery_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | WebhookRedeliveryResponse | None:
    if response.status_code == 202:
        response_202 = WebhookRedeliveryResponse.from_dict(response.json())

        return response_202

    if response.status_code == 401:
        response_401 = ErrorResponse.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ErrorResponse.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorResponse.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = ErrorResponse.from_dict(response.json())

        return response_409

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
) -> Response[ErrorResponse | WebhookRedeliveryResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: UUID,
    delivery_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Response[ErrorResponse | WebhookRedeliveryResponse]:
    """Redeliver a delivery

     Requires scope `webhooks:write`.

    Sends the delivery again now, with a new series of attempts, whatever its status: the same event id
    (`webhook-id`), so a receiver that already has it can tell. 409 `DELIVERY_IN_FLIGHT` while an
    attempt is under way, `WEBHOOK_DISABLED` while the webhook is disabled. Counts against the webhook's
    limit of test events and redeliveries (429 `RATE_LIMITED` past it).

    Args:
        id (UUID):
        delivery_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | WebhookRedeliveryResponse]
    """

    kwargs = _get_kwargs(
        id=id,
        delivery_id=delivery_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    delivery_id: UUID,
    *,
    client: AuthenticatedClient,
) -> ErrorResponse | WebhookRedeliveryResponse | None:
    """Redeliver a delivery

     Requires scope `webhooks:write`.

    Sends the delivery again now, with a new series of attempts, whatever its status: the same event id
    (`webhook-id`), so a receiver that already has it can tell. 409 `DELIVERY_IN_FLIGHT` while an
    attempt is under way, `WEBHOOK_DISABLED` while the webhook is disabled. Counts against the webhook's
    limit of test events and redeliveries (429 `RATE_LIMITED` past it).

    Args:
        id (UUID):
        delivery_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | WebhookRedeliveryResponse
    """

    return sync_detailed(
        id=id,
        delivery_id=delivery_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    delivery_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Response[ErrorResponse | WebhookRedeliveryResponse]:
    """Redeliver a delivery

     Requires scope `webhooks:write`.

    Sends the delivery again now, with a new series of attempts, whatever its status: the same event id
    (`webhook-id`), so a receiver that already has it can tell. 409 `DELIVERY_IN_FLIGHT` while an
    attempt is under way, `WEBHOOK_DISABLED` while the webhook is disabled. Counts against the webhook's
    limit of test events and redeliveries (429 `RATE_LIMITED` past it).

    Args:
        id (UUID):
        delivery_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | WebhookRedeliveryResponse]
    """

    kwargs = _get_kwargs(
        id=id,
        delivery_id=delivery_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    delivery_id: UUID,
    *,
    client: AuthenticatedClient,
) -> ErrorResponse | WebhookRedeliveryResponse | None:
    """Redeliver a delivery

     Requires scope `webhooks:write`.

    Sends the delivery again now, with a new series of attempts, whatever its status: the same event id
    (`webhook-id`), so a receiver that already has it can tell. 409 `DELIVERY_IN_FLIGHT` while an
    attempt is under way, `WEBHOOK_DISABLED` while the webhook is disabled. Counts against the webhook's
    limit of test events and redeliveries (429 `RATE_LIMITED` past it).

    Args:
        id (UUID):
        delivery_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | WebhookRedeliveryResponse
    """

    return (
        await asyncio_detailed(
            id=id,
            delivery_id=delivery_id,
            client=client,
        )
    ).parsed

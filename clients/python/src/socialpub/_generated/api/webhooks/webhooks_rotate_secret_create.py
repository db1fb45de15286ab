from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.rotated_secret_request import RotatedSecretRequest
from ...models.webhook_secret_rotation_response import WebhookSecretRotationResponse
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: UUID,
    *,
    body: RotatedSecretRequest | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/webhooks/{id}/rotate-secret".format(
            id=quote(str(id), safe=""),
        ),
    }

    if not isinstance(body, Unset):
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | WebhookSecretRotationResponse | None:
    if response.status_code == 200:
        response_200 = WebhookSecretRotationResponse.from_dict(response.json())

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
) -> Response[ErrorResponse | WebhookSecretRotationResponse]:
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
    body: RotatedSecretRequest | Unset = UNSET,
) -> Response[ErrorResponse | WebhookSecretRotationResponse]:
    """Rotate a webhook's secret

     Requires scope `webhooks:write`.

    Replaces the secret (generated, or yours) and shows the new one once. The replaced secret keeps
    signing beside it for 24 hours (`previous_secret_expires_at`), so the receiver can switch without
    refusing a delivery: `webhook-signature` lists both signatures and `X-Service-Signature-Previous`
    carries the old secret's. Rotating again within that time drops the older secret.

    Args:
        id (UUID):
        body (RotatedSecretRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | WebhookSecretRotationResponse]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    *,
    client: AuthenticatedClient,
    body: RotatedSecretRequest | Unset = UNSET,
) -> ErrorResponse | WebhookSecretRotationResponse | None:
    """Rotate a webhook's secret

     Requires scope `webhooks:write`.

    Replaces the secret (generated, or yours) and shows the new one once. The replaced secret keeps
    signing beside it for 24 hours (`previous_secret_expires_at`), so the receiver can switch without
    refusing a delivery: `webhook-signature` lists both signatures and `X-Service-Signature-Previous`
    carries the old secret's. Rotating again within that time drops the older secret.

    Args:
        id (UUID):
        body (RotatedSecretRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | WebhookSecretRotationResponse
    """

    return sync_detailed(
        id=id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
    body: RotatedSecretRequest | Unset = UNSET,
) -> Response[ErrorResponse | WebhookSecretRotationResponse]:
    """Rotate a webhook's secret

     Requires scope `webhooks:write`.

    Replaces the secret (generated, or yours) and shows the new one once. The replaced secret keeps
    signing beside it for 24 hours (`previous_secret_expires_at`), so the receiver can switch without
    refusing a delivery: `webhook-signature` lists both signatures and `X-Service-Signature-Previous`
    carries the old secret's. Rotating again within that time drops the older secret.

    Args:
        id (UUID):
        body (RotatedSecretRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | WebhookSecretRotationResponse]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    *,
    client: AuthenticatedClient,
    body: RotatedSecretRequest | Unset = UNSET,
) -> ErrorResponse | WebhookSecretRotationResponse | None:
    """Rotate a webhook's secret

     Requires scope `webhooks:write`.

    Replaces the secret (generated, or yours) and shows the new one once. The replaced secret keeps
    signing beside it for 24 hours (`previous_secret_expires_at`), so the receiver can switch without
    refusing a delivery: `webhook-signature` lists both signatures and `X-Service-Signature-Previous`
    carries the old secret's. Rotating again within that time drops the older secret.

    Args:
        id (UUID):
        body (RotatedSecretRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | WebhookSecretRotationResponse
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
        )
    ).parsed

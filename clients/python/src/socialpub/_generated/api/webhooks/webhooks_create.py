from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.subscription_create_request import SubscriptionCreateRequest
from ...models.webhook_created_response import WebhookCreatedResponse
from ...types import Response


def _get_kwargs(
    *,
    body: SubscriptionCreateRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/webhooks",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | WebhookCreatedResponse | None:
    if response.status_code == 201:
        response_201 = WebhookCreatedResponse.from_dict(response.json())

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
) -> Response[ErrorResponse | WebhookCreatedResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: SubscriptionCreateRequest,
) -> Response[ErrorResponse | WebhookCreatedResponse]:
    """Create a webhook

     Requires scope `webhooks:write`.

    Every delivery is a POST of `{"id", "type", "created_at", "team_id", "data"}` with `X-Service-
    Signature: sha256=<hex HMAC-SHA256 of the raw body keyed with the secret>` and the Standard Webhooks
    headers `webhook-id`, `webhook-timestamp`, `webhook-signature`. A 2xx answer within 10 s is a
    success; anything else (a redirect included) is retried after 1 min, 5 min, 30 min, 2 h and 12 h (6
    attempts), honouring `Retry-After`. `410 Gone` disables the webhook at once, and so do 5 events in a
    row whose every attempt failed. After 5 attempts in a row that time out or cannot connect, the
    webhook's circuit opens (`circuit_open_until`): its deliveries wait, pending, for a minute (doubling
    at each reopening), then one is tried; a success lets the rest go out. After a secret rotation the
    replaced secret signs beside the new one for 24 hours: `webhook-signature` lists both (`v1,<new>
    v1,<old>`) and `X-Service-Signature-Previous` carries the old secret's `sha256=`.

    The `data` of a `post.*` event is the publish: `publish_id`, `status`, `approval_status` and its
    `targets`. The `data` of an `account.*` event is the account, never a token:

    ```json
    {"account": {"id": "<uuid>", "platform": "linkedin", "handle": "acme", "display_name": "Acme",
    "status": "active", "status_reason": "", "token_expires_at": "2026-01-31T09:00:00Z", "sandbox":
    false}}
    ```

    with, for `account.connected`, `reauthorized` (true when the account was connected already: a re-
    authorization or a new connect of the same platform identity) and `connect_link_id` (the connect
    link it came through, else null); for `account.expired`, `expired_at`; for `account.expiring`,
    `expires_at`, when the token expires (`status` is still `active`: re-authorize the account before
    then). `account.disconnected` carries the account as the disconnect left it.

    Args:
        body (SubscriptionCreateRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | WebhookCreatedResponse]
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
    body: SubscriptionCreateRequest,
) -> ErrorResponse | WebhookCreatedResponse | None:
    """Create a webhook

     Requires scope `webhooks:write`.

    Every delivery is a POST of `{"id", "type", "created_at", "team_id", "data"}` with `X-Service-
    Signature: sha256=<hex HMAC-SHA256 of the raw body keyed with the secret>` and the Standard Webhooks
    headers `webhook-id`, `webhook-timestamp`, `webhook-signature`. A 2xx answer within 10 s is a
    success; anything else (a redirect included) is retried after 1 min, 5 min, 30 min, 2 h and 12 h (6
    attempts), honouring `Retry-After`. `410 Gone` disables the webhook at once, and so do 5 events in a
    row whose every attempt failed. After 5 attempts in a row that time out or cannot connect, the
    webhook's circuit opens (`circuit_open_until`): its deliveries wait, pending, for a minute (doubling
    at each reopening), then one is tried; a success lets the rest go out. After a secret rotation the
    replaced secret signs beside the new one for 24 hours: `webhook-signature` lists both (`v1,<new>
    v1,<old>`) and `X-Service-Signature-Previous` carries the old secret's `sha256=`.

    The `data` of a `post.*` event is the publish: `publish_id`, `status`, `approval_status` and its
    `targets`. The `data` of an `account.*` event is the account, never a token:

    ```json
    {"account": {"id": "<uuid>", "platform": "linkedin", "handle": "acme", "display_name": "Acme",
    "status": "active", "status_reason": "", "token_expires_at": "2026-01-31T09:00:00Z", "sandbox":
    false}}
    ```

    with, for `account.connected`, `reauthorized` (true when the account was connected already: a re-
    authorization or a new connect of the same platform identity) and `connect_link_id` (the connect
    link it came through, else null); for `account.expired`, `expired_at`; for `account.expiring`,
    `expires_at`, when the token expires (`status` is still `active`: re-authorize the account before
    then). `account.disconnected` carries the account as the disconnect left it.

    Args:
        body (SubscriptionCreateRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | WebhookCreatedResponse
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: SubscriptionCreateRequest,
) -> Response[ErrorResponse | WebhookCreatedResponse]:
    """Create a webhook

     Requires scope `webhooks:write`.

    Every delivery is a POST of `{"id", "type", "created_at", "team_id", "data"}` with `X-Service-
    Signature: sha256=<hex HMAC-SHA256 of the raw body keyed with the secret>` and the Standard Webhooks
    headers `webhook-id`, `webhook-timestamp`, `webhook-signature`. A 2xx answer within 10 s is a
    success; anything else (a redirect included) is retried after 1 min, 5 min, 30 min, 2 h and 12 h (6
    attempts), honouring `Retry-After`. `410 Gone` disables the webhook at once, and so do 5 events in a
    row whose every attempt failed. After 5 attempts in a row that time out or cannot connect, the
    webhook's circuit opens (`circuit_open_until`): its deliveries wait, pending, for a minute (doubling
    at each reopening), then one is tried; a success lets the rest go out. After a secret rotation the
    replaced secret signs beside the new one for 24 hours: `webhook-signature` lists both (`v1,<new>
    v1,<old>`) and `X-Service-Signature-Previous` carries the old secret's `sha256=`.

    The `data` of a `post.*` event is the publish: `publish_id`, `status`, `approval_status` and its
    `targets`. The `data` of an `account.*` event is the account, never a token:

    ```json
    {"account": {"id": "<uuid>", "platform": "linkedin", "handle": "acme", "display_name": "Acme",
    "status": "active", "status_reason": "", "token_expires_at": "2026-01-31T09:00:00Z", "sandbox":
    false}}
    ```

    with, for `account.connected`, `reauthorized` (true when the account was connected already: a re-
    authorization or a new connect of the same platform identity) and `connect_link_id` (the connect
    link it came through, else null); for `account.expired`, `expired_at`; for `account.expiring`,
    `expires_at`, when the token expires (`status` is still `active`: re-authorize the account before
    then). `account.disconnected` carries the account as the disconnect left it.

    Args:
        body (SubscriptionCreateRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | WebhookCreatedResponse]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: SubscriptionCreateRequest,
) -> ErrorResponse | WebhookCreatedResponse | None:
    """Create a webhook

     Requires scope `webhooks:write`.

    Every delivery is a POST of `{"id", "type", "created_at", "team_id", "data"}` with `X-Service-
    Signature: sha256=<hex HMAC-SHA256 of the raw body keyed with the secret>` and the Standard Webhooks
    headers `webhook-id`, `webhook-timestamp`, `webhook-signature`. A 2xx answer within 10 s is a
    success; anything else (a redirect included) is retried after 1 min, 5 min, 30 min, 2 h and 12 h (6
    attempts), honouring `Retry-After`. `410 Gone` disables the webhook at once, and so do 5 events in a
    row whose every attempt failed. After 5 attempts in a row that time out or cannot connect, the
    webhook's circuit opens (`circuit_open_until`): its deliveries wait, pending, for a minute (doubling
    at each reopening), then one is tried; a success lets the rest go out. After a secret rotation the
    replaced secret signs beside the new one for 24 hours: `webhook-signature` lists both (`v1,<new>
    v1,<old>`) and `X-Service-Signature-Previous` carries the old secret's `sha256=`.

    The `data` of a `post.*` event is the publish: `publish_id`, `status`, `approval_status` and its
    `targets`. The `data` of an `account.*` event is the account, never a token:

    ```json
    {"account": {"id": "<uuid>", "platform": "linkedin", "handle": "acme", "display_name": "Acme",
    "status": "active", "status_reason": "", "token_expires_at": "2026-01-31T09:00:00Z", "sandbox":
    false}}
    ```

    with, for `account.connected`, `reauthorized` (true when the account was connected already: a re-
    authorization or a new connect of the same platform identity) and `connect_link_id` (the connect
    link it came through, else null); for `account.expired`, `expired_at`; for `account.expiring`,
    `expires_at`, when the token expires (`status` is still `active`: re-authorize the account before
    then). `account.disconnected` carries the account as the disconnect left it.

    Args:
        body (SubscriptionCreateRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | WebhookCreatedResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed

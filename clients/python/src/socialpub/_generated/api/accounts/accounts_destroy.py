from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.account_disconnected_response import AccountDisconnectedResponse
from ...models.error_response import ErrorResponse
from ...types import Response


def _get_kwargs(
    id: UUID,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/api/v1/accounts/{id}".format(
            id=quote(str(id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AccountDisconnectedResponse | ErrorResponse | None:
    if response.status_code == 200:
        response_200 = AccountDisconnectedResponse.from_dict(response.json())

        return response_200

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
) -> Response[AccountDisconnectedResponse | ErrorResponse]:
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
) -> Response[AccountDisconnectedResponse | ErrorResponse]:
    """Disconnect an account

     Requires scope `accounts:write`.

    Forgets the account's tokens and revokes them at the platform where it has a call for it (X,
    YouTube, TikTok, Facebook, Bluesky; `token_revoked` says whether the platform confirmed). The
    account leaves `GET /accounts` (ask for `status=disconnected` to see it) and stops counting against
    the plan; its published history stays and `GET /accounts/{id}` still answers it, with `status:
    disconnected`. A publish naming it afterwards is a 400 `ACCOUNT_DISCONNECTED`; a scheduled target on
    it fails at release with the target's `error.code` `ACCOUNT_DISCONNECTED`. Webhooks get
    `account.disconnected`, once. Connecting the same account again brings it back under the same id.
    Disconnecting it again answers 200 with `already_disconnected: true`.

    Args:
        id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AccountDisconnectedResponse | ErrorResponse]
    """

    kwargs = _get_kwargs(
        id=id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    *,
    client: AuthenticatedClient,
) -> AccountDisconnectedResponse | ErrorResponse | None:
    """Disconnect an account

     Requires scope `accounts:write`.

    Forgets the account's tokens and revokes them at the platform where it has a call for it (X,
    YouTube, TikTok, Facebook, Bluesky; `token_revoked` says whether the platform confirmed). The
    account leaves `GET /accounts` (ask for `status=disconnected` to see it) and stops counting against
    the plan; its published history stays and `GET /accounts/{id}` still answers it, with `status:
    disconnected`. A publish naming it afterwards is a 400 `ACCOUNT_DISCONNECTED`; a scheduled target on
    it fails at release with the target's `error.code` `ACCOUNT_DISCONNECTED`. Webhooks get
    `account.disconnected`, once. Connecting the same account again brings it back under the same id.
    Disconnecting it again answers 200 with `already_disconnected: true`.

    Args:
        id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AccountDisconnectedResponse | ErrorResponse
    """

    return sync_detailed(
        id=id,
        client=client,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
) -> Response[AccountDisconnectedResponse | ErrorResponse]:
    """Disconnect an account

     Requires scope `accounts:write`.

    Forgets the account's tokens and revokes them at the platform where it has a call for it (X,
    YouTube, TikTok, Facebook, Bluesky; `token_revoked` says whether the platform confirmed). The
    account leaves `GET /accounts` (ask for `status=disconnected` to see it) and stops counting against
    the plan; its published history stays and `GET /accounts/{id}` still answers it, with `status:
    disconnected`. A publish naming it afterwards is a 400 `ACCOUNT_DISCONNECTED`; a scheduled target on
    it fails at release with the target's `error.code` `ACCOUNT_DISCONNECTED`. Webhooks get
    `account.disconnected`, once. Connecting the same account again brings it back under the same id.
    Disconnecting it again answers 200 with `already_disconnected: true`.

    Args:
        id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AccountDisconnectedResponse | ErrorResponse]
    """

    kwargs = _get_kwargs(
        id=id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    *,
    client: AuthenticatedClient,
) -> AccountDisconnectedResponse | ErrorResponse | None:
    """Disconnect an account

     Requires scope `accounts:write`.

    Forgets the account's tokens and revokes them at the platform where it has a call for it (X,
    YouTube, TikTok, Facebook, Bluesky; `token_revoked` says whether the platform confirmed). The
    account leaves `GET /accounts` (ask for `status=disconnected` to see it) and stops counting against
    the plan; its published history stays and `GET /accounts/{id}` still answers it, with `status:
    disconnected`. A publish naming it afterwards is a 400 `ACCOUNT_DISCONNECTED`; a scheduled target on
    it fails at release with the target's `error.code` `ACCOUNT_DISCONNECTED`. Webhooks get
    `account.disconnected`, once. Connecting the same account again brings it back under the same id.
    Disconnecting it again answers 200 with `already_disconnected: true`.

    Args:
        id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AccountDisconnectedResponse | ErrorResponse
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
        )
    ).parsed

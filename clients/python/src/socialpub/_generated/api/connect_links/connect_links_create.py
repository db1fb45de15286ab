from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.connect_link_create_request import ConnectLinkCreateRequest
from ...models.connect_link_response import ConnectLinkResponse
from ...models.error_response import ErrorResponse
from ...types import Response


def _get_kwargs(
    *,
    body: ConnectLinkCreateRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/connect-links",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ConnectLinkResponse | ErrorResponse | None:
    if response.status_code == 201:
        response_201 = ConnectLinkResponse.from_dict(response.json())

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
) -> Response[ConnectLinkResponse | ErrorResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: ConnectLinkCreateRequest,
) -> Response[ConnectLinkResponse | ErrorResponse]:
    """Create a connect link

     Requires scope `accounts:write`.

    The link's `url` is a page on this service that needs no login. It shows the branding and one
    “Connect” per platform; each runs the platform's authorization (in development, the sandbox's) and
    connects the account into this team (webhook `account.connected`, with `connect_link_id`), then
    sends the browser to `redirect_url?connect_link=<id>&status=connected&accounts=<id>`. A person who
    declines at the platform, or presses Cancel, is sent back with `status=cancelled` and no accounts.
    Bluesky is connected with a handle and an app password on the page itself. The link can be used
    again until it expires or is revoked; an expired or revoked link's page answers 410 and shows
    nothing of the team.

    400 `VALIDATION_ERROR` for a malformed field (an unknown platform, `expires_in` outside 60..604800),
    `INVALID_REDIRECT_URL` for a redirect that is not https (http only to localhost, in development) or
    carries credentials, `PLATFORM_UNAVAILABLE` for a platform this service cannot connect now.

    Args:
        body (ConnectLinkCreateRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ConnectLinkResponse | ErrorResponse]
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
    body: ConnectLinkCreateRequest,
) -> ConnectLinkResponse | ErrorResponse | None:
    """Create a connect link

     Requires scope `accounts:write`.

    The link's `url` is a page on this service that needs no login. It shows the branding and one
    “Connect” per platform; each runs the platform's authorization (in development, the sandbox's) and
    connects the account into this team (webhook `account.connected`, with `connect_link_id`), then
    sends the browser to `redirect_url?connect_link=<id>&status=connected&accounts=<id>`. A person who
    declines at the platform, or presses Cancel, is sent back with `status=cancelled` and no accounts.
    Bluesky is connected with a handle and an app password on the page itself. The link can be used
    again until it expires or is revoked; an expired or revoked link's page answers 410 and shows
    nothing of the team.

    400 `VALIDATION_ERROR` for a malformed field (an unknown platform, `expires_in` outside 60..604800),
    `INVALID_REDIRECT_URL` for a redirect that is not https (http only to localhost, in development) or
    carries credentials, `PLATFORM_UNAVAILABLE` for a platform this service cannot connect now.

    Args:
        body (ConnectLinkCreateRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ConnectLinkResponse | ErrorResponse
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: ConnectLinkCreateRequest,
) -> Response[ConnectLinkResponse | ErrorResponse]:
    """Create a connect link

     Requires scope `accounts:write`.

    The link's `url` is a page on this service that needs no login. It shows the branding and one
    “Connect” per platform; each runs the platform's authorization (in development, the sandbox's) and
    connects the account into this team (webhook `account.connected`, with `connect_link_id`), then
    sends the browser to `redirect_url?connect_link=<id>&status=connected&accounts=<id>`. A person who
    declines at the platform, or presses Cancel, is sent back with `status=cancelled` and no accounts.
    Bluesky is connected with a handle and an app password on the page itself. The link can be used
    again until it expires or is revoked; an expired or revoked link's page answers 410 and shows
    nothing of the team.

    400 `VALIDATION_ERROR` for a malformed field (an unknown platform, `expires_in` outside 60..604800),
    `INVALID_REDIRECT_URL` for a redirect that is not https (http only to localhost, in development) or
    carries credentials, `PLATFORM_UNAVAILABLE` for a platform this service cannot connect now.

    Args:
        body (ConnectLinkCreateRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ConnectLinkResponse | ErrorResponse]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: ConnectLinkCreateRequest,
) -> ConnectLinkResponse | ErrorResponse | None:
    """Create a connect link

     Requires scope `accounts:write`.

    The link's `url` is a page on this service that needs no login. It shows the branding and one
    “Connect” per platform; each runs the platform's authorization (in development, the sandbox's) and
    connects the account into this team (webhook `account.connected`, with `connect_link_id`), then
    sends the browser to `redirect_url?connect_link=<id>&status=connected&accounts=<id>`. A person who
    declines at the platform, or presses Cancel, is sent back with `status=cancelled` and no accounts.
    Bluesky is connected with a handle and an app password on the page itself. The link can be used
    again until it expires or is revoked; an expired or revoked link's page answers 410 and shows
    nothing of the team.

    400 `VALIDATION_ERROR` for a malformed field (an unknown platform, `expires_in` outside 60..604800),
    `INVALID_REDIRECT_URL` for a redirect that is not https (http only to localhost, in development) or
    carries credentials, `PLATFORM_UNAVAILABLE` for a platform this service cannot connect now.

    Args:
        body (ConnectLinkCreateRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ConnectLinkResponse | ErrorResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed

from http import HTTPStatus
from io import BytesIO
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...types import UNSET, File, Response


def _get_kwargs(
    id: UUID,
    *,
    expires: int,
    signature: str,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["expires"] = expires

    params["signature"] = signature

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/media/files/{id}".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | File | None:
    if response.status_code == 200:
        response_200 = File(payload=BytesIO(response.content))

        return response_200

    if response.status_code == 403:
        response_403 = ErrorResponse.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorResponse.from_dict(response.json())

        return response_404

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorResponse | File]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient | Client,
    expires: int,
    signature: str,
) -> Response[ErrorResponse | File]:
    """Download a file through a local download URL

     The target of a local `download_url`: streams a ready file, or a fitted rendition of
    one (its URL is signed for the rendition's id), to whoever holds the URL.

    Args:
        id (UUID):
        expires (int):
        signature (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | File]
    """

    kwargs = _get_kwargs(
        id=id,
        expires=expires,
        signature=signature,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    *,
    client: AuthenticatedClient | Client,
    expires: int,
    signature: str,
) -> ErrorResponse | File | None:
    """Download a file through a local download URL

     The target of a local `download_url`: streams a ready file, or a fitted rendition of
    one (its URL is signed for the rendition's id), to whoever holds the URL.

    Args:
        id (UUID):
        expires (int):
        signature (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | File
    """

    return sync_detailed(
        id=id,
        client=client,
        expires=expires,
        signature=signature,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient | Client,
    expires: int,
    signature: str,
) -> Response[ErrorResponse | File]:
    """Download a file through a local download URL

     The target of a local `download_url`: streams a ready file, or a fitted rendition of
    one (its URL is signed for the rendition's id), to whoever holds the URL.

    Args:
        id (UUID):
        expires (int):
        signature (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | File]
    """

    kwargs = _get_kwargs(
        id=id,
        expires=expires,
        signature=signature,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    *,
    client: AuthenticatedClient | Client,
    expires: int,
    signature: str,
) -> ErrorResponse | File | None:
    """Download a file through a local download URL

     The target of a local `download_url`: streams a ready file, or a fitted rendition of
    one (its URL is signed for the rendition's id), to whoever holds the URL.

    Args:
        id (UUID):
        expires (int):
        signature (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | File
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            expires=expires,
            signature=signature,
        )
    ).parsed

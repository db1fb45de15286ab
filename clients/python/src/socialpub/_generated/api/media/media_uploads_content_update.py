from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...types import UNSET, File, Response, Unset


def _get_kwargs(
    id: UUID,
    *,
    body: File | Unset = UNSET,
    expires: int,
    signature: str,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    params: dict[str, Any] = {}

    params["expires"] = expires

    params["signature"] = signature

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/api/v1/media/uploads/{id}/content".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    if not isinstance(body, Unset):
        _kwargs["content"] = body.payload
    headers["Content-Type"] = "application/octet-stream"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | ErrorResponse | None:
    if response.status_code == 200:
        response_200 = cast(Any, None)
        return response_200

    if response.status_code == 400:
        response_400 = ErrorResponse.from_dict(response.json())

        return response_400

    if response.status_code == 403:
        response_403 = ErrorResponse.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorResponse.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = ErrorResponse.from_dict(response.json())

        return response_409

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Any | ErrorResponse]:
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
    body: File | Unset = UNSET,
    expires: int,
    signature: str,
) -> Response[Any | ErrorResponse]:
    """PUT the file to a local upload URL

     Only through the `upload_url` from `POST /media/uploads`; the query string is its signature. 409
    `UPLOAD_ALREADY_CONFIRMED` once the upload is confirmed: its bytes are then fixed.

    Args:
        id (UUID):
        expires (int):
        signature (str):
        body (File | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorResponse]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
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
    body: File | Unset = UNSET,
    expires: int,
    signature: str,
) -> Any | ErrorResponse | None:
    """PUT the file to a local upload URL

     Only through the `upload_url` from `POST /media/uploads`; the query string is its signature. 409
    `UPLOAD_ALREADY_CONFIRMED` once the upload is confirmed: its bytes are then fixed.

    Args:
        id (UUID):
        expires (int):
        signature (str):
        body (File | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorResponse
    """

    return sync_detailed(
        id=id,
        client=client,
        body=body,
        expires=expires,
        signature=signature,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient | Client,
    body: File | Unset = UNSET,
    expires: int,
    signature: str,
) -> Response[Any | ErrorResponse]:
    """PUT the file to a local upload URL

     Only through the `upload_url` from `POST /media/uploads`; the query string is its signature. 409
    `UPLOAD_ALREADY_CONFIRMED` once the upload is confirmed: its bytes are then fixed.

    Args:
        id (UUID):
        expires (int):
        signature (str):
        body (File | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorResponse]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
        expires=expires,
        signature=signature,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    *,
    client: AuthenticatedClient | Client,
    body: File | Unset = UNSET,
    expires: int,
    signature: str,
) -> Any | ErrorResponse | None:
    """PUT the file to a local upload URL

     Only through the `upload_url` from `POST /media/uploads`; the query string is its signature. 409
    `UPLOAD_ALREADY_CONFIRMED` once the upload is confirmed: its bytes are then fixed.

    Args:
        id (UUID):
        expires (int):
        signature (str):
        body (File | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorResponse
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
            expires=expires,
            signature=signature,
        )
    ).parsed

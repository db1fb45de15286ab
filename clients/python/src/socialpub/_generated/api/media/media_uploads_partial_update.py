from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.media_updated_response import MediaUpdatedResponse
from ...models.patched_media_update_request import PatchedMediaUpdateRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: UUID,
    *,
    body: PatchedMediaUpdateRequest | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/api/v1/media/uploads/{id}".format(
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
) -> ErrorResponse | MediaUpdatedResponse | None:
    if response.status_code == 200:
        response_200 = MediaUpdatedResponse.from_dict(response.json())

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
) -> Response[ErrorResponse | MediaUpdatedResponse]:
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
    body: PatchedMediaUpdateRequest | Unset = UNSET,
) -> Response[ErrorResponse | MediaUpdatedResponse]:
    """Describe an upload

     Requires scope `media:write`.

    Sets the upload's `alt_text`, in any state. Publishes sent from then on carry it to the networks
    that take a description; posts already sent keep theirs. 400 when longer than 1000 characters.

    Args:
        id (UUID):
        body (PatchedMediaUpdateRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | MediaUpdatedResponse]
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
    body: PatchedMediaUpdateRequest | Unset = UNSET,
) -> ErrorResponse | MediaUpdatedResponse | None:
    """Describe an upload

     Requires scope `media:write`.

    Sets the upload's `alt_text`, in any state. Publishes sent from then on carry it to the networks
    that take a description; posts already sent keep theirs. 400 when longer than 1000 characters.

    Args:
        id (UUID):
        body (PatchedMediaUpdateRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | MediaUpdatedResponse
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
    body: PatchedMediaUpdateRequest | Unset = UNSET,
) -> Response[ErrorResponse | MediaUpdatedResponse]:
    """Describe an upload

     Requires scope `media:write`.

    Sets the upload's `alt_text`, in any state. Publishes sent from then on carry it to the networks
    that take a description; posts already sent keep theirs. 400 when longer than 1000 characters.

    Args:
        id (UUID):
        body (PatchedMediaUpdateRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | MediaUpdatedResponse]
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
    body: PatchedMediaUpdateRequest | Unset = UNSET,
) -> ErrorResponse | MediaUpdatedResponse | None:
    """Describe an upload

     Requires scope `media:write`.

    Sets the upload's `alt_text`, in any state. Publishes sent from then on carry it to the networks
    that take a description; posts already sent keep theirs. 400 when longer than 1000 characters.

    Args:
        id (UUID):
        body (PatchedMediaUpdateRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | MediaUpdatedResponse
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
        )
    ).parsed

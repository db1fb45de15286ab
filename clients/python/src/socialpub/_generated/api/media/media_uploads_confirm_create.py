from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.media_confirm_request import MediaConfirmRequest
from ...models.media_confirmed_response import MediaConfirmedResponse
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: UUID,
    *,
    body: MediaConfirmRequest | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/media/uploads/{id}/confirm".format(
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
) -> ErrorResponse | MediaConfirmedResponse | None:
    if response.status_code == 200:
        response_200 = MediaConfirmedResponse.from_dict(response.json())

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

    if response.status_code == 409:
        response_409 = ErrorResponse.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = ErrorResponse.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = ErrorResponse.from_dict(response.json())

        return response_422

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
) -> Response[ErrorResponse | MediaConfirmedResponse]:
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
    body: MediaConfirmRequest | Unset = UNSET,
) -> Response[ErrorResponse | MediaConfirmedResponse]:
    """Confirm an upload

     Requires scope `media:write`.

    Checks that the file is in storage with the declared size and that its bytes are of the declared
    type, then marks it ready. A worker then probes it with ffprobe: follow `probe.status` on `GET
    /api/v1/media/uploads/{id}` (a file whose probe fails cannot be published). 404 when absent or
    already confirmed; 409 `FILE_NOT_UPLOADED` or `FETCH_IN_PROGRESS` when the bytes are not there yet;
    422 `SIZE_MISMATCH`, `CONTENT_TYPE_MISMATCH`, `UNRECOGNISED_MEDIA` or `FETCH_FAILED` when they are
    wrong (the upload stays unconfirmed: PUT the right file and confirm again).

    Args:
        id (UUID):
        body (MediaConfirmRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | MediaConfirmedResponse]
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
    body: MediaConfirmRequest | Unset = UNSET,
) -> ErrorResponse | MediaConfirmedResponse | None:
    """Confirm an upload

     Requires scope `media:write`.

    Checks that the file is in storage with the declared size and that its bytes are of the declared
    type, then marks it ready. A worker then probes it with ffprobe: follow `probe.status` on `GET
    /api/v1/media/uploads/{id}` (a file whose probe fails cannot be published). 404 when absent or
    already confirmed; 409 `FILE_NOT_UPLOADED` or `FETCH_IN_PROGRESS` when the bytes are not there yet;
    422 `SIZE_MISMATCH`, `CONTENT_TYPE_MISMATCH`, `UNRECOGNISED_MEDIA` or `FETCH_FAILED` when they are
    wrong (the upload stays unconfirmed: PUT the right file and confirm again).

    Args:
        id (UUID):
        body (MediaConfirmRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | MediaConfirmedResponse
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
    body: MediaConfirmRequest | Unset = UNSET,
) -> Response[ErrorResponse | MediaConfirmedResponse]:
    """Confirm an upload

     Requires scope `media:write`.

    Checks that the file is in storage with the declared size and that its bytes are of the declared
    type, then marks it ready. A worker then probes it with ffprobe: follow `probe.status` on `GET
    /api/v1/media/uploads/{id}` (a file whose probe fails cannot be published). 404 when absent or
    already confirmed; 409 `FILE_NOT_UPLOADED` or `FETCH_IN_PROGRESS` when the bytes are not there yet;
    422 `SIZE_MISMATCH`, `CONTENT_TYPE_MISMATCH`, `UNRECOGNISED_MEDIA` or `FETCH_FAILED` when they are
    wrong (the upload stays unconfirmed: PUT the right file and confirm again).

    Args:
        id (UUID):
        body (MediaConfirmRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | MediaConfirmedResponse]
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
    body: MediaConfirmRequest | Unset = UNSET,
) -> ErrorResponse | MediaConfirmedResponse | None:
    """Confirm an upload

     Requires scope `media:write`.

    Checks that the file is in storage with the declared size and that its bytes are of the declared
    type, then marks it ready. A worker then probes it with ffprobe: follow `probe.status` on `GET
    /api/v1/media/uploads/{id}` (a file whose probe fails cannot be published). 404 when absent or
    already confirmed; 409 `FILE_NOT_UPLOADED` or `FETCH_IN_PROGRESS` when the bytes are not there yet;
    422 `SIZE_MISMATCH`, `CONTENT_TYPE_MISMATCH`, `UNRECOGNISED_MEDIA` or `FETCH_FAILED` when they are
    wrong (the upload stays unconfirmed: PUT the right file and confirm again).

    Args:
        id (UUID):
        body (MediaConfirmRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | MediaConfirmedResponse
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
        )
    ).parsed

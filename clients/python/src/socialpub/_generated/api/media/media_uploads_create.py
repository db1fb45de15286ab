from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.media_create_request import MediaCreateRequest
from ...models.media_created_response import MediaCreatedResponse
from ...types import Response


def _get_kwargs(
    *,
    body: MediaCreateRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/media/uploads",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | MediaCreatedResponse | None:
    if response.status_code == 201:
        response_201 = MediaCreatedResponse.from_dict(response.json())

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
) -> Response[ErrorResponse | MediaCreatedResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: MediaCreateRequest,
) -> Response[ErrorResponse | MediaCreatedResponse]:
    """Start an upload

     Requires scope `media:write`.

    1. `POST /api/v1/media/uploads` with filename, content_type and size_bytes.
    2. `PUT` the bytes to `upload_url` with exactly the returned `headers` within 15 minutes.
    3. `POST /api/v1/media/uploads/{id}/confirm`: the service checks the stored file's size and its real
    type (read from its bytes) and marks it ready for `media_ids`.

    With `source_url` the service fetches the file itself (http/https, public addresses only); follow
    `fetch_status` on `GET /api/v1/media/uploads/{id}` and confirm once it is `done`. Unconfirmed
    uploads are deleted after 24 hours. When the plan's `media_storage_gb` is used up, create answers
    429 `quota_exceeded` with code `STORAGE_QUOTA_EXCEEDED`.

    Args:
        body (MediaCreateRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | MediaCreatedResponse]
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
    body: MediaCreateRequest,
) -> ErrorResponse | MediaCreatedResponse | None:
    """Start an upload

     Requires scope `media:write`.

    1. `POST /api/v1/media/uploads` with filename, content_type and size_bytes.
    2. `PUT` the bytes to `upload_url` with exactly the returned `headers` within 15 minutes.
    3. `POST /api/v1/media/uploads/{id}/confirm`: the service checks the stored file's size and its real
    type (read from its bytes) and marks it ready for `media_ids`.

    With `source_url` the service fetches the file itself (http/https, public addresses only); follow
    `fetch_status` on `GET /api/v1/media/uploads/{id}` and confirm once it is `done`. Unconfirmed
    uploads are deleted after 24 hours. When the plan's `media_storage_gb` is used up, create answers
    429 `quota_exceeded` with code `STORAGE_QUOTA_EXCEEDED`.

    Args:
        body (MediaCreateRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | MediaCreatedResponse
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: MediaCreateRequest,
) -> Response[ErrorResponse | MediaCreatedResponse]:
    """Start an upload

     Requires scope `media:write`.

    1. `POST /api/v1/media/uploads` with filename, content_type and size_bytes.
    2. `PUT` the bytes to `upload_url` with exactly the returned `headers` within 15 minutes.
    3. `POST /api/v1/media/uploads/{id}/confirm`: the service checks the stored file's size and its real
    type (read from its bytes) and marks it ready for `media_ids`.

    With `source_url` the service fetches the file itself (http/https, public addresses only); follow
    `fetch_status` on `GET /api/v1/media/uploads/{id}` and confirm once it is `done`. Unconfirmed
    uploads are deleted after 24 hours. When the plan's `media_storage_gb` is used up, create answers
    429 `quota_exceeded` with code `STORAGE_QUOTA_EXCEEDED`.

    Args:
        body (MediaCreateRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | MediaCreatedResponse]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: MediaCreateRequest,
) -> ErrorResponse | MediaCreatedResponse | None:
    """Start an upload

     Requires scope `media:write`.

    1. `POST /api/v1/media/uploads` with filename, content_type and size_bytes.
    2. `PUT` the bytes to `upload_url` with exactly the returned `headers` within 15 minutes.
    3. `POST /api/v1/media/uploads/{id}/confirm`: the service checks the stored file's size and its real
    type (read from its bytes) and marks it ready for `media_ids`.

    With `source_url` the service fetches the file itself (http/https, public addresses only); follow
    `fetch_status` on `GET /api/v1/media/uploads/{id}` and confirm once it is `done`. Unconfirmed
    uploads are deleted after 24 hours. When the plan's `media_storage_gb` is used up, create answers
    429 `quota_exceeded` with code `STORAGE_QUOTA_EXCEEDED`.

    Args:
        body (MediaCreateRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | MediaCreatedResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed

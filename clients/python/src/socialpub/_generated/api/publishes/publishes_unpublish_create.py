from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.publish_response import PublishResponse
from ...models.unpublish_request import UnpublishRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: UUID,
    *,
    body: UnpublishRequest | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/publishes/{id}/unpublish".format(
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
) -> ErrorResponse | PublishResponse | None:
    if response.status_code == 202:
        response_202 = PublishResponse.from_dict(response.json())

        return response_202

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
) -> Response[ErrorResponse | PublishResponse]:
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
    body: UnpublishRequest | Unset = UNSET,
) -> Response[ErrorResponse | PublishResponse]:
    """Take a publish's posts down

     Requires scope `posts:write`.

    Deletes the publish's posts on their networks: every published target, or those named in
    `target_ids`. Answers 202 at once with the publish; each target's post is then deleted once (a
    delete that got no answer is read back, never sent twice blindly). When a post is gone, its target
    shows `removed_at` and `removed_by: "user"`, and `post.removed` fires. On X, Bluesky and Threads the
    thread's replies and the first comment are deleted with it (elsewhere the network removes comments
    with their post); replies not yet sent are not sent. A network without a delete call (TikTok,
    Instagram), or one that refuses, leaves the target's `removal_error` in plain words. A target
    already being taken down is not asked twice. 400 `UNKNOWN_TARGET` for an id not of this publish; 409
    `NOTHING_PUBLISHED` when none of the targets is published (or each is removed).

    Args:
        id (UUID):
        body (UnpublishRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | PublishResponse]
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
    body: UnpublishRequest | Unset = UNSET,
) -> ErrorResponse | PublishResponse | None:
    """Take a publish's posts down

     Requires scope `posts:write`.

    Deletes the publish's posts on their networks: every published target, or those named in
    `target_ids`. Answers 202 at once with the publish; each target's post is then deleted once (a
    delete that got no answer is read back, never sent twice blindly). When a post is gone, its target
    shows `removed_at` and `removed_by: "user"`, and `post.removed` fires. On X, Bluesky and Threads the
    thread's replies and the first comment are deleted with it (elsewhere the network removes comments
    with their post); replies not yet sent are not sent. A network without a delete call (TikTok,
    Instagram), or one that refuses, leaves the target's `removal_error` in plain words. A target
    already being taken down is not asked twice. 400 `UNKNOWN_TARGET` for an id not of this publish; 409
    `NOTHING_PUBLISHED` when none of the targets is published (or each is removed).

    Args:
        id (UUID):
        body (UnpublishRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | PublishResponse
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
    body: UnpublishRequest | Unset = UNSET,
) -> Response[ErrorResponse | PublishResponse]:
    """Take a publish's posts down

     Requires scope `posts:write`.

    Deletes the publish's posts on their networks: every published target, or those named in
    `target_ids`. Answers 202 at once with the publish; each target's post is then deleted once (a
    delete that got no answer is read back, never sent twice blindly). When a post is gone, its target
    shows `removed_at` and `removed_by: "user"`, and `post.removed` fires. On X, Bluesky and Threads the
    thread's replies and the first comment are deleted with it (elsewhere the network removes comments
    with their post); replies not yet sent are not sent. A network without a delete call (TikTok,
    Instagram), or one that refuses, leaves the target's `removal_error` in plain words. A target
    already being taken down is not asked twice. 400 `UNKNOWN_TARGET` for an id not of this publish; 409
    `NOTHING_PUBLISHED` when none of the targets is published (or each is removed).

    Args:
        id (UUID):
        body (UnpublishRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | PublishResponse]
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
    body: UnpublishRequest | Unset = UNSET,
) -> ErrorResponse | PublishResponse | None:
    """Take a publish's posts down

     Requires scope `posts:write`.

    Deletes the publish's posts on their networks: every published target, or those named in
    `target_ids`. Answers 202 at once with the publish; each target's post is then deleted once (a
    delete that got no answer is read back, never sent twice blindly). When a post is gone, its target
    shows `removed_at` and `removed_by: "user"`, and `post.removed` fires. On X, Bluesky and Threads the
    thread's replies and the first comment are deleted with it (elsewhere the network removes comments
    with their post); replies not yet sent are not sent. A network without a delete call (TikTok,
    Instagram), or one that refuses, leaves the target's `removal_error` in plain words. A target
    already being taken down is not asked twice. 400 `UNKNOWN_TARGET` for an id not of this publish; 409
    `NOTHING_PUBLISHED` when none of the targets is published (or each is removed).

    Args:
        id (UUID):
        body (UnpublishRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | PublishResponse
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
        )
    ).parsed

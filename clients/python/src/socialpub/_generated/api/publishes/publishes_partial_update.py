from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.patched_update_publish_request import PatchedUpdatePublishRequest
from ...models.publish_response import PublishResponse
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: UUID,
    *,
    body: PatchedUpdatePublishRequest | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/api/v1/publishes/{id}".format(
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
    if response.status_code == 200:
        response_200 = PublishResponse.from_dict(response.json())

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
    body: PatchedUpdatePublishRequest | Unset = UNSET,
) -> Response[ErrorResponse | PublishResponse]:
    """Edit a draft or scheduled publish

     Requires scope `posts:write`.

    Edits an unconfirmed draft or a scheduled publish not yet sent, in place (same id). Omitted fields
    keep their values; `targets`, when given, is the complete set (kept targets keep omitted fields);
    top-level `media_ids` replaces the media of kept targets unless an entry gives its own. A scheduled
    publish keeps its time (move it with /reschedule). In a team that requires approval, a member's edit
    of a submitted publish (approved or not, whoever submitted it) waits for approval again
    (`approval_status: pending_approval`, event `post.pending_approval`) and nothing of it is sent
    before. 400 with no editable field, an invalid account or media; 422 `NOT_EDITABLE` in any other
    state, or for media the platform does not take.

    Args:
        id (UUID):
        body (PatchedUpdatePublishRequest | Unset):

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
    body: PatchedUpdatePublishRequest | Unset = UNSET,
) -> ErrorResponse | PublishResponse | None:
    """Edit a draft or scheduled publish

     Requires scope `posts:write`.

    Edits an unconfirmed draft or a scheduled publish not yet sent, in place (same id). Omitted fields
    keep their values; `targets`, when given, is the complete set (kept targets keep omitted fields);
    top-level `media_ids` replaces the media of kept targets unless an entry gives its own. A scheduled
    publish keeps its time (move it with /reschedule). In a team that requires approval, a member's edit
    of a submitted publish (approved or not, whoever submitted it) waits for approval again
    (`approval_status: pending_approval`, event `post.pending_approval`) and nothing of it is sent
    before. 400 with no editable field, an invalid account or media; 422 `NOT_EDITABLE` in any other
    state, or for media the platform does not take.

    Args:
        id (UUID):
        body (PatchedUpdatePublishRequest | Unset):

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
    body: PatchedUpdatePublishRequest | Unset = UNSET,
) -> Response[ErrorResponse | PublishResponse]:
    """Edit a draft or scheduled publish

     Requires scope `posts:write`.

    Edits an unconfirmed draft or a scheduled publish not yet sent, in place (same id). Omitted fields
    keep their values; `targets`, when given, is the complete set (kept targets keep omitted fields);
    top-level `media_ids` replaces the media of kept targets unless an entry gives its own. A scheduled
    publish keeps its time (move it with /reschedule). In a team that requires approval, a member's edit
    of a submitted publish (approved or not, whoever submitted it) waits for approval again
    (`approval_status: pending_approval`, event `post.pending_approval`) and nothing of it is sent
    before. 400 with no editable field, an invalid account or media; 422 `NOT_EDITABLE` in any other
    state, or for media the platform does not take.

    Args:
        id (UUID):
        body (PatchedUpdatePublishRequest | Unset):

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
    body: PatchedUpdatePublishRequest | Unset = UNSET,
) -> ErrorResponse | PublishResponse | None:
    """Edit a draft or scheduled publish

     Requires scope `posts:write`.

    Edits an unconfirmed draft or a scheduled publish not yet sent, in place (same id). Omitted fields
    keep their values; `targets`, when given, is the complete set (kept targets keep omitted fields);
    top-level `media_ids` replaces the media of kept targets unless an entry gives its own. A scheduled
    publish keeps its time (move it with /reschedule). In a team that requires approval, a member's edit
    of a submitted publish (approved or not, whoever submitted it) waits for approval again
    (`approval_status: pending_approval`, event `post.pending_approval`) and nothing of it is sent
    before. 400 with no editable field, an invalid account or media; 422 `NOT_EDITABLE` in any other
    state, or for media the platform does not take.

    Args:
        id (UUID):
        body (PatchedUpdatePublishRequest | Unset):

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

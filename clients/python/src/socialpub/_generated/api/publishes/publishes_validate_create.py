from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.create_publish_request import CreatePublishRequest
from ...models.error_response import ErrorResponse
from ...models.validation_response import ValidationResponse
from ...types import Response


def _get_kwargs(
    *,
    body: CreatePublishRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/publishes/validate",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | ValidationResponse | None:
    if response.status_code == 200:
        response_200 = ValidationResponse.from_dict(response.json())

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
) -> Response[ErrorResponse | ValidationResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: CreatePublishRequest,
) -> Response[ErrorResponse | ValidationResponse]:
    """Validate a create without creating

     Requires scope `posts:write`.

    Runs every check `POST /publishes` would run on the same body (fields, accounts, media,
    each platform's limits and settings, the time, the month's quota, approval) and creates,
    sends and counts nothing. Always 200 for a body the create would judge:

    - `valid`: whether the create would accept it now; `status`: what it would answer (201, 400,
      409 or 429); `error`: its error object exactly (`details.targets` as in its 400), null when valid.
    - `problems`: every problem of the request as a whole; `targets`: every target, in request
      order, with all of its problems and its text length and limit as its platform counts them
      (the create stops at its first error; this reports them all).
    - `approval_required`: the publish would wait as `pending_approval` (a member's key in a team
      that requires approval).
    - `warnings`: the create's duplicate-content warnings (see the create), `[]` when none. In a
      team that blocks duplicates each is also a `DUPLICATE_CONTENT` problem of its target, and
      the create's answer is the 409.

    A create can still fail after a valid answer if something changes in between (an account
    expires, the quota is used up by another request). Malformed JSON is a 400 here as anywhere.

    Args:
        body (CreatePublishRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | ValidationResponse]
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
    body: CreatePublishRequest,
) -> ErrorResponse | ValidationResponse | None:
    """Validate a create without creating

     Requires scope `posts:write`.

    Runs every check `POST /publishes` would run on the same body (fields, accounts, media,
    each platform's limits and settings, the time, the month's quota, approval) and creates,
    sends and counts nothing. Always 200 for a body the create would judge:

    - `valid`: whether the create would accept it now; `status`: what it would answer (201, 400,
      409 or 429); `error`: its error object exactly (`details.targets` as in its 400), null when valid.
    - `problems`: every problem of the request as a whole; `targets`: every target, in request
      order, with all of its problems and its text length and limit as its platform counts them
      (the create stops at its first error; this reports them all).
    - `approval_required`: the publish would wait as `pending_approval` (a member's key in a team
      that requires approval).
    - `warnings`: the create's duplicate-content warnings (see the create), `[]` when none. In a
      team that blocks duplicates each is also a `DUPLICATE_CONTENT` problem of its target, and
      the create's answer is the 409.

    A create can still fail after a valid answer if something changes in between (an account
    expires, the quota is used up by another request). Malformed JSON is a 400 here as anywhere.

    Args:
        body (CreatePublishRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | ValidationResponse
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: CreatePublishRequest,
) -> Response[ErrorResponse | ValidationResponse]:
    """Validate a create without creating

     Requires scope `posts:write`.

    Runs every check `POST /publishes` would run on the same body (fields, accounts, media,
    each platform's limits and settings, the time, the month's quota, approval) and creates,
    sends and counts nothing. Always 200 for a body the create would judge:

    - `valid`: whether the create would accept it now; `status`: what it would answer (201, 400,
      409 or 429); `error`: its error object exactly (`details.targets` as in its 400), null when valid.
    - `problems`: every problem of the request as a whole; `targets`: every target, in request
      order, with all of its problems and its text length and limit as its platform counts them
      (the create stops at its first error; this reports them all).
    - `approval_required`: the publish would wait as `pending_approval` (a member's key in a team
      that requires approval).
    - `warnings`: the create's duplicate-content warnings (see the create), `[]` when none. In a
      team that blocks duplicates each is also a `DUPLICATE_CONTENT` problem of its target, and
      the create's answer is the 409.

    A create can still fail after a valid answer if something changes in between (an account
    expires, the quota is used up by another request). Malformed JSON is a 400 here as anywhere.

    Args:
        body (CreatePublishRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | ValidationResponse]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: CreatePublishRequest,
) -> ErrorResponse | ValidationResponse | None:
    """Validate a create without creating

     Requires scope `posts:write`.

    Runs every check `POST /publishes` would run on the same body (fields, accounts, media,
    each platform's limits and settings, the time, the month's quota, approval) and creates,
    sends and counts nothing. Always 200 for a body the create would judge:

    - `valid`: whether the create would accept it now; `status`: what it would answer (201, 400,
      409 or 429); `error`: its error object exactly (`details.targets` as in its 400), null when valid.
    - `problems`: every problem of the request as a whole; `targets`: every target, in request
      order, with all of its problems and its text length and limit as its platform counts them
      (the create stops at its first error; this reports them all).
    - `approval_required`: the publish would wait as `pending_approval` (a member's key in a team
      that requires approval).
    - `warnings`: the create's duplicate-content warnings (see the create), `[]` when none. In a
      team that blocks duplicates each is also a `DUPLICATE_CONTENT` problem of its target, and
      the create's answer is the 409.

    A create can still fail after a valid answer if something changes in between (an account
    expires, the quota is used up by another request). Malformed JSON is a 400 here as anywhere.

    Args:
        body (CreatePublishRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | ValidationResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed

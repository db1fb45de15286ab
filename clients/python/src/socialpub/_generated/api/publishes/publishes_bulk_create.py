from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.bulk_create_request import BulkCreateRequest
from ...models.bulk_dry_run_response import BulkDryRunResponse
from ...models.bulk_response import BulkResponse
from ...models.error_response import ErrorResponse
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: BulkCreateRequest | Unset = UNSET,
    dry_run: bool | Unset = False,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    params: dict[str, Any] = {}

    params["dry_run"] = dry_run

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/publishes/bulk",
        "params": params,
    }

    if not isinstance(body, Unset):
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> BulkDryRunResponse | BulkResponse | ErrorResponse | None:
    if response.status_code == 200:
        response_200 = BulkDryRunResponse.from_dict(response.json())

        return response_200

    if response.status_code == 201:
        response_201 = BulkResponse.from_dict(response.json())

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
) -> Response[BulkDryRunResponse | BulkResponse | ErrorResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: BulkCreateRequest | Unset = UNSET,
    dry_run: bool | Unset = False,
    idempotency_key: str | Unset = UNSET,
) -> Response[BulkDryRunResponse | BulkResponse | ErrorResponse]:
    """Create many publishes at once

     Requires scope `posts:write`.

    Creates up to 500 publishes in one request, all of them or none. Each row is a
    create body (`POST /publishes`), `publish_mode: queue` included.

    - JSON: `{"publishes": [<create body>, ...], "dry_run": false}`.
    - CSV (`Content-Type: text/csv`, RFC 4180, UTF-8, a header row): columns `content`,
      `account_ids` (space-separated), `publish_mode`, `scheduled_at`, `media_ids`
      (space-separated); an empty cell is a field not given, another column is a 400. Add
      `?dry_run=true` for a dry run.

    Every row is checked first, as the create checks one. When any row would be refused, nothing
    is created: 400 `INVALID_ROWS` with `error.details.rows = [{"index", "problems"}]`, the problem
    objects of `POST /publishes/validate` (a target's field named like `targets[0].content`).
    Otherwise 201 with the publishes in row order and `warnings`: the duplicate-content warnings of
    `POST /publishes`, each with its row's `index` (`[]` when none). Rows see the rows before them:
    queued rows take successive slots, and a row repeating an earlier row's text to the same account
    is warned of (refused, in a team that blocks duplicates). `dry_run: true` answers 200 with each
    row's verdict (the validate answer, with its `index`) and `meta.valid`/`meta.status` for the
    whole batch, and creates nothing.

    Every row submitted (not a draft) counts against `posts_per_month`: a batch over what is left
    is a 429 and creates nothing. The rate limit counts the request as one create. An
    `Idempotency-Key` covers the whole batch: a repeat replays the first answer. The body is at
    most 1 MB.

    Args:
        dry_run (bool | Unset):  Default: False.
        idempotency_key (str | Unset):
        body (BulkCreateRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BulkDryRunResponse | BulkResponse | ErrorResponse]
    """

    kwargs = _get_kwargs(
        body=body,
        dry_run=dry_run,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: BulkCreateRequest | Unset = UNSET,
    dry_run: bool | Unset = False,
    idempotency_key: str | Unset = UNSET,
) -> BulkDryRunResponse | BulkResponse | ErrorResponse | None:
    """Create many publishes at once

     Requires scope `posts:write`.

    Creates up to 500 publishes in one request, all of them or none. Each row is a
    create body (`POST /publishes`), `publish_mode: queue` included.

    - JSON: `{"publishes": [<create body>, ...], "dry_run": false}`.
    - CSV (`Content-Type: text/csv`, RFC 4180, UTF-8, a header row): columns `content`,
      `account_ids` (space-separated), `publish_mode`, `scheduled_at`, `media_ids`
      (space-separated); an empty cell is a field not given, another column is a 400. Add
      `?dry_run=true` for a dry run.

    Every row is checked first, as the create checks one. When any row would be refused, nothing
    is created: 400 `INVALID_ROWS` with `error.details.rows = [{"index", "problems"}]`, the problem
    objects of `POST /publishes/validate` (a target's field named like `targets[0].content`).
    Otherwise 201 with the publishes in row order and `warnings`: the duplicate-content warnings of
    `POST /publishes`, each with its row's `index` (`[]` when none). Rows see the rows before them:
    queued rows take successive slots, and a row repeating an earlier row's text to the same account
    is warned of (refused, in a team that blocks duplicates). `dry_run: true` answers 200 with each
    row's verdict (the validate answer, with its `index`) and `meta.valid`/`meta.status` for the
    whole batch, and creates nothing.

    Every row submitted (not a draft) counts against `posts_per_month`: a batch over what is left
    is a 429 and creates nothing. The rate limit counts the request as one create. An
    `Idempotency-Key` covers the whole batch: a repeat replays the first answer. The body is at
    most 1 MB.

    Args:
        dry_run (bool | Unset):  Default: False.
        idempotency_key (str | Unset):
        body (BulkCreateRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BulkDryRunResponse | BulkResponse | ErrorResponse
    """

    return sync_detailed(
        client=client,
        body=body,
        dry_run=dry_run,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: BulkCreateRequest | Unset = UNSET,
    dry_run: bool | Unset = False,
    idempotency_key: str | Unset = UNSET,
) -> Response[BulkDryRunResponse | BulkResponse | ErrorResponse]:
    """Create many publishes at once

     Requires scope `posts:write`.

    Creates up to 500 publishes in one request, all of them or none. Each row is a
    create body (`POST /publishes`), `publish_mode: queue` included.

    - JSON: `{"publishes": [<create body>, ...], "dry_run": false}`.
    - CSV (`Content-Type: text/csv`, RFC 4180, UTF-8, a header row): columns `content`,
      `account_ids` (space-separated), `publish_mode`, `scheduled_at`, `media_ids`
      (space-separated); an empty cell is a field not given, another column is a 400. Add
      `?dry_run=true` for a dry run.

    Every row is checked first, as the create checks one. When any row would be refused, nothing
    is created: 400 `INVALID_ROWS` with `error.details.rows = [{"index", "problems"}]`, the problem
    objects of `POST /publishes/validate` (a target's field named like `targets[0].content`).
    Otherwise 201 with the publishes in row order and `warnings`: the duplicate-content warnings of
    `POST /publishes`, each with its row's `index` (`[]` when none). Rows see the rows before them:
    queued rows take successive slots, and a row repeating an earlier row's text to the same account
    is warned of (refused, in a team that blocks duplicates). `dry_run: true` answers 200 with each
    row's verdict (the validate answer, with its `index`) and `meta.valid`/`meta.status` for the
    whole batch, and creates nothing.

    Every row submitted (not a draft) counts against `posts_per_month`: a batch over what is left
    is a 429 and creates nothing. The rate limit counts the request as one create. An
    `Idempotency-Key` covers the whole batch: a repeat replays the first answer. The body is at
    most 1 MB.

    Args:
        dry_run (bool | Unset):  Default: False.
        idempotency_key (str | Unset):
        body (BulkCreateRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BulkDryRunResponse | BulkResponse | ErrorResponse]
    """

    kwargs = _get_kwargs(
        body=body,
        dry_run=dry_run,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: BulkCreateRequest | Unset = UNSET,
    dry_run: bool | Unset = False,
    idempotency_key: str | Unset = UNSET,
) -> BulkDryRunResponse | BulkResponse | ErrorResponse | None:
    """Create many publishes at once

     Requires scope `posts:write`.

    Creates up to 500 publishes in one request, all of them or none. Each row is a
    create body (`POST /publishes`), `publish_mode: queue` included.

    - JSON: `{"publishes": [<create body>, ...], "dry_run": false}`.
    - CSV (`Content-Type: text/csv`, RFC 4180, UTF-8, a header row): columns `content`,
      `account_ids` (space-separated), `publish_mode`, `scheduled_at`, `media_ids`
      (space-separated); an empty cell is a field not given, another column is a 400. Add
      `?dry_run=true` for a dry run.

    Every row is checked first, as the create checks one. When any row would be refused, nothing
    is created: 400 `INVALID_ROWS` with `error.details.rows = [{"index", "problems"}]`, the problem
    objects of `POST /publishes/validate` (a target's field named like `targets[0].content`).
    Otherwise 201 with the publishes in row order and `warnings`: the duplicate-content warnings of
    `POST /publishes`, each with its row's `index` (`[]` when none). Rows see the rows before them:
    queued rows take successive slots, and a row repeating an earlier row's text to the same account
    is warned of (refused, in a team that blocks duplicates). `dry_run: true` answers 200 with each
    row's verdict (the validate answer, with its `index`) and `meta.valid`/`meta.status` for the
    whole batch, and creates nothing.

    Every row submitted (not a draft) counts against `posts_per_month`: a batch over what is left
    is a 429 and creates nothing. The rate limit counts the request as one create. An
    `Idempotency-Key` covers the whole batch: a repeat replays the first answer. The body is at
    most 1 MB.

    Args:
        dry_run (bool | Unset):  Default: False.
        idempotency_key (str | Unset):
        body (BulkCreateRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BulkDryRunResponse | BulkResponse | ErrorResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            dry_run=dry_run,
            idempotency_key=idempotency_key,
        )
    ).parsed

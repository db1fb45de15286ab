from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.analytics_posts_list_order import AnalyticsPostsListOrder
from ...models.analytics_posts_list_sort import AnalyticsPostsListSort
from ...models.error_response import ErrorResponse
from ...models.paginated_analytics_post_list import PaginatedAnalyticsPostList
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    order: AnalyticsPostsListOrder | Unset = AnalyticsPostsListOrder.DESC,
    page: int | Unset = 1,
    page_size: int | Unset = 20,
    platform: str | Unset = UNSET,
    sort: AnalyticsPostsListSort | Unset = AnalyticsPostsListSort.PUBLISHED_AT,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_order: str | Unset = UNSET
    if not isinstance(order, Unset):
        json_order = order.value

    params["order"] = json_order

    params["page"] = page

    params["page_size"] = page_size

    params["platform"] = platform

    json_sort: str | Unset = UNSET
    if not isinstance(sort, Unset):
        json_sort = sort.value

    params["sort"] = json_sort

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/analytics/posts",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | PaginatedAnalyticsPostList | None:
    if response.status_code == 200:
        response_200 = PaginatedAnalyticsPostList.from_dict(response.json())

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
) -> Response[ErrorResponse | PaginatedAnalyticsPostList]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    order: AnalyticsPostsListOrder | Unset = AnalyticsPostsListOrder.DESC,
    page: int | Unset = 1,
    page_size: int | Unset = 20,
    platform: str | Unset = UNSET,
    sort: AnalyticsPostsListSort | Unset = AnalyticsPostsListSort.PUBLISHED_AT,
) -> Response[ErrorResponse | PaginatedAnalyticsPostList]:
    """List posts with metrics

     Requires scope `analytics:read`.

    The team's posts that reached `published` on at least one target, each with `metrics` summed
    over its published targets only (`last_sync_at` is null until the first sync; totals are 0
    before). `platform` limits both which targets count and which posts are listed. `sort` is
    `published_at` (the first target's publication, the default), `total_views`, `total_likes`,
    `total_comments` or `total_shares`; `order` is `desc` (default) or `asc`. Ties keep a stable
    order by post id.

    Args:
        order (AnalyticsPostsListOrder | Unset):  Default: AnalyticsPostsListOrder.DESC.
        page (int | Unset):  Default: 1.
        page_size (int | Unset):  Default: 20.
        platform (str | Unset):  Example: x,instagram.
        sort (AnalyticsPostsListSort | Unset):  Default: AnalyticsPostsListSort.PUBLISHED_AT.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | PaginatedAnalyticsPostList]
    """

    kwargs = _get_kwargs(
        order=order,
        page=page,
        page_size=page_size,
        platform=platform,
        sort=sort,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    order: AnalyticsPostsListOrder | Unset = AnalyticsPostsListOrder.DESC,
    page: int | Unset = 1,
    page_size: int | Unset = 20,
    platform: str | Unset = UNSET,
    sort: AnalyticsPostsListSort | Unset = AnalyticsPostsListSort.PUBLISHED_AT,
) -> ErrorResponse | PaginatedAnalyticsPostList | None:
    """List posts with metrics

     Requires scope `analytics:read`.

    The team's posts that reached `published` on at least one target, each with `metrics` summed
    over its published targets only (`last_sync_at` is null until the first sync; totals are 0
    before). `platform` limits both which targets count and which posts are listed. `sort` is
    `published_at` (the first target's publication, the default), `total_views`, `total_likes`,
    `total_comments` or `total_shares`; `order` is `desc` (default) or `asc`. Ties keep a stable
    order by post id.

    Args:
        order (AnalyticsPostsListOrder | Unset):  Default: AnalyticsPostsListOrder.DESC.
        page (int | Unset):  Default: 1.
        page_size (int | Unset):  Default: 20.
        platform (str | Unset):  Example: x,instagram.
        sort (AnalyticsPostsListSort | Unset):  Default: AnalyticsPostsListSort.PUBLISHED_AT.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | PaginatedAnalyticsPostList
    """

    return sync_detailed(
        client=client,
        order=order,
        page=page,
        page_size=page_size,
        platform=platform,
        sort=sort,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    order: AnalyticsPostsListOrder | Unset = AnalyticsPostsListOrder.DESC,
    page: int | Unset = 1,
    page_size: int | Unset = 20,
    platform: str | Unset = UNSET,
    sort: AnalyticsPostsListSort | Unset = AnalyticsPostsListSort.PUBLISHED_AT,
) -> Response[ErrorResponse | PaginatedAnalyticsPostList]:
    """List posts with metrics

     Requires scope `analytics:read`.

    The team's posts that reached `published` on at least one target, each with `metrics` summed
    over its published targets only (`last_sync_at` is null until the first sync; totals are 0
    before). `platform` limits both which targets count and which posts are listed. `sort` is
    `published_at` (the first target's publication, the default), `total_views`, `total_likes`,
    `total_comments` or `total_shares`; `order` is `desc` (default) or `asc`. Ties keep a stable
    order by post id.

    Args:
        order (AnalyticsPostsListOrder | Unset):  Default: AnalyticsPostsListOrder.DESC.
        page (int | Unset):  Default: 1.
        page_size (int | Unset):  Default: 20.
        platform (str | Unset):  Example: x,instagram.
        sort (AnalyticsPostsListSort | Unset):  Default: AnalyticsPostsListSort.PUBLISHED_AT.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | PaginatedAnalyticsPostList]
    """

    kwargs = _get_kwargs(
        order=order,
        page=page,
        page_size=page_size,
        platform=platform,
        sort=sort,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    order: AnalyticsPostsListOrder | Unset = AnalyticsPostsListOrder.DESC,
    page: int | Unset = 1,
    page_size: int | Unset = 20,
    platform: str | Unset = UNSET,
    sort: AnalyticsPostsListSort | Unset = AnalyticsPostsListSort.PUBLISHED_AT,
) -> ErrorResponse | PaginatedAnalyticsPostList | None:
    """List posts with metrics

     Requires scope `analytics:read`.

    The team's posts that reached `published` on at least one target, each with `metrics` summed
    over its published targets only (`last_sync_at` is null until the first sync; totals are 0
    before). `platform` limits both which targets count and which posts are listed. `sort` is
    `published_at` (the first target's publication, the default), `total_views`, `total_likes`,
    `total_comments` or `total_shares`; `order` is `desc` (default) or `asc`. Ties keep a stable
    order by post id.

    Args:
        order (AnalyticsPostsListOrder | Unset):  Default: AnalyticsPostsListOrder.DESC.
        page (int | Unset):  Default: 1.
        page_size (int | Unset):  Default: 20.
        platform (str | Unset):  Example: x,instagram.
        sort (AnalyticsPostsListSort | Unset):  Default: AnalyticsPostsListSort.PUBLISHED_AT.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | PaginatedAnalyticsPostList
    """

    return (
        await asyncio_detailed(
            client=client,
            order=order,
            page=page,
            page_size=page_size,
            platform=platform,
            sort=sort,
        )
    ).parsed

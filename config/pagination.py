"""`page` / `page_size` paging (spec §9) for the API, and the dashboard's `Paginator`. Bad
values are refused with a 400, never adjusted.

Both read a page past the first in two steps (`page_rows`): the ids of the page, reading only
what the ordering needs, then those rows whole. A deep page then skips index entries, not
rows with their annotations, joins and subqueries computed."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, cast

from django.core import paginator
from django.db.models import QuerySet
from rest_framework.pagination import BasePagination
from rest_framework.request import Request
from rest_framework.response import Response

from config.errors import InvalidRequest

if TYPE_CHECKING:  # DRF imports this module while loading rest_framework.views
    from rest_framework.views import APIView

MAX_PAGE_SIZE = 100
# A list counts its items up to this many; past it `total_count` says "at least" (with
# `total_count_exact` false), so a long history costs no count of every row on every page.
EXACT_COUNT_LIMIT = 10_000
# Beyond this an OFFSET stops being a sensible query (and overflows a bigint further on).
MAX_PAGE = 1_000_000
_DIGITS = re.compile(r"[0-9]{1,9}")


def _positive_int(request: Request, name: str, default: int, maximum: int) -> int:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    if not _DIGITS.fullmatch(raw) or not 1 <= int(raw) <= maximum:
        raise InvalidRequest(
            f"{name} must be a whole number from 1 to {maximum}.",
            code="INVALID_PAGINATION",
            details={name: raw[:20]},
        )
    return int(raw)


@dataclass(frozen=True)
class Keyed:
    """A list whose order and count a narrower query holds: `keys` gives the primary keys of
    `rows` in the list's order (the same items, the same order), from an index of its own, so
    counting and skipping never touch the rows; only the page's rows are then read."""

    rows: QuerySet[Any]
    keys: QuerySet[Any]

    def count(self) -> int:
        return self.keys.count()

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, bounds: slice) -> Keyed:
        return Keyed(rows=self.rows, keys=self.keys[bounds])


Pageable = QuerySet[Any] | Sequence[Any] | Keyed


def page_rows(rows: Pageable, offset: int, size: int) -> list[Any]:
    """The items [offset, offset + size) of `rows`, in its order. Past the first page of a
    queryset, and on every page of a `Keyed` list, the page's ids are read first and then only
    those rows (in the same order, any that went meanwhile left out)."""
    if isinstance(rows, Keyed):
        ids, rows = list(rows.keys[offset : offset + size]), rows.rows
    elif offset == 0 or not isinstance(rows, QuerySet):
        return list(rows[offset : offset + size])
    else:
        ids = list(rows.values_list("pk", flat=True)[offset : offset + size])
    found = {row.pk: row for row in rows.filter(pk__in=ids)}
    return [found[pk] for pk in ids if pk in found]


class Paginator(paginator.Paginator[Any]):
    """Django's paginator, reading a page as `page_rows` does, and counting as the API does: up
    to EXACT_COUNT_LIMIT items. A longer list pages through its first EXACT_COUNT_LIMIT (the
    pager says "of 500+"), which its filters narrow."""

    @cached_property
    def counted(self) -> int:
        """The list's items, counted up to one past EXACT_COUNT_LIMIT."""
        bounded = self.object_list[: EXACT_COUNT_LIMIT + 1]
        return bounded.count() if isinstance(bounded, QuerySet | Keyed) else len(bounded)

    @cached_property
    def count(self) -> int:
        return min(self.counted, EXACT_COUNT_LIMIT)

    @property
    def exact(self) -> bool:
        """Whether `count` is the whole list's."""
        return self.counted <= EXACT_COUNT_LIMIT

    def page(self, number: Any) -> paginator.Page[Any]:
        number = self.validate_number(number)
        bottom = (number - 1) * self.per_page
        top = bottom + self.per_page
        if top + self.orphans >= self.count:
            top = self.count
        rows = cast("Pageable", self.object_list)
        return paginator.Page(page_rows(rows, bottom, top - bottom), number, self)


class PagePagination(BasePagination):
    """A view sets `page_size_default` (20 unless it says otherwise; accounts use 50).

    A page past the last one is an empty page with the true totals, so a client walking pages
    stops cleanly. Up to EXACT_COUNT_LIMIT items the totals are exact. A longer list says so
    (`total_count_exact` false, the totals then its reach) and its pages reach its first
    EXACT_COUNT_LIMIT items, as the dashboard's do: a page past them is a 400
    (PAGE_OUT_OF_REACH), never an offset skipped entry by entry through a whole history; the
    list's filters narrow it to the rest.
    """

    default_page_size = 20

    def paginate_queryset(self, queryset: Pageable, request: Request, view: APIView | None = None) -> list[Any]:
        default = getattr(view, "page_size_default", self.default_page_size)
        self.page = _positive_int(request, "page", 1, MAX_PAGE)
        self.page_size = _positive_int(request, "page_size", default, MAX_PAGE_SIZE)
        bounded = queryset[: EXACT_COUNT_LIMIT + 1]
        counted = bounded.count() if isinstance(bounded, QuerySet) else len(bounded)
        self.exact = counted <= EXACT_COUNT_LIMIT
        self.total_count = min(counted, EXACT_COUNT_LIMIT)
        offset = (self.page - 1) * self.page_size
        if self.exact:
            return page_rows(queryset, offset, self.page_size)
        reach = math.ceil(EXACT_COUNT_LIMIT / self.page_size)
        if self.page > reach:
            raise InvalidRequest(
                f"Pages reach the first {EXACT_COUNT_LIMIT:,} items of a list (pages 1 to {reach} of "
                f"{self.page_size}); narrow the list with its filters to reach the rest.",
                code="PAGE_OUT_OF_REACH",
                details={"page": self.page, "last_page": reach},
            )
        rows = page_rows(queryset, offset, self.page_size + 1)  # one more: is there a next page?
        self.more = len(rows) > self.page_size and self.page < reach
        return rows[: self.page_size]

    def get_paginated_response(self, data: Any) -> Response:
        total_pages = math.ceil(self.total_count / self.page_size) if self.total_count else 0
        if self.exact:
            next_page = self.page + 1 if self.page < total_pages else None
            # Past the end, "previous" is the last page that has items.
            previous_page = min(self.page - 1, total_pages) or None
        else:
            next_page = self.page + 1 if self.more else None
            previous_page = self.page - 1 or None
        return Response(
            {
                "data": data,
                "pagination": {
                    "page": self.page,
                    "page_size": self.page_size,
                    "total_count": self.total_count,
                    "total_count_exact": self.exact,
                    "total_pages": total_pages,
                    "next_page": next_page,
                    "previous_page": previous_page,
                },
            }
        )

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        nullable_int = {"type": "integer", "nullable": True}
        return {
            "type": "object",
            "required": ["data", "pagination"],
            "properties": {
                "data": schema,
                "pagination": {
                    "type": "object",
                    "required": [
                        "page",
                        "page_size",
                        "total_count",
                        "total_count_exact",
                        "total_pages",
                        "next_page",
                        "previous_page",
                    ],
                    "properties": {
                        "page": {"type": "integer", "minimum": 1, "example": 1},
                        "page_size": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE, "example": 20},
                        "total_count": {
                            "type": "integer",
                            "minimum": 0,
                            "example": 42,
                            "description": f"The items of the list: exact up to {EXACT_COUNT_LIMIT:,}; past it, "
                            f"{EXACT_COUNT_LIMIT:,} and `total_count_exact` is false.",
                        },
                        "total_count_exact": {
                            "type": "boolean",
                            "example": True,
                            "description": "False when the list holds more than "
                            f"{EXACT_COUNT_LIMIT:,} items: `total_count` and `total_pages` then say how far "
                            f"its pages reach (its first {EXACT_COUNT_LIMIT:,} items; a page past them is a "
                            "400, PAGE_OUT_OF_REACH), and its filters narrow it to the rest (the publishes "
                            "list: `created_before`, just past the `created_at` of the last item seen).",
                        },
                        "total_pages": {"type": "integer", "minimum": 0, "example": 3},
                        "next_page": {**nullable_int, "example": 2},
                        "previous_page": {**nullable_int, "example": None},
                    },
                },
            },
        }

    def get_schema_operation_parameters(self, view: APIView) -> list[dict[str, Any]]:
        default = getattr(view, "page_size_default", self.default_page_size)
        return [
            {
                "name": "page",
                "in": "query",
                "required": False,
                "description": "Page number, from 1. A page past the last is empty.",
                "schema": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE, "default": 1},
            },
            {
                "name": "page_size",
                "in": "query",
                "required": False,
                "description": f"Items per page, at most {MAX_PAGE_SIZE}.",
                "schema": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE, "default": default},
            },
        ]

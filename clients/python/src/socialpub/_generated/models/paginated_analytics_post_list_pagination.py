from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PaginatedAnalyticsPostListPagination")


@_attrs_define
class PaginatedAnalyticsPostListPagination:
    """
    Attributes:
        page (int):  Example: 1.
        page_size (int):  Example: 20.
        total_count (int): The items of the list: exact up to 10,000; past it, 10,000 and `total_count_exact` is false.
            Example: 42.
        total_count_exact (bool): False when the list holds more than 10,000 items: `total_count` and `total_pages` then
            say how far its pages reach (its first 10,000 items; a page past them is a 400, PAGE_OUT_OF_REACH), and its
            filters narrow it to the rest (the publishes list: `created_before`, just past the `created_at` of the last item
            seen). Example: True.
        total_pages (int):  Example: 3.
        next_page (int | None):  Example: 2.
        previous_page (int | None):
    """

    page: int
    page_size: int
    total_count: int
    total_count_exact: bool
    total_pages: int
    next_page: int | None
    previous_page: int | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        page = self.page

        page_size = self.page_size

        total_count = self.total_count

        total_count_exact = self.total_count_exact

        total_pages = self.total_pages

        next_page: int | None
        next_page = self.next_page

        previous_page: int | None
        previous_page = self.previous_page

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "page": page,
                "page_size": page_size,
                "total_count": total_count,
                "total_count_exact": total_count_exact,
                "total_pages": total_pages,
                "next_page": next_page,
                "previous_page": previous_page,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        page = d.pop("page")

        page_size = d.pop("page_size")

        total_count = d.pop("total_count")

        total_count_exact = d.pop("total_count_exact")

        total_pages = d.pop("total_pages")

        def _parse_next_page(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        next_page = _parse_next_page(d.pop("next_page"))

        def _parse_previous_page(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        previous_page = _parse_previous_page(d.pop("previous_page"))

        paginated_analytics_post_list_pagination = cls(
            page=page,
            page_size=page_size,
            total_count=total_count,
            total_count_exact=total_count_exact,
            total_pages=total_pages,
            next_page=next_page,
            previous_page=previous_page,
        )

        paginated_analytics_post_list_pagination.additional_properties = d
        return paginated_analytics_post_list_pagination

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties

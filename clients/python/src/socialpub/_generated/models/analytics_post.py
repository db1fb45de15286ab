from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.platform_enum import PlatformEnum

if TYPE_CHECKING:
    from ..models.post_totals import PostTotals


T = TypeVar("T", bound="AnalyticsPost")


@_attrs_define
class AnalyticsPost:
    """
    Attributes:
        id (UUID):
        content (str):
        published_at (datetime.datetime): When the first target was published.
        platforms (list[PlatformEnum]): Platforms of the published targets counted.
        metrics (PostTotals):
    """

    id: UUID
    content: str
    published_at: datetime.datetime
    platforms: list[PlatformEnum]
    metrics: PostTotals
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        content = self.content

        published_at = self.published_at.isoformat()

        platforms = []
        for platforms_item_data in self.platforms:
            platforms_item = platforms_item_data.value
            platforms.append(platforms_item)

        metrics = self.metrics.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "content": content,
                "published_at": published_at,
                "platforms": platforms,
                "metrics": metrics,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.post_totals import PostTotals

        d = dict(src_dict)
        id = UUID(d.pop("id"))

        content = d.pop("content")

        published_at = datetime.datetime.fromisoformat(d.pop("published_at"))

        platforms = []
        _platforms = d.pop("platforms")
        for platforms_item_data in _platforms:
            platforms_item = PlatformEnum(platforms_item_data)

            platforms.append(platforms_item)

        metrics = PostTotals.from_dict(d.pop("metrics"))

        analytics_post = cls(
            id=id,
            content=content,
            published_at=published_at,
            platforms=platforms,
            metrics=metrics,
        )

        analytics_post.additional_properties = d
        return analytics_post

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

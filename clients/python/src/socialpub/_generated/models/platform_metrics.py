from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.platform_enum import PlatformEnum

if TYPE_CHECKING:
    from ..models.platform_metrics_platform_specific_data import (
        PlatformMetricsPlatformSpecificData,
    )
    from ..models.target_metrics import TargetMetrics


T = TypeVar("T", bound="PlatformMetrics")


@_attrs_define
class PlatformMetrics:
    """
    Attributes:
        platform (PlatformEnum): * `x` - X
            * `instagram` - Instagram
            * `tiktok` - TikTok
            * `youtube` - YouTube
            * `facebook` - Facebook
            * `linkedin` - LinkedIn
            * `pinterest` - Pinterest
            * `threads` - Threads
            * `bluesky` - Bluesky
        account_id (UUID):
        platform_post_id (str):
        platform_post_url (None | str): The live post.
        metrics (TargetMetrics):
        platform_specific_data (PlatformMetricsPlatformSpecificData): The platform's own fields: impressions, reach,
            saves...
        sync_error (None | str): Why the last read failed; null when fine.
    """

    platform: PlatformEnum
    account_id: UUID
    platform_post_id: str
    platform_post_url: None | str
    metrics: TargetMetrics
    platform_specific_data: PlatformMetricsPlatformSpecificData
    sync_error: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        platform = self.platform.value

        account_id = str(self.account_id)

        platform_post_id = self.platform_post_id

        platform_post_url: None | str
        platform_post_url = self.platform_post_url

        metrics = self.metrics.to_dict()

        platform_specific_data = self.platform_specific_data.to_dict()

        sync_error: None | str
        sync_error = self.sync_error

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "platform": platform,
                "account_id": account_id,
                "platform_post_id": platform_post_id,
                "platform_post_url": platform_post_url,
                "metrics": metrics,
                "platform_specific_data": platform_specific_data,
                "sync_error": sync_error,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.platform_metrics_platform_specific_data import (
            PlatformMetricsPlatformSpecificData,
        )
        from ..models.target_metrics import TargetMetrics

        d = dict(src_dict)
        platform = PlatformEnum(d.pop("platform"))

        account_id = UUID(d.pop("account_id"))

        platform_post_id = d.pop("platform_post_id")

        def _parse_platform_post_url(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        platform_post_url = _parse_platform_post_url(d.pop("platform_post_url"))

        metrics = TargetMetrics.from_dict(d.pop("metrics"))

        platform_specific_data = PlatformMetricsPlatformSpecificData.from_dict(
            d.pop("platform_specific_data")
        )

        def _parse_sync_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        sync_error = _parse_sync_error(d.pop("sync_error"))

        platform_metrics = cls(
            platform=platform,
            account_id=account_id,
            platform_post_id=platform_post_id,
            platform_post_url=platform_post_url,
            metrics=metrics,
            platform_specific_data=platform_specific_data,
            sync_error=sync_error,
        )

        platform_metrics.additional_properties = d
        return platform_metrics

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

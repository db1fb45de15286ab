from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.create_mode_enum import CreateModeEnum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.target_input_request import TargetInputRequest


T = TypeVar("T", bound="CreatePublishRequest")


@_attrs_define
class CreatePublishRequest:
    """
    Attributes:
        targets (list[TargetInputRequest]):
        content (str | Unset): Default text of every target. Default: ''.
        media_ids (list[UUID] | Unset): Ids of confirmed uploads (never URLs); default media of every target.
        publish_mode (CreateModeEnum | Unset): * `immediate` - Immediate
            * `scheduled` - Scheduled
            * `draft` - Draft
            * `queue` - Queue
        scheduled_at (datetime.datetime | None | Unset): ISO 8601, in the future. Required for `scheduled`; on a draft,
            confirm schedules it.
    """

    targets: list[TargetInputRequest]
    content: str | Unset = ""
    media_ids: list[UUID] | Unset = UNSET
    publish_mode: CreateModeEnum | Unset = UNSET
    scheduled_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        targets = []
        for targets_item_data in self.targets:
            targets_item = targets_item_data.to_dict()
            targets.append(targets_item)

        content = self.content

        media_ids: list[str] | Unset = UNSET
        if not isinstance(self.media_ids, Unset):
            media_ids = []
            for media_ids_item_data in self.media_ids:
                media_ids_item = str(media_ids_item_data)
                media_ids.append(media_ids_item)

        publish_mode: str | Unset = UNSET
        if not isinstance(self.publish_mode, Unset):
            publish_mode = self.publish_mode.value

        scheduled_at: None | str | Unset
        if isinstance(self.scheduled_at, Unset):
            scheduled_at = UNSET
        elif isinstance(self.scheduled_at, datetime.datetime):
            scheduled_at = self.scheduled_at.isoformat()
        else:
            scheduled_at = self.scheduled_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "targets": targets,
            }
        )
        if content is not UNSET:
            field_dict["content"] = content
        if media_ids is not UNSET:
            field_dict["media_ids"] = media_ids
        if publish_mode is not UNSET:
            field_dict["publish_mode"] = publish_mode
        if scheduled_at is not UNSET:
            field_dict["scheduled_at"] = scheduled_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.target_input_request import TargetInputRequest

        d = dict(src_dict)
        targets = []
        _targets = d.pop("targets")
        for targets_item_data in _targets:
            targets_item = TargetInputRequest.from_dict(targets_item_data)

            targets.append(targets_item)

        content = d.pop("content", UNSET)

        _media_ids = d.pop("media_ids", UNSET)
        media_ids: list[UUID] | Unset = UNSET
        if _media_ids is not UNSET:
            media_ids = []
            for media_ids_item_data in _media_ids:
                media_ids_item = UUID(media_ids_item_data)

                media_ids.append(media_ids_item)

        _publish_mode = d.pop("publish_mode", UNSET)
        publish_mode: CreateModeEnum | Unset
        if isinstance(_publish_mode, Unset):
            publish_mode = UNSET
        else:
            publish_mode = CreateModeEnum(_publish_mode)

        def _parse_scheduled_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                scheduled_at_type_0 = datetime.datetime.fromisoformat(data)

                return scheduled_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        scheduled_at = _parse_scheduled_at(d.pop("scheduled_at", UNSET))

        create_publish_request = cls(
            targets=targets,
            content=content,
            media_ids=media_ids,
            publish_mode=publish_mode,
            scheduled_at=scheduled_at,
        )

        create_publish_request.additional_properties = d
        return create_publish_request

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

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.target_input_request import TargetInputRequest


T = TypeVar("T", bound="PatchedUpdatePublishRequest")


@_attrs_define
class PatchedUpdatePublishRequest:
    """
    Attributes:
        content (str | Unset):
        media_ids (list[UUID] | Unset):
        targets (list[TargetInputRequest] | Unset): The complete new set of targets; targets kept (same account_id) keep
            the fields not given.
        scheduled_at (datetime.datetime | None | Unset): Drafts only; a scheduled publish moves with /reschedule.
    """

    content: str | Unset = UNSET
    media_ids: list[UUID] | Unset = UNSET
    targets: list[TargetInputRequest] | Unset = UNSET
    scheduled_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        content = self.content

        media_ids: list[str] | Unset = UNSET
        if not isinstance(self.media_ids, Unset):
            media_ids = []
            for media_ids_item_data in self.media_ids:
                media_ids_item = str(media_ids_item_data)
                media_ids.append(media_ids_item)

        targets: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.targets, Unset):
            targets = []
            for targets_item_data in self.targets:
                targets_item = targets_item_data.to_dict()
                targets.append(targets_item)

        scheduled_at: None | str | Unset
        if isinstance(self.scheduled_at, Unset):
            scheduled_at = UNSET
        elif isinstance(self.scheduled_at, datetime.datetime):
            scheduled_at = self.scheduled_at.isoformat()
        else:
            scheduled_at = self.scheduled_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if content is not UNSET:
            field_dict["content"] = content
        if media_ids is not UNSET:
            field_dict["media_ids"] = media_ids
        if targets is not UNSET:
            field_dict["targets"] = targets
        if scheduled_at is not UNSET:
            field_dict["scheduled_at"] = scheduled_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.target_input_request import TargetInputRequest

        d = dict(src_dict)
        content = d.pop("content", UNSET)

        _media_ids = d.pop("media_ids", UNSET)
        media_ids: list[UUID] | Unset = UNSET
        if _media_ids is not UNSET:
            media_ids = []
            for media_ids_item_data in _media_ids:
                media_ids_item = UUID(media_ids_item_data)

                media_ids.append(media_ids_item)

        _targets = d.pop("targets", UNSET)
        targets: list[TargetInputRequest] | Unset = UNSET
        if _targets is not UNSET:
            targets = []
            for targets_item_data in _targets:
                targets_item = TargetInputRequest.from_dict(targets_item_data)

                targets.append(targets_item)

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

        patched_update_publish_request = cls(
            content=content,
            media_ids=media_ids,
            targets=targets,
            scheduled_at=scheduled_at,
        )

        patched_update_publish_request.additional_properties = d
        return patched_update_publish_request

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

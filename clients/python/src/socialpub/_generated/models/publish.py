from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.approval_status_enum import ApprovalStatusEnum
from ..models.blank_enum import BlankEnum
from ..models.publish_mode_enum import PublishModeEnum
from ..models.publish_status_enum import PublishStatusEnum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.preflight import Preflight
    from ..models.target import Target
    from ..models.user_ref import UserRef


T = TypeVar("T", bound="Publish")


@_attrs_define
class Publish:
    """
    Attributes:
        id (UUID):
        team_id (UUID):
        status (PublishStatusEnum): * `draft` - Draft
            * `scheduled` - Scheduled
            * `publishing` - Publishing
            * `processing` - Processing
            * `published` - Published
            * `failed` - Failed
            * `partial` - Partial
        media_ids (list[UUID]):
        publish_mode (PublishModeEnum): * `immediate` - Immediate
            * `scheduled` - Scheduled
            * `draft` - Draft
        targets (list[Target]):
        created_by (None | UserRef):
        approved_by (None | UserRef):
        rejected_by (None | UserRef):
        created_at (datetime.datetime):
        updated_at (datetime.datetime):
        preflight (None | Preflight): A scheduled publish's check against its accounts as they are now,
            PREFLIGHT_SECONDS (600 by default) before its time: each target's account still connected, its token valid at
            that time or renewed, its media still in the library and its post still valid. A problem is told once by the
            post.at_risk event. Null until checked for the current scheduled_at (a reschedule checks again).
        approval_status (ApprovalStatusEnum | BlankEnum | None | Unset):
        content (str | Unset):
        scheduled_at (datetime.datetime | None | Unset):
        confirmed (bool | Unset):
        approved_at (datetime.datetime | None | Unset):
        rejected_at (datetime.datetime | None | Unset):
        rejection_reason (str | Unset):
        released_at (datetime.datetime | None | Unset): When sending first started.
        completed_at (datetime.datetime | None | Unset): When every target last settled.
    """

    id: UUID
    team_id: UUID
    status: PublishStatusEnum
    media_ids: list[UUID]
    publish_mode: PublishModeEnum
    targets: list[Target]
    created_by: None | UserRef
    approved_by: None | UserRef
    rejected_by: None | UserRef
    created_at: datetime.datetime
    updated_at: datetime.datetime
    preflight: None | Preflight
    approval_status: ApprovalStatusEnum | BlankEnum | None | Unset = UNSET
    content: str | Unset = UNSET
    scheduled_at: datetime.datetime | None | Unset = UNSET
    confirmed: bool | Unset = UNSET
    approved_at: datetime.datetime | None | Unset = UNSET
    rejected_at: datetime.datetime | None | Unset = UNSET
    rejection_reason: str | Unset = UNSET
    released_at: datetime.datetime | None | Unset = UNSET
    completed_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.preflight import Preflight
        from ..models.user_ref import UserRef

        id = str(self.id)

        team_id = str(self.team_id)

        status = self.status.value

        media_ids = []
        for media_ids_item_data in self.media_ids:
            media_ids_item = str(media_ids_item_data)
            media_ids.append(media_ids_item)

        publish_mode = self.publish_mode.value

        targets = []
        for targets_item_data in self.targets:
            targets_item = targets_item_data.to_dict()
            targets.append(targets_item)

        created_by: dict[str, Any] | None
        if isinstance(self.created_by, UserRef):
            created_by = self.created_by.to_dict()
        else:
            created_by = self.created_by

        approved_by: dict[str, Any] | None
        if isinstance(self.approved_by, UserRef):
            approved_by = self.approved_by.to_dict()
        else:
            approved_by = self.approved_by

        rejected_by: dict[str, Any] | None
        if isinstance(self.rejected_by, UserRef):
            rejected_by = self.rejected_by.to_dict()
        else:
            rejected_by = self.rejected_by

        created_at = self.created_at.isoformat()

        updated_at = self.updated_at.isoformat()

        preflight: dict[str, Any] | None
        if isinstance(self.preflight, Preflight):
            preflight = self.preflight.to_dict()
        else:
            preflight = self.preflight

        approval_status: None | str | Unset
        if isinstance(self.approval_status, Unset):
            approval_status = UNSET
        elif isinstance(self.approval_status, ApprovalStatusEnum) or isinstance(
            self.approval_status, BlankEnum
        ):
            approval_status = self.approval_status.value
        else:
            approval_status = self.approval_status

        content = self.content

        scheduled_at: None | str | Unset
        if isinstance(self.scheduled_at, Unset):
            scheduled_at = UNSET
        elif isinstance(self.scheduled_at, datetime.datetime):
            scheduled_at = self.scheduled_at.isoformat()
        else:
            scheduled_at = self.scheduled_at

        confirmed = self.confirmed

        approved_at: None | str | Unset
        if isinstance(self.approved_at, Unset):
            approved_at = UNSET
        elif isinstance(self.approved_at, datetime.datetime):
            approved_at = self.approved_at.isoformat()
        else:
            approved_at = self.approved_at

        rejected_at: None | str | Unset
        if isinstance(self.rejected_at, Unset):
            rejected_at = UNSET
        elif isinstance(self.rejected_at, datetime.datetime):
            rejected_at = self.rejected_at.isoformat()
        else:
            rejected_at = self.rejected_at

        rejection_reason = self.rejection_reason

        released_at: None | str | Unset
        if isinstance(self.released_at, Unset):
            released_at = UNSET
        elif isinstance(self.released_at, datetime.datetime):
            released_at = self.released_at.isoformat()
        else:
            released_at = self.released_at

        completed_at: None | str | Unset
        if isinstance(self.completed_at, Unset):
            completed_at = UNSET
        elif isinstance(self.completed_at, datetime.datetime):
            completed_at = self.completed_at.isoformat()
        else:
            completed_at = self.completed_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "team_id": team_id,
                "status": status,
                "media_ids": media_ids,
                "publish_mode": publish_mode,
                "targets": targets,
                "created_by": created_by,
                "approved_by": approved_by,
                "rejected_by": rejected_by,
                "created_at": created_at,
                "updated_at": updated_at,
                "preflight": preflight,
            }
        )
        if approval_status is not UNSET:
            field_dict["approval_status"] = approval_status
        if content is not UNSET:
            field_dict["content"] = content
        if scheduled_at is not UNSET:
            field_dict["scheduled_at"] = scheduled_at
        if confirmed is not UNSET:
            field_dict["confirmed"] = confirmed
        if approved_at is not UNSET:
            field_dict["approved_at"] = approved_at
        if rejected_at is not UNSET:
            field_dict["rejected_at"] = rejected_at
        if rejection_reason is not UNSET:
            field_dict["rejection_reason"] = rejection_reason
        if released_at is not UNSET:
            field_dict["released_at"] = released_at
        if completed_at is not UNSET:
            field_dict["completed_at"] = completed_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.preflight import Preflight
        from ..models.target import Target
        from ..models.user_ref import UserRef

        d = dict(src_dict)
        id = UUID(d.pop("id"))

        team_id = UUID(d.pop("team_id"))

        status = PublishStatusEnum(d.pop("status"))

        media_ids = []
        _media_ids = d.pop("media_ids")
        for media_ids_item_data in _media_ids:
            media_ids_item = UUID(media_ids_item_data)

            media_ids.append(media_ids_item)

        publish_mode = PublishModeEnum(d.pop("publish_mode"))

        targets = []
        _targets = d.pop("targets")
        for targets_item_data in _targets:
            targets_item = Target.from_dict(targets_item_data)

            targets.append(targets_item)

        def _parse_created_by(data: object) -> None | UserRef:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                created_by_type_1 = UserRef.from_dict(data)

                return created_by_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UserRef, data)

        created_by = _parse_created_by(d.pop("created_by"))

        def _parse_approved_by(data: object) -> None | UserRef:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                approved_by_type_1 = UserRef.from_dict(data)

                return approved_by_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UserRef, data)

        approved_by = _parse_approved_by(d.pop("approved_by"))

        def _parse_rejected_by(data: object) -> None | UserRef:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                rejected_by_type_1 = UserRef.from_dict(data)

                return rejected_by_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UserRef, data)

        rejected_by = _parse_rejected_by(d.pop("rejected_by"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        def _parse_preflight(data: object) -> None | Preflight:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                preflight_type_1 = Preflight.from_dict(data)

                return preflight_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Preflight, data)

        preflight = _parse_preflight(d.pop("preflight"))

        def _parse_approval_status(
            data: object,
        ) -> ApprovalStatusEnum | BlankEnum | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                approval_status_type_0 = ApprovalStatusEnum(data)

                return approval_status_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                approval_status_type_1 = BlankEnum(data)

                return approval_status_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ApprovalStatusEnum | BlankEnum | None | Unset, data)

        approval_status = _parse_approval_status(d.pop("approval_status", UNSET))

        content = d.pop("content", UNSET)

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

        confirmed = d.pop("confirmed", UNSET)

        def _parse_approved_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                approved_at_type_0 = datetime.datetime.fromisoformat(data)

                return approved_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        approved_at = _parse_approved_at(d.pop("approved_at", UNSET))

        def _parse_rejected_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                rejected_at_type_0 = datetime.datetime.fromisoformat(data)

                return rejected_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        rejected_at = _parse_rejected_at(d.pop("rejected_at", UNSET))

        rejection_reason = d.pop("rejection_reason", UNSET)

        def _parse_released_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                released_at_type_0 = datetime.datetime.fromisoformat(data)

                return released_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        released_at = _parse_released_at(d.pop("released_at", UNSET))

        def _parse_completed_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                completed_at_type_0 = datetime.datetime.fromisoformat(data)

                return completed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        completed_at = _parse_completed_at(d.pop("completed_at", UNSET))

        publish = cls(
            id=id,
            team_id=team_id,
            status=status,
            media_ids=media_ids,
            publish_mode=publish_mode,
            targets=targets,
            created_by=created_by,
            approved_by=approved_by,
            rejected_by=rejected_by,
            created_at=created_at,
            updated_at=updated_at,
            preflight=preflight,
            approval_status=approval_status,
            content=content,
            scheduled_at=scheduled_at,
            confirmed=confirmed,
            approved_at=approved_at,
            rejected_at=rejected_at,
            rejection_reason=rejection_reason,
            released_at=released_at,
            completed_at=completed_at,
        )

        publish.additional_properties = d
        return publish

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

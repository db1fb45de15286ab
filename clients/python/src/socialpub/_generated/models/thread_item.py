from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.thread_item_error_type_0 import ThreadItemErrorType0


T = TypeVar("T", bound="ThreadItem")


@_attrs_define
class ThreadItem:
    """
    Attributes:
        position (int): 0 for the first comment; 1 for the first reply, then 2...; 1000 on for removals
        media_ids (list[UUID]):
        status (str): pending (waiting for the post before it), sending, unknown (may exist; read back, never re-sent
            blindly), published, failed.
        platform_post_id (None | str): The platform's id of this reply once published.
        platform_post_url (None | str): The live reply's URL once published.
        error (None | ThreadItemErrorType0): Why it failed (THREAD_BROKEN: an earlier item failed).
        content (str | Unset):
    """

    position: int
    media_ids: list[UUID]
    status: str
    platform_post_id: None | str
    platform_post_url: None | str
    error: None | ThreadItemErrorType0
    content: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.thread_item_error_type_0 import ThreadItemErrorType0

        position = self.position

        media_ids = []
        for media_ids_item_data in self.media_ids:
            media_ids_item = str(media_ids_item_data)
            media_ids.append(media_ids_item)

        status = self.status

        platform_post_id: None | str
        platform_post_id = self.platform_post_id

        platform_post_url: None | str
        platform_post_url = self.platform_post_url

        error: dict[str, Any] | None
        if isinstance(self.error, ThreadItemErrorType0):
            error = self.error.to_dict()
        else:
            error = self.error

        content = self.content

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "position": position,
                "media_ids": media_ids,
                "status": status,
                "platform_post_id": platform_post_id,
                "platform_post_url": platform_post_url,
                "error": error,
            }
        )
        if content is not UNSET:
            field_dict["content"] = content

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.thread_item_error_type_0 import ThreadItemErrorType0

        d = dict(src_dict)
        position = d.pop("position")

        media_ids = []
        _media_ids = d.pop("media_ids")
        for media_ids_item_data in _media_ids:
            media_ids_item = UUID(media_ids_item_data)

            media_ids.append(media_ids_item)

        status = d.pop("status")

        def _parse_platform_post_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        platform_post_id = _parse_platform_post_id(d.pop("platform_post_id"))

        def _parse_platform_post_url(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        platform_post_url = _parse_platform_post_url(d.pop("platform_post_url"))

        def _parse_error(data: object) -> None | ThreadItemErrorType0:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_0 = ThreadItemErrorType0.from_dict(data)

                return error_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ThreadItemErrorType0, data)

        error = _parse_error(d.pop("error"))

        content = d.pop("content", UNSET)

        thread_item = cls(
            position=position,
            media_ids=media_ids,
            status=status,
            platform_post_id=platform_post_id,
            platform_post_url=platform_post_url,
            error=error,
            content=content,
        )

        thread_item.additional_properties = d
        return thread_item

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

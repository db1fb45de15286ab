from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.first_comment_error_type_0 import FirstCommentErrorType0


T = TypeVar("T", bound="FirstComment")


@_attrs_define
class FirstComment:
    """
    Attributes:
        text (str): The comment, as `platform_settings.first_comment` gave it.
        status (str): pending (waiting for the post), sending, unknown (may exist; read back, never re-sent blindly),
            published, failed (the post stays published; `retry` sends the comment again).
        platform_post_id (None | str): The platform's id of the comment (of the reply, on X, Bluesky and Threads) once
            posted.
        platform_post_url (None | str): Its URL, where the platform gives one.
        error (FirstCommentErrorType0 | None): Why it failed: the platform's or the delivery's error.
        published_at (datetime.datetime | None | Unset):
    """

    text: str
    status: str
    platform_post_id: None | str
    platform_post_url: None | str
    error: FirstCommentErrorType0 | None
    published_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.first_comment_error_type_0 import FirstCommentErrorType0

        text = self.text

        status = self.status

        platform_post_id: None | str
        platform_post_id = self.platform_post_id

        platform_post_url: None | str
        platform_post_url = self.platform_post_url

        error: dict[str, Any] | None
        if isinstance(self.error, FirstCommentErrorType0):
            error = self.error.to_dict()
        else:
            error = self.error

        published_at: None | str | Unset
        if isinstance(self.published_at, Unset):
            published_at = UNSET
        elif isinstance(self.published_at, datetime.datetime):
            published_at = self.published_at.isoformat()
        else:
            published_at = self.published_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "text": text,
                "status": status,
                "platform_post_id": platform_post_id,
                "platform_post_url": platform_post_url,
                "error": error,
            }
        )
        if published_at is not UNSET:
            field_dict["published_at"] = published_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.first_comment_error_type_0 import FirstCommentErrorType0

        d = dict(src_dict)
        text = d.pop("text")

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

        def _parse_error(data: object) -> FirstCommentErrorType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_0 = FirstCommentErrorType0.from_dict(data)

                return error_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FirstCommentErrorType0 | None, data)

        error = _parse_error(d.pop("error"))

        def _parse_published_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                published_at_type_0 = datetime.datetime.fromisoformat(data)

                return published_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        published_at = _parse_published_at(d.pop("published_at", UNSET))

        first_comment = cls(
            text=text,
            status=status,
            platform_post_id=platform_post_id,
            platform_post_url=platform_post_url,
            error=error,
            published_at=published_at,
        )

        first_comment.additional_properties = d
        return first_comment

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

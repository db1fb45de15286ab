from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.error_object_details import ErrorObjectDetails


T = TypeVar("T", bound="ErrorObject")


@_attrs_define
class ErrorObject:
    """The error object every error answers with (documented as `ErrorObject`).

    Attributes:
        type_ (str): Error class, e.g. `invalid_request`, `not_found`.
        code (str): Stable upper-case identifier, e.g. `ACCOUNT_NOT_FOUND`.
        message (str): Human-readable explanation.
        request_id (str): Also sent as the `X-Request-ID` header.
        details (ErrorObjectDetails | Unset): Extra facts, e.g. per-field errors.
    """

    type_: str
    code: str
    message: str
    request_id: str
    details: ErrorObjectDetails | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        code = self.code

        message = self.message

        request_id = self.request_id

        details: dict[str, Any] | Unset = UNSET
        if not isinstance(self.details, Unset):
            details = self.details.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "code": code,
                "message": message,
                "request_id": request_id,
            }
        )
        if details is not UNSET:
            field_dict["details"] = details

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.error_object_details import ErrorObjectDetails

        d = dict(src_dict)
        type_ = d.pop("type")

        code = d.pop("code")

        message = d.pop("message")

        request_id = d.pop("request_id")

        _details = d.pop("details", UNSET)
        details: ErrorObjectDetails | Unset
        if isinstance(_details, Unset):
            details = UNSET
        else:
            details = ErrorObjectDetails.from_dict(_details)

        error_object = cls(
            type_=type_,
            code=code,
            message=message,
            request_id=request_id,
            details=details,
        )

        error_object.additional_properties = d
        return error_object

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

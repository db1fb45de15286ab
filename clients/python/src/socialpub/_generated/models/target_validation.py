from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.problem import Problem


T = TypeVar("T", bound="TargetValidation")


@_attrs_define
class TargetValidation:
    """
    Attributes:
        index (int): The target's position in the request.
        account_id (str):
        platform (None | str): Null when the team has no such account.
        length (int | None): The text's length as the platform counts it.
        limit (int | None): The platform's text limit for this post.
        problems (list[Problem]): Empty when this target would be accepted.
    """

    index: int
    account_id: str
    platform: None | str
    length: int | None
    limit: int | None
    problems: list[Problem]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        index = self.index

        account_id = self.account_id

        platform: None | str
        platform = self.platform

        length: int | None
        length = self.length

        limit: int | None
        limit = self.limit

        problems = []
        for problems_item_data in self.problems:
            problems_item = problems_item_data.to_dict()
            problems.append(problems_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "index": index,
                "account_id": account_id,
                "platform": platform,
                "length": length,
                "limit": limit,
                "problems": problems,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.problem import Problem

        d = dict(src_dict)
        index = d.pop("index")

        account_id = d.pop("account_id")

        def _parse_platform(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        platform = _parse_platform(d.pop("platform"))

        def _parse_length(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        length = _parse_length(d.pop("length"))

        def _parse_limit(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        limit = _parse_limit(d.pop("limit"))

        problems = []
        _problems = d.pop("problems")
        for problems_item_data in _problems:
            problems_item = Problem.from_dict(problems_item_data)

            problems.append(problems_item)

        target_validation = cls(
            index=index,
            account_id=account_id,
            platform=platform,
            length=length,
            limit=limit,
            problems=problems,
        )

        target_validation.additional_properties = d
        return target_validation

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

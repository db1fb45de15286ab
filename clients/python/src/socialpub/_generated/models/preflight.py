from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.preflight_problem import PreflightProblem


T = TypeVar("T", bound="Preflight")


@_attrs_define
class Preflight:
    """
    Attributes:
        checked_at (datetime.datetime):
        scheduled_at (datetime.datetime): The time it was checked for: the publish's scheduled_at.
        at_risk (bool): True when the check found a problem.
        problems (list[PreflightProblem]):
    """

    checked_at: datetime.datetime
    scheduled_at: datetime.datetime
    at_risk: bool
    problems: list[PreflightProblem]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        checked_at = self.checked_at.isoformat()

        scheduled_at = self.scheduled_at.isoformat()

        at_risk = self.at_risk

        problems = []
        for problems_item_data in self.problems:
            problems_item = problems_item_data.to_dict()
            problems.append(problems_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "checked_at": checked_at,
                "scheduled_at": scheduled_at,
                "at_risk": at_risk,
                "problems": problems,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.preflight_problem import PreflightProblem

        d = dict(src_dict)
        checked_at = datetime.datetime.fromisoformat(d.pop("checked_at"))

        scheduled_at = datetime.datetime.fromisoformat(d.pop("scheduled_at"))

        at_risk = d.pop("at_risk")

        problems = []
        _problems = d.pop("problems")
        for problems_item_data in _problems:
            problems_item = PreflightProblem.from_dict(problems_item_data)

            problems.append(problems_item)

        preflight = cls(
            checked_at=checked_at,
            scheduled_at=scheduled_at,
            at_risk=at_risk,
            problems=problems,
        )

        preflight.additional_properties = d
        return preflight

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

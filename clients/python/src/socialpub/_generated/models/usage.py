from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.usage_counters import UsageCounters
    from ..models.usage_limits import UsageLimits
    from ..models.usage_period import UsagePeriod
    from ..models.usage_plan import UsagePlan


T = TypeVar("T", bound="Usage")


@_attrs_define
class Usage:
    """
    Attributes:
        can_publish (bool): False once the month's publishing quota is used up.
        plan (UsagePlan):
        limits (UsageLimits):
        usage (UsageCounters):
        period (UsagePeriod):
    """

    can_publish: bool
    plan: UsagePlan
    limits: UsageLimits
    usage: UsageCounters
    period: UsagePeriod
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        can_publish = self.can_publish

        plan = self.plan.to_dict()

        limits = self.limits.to_dict()

        usage = self.usage.to_dict()

        period = self.period.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "can_publish": can_publish,
                "plan": plan,
                "limits": limits,
                "usage": usage,
                "period": period,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.usage_counters import UsageCounters
        from ..models.usage_limits import UsageLimits
        from ..models.usage_period import UsagePeriod
        from ..models.usage_plan import UsagePlan

        d = dict(src_dict)
        can_publish = d.pop("can_publish")

        plan = UsagePlan.from_dict(d.pop("plan"))

        limits = UsageLimits.from_dict(d.pop("limits"))

        usage = UsageCounters.from_dict(d.pop("usage"))

        period = UsagePeriod.from_dict(d.pop("period"))

        usage = cls(
            can_publish=can_publish,
            plan=plan,
            limits=limits,
            usage=usage,
            period=period,
        )

        usage.additional_properties = d
        return usage

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

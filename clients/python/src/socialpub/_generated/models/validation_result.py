from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.duplicate_warning import DuplicateWarning
    from ..models.error_object import ErrorObject
    from ..models.problem import Problem
    from ..models.target_validation import TargetValidation


T = TypeVar("T", bound="ValidationResult")


@_attrs_define
class ValidationResult:
    """
    Attributes:
        valid (bool): True when the same body, sent to the create now, would be accepted.
        status (int): What the create would answer: 201, 400, 409 (a duplicate the team refuses) or 429 (quota).
        approval_required (bool): True when the publish would wait for an owner's or admin's approval
            (`pending_approval`).
        error (ErrorObject | None): The create's error object, exactly as it would answer; null when valid.
        problems (list[Problem]): Every problem of the request as a whole: fields, targets, scheduled_at, media_ids,
            quota.
        targets (list[TargetValidation]): Every target in request order, each with all of its problems (where the
            create's `details.targets` names only the first failing ones' problems and stops at the first error).
        scheduled_at (datetime.datetime | None): `publish_mode: queue`: the slot the publish would take if created now
            (another create may take it first); null for other modes or when no slot suits.
        warnings (list[DuplicateWarning]): The create's duplicate-content warnings, as its answer would give them; []
            when none.
    """

    valid: bool
    status: int
    approval_required: bool
    error: ErrorObject | None
    problems: list[Problem]
    targets: list[TargetValidation]
    scheduled_at: datetime.datetime | None
    warnings: list[DuplicateWarning]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.error_object import ErrorObject

        valid = self.valid

        status = self.status

        approval_required = self.approval_required

        error: dict[str, Any] | None
        if isinstance(self.error, ErrorObject):
            error = self.error.to_dict()
        else:
            error = self.error

        problems = []
        for problems_item_data in self.problems:
            problems_item = problems_item_data.to_dict()
            problems.append(problems_item)

        targets = []
        for targets_item_data in self.targets:
            targets_item = targets_item_data.to_dict()
            targets.append(targets_item)

        scheduled_at: None | str
        if isinstance(self.scheduled_at, datetime.datetime):
            scheduled_at = self.scheduled_at.isoformat()
        else:
            scheduled_at = self.scheduled_at

        warnings = []
        for warnings_item_data in self.warnings:
            warnings_item = warnings_item_data.to_dict()
            warnings.append(warnings_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "valid": valid,
                "status": status,
                "approval_required": approval_required,
                "error": error,
                "problems": problems,
                "targets": targets,
                "scheduled_at": scheduled_at,
                "warnings": warnings,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.duplicate_warning import DuplicateWarning
        from ..models.error_object import ErrorObject
        from ..models.problem import Problem
        from ..models.target_validation import TargetValidation

        d = dict(src_dict)
        valid = d.pop("valid")

        status = d.pop("status")

        approval_required = d.pop("approval_required")

        def _parse_error(data: object) -> ErrorObject | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_1 = ErrorObject.from_dict(data)

                return error_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ErrorObject | None, data)

        error = _parse_error(d.pop("error"))

        problems = []
        _problems = d.pop("problems")
        for problems_item_data in _problems:
            problems_item = Problem.from_dict(problems_item_data)

            problems.append(problems_item)

        targets = []
        _targets = d.pop("targets")
        for targets_item_data in _targets:
            targets_item = TargetValidation.from_dict(targets_item_data)

            targets.append(targets_item)

        def _parse_scheduled_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                scheduled_at_type_0 = datetime.datetime.fromisoformat(data)

                return scheduled_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        scheduled_at = _parse_scheduled_at(d.pop("scheduled_at"))

        warnings = []
        _warnings = d.pop("warnings")
        for warnings_item_data in _warnings:
            warnings_item = DuplicateWarning.from_dict(warnings_item_data)

            warnings.append(warnings_item)

        validation_result = cls(
            valid=valid,
            status=status,
            approval_required=approval_required,
            error=error,
            problems=problems,
            targets=targets,
            scheduled_at=scheduled_at,
            warnings=warnings,
        )

        validation_result.additional_properties = d
        return validation_result

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

from enum import StrEnum


class PublishModeEnum(StrEnum):
    DRAFT = "draft"
    IMMEDIATE = "immediate"
    SCHEDULED = "scheduled"

    def __str__(self) -> str:
        return str(self.value)

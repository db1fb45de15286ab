from enum import StrEnum


class CreateModeEnum(StrEnum):
    DRAFT = "draft"
    IMMEDIATE = "immediate"
    QUEUE = "queue"
    SCHEDULED = "scheduled"

    def __str__(self) -> str:
        return str(self.value)

from enum import StrEnum


class RemovedByEnum(StrEnum):
    PLATFORM = "platform"
    USER = "user"

    def __str__(self) -> str:
        return str(self.value)

from enum import StrEnum


class WarningCodeEnum(StrEnum):
    DUPLICATE_CONTENT = "DUPLICATE_CONTENT"

    def __str__(self) -> str:
        return str(self.value)

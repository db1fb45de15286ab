from enum import StrEnum


class MediaStateEnum(StrEnum):
    READY = "ready"
    UNCONFIRMED = "unconfirmed"

    def __str__(self) -> str:
        return str(self.value)

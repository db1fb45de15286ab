from enum import StrEnum


class FetchStatusEnum(StrEnum):
    DONE = "done"
    FAILED = "failed"
    FETCHING = "fetching"
    PENDING = "pending"

    def __str__(self) -> str:
        return str(self.value)

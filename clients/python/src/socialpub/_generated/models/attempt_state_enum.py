from enum import StrEnum


class AttemptStateEnum(StrEnum):
    FAILED = "failed"
    NOT_SENT = "not_sent"
    PROCESSING = "processing"
    PUBLISHED = "published"
    SENDING = "sending"
    UNKNOWN = "unknown"

    def __str__(self) -> str:
        return str(self.value)

from enum import StrEnum


class TargetStatusEnum(StrEnum):
    DRAFT = "draft"
    FAILED = "failed"
    PROCESSING = "processing"
    PUBLISHED = "published"
    PUBLISHING = "publishing"
    SCHEDULED = "scheduled"

    def __str__(self) -> str:
        return str(self.value)

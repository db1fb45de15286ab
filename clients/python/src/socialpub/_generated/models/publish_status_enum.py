from enum import StrEnum


class PublishStatusEnum(StrEnum):
    DRAFT = "draft"
    FAILED = "failed"
    PARTIAL = "partial"
    PROCESSING = "processing"
    PUBLISHED = "published"
    PUBLISHING = "publishing"
    SCHEDULED = "scheduled"

    def __str__(self) -> str:
        return str(self.value)

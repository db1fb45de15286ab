from enum import StrEnum


class ApprovalStatusEnum(StrEnum):
    APPROVED = "approved"
    PENDING_APPROVAL = "pending_approval"
    REJECTED = "rejected"

    def __str__(self) -> str:
        return str(self.value)

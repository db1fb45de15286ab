from enum import StrEnum


class WebhookDeliveryStatusEnum(StrEnum):
    CANCELLED = "cancelled"
    FAILED = "failed"
    PENDING = "pending"
    SENDING = "sending"
    SUCCEEDED = "succeeded"

    def __str__(self) -> str:
        return str(self.value)

from enum import StrEnum


class AccountStatusEnum(StrEnum):
    ACTIVE = "active"
    DISABLED = "disabled"
    DISCONNECTED = "disconnected"
    EXPIRED = "expired"

    def __str__(self) -> str:
        return str(self.value)

from enum import StrEnum


class ConnectLinkStatusEnum(StrEnum):
    CANCELLED = "cancelled"
    CONNECTED = "connected"
    EXPIRED = "expired"
    PENDING = "pending"
    REVOKED = "revoked"

    def __str__(self) -> str:
        return str(self.value)

from enum import StrEnum


class EventsEnum(StrEnum):
    ACCOUNT_CONNECTED = "account.connected"
    ACCOUNT_DISCONNECTED = "account.disconnected"
    ACCOUNT_EXPIRED = "account.expired"
    ACCOUNT_EXPIRING = "account.expiring"
    POST_APPROVED = "post.approved"
    POST_AT_RISK = "post.at_risk"
    POST_FAILED = "post.failed"
    POST_PENDING_APPROVAL = "post.pending_approval"
    POST_PUBLISHED = "post.published"
    POST_REJECTED = "post.rejected"
    POST_REMOVED = "post.removed"

    def __str__(self) -> str:
        return str(self.value)

from enum import StrEnum


class ScopesEnum(StrEnum):
    ACCOUNTSREAD = "accounts:read"
    ACCOUNTSWRITE = "accounts:write"
    ANALYTICSREAD = "analytics:read"
    BILLINGREAD = "billing:read"
    MEDIAREAD = "media:read"
    MEDIAWRITE = "media:write"
    POSTSREAD = "posts:read"
    POSTSWRITE = "posts:write"
    TEAMSREAD = "teams:read"
    TEAMSWRITE = "teams:write"
    WEBHOOKSREAD = "webhooks:read"
    WEBHOOKSWRITE = "webhooks:write"

    def __str__(self) -> str:
        return str(self.value)

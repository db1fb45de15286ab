from enum import StrEnum


class AnalyticsPostsListSort(StrEnum):
    PUBLISHED_AT = "published_at"
    TOTAL_COMMENTS = "total_comments"
    TOTAL_LIKES = "total_likes"
    TOTAL_SHARES = "total_shares"
    TOTAL_VIEWS = "total_views"

    def __str__(self) -> str:
        return str(self.value)

from __future__ import annotations

from analytics.api import AnalyticsPostViewSet
from config.routers import ApiRouter

router = ApiRouter()
router.register("analytics/posts", AnalyticsPostViewSet, basename="analytics-post")

urlpatterns = router.urls

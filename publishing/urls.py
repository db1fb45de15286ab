from __future__ import annotations

from config.routers import ApiRouter
from publishing.api import ApprovalViewSet, PublishViewSet

router = ApiRouter()
router.register("publishes", PublishViewSet, basename="publish")
router.register("approvals", ApprovalViewSet, basename="approval")

urlpatterns = router.urls

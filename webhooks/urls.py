from __future__ import annotations

from config.routers import ApiRouter
from webhooks.api import WebhookViewSet

router = ApiRouter()
router.register("webhooks", WebhookViewSet, basename="webhook")

urlpatterns = router.urls

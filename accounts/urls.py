from __future__ import annotations

from accounts.api import AccountViewSet
from config.routers import ApiRouter

router = ApiRouter()
router.register("accounts", AccountViewSet, basename="account")

urlpatterns = router.urls

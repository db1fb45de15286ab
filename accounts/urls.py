from __future__ import annotations

from accounts.api import AccountViewSet
from accounts.connect_links_api import ConnectLinkViewSet
from config.routers import ApiRouter

router = ApiRouter()
router.register("accounts", AccountViewSet, basename="account")
router.register("connect-links", ConnectLinkViewSet, basename="connect-link")

urlpatterns = router.urls

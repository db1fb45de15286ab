from __future__ import annotations

from django.urls import re_path

from config.routers import ApiRouter
from teams.api import TeamViewSet, UsageView

router = ApiRouter()
router.register("teams", TeamViewSet, basename="team")

urlpatterns = [re_path(r"^usage/?$", UsageView.as_view(), name="usage"), *router.urls]

from __future__ import annotations

from django.urls import re_path

from config.routers import UUID_PATTERN, ApiRouter
from teams.api import TeamViewSet, UsageView
from teams.key_api import TeamKeyViewSet

router = ApiRouter()
router.register("teams", TeamViewSet, basename="team")
router.register(f"teams/(?P<team_id>{UUID_PATTERN})/keys", TeamKeyViewSet, basename="team-key")

urlpatterns = [re_path(r"^usage/?$", UsageView.as_view(), name="usage"), *router.urls]

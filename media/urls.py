from __future__ import annotations

from django.urls import re_path

from config.routers import UUID_PATTERN, ApiRouter
from media.api import DownloadView, MediaListView, MediaUploadViewSet, UploadContentView

router = ApiRouter()
router.register("media/uploads", MediaUploadViewSet, basename="media-upload")

urlpatterns = [
    re_path(r"^media/?$", MediaListView.as_view(), name="media-list"),
    re_path(
        rf"^media/uploads/(?P<pk>{UUID_PATTERN})/content/?$", UploadContentView.as_view(), name="media-upload-content"
    ),
    re_path(rf"^media/files/(?P<pk>{UUID_PATTERN})/?$", DownloadView.as_view(), name="media-download"),
    *router.urls,
]

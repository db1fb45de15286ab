from __future__ import annotations

from django.urls import path

from publishing.views import calendar, compose, detail, lists

urlpatterns = [
    path("compose/", compose.compose, name="compose"),
    path("calendar/", calendar.calendar, name="calendar"),
    path("publishes/", lists.publishes, name="publishes"),
    path("publishes/approvals/", lists.approvals, name="approvals"),
    path("publishes/<uuid:publish_id>/", detail.detail, name="publish-detail"),
    path("publishes/<uuid:publish_id>/approve/", lists.approve, name="dashboard-approve"),
    path("publishes/<uuid:publish_id>/reject/", lists.reject, name="dashboard-reject"),
]

from __future__ import annotations

from django.urls import path

from publishing.views import calendar, compose, csv_import, detail, edit, home, lists

urlpatterns = [
    path("home/", home.home, name="overview"),
    path("compose/", compose.compose, name="compose"),
    path("compose/check/", compose.check, name="compose-check"),
    path("compose/link-card/", compose.link_card, name="compose-link-card"),
    path("import/", csv_import.csv_import, name="import"),
    path("calendar/", calendar.calendar, name="calendar"),
    path("calendar/<uuid:publish_id>/reschedule/", calendar.reschedule, name="calendar-reschedule"),
    path("calendar/<uuid:publish_id>/unschedule/", calendar.unschedule, name="calendar-unschedule"),
    path("publishes/", lists.publishes, name="publishes"),
    path("publishes/approvals/", lists.approvals, name="approvals"),
    path("publishes/<uuid:publish_id>/", detail.detail, name="dashboard-publish"),
    path("publishes/<uuid:publish_id>/edit/", edit.edit, name="publish-edit"),
    path("publishes/<uuid:publish_id>/duplicate/", edit.copy, name="publish-duplicate"),
    path("publishes/<uuid:publish_id>/retry/", detail.retry, name="detail-retry"),
    path("publishes/<uuid:publish_id>/confirm/", detail.confirm, name="detail-confirm"),
    path("publishes/<uuid:publish_id>/discard/", detail.discard, name="detail-discard"),
    path("publishes/<uuid:publish_id>/approve/", detail.approve, name="dashboard-approve"),
    path("publishes/<uuid:publish_id>/reject/", detail.reject, name="dashboard-reject"),
    path("publishes/<uuid:publish_id>/take-down/", detail.unpublish, name="detail-unpublish"),
]

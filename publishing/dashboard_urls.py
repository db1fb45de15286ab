from __future__ import annotations

from django.urls import path

from publishing import views

urlpatterns = [
    path("publishes/", views.publishes, name="publishes"),
    path("publishes/approvals/", views.approvals, name="approvals"),
    path("publishes/<uuid:publish_id>/approve/", views.approve, name="dashboard-approve"),
    path("publishes/<uuid:publish_id>/reject/", views.reject, name="dashboard-reject"),
]

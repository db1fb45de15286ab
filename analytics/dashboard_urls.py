from __future__ import annotations

from django.urls import path

from analytics import views

urlpatterns = [
    path("analytics/", views.analytics, name="analytics"),
    path("analytics/<uuid:publish_id>/", views.post, name="analytics-post"),
    path("analytics/<uuid:publish_id>/refresh/", views.refresh, name="analytics-post-refresh"),
    path("analytics/accounts/<uuid:account_id>/", views.account, name="analytics-account"),
]

"""The dashboard's main pages, as the browser suites visit them (`{publish}` stands for a
publish's id)."""

DASHBOARD_PAGES = [
    "/dashboard/compose/",
    "/dashboard/calendar/",
    "/dashboard/calendar/?view=month",
    "/dashboard/publishes/",
    "/dashboard/publishes/approvals/",
    "/dashboard/publishes/{publish}/",
    "/dashboard/publishes/{publish}/edit/",
    "/dashboard/analytics/",
    "/dashboard/",
    "/dashboard/settings/",
    "/dashboard/settings/keys/",
    "/dashboard/settings/webhooks/",
    "/dashboard/settings/usage/",
]

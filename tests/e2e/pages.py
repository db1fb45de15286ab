"""The dashboard's main pages, as the browser suites visit them (`{publish}` stands for a
publish's id, `{account}` for a connected account's)."""

DASHBOARD_PAGES = [
    "/dashboard/home/",
    "/dashboard/compose/",
    "/dashboard/import/",
    "/dashboard/calendar/",
    "/dashboard/calendar/?view=month",
    "/dashboard/publishes/",
    "/dashboard/publishes/approvals/",
    "/dashboard/publishes/{publish}/",
    "/dashboard/media/",
    "/dashboard/publishes/{publish}/edit/",
    "/dashboard/analytics/",
    "/dashboard/analytics/accounts/{account}/",
    "/dashboard/",
    "/dashboard/accounts/{account}/schedule/",
    "/dashboard/settings/",
    "/dashboard/settings/keys/",
    "/dashboard/settings/webhooks/",
    "/dashboard/settings/usage/",
    "/dashboard/settings/notifications/",
]

"""The settings pages of the dashboard: the team (name, approval, default, members, deletion),
its API keys and its usage against the plan. Webhooks have their own pages (webhooks.views)
under the same settings navigation, templates/teams/_settings_nav.html."""

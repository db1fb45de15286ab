from __future__ import annotations

from django.urls import path

from teams.views import keys, team, usage

urlpatterns = [
    path("settings/", team.team_settings, name="settings-team"),
    path("settings/rename/", team.rename, name="settings-team-rename"),
    path("settings/approval/", team.approval, name="settings-team-approval"),
    path("settings/duplicates/", team.duplicates, name="settings-team-duplicates"),
    path("settings/time-zone/", team.time_zone, name="settings-team-time-zone"),
    path("settings/default/", team.make_default, name="settings-team-default"),
    path("settings/members/", team.member_add, name="settings-team-member-add"),
    path("settings/members/<uuid:membership_id>/role/", team.member_role, name="settings-team-member-role"),
    path("settings/members/<uuid:membership_id>/remove/", team.member_remove, name="settings-team-member-remove"),
    path("settings/delete/", team.delete, name="settings-team-delete"),
    path("settings/keys/", keys.keys, name="settings-keys"),
    path("settings/keys/new/", keys.create, name="settings-keys-create"),
    path("settings/keys/<uuid:key_id>/revoke/", keys.revoke, name="settings-keys-revoke"),
    path("settings/usage/", usage.usage, name="settings-usage"),
]

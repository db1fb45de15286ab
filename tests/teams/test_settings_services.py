"""The services behind the dashboard's team settings: each checks the acting user's role in
the team itself, whoever calls it, and refuses with the error the page shows."""

from __future__ import annotations

import uuid

import pytest

from config.errors import Forbidden, InvalidRequest, NotFound
from teams import services
from teams.models import ApiKey, Membership, Role
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def _code(raised):
    return raised.value.code


@pytest.mark.parametrize("persona", ["member", "outsider"])
def test_only_owners_and_admins_rename(request, team, persona):
    who = request.getfixturevalue(persona)

    with pytest.raises(Forbidden) as refused:
        services.team_rename(team=team, user=who.user, name="Taken over")

    assert _code(refused) == "NOT_TEAM_ADMIN"
    team.refresh_from_db()
    assert team.name == "Acme"


def test_a_name_too_long_is_refused(admin):
    with pytest.raises(InvalidRequest) as refused:
        services.team_rename(team=admin.team, user=admin.user, name="x" * 201)

    assert (_code(refused), refused.value.details) == ("INVALID_TEAM_NAME", {"field": "name"})


def test_approval_reports_whether_it_changed(admin, member):
    assert services.team_set_approval(team=admin.team, user=admin.user, required=True) is True
    assert services.team_set_approval(team=admin.team, user=admin.user, required=True) is False
    with pytest.raises(Forbidden):
        services.team_set_approval(team=member.team, user=member.user, required=False)
    admin.team.refresh_from_db()
    assert admin.team.approval_required is True


def test_an_admin_cannot_add_members(admin):
    UserFactory(username="friend")

    with pytest.raises(Forbidden) as refused:
        services.membership_add_by_username(team=admin.team, user=admin.user, username="friend", role="member")

    assert _code(refused) == "NOT_TEAM_OWNER"


def test_an_inactive_user_cannot_be_added(owner):
    UserFactory(username="gone", is_active=False)

    with pytest.raises(InvalidRequest) as refused:
        services.membership_add_by_username(team=owner.team, user=owner.user, username="gone", role="member")

    assert (_code(refused), refused.value.details) == ("USER_NOT_FOUND", {"field": "username"})


def test_a_role_is_admin_or_member(owner, member):
    membership = member.user.memberships.get()

    with pytest.raises(InvalidRequest) as refused:
        services.membership_set_role(team=owner.team, user=owner.user, membership_id=membership.pk, role="superuser")

    assert _code(refused) == "INVALID_ROLE"


def test_a_role_change_needs_the_owner_and_a_member_of_the_team(owner, admin, member, outsider):
    membership = member.user.memberships.get()
    with pytest.raises(Forbidden):
        services.membership_set_role(team=admin.team, user=admin.user, membership_id=membership.pk, role="admin")
    with pytest.raises(NotFound):
        services.membership_set_role(team=owner.team, user=owner.user, membership_id=uuid.uuid4(), role="admin")

    changed = services.membership_set_role(team=owner.team, user=owner.user, membership_id=membership.pk, role="admin")

    assert changed.role == Role.ADMIN


def test_removing_a_member_revokes_their_team_keys_but_not_their_user_keys(owner, member):
    other = services.team_create(name="Member's own", owner=member.user)
    user_key, _ = services.api_key_create(user=member.user, name="personal", scopes=["posts:read"], team=None)

    services.membership_remove(
        team=owner.team, user=owner.user, membership_id=member.user.memberships.get(team=owner.team).pk
    )

    assert ApiKey.objects.get(user=member.user, team=owner.team).revoked_at is not None
    user_key.refresh_from_db()
    assert user_key.revoked_at is None
    assert Membership.objects.filter(user=member.user).get().team == other


def test_a_dashboard_deletion_revokes_user_keys_pinned_to_the_team_only(owner):
    second = services.team_create(name="Acme Two", owner=owner.user)
    pinned, _ = services.api_key_create(user=owner.user, name="pinned", scopes=["posts:read"], active_team=owner.team)
    elsewhere, _ = services.api_key_create(user=owner.user, name="elsewhere", scopes=["posts:read"], active_team=second)

    deletion = services.team_delete(
        user=owner.user, team=owner.team, destination_id=second.pk, confirmation_name="Acme", used_key=None
    )

    pinned.refresh_from_db()
    elsewhere.refresh_from_db()
    assert pinned.revoked_at is not None
    assert elsewhere.revoked_at is None
    assert (deletion.revoked_keys, deletion.deleted_keys) == (1, 1)  # and the persona's team key went


@pytest.mark.parametrize("persona", ["member", "outsider"])
def test_only_owners_and_admins_set_the_time_zone(request, team, persona):
    who = request.getfixturevalue(persona)

    with pytest.raises(Forbidden) as refused:
        services.team_set_time_zone(team=team, user=who.user, name="Asia/Tokyo")

    assert _code(refused) == "NOT_TEAM_ADMIN"
    team.refresh_from_db()
    assert team.time_zone == "UTC"


def test_a_time_zone_is_an_iana_name(admin):
    assert services.team_set_time_zone(team=admin.team, user=admin.user, name="America/New_York") is True
    assert services.team_set_time_zone(team=admin.team, user=admin.user, name="America/New_York") is False

    with pytest.raises(InvalidRequest) as refused:
        services.team_set_time_zone(team=admin.team, user=admin.user, name="EST5EDT/Nowhere")

    assert (_code(refused), refused.value.details) == ("INVALID_TIME_ZONE", {"field": "time_zone"})
    admin.team.refresh_from_db()
    assert admin.team.time_zone == "America/New_York"

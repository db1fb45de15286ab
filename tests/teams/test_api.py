from __future__ import annotations

import uuid

import pytest

from teams import services
from teams.models import Membership, Role, Team
from tests.factories import PlanFactory, UserFactory

pytestmark = pytest.mark.django_db


def _default(api, key, team_id):
    return api.as_(key).patch(f"/api/v1/teams/{team_id}/default", format="json")


def test_lists_owned_teams_in_creation_order_with_is_default(api, owner):
    second = services.team_create(name="Acme Two", owner=owner.user)
    services.team_set_default(user=owner.user, team=second)

    body = api.as_(owner.key).get("/api/v1/teams").json()

    assert [(t["name"], t["is_default"]) for t in body["data"]] == [("Acme", False), ("Acme Two", True)]


def test_a_team_shows_its_dashboard_time_zone_and_its_times_stay_utc(api, owner):
    services.team_set_time_zone(team=owner.team, user=owner.user, name="Asia/Tokyo")

    [team] = api.as_(owner.key).get("/api/v1/teams").json()["data"]

    assert team["time_zone"] == "Asia/Tokyo"
    assert team["created_at"].endswith("Z")


def test_teams_the_user_only_belongs_to_are_not_listed(api, owner, outsider):
    services.membership_add(team=outsider.team, user=owner.user, role=Role.ADMIN)

    body = api.as_(owner.key).get("/api/v1/teams").json()

    assert [t["name"] for t in body["data"]] == ["Acme"]


def test_no_team_is_default_until_one_is_selected(api, owner):
    body = api.as_(owner.key).get("/api/v1/teams").json()

    assert [t["is_default"] for t in body["data"]] == [False]


def test_owner_selects_the_default_team(api, owner):
    response = _default(api, owner.key, owner.team.pk)

    assert response.status_code == 200
    assert response.json()["data"]["is_default"] is True
    assert response.json()["already_default"] is False
    assert Membership.objects.get(user=owner.user, team=owner.team).is_default


def test_selecting_the_default_again_says_already_selected(api, owner):
    _default(api, owner.key, owner.team.pk)

    response = _default(api, owner.key, owner.team.pk)

    assert response.status_code == 200
    assert response.json()["already_default"] is True


def test_selecting_a_new_default_unsets_the_old_one(api, owner):
    second = services.team_create(name="Acme Two", owner=owner.user)
    services.team_set_default(user=owner.user, team=owner.team)
    user_key = services.api_key_create(user=owner.user, name="user key", scopes=["teams:read", "teams:write"])[1]

    _default(api, user_key, second.pk)

    defaults = Membership.objects.filter(user=owner.user, is_default=True)
    assert [m.team_id for m in defaults] == [second.pk]


@pytest.mark.parametrize("persona", ["admin", "member"])
def test_only_the_owner_can_select_the_default(api, request, persona):
    caller = request.getfixturevalue(persona)

    response = _default(api, caller.key, caller.team.pk)

    assert response.status_code == 403
    assert response.json()["error"]["type"] == "authorization_error"
    assert not Membership.objects.filter(is_default=True).exists()


def test_a_team_key_of_another_team_is_a_team_mismatch(api, owner):
    second = services.team_create(name="Acme Two", owner=owner.user)

    response = _default(api, owner.key, second.pk)

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "TEAM_MISMATCH"
    assert not Membership.objects.filter(is_default=True).exists()


@pytest.mark.parametrize("kind", ["team key", "user key"])
def test_a_team_the_user_is_not_in_is_a_team_mismatch(api, owner, outsider, kind):
    key = owner.key if kind == "team key" else _user_key(owner)

    response = _default(api, key, outsider.team.pk)

    assert response.status_code == 403
    error = response.json()["error"]
    assert (error["type"], error["code"]) == ("authorization_error", "TEAM_MISMATCH")
    assert not Membership.objects.filter(is_default=True).exists()


def test_an_unknown_team_is_a_team_mismatch(api, owner):
    response = _default(api, _user_key(owner), uuid.uuid4())

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "TEAM_MISMATCH"


def _user_key(owner) -> str:
    return services.api_key_create(user=owner.user, name="user key", scopes=["teams:read", "teams:write"])[1]


def test_a_user_key_may_select_any_team_its_user_owns(api, owner):
    second = services.team_create(name="Acme Two", owner=owner.user)
    _, user_key = services.api_key_create(
        user=owner.user, name="user key", scopes=["teams:write"], active_team=owner.team
    )

    response = _default(api, user_key, second.pk)

    assert response.status_code == 200
    assert response.json()["data"]["id"] == str(second.pk)


def test_the_database_allows_one_default_team_per_user(owner):
    second = services.team_create(name="Acme Two", owner=owner.user)
    Membership.objects.filter(user=owner.user, team=owner.team).update(is_default=True)

    from django.db import IntegrityError, transaction

    with pytest.raises(IntegrityError), transaction.atomic():
        Membership.objects.filter(user=owner.user, team=second).update(is_default=True)


def test_the_database_allows_one_owner_per_team(team):
    from django.db import IntegrityError

    with pytest.raises(IntegrityError):
        Membership.objects.create(team=team, user=UserFactory(), role=Role.OWNER)


def test_a_team_cannot_get_a_second_owner_through_the_service(team):
    from config.errors import InvalidRequest

    with pytest.raises(InvalidRequest):
        services.membership_add(team=team, user=UserFactory(), role=Role.OWNER)


def test_new_teams_get_the_unlimited_plan(owner):
    team = Team.objects.get(pk=owner.team.pk)

    assert team.plan.code == "unlimited"
    assert team.plan.posts_per_month is None


# --- POST /api/v1/teams -------------------------------------------------------------------------


def _create_team(api, key, body):
    return api.as_(key).post("/api/v1/teams", body, format="json")


def test_a_user_key_creates_a_team_its_user_owns(api, owner):
    response = _create_team(api, _user_key(owner), {"name": "  Customer 4821 "})

    assert response.status_code == 201
    created = response.json()["data"]
    assert (created["name"], created["is_default"]) == ("Customer 4821", False)
    team = Team.objects.get(pk=created["id"])
    assert team.memberships.get().user == owner.user
    assert team.memberships.get().role == Role.OWNER
    listed = api.as_(_user_key(owner)).get("/api/v1/teams").json()["data"]
    assert [t["name"] for t in listed] == ["Acme", "Customer 4821"]


def test_a_new_team_is_on_the_plan_of_the_team_the_key_acts_in(api, owner):
    owner.team.plan = PlanFactory(posts_per_month=2)
    owner.team.save()

    created = _create_team(api, _user_key(owner), {"name": "Escape hatch"}).json()["data"]

    assert created["plan"] == owner.team.plan.code
    assert Team.objects.get(pk=created["id"]).plan == owner.team.plan


def test_a_team_key_cannot_create_teams(api, owner):
    response = _create_team(api, owner.key, {"name": "Customer 4821"})

    assert response.status_code == 403
    error = response.json()["error"]
    assert (error["type"], error["code"]) == ("authorization_error", "USER_KEY_REQUIRED")
    assert not Team.objects.filter(name="Customer 4821").exists()


def test_creating_a_team_needs_the_teams_write_scope(api, owner):
    _, key = services.api_key_create(user=owner.user, name="read only", scopes=["teams:read"])

    response = _create_team(api, key, {"name": "Customer 4821"})

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "MISSING_SCOPE"
    assert not Team.objects.filter(name="Customer 4821").exists()


@pytest.mark.parametrize("body", [{}, {"name": ""}, {"name": "   "}, {"name": "x" * 201}, {"name": ["a"]}])
def test_a_team_needs_a_name_of_1_to_200_characters(api, owner, body):
    response = _create_team(api, _user_key(owner), body)

    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["code"], list(error["details"])) == ("VALIDATION_ERROR", ["name"])
    assert Team.objects.count() == 1

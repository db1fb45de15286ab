from __future__ import annotations

import datetime as dt
import uuid

import pytest
from django.utils import timezone

from teams import services
from teams.models import SCOPES, ApiKey, ApiKeyKind, Role
from tests.factories import SocialAccountFactory

pytestmark = pytest.mark.django_db

KEY_FIELDS = {"id", "name", "prefix", "scopes", "created_at", "last_used_at", "expires_at"}


def _user_key(persona, *scopes: str) -> str:
    return services.api_key_create(user=persona.user, name="user key", scopes=scopes or SCOPES)[1]


def _mint(api, key, team_id, **body):
    body.setdefault("name", "Customer key")
    body.setdefault("scopes", ["posts:read"])
    return api.as_(key).post(f"/api/v1/teams/{team_id}/keys", body, format="json")


def _customer_team(api, user_key) -> str:
    response = api.as_(user_key).post("/api/v1/teams", {"name": "Customer 4821"}, format="json")
    assert response.status_code == 201, response.json()
    return str(response.json()["data"]["id"])


def _error(response) -> tuple[int, str]:
    return response.status_code, response.json()["error"]["code"]


# --- POST /teams/{team_id}/keys -------------------------------------------------------------


def test_a_minted_key_acts_in_the_new_team_only(api, owner):
    user_key = _user_key(owner)
    team_id = _customer_team(api, user_key)
    theirs = SocialAccountFactory(team_id=team_id, handle="customer")
    SocialAccountFactory(team=owner.team, handle="ours")

    response = _mint(api, user_key, team_id, scopes=["accounts:read", "teams:read"])

    assert response.status_code == 201
    minted = response.json()["data"]
    assert set(minted) == KEY_FIELDS | {"key"}
    assert minted["key"].startswith(f"sk_{minted['prefix']}_")
    assert (minted["name"], minted["scopes"]) == ("Customer key", ["accounts:read", "teams:read"])
    assert minted["expires_at"] is None
    stored = ApiKey.objects.get(pk=minted["id"])
    assert (stored.kind, str(stored.team_id), stored.user) == (ApiKeyKind.TEAM, team_id, owner.user)
    accounts = api.as_(minted["key"]).get("/api/v1/accounts").json()["data"]
    assert [a["id"] for a in accounts] == [str(theirs.pk)]
    assert api.as_(minted["key"]).get(f"/api/v1/teams/{team_id}/keys").status_code == 200
    assert _error(api.as_(minted["key"]).get(f"/api/v1/teams/{owner.team.pk}/keys")) == (403, "TEAM_MISMATCH")
    assert _error(api.as_(minted["key"]).get("/api/v1/publishes")) == (403, "MISSING_SCOPE")


def test_a_team_key_of_its_owner_mints_keys_of_its_own_team(api, owner):
    response = _mint(api, owner.key, owner.team.pk, scopes=["posts:read", "posts:write"])

    assert response.status_code == 201
    assert ApiKey.objects.get(pk=response.json()["data"]["id"]).team == owner.team


def test_a_key_cannot_mint_scopes_it_lacks(api, owner):
    user_key = _user_key(owner, "teams:write", "posts:read")
    before = ApiKey.objects.count()

    response = _mint(api, user_key, owner.team.pk, scopes=["posts:read", "posts:write", "media:write"])

    assert _error(response) == (403, "SCOPE_ESCALATION")
    assert response.json()["error"]["details"] == {"missing_scopes": ["posts:write", "media:write"]}
    assert ApiKey.objects.count() == before


@pytest.mark.parametrize(
    "scopes", [[], ["posts:delete"], "posts:read", [["posts:read"]]], ids=["empty", "unknown", "not a list", "nested"]
)
def test_scopes_must_be_a_non_empty_list_of_known_scopes(api, owner, scopes):
    before = ApiKey.objects.count()

    response = _mint(api, owner.key, owner.team.pk, scopes=scopes)

    assert _error(response) == (400, "VALIDATION_ERROR")
    assert list(response.json()["error"]["details"]) == ["scopes"]
    assert ApiKey.objects.count() == before


@pytest.mark.parametrize("name", ["", "   ", "x" * 101, None])
def test_a_key_needs_a_name_of_1_to_100_characters(api, owner, name):
    response = _mint(api, owner.key, owner.team.pk, name=name)

    assert _error(response) == (400, "VALIDATION_ERROR")
    assert list(response.json()["error"]["details"]) == ["name"]


def test_a_team_key_cannot_mint_for_another_team_of_its_user(api, owner):
    second = services.team_create(name="Acme Two", owner=owner.user)

    response = _mint(api, owner.key, second.pk)

    assert _error(response) == (403, "TEAM_MISMATCH")
    assert not ApiKey.objects.filter(team=second).exists()


def test_a_user_key_mints_for_any_team_its_user_owns(api, owner):
    second = services.team_create(name="Acme Two", owner=owner.user)

    response = _mint(api, _user_key(owner), second.pk)

    assert response.status_code == 201
    assert ApiKey.objects.get(pk=response.json()["data"]["id"]).team == second


@pytest.mark.parametrize("kind", ["team key", "user key"])
def test_a_team_the_user_is_not_in_or_no_team_at_all_is_a_team_mismatch(api, owner, outsider, kind):
    key = owner.key if kind == "team key" else _user_key(owner)

    for team_id in (outsider.team.pk, uuid.uuid4()):
        assert _error(_mint(api, key, team_id)) == (403, "TEAM_MISMATCH")
        assert _error(api.as_(key).get(f"/api/v1/teams/{team_id}/keys")) == (403, "TEAM_MISMATCH")
    assert ApiKey.objects.filter(team=outsider.team).count() == 1


@pytest.mark.parametrize("persona", ["admin", "member"])
@pytest.mark.parametrize("kind", ["team key", "user key"])
def test_only_the_owner_manages_a_teams_keys(api, request, persona, kind):
    caller = request.getfixturevalue(persona)
    owner_user = caller.team.memberships.get(role=Role.OWNER).user
    owners_key, _ = services.api_key_create(user=owner_user, name="CI", scopes=["posts:read"], team=caller.team)
    key = caller.key if kind == "team key" else _user_key(caller)
    before = ApiKey.objects.count()

    assert _error(_mint(api, key, caller.team.pk)) == (403, "NOT_TEAM_OWNER")
    assert _error(api.as_(key).get(f"/api/v1/teams/{caller.team.pk}/keys")) == (403, "NOT_TEAM_OWNER")
    revoke = api.as_(key).delete(f"/api/v1/teams/{caller.team.pk}/keys/{owners_key.pk}")
    assert _error(revoke) == (403, "NOT_TEAM_OWNER")
    assert ApiKey.objects.count() == before
    assert not ApiKey.objects.filter(revoked_at__isnull=False).exists()


def test_minting_needs_the_teams_write_scope(api, owner):
    key = owner.key_with("teams:read", "posts:read")

    assert _error(_mint(api, key, owner.team.pk)) == (403, "MISSING_SCOPE")


# --- expires_at ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expires_at", "code"),
    [
        ("2001-01-01T00:00:00Z", "EXPIRES_AT_NOT_FUTURE"),
        ("next week", "VALIDATION_ERROR"),
        ("9999-12-31T23:00:00-05:00", "VALIDATION_ERROR"),
    ],
)
def test_expires_at_must_be_a_time_in_the_future(api, owner, expires_at, code):
    before = ApiKey.objects.count()

    response = _mint(api, owner.key, owner.team.pk, expires_at=expires_at)

    assert _error(response) == (400, code)
    assert ApiKey.objects.count() == before


def test_a_minted_key_stops_working_once_it_expires(api, owner):
    expires_at = timezone.now() + dt.timedelta(days=30)
    minted = _mint(api, owner.key, owner.team.pk, scopes=["accounts:read"], expires_at=expires_at.isoformat()).json()
    key = minted["data"]["key"]
    assert minted["data"]["expires_at"] == expires_at.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")
    assert api.as_(key).get("/api/v1/accounts").status_code == 200

    stored = ApiKey.objects.get(pk=minted["data"]["id"])
    stored.expires_at = timezone.now() - dt.timedelta(seconds=1)
    stored.save(update_fields=["expires_at"])

    assert _error(api.as_(key).get("/api/v1/accounts")) == (401, "API_KEY_EXPIRED")


# --- GET /teams/{team_id}/keys --------------------------------------------------------------


def test_the_list_shows_live_team_keys_newest_first_and_never_the_key(api, owner, admin):
    first = _mint(api, owner.key, owner.team.pk, name="First").json()["data"]
    second = _mint(api, owner.key, owner.team.pk, name="Second").json()["data"]
    gone = _mint(api, owner.key, owner.team.pk, name="Gone").json()["data"]
    api.as_(owner.key).delete(f"/api/v1/teams/{owner.team.pk}/keys/{gone['id']}")
    services.api_key_create(user=owner.user, name="A user key", scopes=["posts:read"], active_team=owner.team)

    response = api.as_(owner.key).get(f"/api/v1/teams/{owner.team.pk}/keys")

    assert response.status_code == 200
    body = response.json()
    names = [k["name"] for k in body["data"]]
    # The personas' own team keys (every scope) were made first; the admin's is listed too.
    assert names == ["Second", "First", "all scopes", "all scopes"]
    assert {k["id"] for k in body["data"]} >= {first["id"], second["id"]}
    assert all(set(k) == KEY_FIELDS for k in body["data"])
    assert body["pagination"]["total_count"] == 4
    text = response.content.decode()
    for key in ApiKey.objects.all():
        assert key.secret_hash not in text
    assert first["key"] not in text
    assert second["key"] not in text


def test_the_list_pages(api, owner):
    for n in range(3):
        _mint(api, owner.key, owner.team.pk, name=f"Key {n}")

    body = api.as_(owner.key).get(f"/api/v1/teams/{owner.team.pk}/keys?page=2&page_size=2").json()

    assert [k["name"] for k in body["data"]] == ["Key 0", "all scopes"]
    assert (body["pagination"]["total_pages"], body["pagination"]["previous_page"]) == (2, 1)


def test_the_list_of_another_team_of_the_user_needs_a_user_key(api, owner):
    user_key = _user_key(owner)
    team_id = _customer_team(api, user_key)
    _mint(api, user_key, team_id, name="Customer key")

    listed = api.as_(user_key).get(f"/api/v1/teams/{team_id}/keys").json()["data"]

    assert [k["name"] for k in listed] == ["Customer key"]
    assert _error(api.as_(owner.key).get(f"/api/v1/teams/{team_id}/keys")) == (403, "TEAM_MISMATCH")


# --- DELETE /teams/{team_id}/keys/{key_id} ------------------------------------------------------


def test_a_revoked_key_answers_401_at_once(api, owner):
    minted = _mint(api, owner.key, owner.team.pk, scopes=["accounts:read"]).json()["data"]
    assert api.as_(minted["key"]).get("/api/v1/accounts").status_code == 200

    response = api.as_(owner.key).delete(f"/api/v1/teams/{owner.team.pk}/keys/{minted['id']}")

    assert response.status_code == 204
    assert response.content == b""
    assert _error(api.as_(minted["key"]).get("/api/v1/accounts")) == (401, "API_KEY_REVOKED")
    assert ApiKey.objects.get(pk=minted["id"]).revoked_at is not None


def test_a_user_key_revokes_a_key_of_another_team_its_user_owns(api, owner):
    user_key = _user_key(owner)
    team_id = _customer_team(api, user_key)
    minted = _mint(api, user_key, team_id, scopes=["accounts:read"]).json()["data"]

    response = api.as_(user_key).delete(f"/api/v1/teams/{team_id}/keys/{minted['id']}")

    assert response.status_code == 204
    assert api.as_(minted["key"]).get("/api/v1/accounts").status_code == 401


def test_revoking_a_key_that_is_not_a_live_key_of_the_team_is_a_404(api, owner, outsider):
    minted = _mint(api, owner.key, owner.team.pk).json()["data"]
    api.as_(owner.key).delete(f"/api/v1/teams/{owner.team.pk}/keys/{minted['id']}")
    user_key = services.api_key_create(user=owner.user, name="user key", scopes=["posts:read"])[0]
    others = ApiKey.objects.get(team=outsider.team)
    url = f"/api/v1/teams/{owner.team.pk}/keys/"

    for key_id in (minted["id"], user_key.pk, others.pk, uuid.uuid4()):
        response = api.as_(owner.key).delete(f"{url}{key_id}")
        assert _error(response) == (404, "API_KEY_NOT_FOUND"), key_id
    assert api.as_(outsider.key).get("/api/v1/teams").status_code == 200
    assert ApiKey.objects.get(pk=user_key.pk).revoked_at is None


def test_the_owner_revokes_a_team_key_an_admin_made(api, owner, admin):
    admins = ApiKey.objects.get(team=owner.team, user=admin.user)

    response = api.as_(owner.key).delete(f"/api/v1/teams/{owner.team.pk}/keys/{admins.pk}")

    assert response.status_code == 204
    assert api.as_(admin.key).get("/api/v1/teams").status_code == 401

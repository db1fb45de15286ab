"""`Authorization: Bearer sk_...`: every way a key is refused, scopes, last use, and which
team a key acts in."""

from __future__ import annotations

import datetime as dt
import secrets
import socket
import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from teams import caller_cache, keys, services
from teams.authentication import ApiKeyAuthentication
from teams.models import SCOPES, ApiKey, Membership, Role
from tests.factories import SocialAccountFactory

pytestmark = pytest.mark.django_db

# (method, path, scope): every endpoint that exists. `{account}` and `{team}` are filled per test.
ENDPOINTS = [
    ("get", "/api/v1/accounts", "accounts:read"),
    ("get", "/api/v1/accounts/{account}", "accounts:read"),
    ("get", "/api/v1/teams", "teams:read"),
    ("patch", "/api/v1/teams/{team}/default", "teams:write"),
    ("get", "/api/v1/usage", "billing:read"),
]
ENDPOINT_IDS = [f"{method.upper()} {path}" for method, path, _ in ENDPOINTS]


def _key(persona, *scopes, **kwargs):
    """A team key of the persona's team (or a user key with team=None): (ApiKey, plaintext)."""
    kwargs.setdefault("team", persona.team)
    return services.api_key_create(user=persona.user, name="test", scopes=scopes or SCOPES, **kwargs)


def _call(api, method, path, persona):
    account = SocialAccountFactory(team=persona.team)
    return getattr(api, method)(path.format(account=account.pk, team=persona.team.pk))


def _assert_error(response, status, type_, code):
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert (error["type"], error["code"]) == (type_, code)
    assert error["message"]
    assert error["request_id"] == response["X-Request-ID"]
    return error


def _assert_refused(response, code):
    _assert_error(response, 401, "authentication_error", code)
    assert response["WWW-Authenticate"] == 'Bearer realm="api"'


def _with_header(api, value):
    api.credentials(HTTP_AUTHORIZATION=value)
    return api


def _forged_secret(plaintext):
    """The key's real prefix with another secret and a correct checksum: well-formed, wrong."""
    prefix = keys.parse_prefix(plaintext)
    body = f"sk_{prefix}_{keys._base62(secrets.randbits(256), keys.SECRET_LENGTH)}"
    return body + keys._checksum(body)


def _visible_account_ids(api, key):
    response = api.as_(key).get("/api/v1/accounts")
    assert response.status_code == 200, response.content
    return {account["id"] for account in response.json()["data"]}


# --- 401: every refusal mode -------------------------------------------------------------


@pytest.mark.parametrize(("method", "path", "scope"), ENDPOINTS, ids=ENDPOINT_IDS)
def test_request_without_a_key_is_refused_on_every_endpoint(api, owner, method, path, scope):
    response = _call(api.as_(None), method, path, owner)

    _assert_refused(response, "MISSING_API_KEY")


@pytest.mark.parametrize(
    "header",
    [
        pytest.param("Basic dXNlcjpwYXNz", id="basic"),
        pytest.param("Token {key}", id="token scheme"),
        pytest.param("{key}", id="no scheme"),
        pytest.param("Bearer", id="bearer without key"),
        pytest.param("Bearer    ", id="bearer with blanks"),
    ],
)
def test_non_bearer_or_empty_authorization_is_malformed(api, owner, django_assert_num_queries, header):
    client = _with_header(api, header.format(key=owner.key))

    with django_assert_num_queries(0):
        response = client.get("/api/v1/accounts")

    _assert_refused(response, "MALFORMED_AUTHORIZATION")


@pytest.mark.parametrize(
    "mangle",
    [
        pytest.param(lambda k: "sk_nope", id="garbage"),
        pytest.param(lambda k: k[:-1], id="truncated"),
        pytest.param(lambda k: k[:-1] + ("A" if k[-1] != "A" else "B"), id="checksum changed"),
        pytest.param(lambda k: k[:30] + ("A" if k[30] != "A" else "B") + k[31:], id="secret changed"),
        pytest.param(lambda k: "pk_" + k[3:], id="wrong prefix"),
        pytest.param(lambda k: k + "x", id="too long"),
    ],
)
def test_malformed_key_is_refused_without_a_query(api, owner, django_assert_num_queries, mangle):
    client = api.as_(mangle(owner.key))

    with django_assert_num_queries(0):
        response = client.get("/api/v1/accounts")

    _assert_refused(response, "MALFORMED_API_KEY")


def test_well_formed_but_unknown_key_is_invalid(api, owner):
    response = api.as_(keys.generate().plaintext).get("/api/v1/accounts")

    _assert_refused(response, "INVALID_API_KEY")


def test_right_prefix_with_a_wrong_secret_is_invalid(api, owner):
    forged = _forged_secret(owner.key)
    assert forged != owner.key
    assert keys.parse_prefix(forged) == keys.parse_prefix(owner.key)  # passes the format check

    response = api.as_(forged).get("/api/v1/accounts")

    _assert_refused(response, "INVALID_API_KEY")


def test_revoked_key_is_refused(api, owner):
    api_key, plaintext = _key(owner)
    assert api.as_(plaintext).get("/api/v1/accounts").status_code == 200
    services.api_key_revoke(api_key=api_key)

    _assert_refused(api.as_(plaintext).get("/api/v1/accounts"), "API_KEY_REVOKED")


def test_expired_key_is_refused(api, owner):
    _, plaintext = _key(owner, expires_at=timezone.now() - dt.timedelta(seconds=1))

    _assert_refused(api.as_(plaintext).get("/api/v1/accounts"), "API_KEY_EXPIRED")


def test_key_that_expires_later_still_works(api, owner):
    _, plaintext = _key(owner, expires_at=timezone.now() + dt.timedelta(hours=1))

    assert api.as_(plaintext).get("/api/v1/accounts").status_code == 200


def test_key_of_an_inactive_user_is_invalid(api, owner):
    owner.user.is_active = False
    owner.user.save(update_fields=["is_active"])

    _assert_refused(api.as_(owner.key).get("/api/v1/accounts"), "INVALID_API_KEY")


def test_key_of_a_user_removed_from_the_keys_team_is_invalid(api, member):
    assert api.as_(member.key).get("/api/v1/accounts").status_code == 200
    Membership.objects.filter(user=member.user, team=member.team).delete()

    _assert_refused(api.as_(member.key).get("/api/v1/accounts"), "INVALID_API_KEY")


def test_lowercase_bearer_scheme_is_accepted(api, owner):
    response = _with_header(api, f"bearer {owner.key}").get("/api/v1/accounts")

    assert response.status_code == 200


# --- 403: scopes -------------------------------------------------------------------------


@pytest.mark.parametrize(("method", "path", "scope"), ENDPOINTS, ids=ENDPOINT_IDS)
def test_key_lacking_the_scope_is_refused(api, owner, method, path, scope):
    every_other_scope = [s for s in SCOPES if s != scope]

    response = _call(api.as_(owner.key_with(*every_other_scope)), method, path, owner)

    error = _assert_error(response, 403, "authorization_error", "MISSING_SCOPE")
    assert scope in error["message"]
    assert "WWW-Authenticate" not in response


@pytest.mark.parametrize(("method", "path", "scope"), ENDPOINTS, ids=ENDPOINT_IDS)
def test_key_with_exactly_the_scope_is_allowed(api, owner, method, path, scope):
    response = _call(api.as_(owner.key_with(scope)), method, path, owner)

    assert response.status_code == 200, response.content


def test_key_without_any_scope_is_refused(api, owner):
    response = api.as_(owner.key_with()).get("/api/v1/usage")

    _assert_error(response, 403, "authorization_error", "MISSING_SCOPE")


# --- last_used_at ------------------------------------------------------------------------


def _updates(context):
    return [q["sql"] for q in context.captured_queries if q["sql"].lstrip().upper().startswith("UPDATE")]


def test_first_use_records_last_used_at(api, owner):
    api_key, plaintext = _key(owner)
    assert api_key.last_used_at is None
    before = timezone.now()

    assert api.as_(plaintext).get("/api/v1/usage").status_code == 200

    api_key.refresh_from_db()
    assert api_key.last_used_at is not None
    assert before <= api_key.last_used_at <= timezone.now()


def test_second_use_within_a_minute_writes_nothing(api, owner):
    api_key, plaintext = _key(owner)
    client = api.as_(plaintext)
    with CaptureQueriesContext(connection) as first:
        assert client.get("/api/v1/usage").status_code == 200
    assert _updates(first), "the first use should have written last_used_at"
    api_key.refresh_from_db()
    recorded = api_key.last_used_at

    with CaptureQueriesContext(connection) as second:
        assert client.get("/api/v1/usage").status_code == 200

    assert _updates(second) == []
    api_key.refresh_from_db()
    assert api_key.last_used_at == recorded


def test_use_after_more_than_a_minute_rewrites_last_used_at(api, owner):
    api_key, plaintext = _key(owner)
    old = timezone.now() - dt.timedelta(minutes=2)
    ApiKey.objects.filter(pk=api_key.pk).update(last_used_at=old)

    assert api.as_(plaintext).get("/api/v1/usage").status_code == 200

    api_key.refresh_from_db()
    assert api_key.last_used_at > old + dt.timedelta(minutes=1)


# --- which team a key acts in ------------------------------------------------------------


@pytest.fixture
def second_team(owner):
    """A second team owned by the owner, created after Acme."""
    return services.team_create(name="Second", owner=owner.user)


@pytest.fixture
def accounts(owner, second_team):
    return {
        "acme": str(SocialAccountFactory(team=owner.team).pk),
        "second": str(SocialAccountFactory(team=second_team).pk),
    }


def test_team_key_acts_in_its_team(api, owner, second_team, accounts):
    _, second_key = _key(owner, team=second_team)

    assert _visible_account_ids(api, owner.key) == {accounts["acme"]}
    assert _visible_account_ids(api, second_key) == {accounts["second"]}


@pytest.mark.parametrize("active", ["acme", "second"])
def test_user_key_acts_in_its_active_team(api, owner, second_team, accounts, active):
    active_team = {"acme": owner.team, "second": second_team}[active]
    _, user_key = _key(owner, team=None, active_team=active_team)

    assert _visible_account_ids(api, user_key) == {accounts[active]}


def test_user_key_without_active_team_acts_in_the_users_default_team(api, owner, second_team, accounts):
    api_key, user_key = _key(owner, team=None)
    assert api_key.active_team_id is None

    services.team_set_default(user=owner.user, team=second_team)
    assert _visible_account_ids(api, user_key) == {accounts["second"]}

    services.team_set_default(user=owner.user, team=owner.team)
    assert _visible_account_ids(api, user_key) == {accounts["acme"]}


def test_user_key_falls_back_to_the_default_team_when_its_user_left_the_active_team(api, member):
    own_team = services.team_create(name="Member Co", owner=member.user)
    services.team_set_default(user=member.user, team=own_team)
    own_account = str(SocialAccountFactory(team=own_team).pk)
    _, user_key = _key(member, team=None, active_team=member.team)
    shared_account = str(SocialAccountFactory(team=member.team).pk)
    assert _visible_account_ids(api, user_key) == {shared_account}

    Membership.objects.filter(user=member.user, team=member.team).delete()

    assert _visible_account_ids(api, user_key) == {own_account}


def test_key_of_one_team_cannot_see_another_teams_account(api, owner, outsider):
    foreign = SocialAccountFactory(team=outsider.team)
    mine = SocialAccountFactory(team=owner.team)

    response = api.as_(owner.key).get(f"/api/v1/accounts/{foreign.pk}")

    _assert_error(response, 404, "not_found", "ACCOUNT_NOT_FOUND")
    assert _visible_account_ids(api, owner.key) == {str(mine.pk)}
    assert api.as_(outsider.key).get(f"/api/v1/accounts/{foreign.pk}").status_code == 200


def test_user_key_cannot_see_an_account_of_the_users_other_team(api, owner, second_team, accounts):
    _, user_key = _key(owner, team=None, active_team=owner.team)

    response = api.as_(user_key).get(f"/api/v1/accounts/{accounts['second']}")

    _assert_error(response, 404, "not_found", "ACCOUNT_NOT_FOUND")


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("delete", "/api/v1/publishes"),
        ("put", "/api/v1/accounts"),
        ("patch", "/api/v1/usage"),
        ("options", "/api/v1/publishes"),
        ("put", f"/api/v1/webhooks/{uuid.uuid4()}"),
    ],
)
def test_a_method_the_path_does_not_serve_is_a_405(api, owner, method, path):
    response = getattr(api.as_(owner.key), method)(path)

    assert response.status_code == 405, response.content
    error = response.json()["error"]
    assert (error["type"], error["code"]) == ("invalid_request", "METHOD_NOT_ALLOWED")


# --- the caller cache: a warm key costs no query, and no write to who it is goes unseen -----


def _auth_queries(api, plaintext):
    """SQL statements that authenticating one request runs (the view's own are excluded by
    asking for the one endpoint that reads nothing: an unknown account id)."""
    with CaptureQueriesContext(connection) as queries:
        api.as_(plaintext).get(f"/api/v1/accounts/{uuid.uuid4()}")
    return [q["sql"] for q in queries.captured_queries]


@pytest.mark.redis
def test_a_warm_key_authenticates_without_a_query(api, owner):
    cold = _auth_queries(api, owner.key)
    warm = _auth_queries(api, owner.key)

    assert any("teams_apikey" in sql for sql in cold)
    assert not any("teams_apikey" in sql or "teams_membership" in sql for sql in warm)


def _caller_of(plaintext):
    request = Request(APIRequestFactory().get("/", HTTP_AUTHORIZATION=f"Bearer {plaintext}"))
    return ApiKeyAuthentication().authenticate(request)[1]


@pytest.mark.redis
def test_a_change_to_role_team_or_plan_applies_to_the_next_request(member):
    assert _caller_of(member.key).role == Role.MEMBER  # now cached
    membership = Membership.objects.get(user=member.user, team=member.team)
    membership.role = Role.ADMIN
    membership.save()
    assert _caller_of(member.key).role == Role.ADMIN

    member.team.approval_required = True
    member.team.save()
    assert _caller_of(member.key).team.approval_required is True

    plan = member.team.plan
    plan.posts_per_month = 7
    plan.save()
    assert _caller_of(member.key).team.plan.posts_per_month == 7


@pytest.mark.redis
def test_a_revoke_applies_to_a_warm_key_at_once(api, owner):
    api_key, plaintext = _key(owner)
    assert api.as_(plaintext).get("/api/v1/accounts").status_code == 200
    assert not any("teams_apikey" in sql for sql in _auth_queries(api, plaintext))  # served from the cache

    services.api_key_revoke(api_key=api_key)

    _assert_refused(api.as_(plaintext).get("/api/v1/accounts"), "API_KEY_REVOKED")


def test_without_a_shared_cache_every_request_reads_the_key(api, owner, settings):
    settings.REDIS_URL = ""
    _auth_queries(api, owner.key)

    assert any("teams_apikey" in sql for sql in _auth_queries(api, owner.key))


@pytest.mark.redis
def test_the_cache_keeps_no_password_hash(api, owner):
    owner.user.set_password("a password for this test")
    owner.user.save()
    assert api.as_(owner.key).get("/api/v1/accounts").status_code == 200

    _, entry = caller_cache.cached_caller(keys.parse_prefix(owner.key))

    assert entry is not None
    assert "password" not in entry[0].user.__dict__


@pytest.mark.redis
def test_a_cache_that_is_down_falls_back_to_the_database(api, owner, settings, caplog):
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    settings.CACHES = {"default": {"BACKEND": "config.cache.RedisCache", "LOCATION": f"redis://127.0.0.1:{closed}/0"}}

    assert api.as_(owner.key).get("/api/v1/accounts").status_code == 200
    assert any("teams_apikey" in sql for sql in _auth_queries(api, owner.key))
    assert "Caller cache unavailable (ConnectionError)" in caplog.text

"""The access matrix of the API, generated from the URL conf: every operation served under
/api/v1/ is found by walking `get_resolver()` (a viewset route's callback names its methods in
`.actions`; an APIView serves the HTTP methods its class defines), so an endpoint added
tomorrow is in every test below without anyone listing it, and the tests that need per-operation
data fail until it is given.

1. The operations found are exactly those of the OpenAPI document, and each takes an API key
   unless it is one of the few listed in `NO_KEY_OPERATIONS`.
2. Without a key, with a malformed key and with a revoked key: 401 `authentication_error`.
3. With a key of the right team missing only the operation's scope: 403 `authorization_error`;
   the scope the view enforces, the one the document states and the spec's table agree.
4. With a key of another team (a team key, and a user key of a member of that team only) on
   team A's objects: 404 (403 `TEAM_MISMATCH` for the team operations), lists without any of
   team A's ids, and team A's objects unchanged.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.admindocs.utils import replace_named_groups
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from teams import keys, services
from teams.authentication import ApiKeyAuthentication
from teams.models import SCOPES
from teams.permissions import HasScope, required_scope
from tests.conftest import Api, Persona
from tests.security.conftest import Foreign, TeamA, snapshot

pytestmark = pytest.mark.django_db

API_PREFIX = "/api/v1/"

# Operations that take no API key, each for a stated reason. Anything else unauthenticated
# fails `test_every_operation_takes_a_key_or_is_listed_as_keyless`.
NO_KEY_OPERATIONS = {
    # The OpenAPI document and its viewer are public, like the spec they render.
    ("GET", "/api/v1/openapi.json"),
    ("GET", "/api/v1/docs"),
    # Local storage's signed URLs (media/api.py): the query string's signature is the credential.
    ("PUT", "/api/v1/media/uploads/{id}/content"),
    ("GET", "/api/v1/media/files/{id}"),
}
# drf-spectacular leaves its own views out of the document they serve.
UNDOCUMENTED = {("GET", "/api/v1/openapi.json"), ("GET", "/api/v1/docs")}

# The spec's Endpoints table (interface.md §4), as written there: method, path, scope.
SPEC_ENDPOINTS = {
    ("GET", "/api/v1/accounts"): "accounts:read",
    ("GET", "/api/v1/accounts/{id}"): "accounts:read",
    ("POST", "/api/v1/publishes"): "posts:write",
    ("GET", "/api/v1/publishes"): "posts:read",
    ("GET", "/api/v1/publishes/{id}"): "posts:read",
    ("PATCH", "/api/v1/publishes/{id}"): "posts:write",
    ("DELETE", "/api/v1/publishes/{id}"): "posts:write",
    ("POST", "/api/v1/publishes/{id}/retry"): "posts:write",
    ("POST", "/api/v1/publishes/{id}/unpublish"): "posts:write",
    ("POST", "/api/v1/publishes/{id}/confirm"): "posts:write",
    ("POST", "/api/v1/publishes/{id}/reschedule"): "posts:write",
    ("POST", "/api/v1/publishes/{id}/unschedule"): "posts:write",
    ("POST", "/api/v1/publishes/{id}/approve"): "posts:write",
    ("POST", "/api/v1/publishes/{id}/reject"): "posts:write",
    ("GET", "/api/v1/approvals"): "posts:read",
    ("GET", "/api/v1/usage"): "billing:read",
    ("POST", "/api/v1/media/uploads"): "media:write",
    ("POST", "/api/v1/media/uploads/{id}/confirm"): "media:write",
    ("GET", "/api/v1/media"): "media:read",
    ("GET", "/api/v1/webhooks"): "webhooks:read",
    ("POST", "/api/v1/webhooks"): "webhooks:write",
    ("DELETE", "/api/v1/webhooks/{id}"): "webhooks:write",
    ("GET", "/api/v1/analytics/posts"): "analytics:read",
    ("GET", "/api/v1/analytics/posts/{id}"): "analytics:read",
    ("GET", "/api/v1/teams"): "teams:read",
    ("PATCH", "/api/v1/teams/{team_id}/default"): "teams:write",
    ("DELETE", "/api/v1/teams/{team_id}"): "teams:write",
}
# Served and documented beyond the spec's table (the progress of a source_url fetch).
BEYOND_THE_SPEC = {
    ("GET", "/api/v1/media/uploads/{id}"): "media:read",
    # An upload's alt text, sent with it to the networks that take one.
    ("PATCH", "/api/v1/media/uploads/{id}"): "media:write",
    # A create's dry run, and an account's settings schema, limits and live options.
    ("POST", "/api/v1/publishes/validate"): "posts:write",
    # Many creates at once.
    ("POST", "/api/v1/publishes/bulk"): "posts:write",
    ("GET", "/api/v1/accounts/{id}/capabilities"): "accounts:read",
    # An account's posting schedule.
    ("GET", "/api/v1/accounts/{id}/schedule"): "accounts:read",
    ("PUT", "/api/v1/accounts/{id}/schedule"): "accounts:write",
    # Disconnecting an account, and hosted pages where a team's customers connect theirs.
    ("DELETE", "/api/v1/accounts/{id}"): "accounts:write",
    ("GET", "/api/v1/connect-links"): "accounts:read",
    ("POST", "/api/v1/connect-links"): "accounts:write",
    ("GET", "/api/v1/connect-links/{id}"): "accounts:read",
    ("DELETE", "/api/v1/connect-links/{id}"): "accounts:write",
    # Webhook tooling: one webhook, its delivery log, test events, redelivery, rotation, enabling.
    ("GET", "/api/v1/webhooks/{id}"): "webhooks:read",
    ("POST", "/api/v1/webhooks/{id}/test"): "webhooks:write",
    ("GET", "/api/v1/webhooks/{id}/deliveries"): "webhooks:read",
    ("GET", "/api/v1/webhooks/{id}/deliveries/{delivery_id}"): "webhooks:read",
    ("POST", "/api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver"): "webhooks:write",
    ("POST", "/api/v1/webhooks/{id}/rotate-secret"): "webhooks:write",
    ("POST", "/api/v1/webhooks/{id}/enable"): "webhooks:write",
    # Teams and their keys over the API (issue 36): a team per customer, with its own keys.
    ("POST", "/api/v1/teams"): "teams:write",
    ("GET", "/api/v1/teams/{team_id}/keys"): "teams:read",
    ("POST", "/api/v1/teams/{team_id}/keys"): "teams:write",
    ("DELETE", "/api/v1/teams/{team_id}/keys/{key_id}"): "teams:write",
}


# --- The operations, from the URL conf ------------------------------------------------------


@dataclass(frozen=True)
class Operation:
    method: str
    path: str  # as the OpenAPI document writes it: /api/v1/publishes/{id}/retry
    view: Any  # an instance of the view class, with `.action` set on viewsets

    def __str__(self) -> str:
        return f"{self.method} {self.path}"

    @property
    def key(self) -> tuple[str, str]:
        return (self.method, self.path)

    @property
    def takes_a_key(self) -> bool:
        return ApiKeyAuthentication in self.view.authentication_classes and HasScope in self.view.permission_classes

    @property
    def takes_no_key(self) -> bool:
        return not self.view.authentication_classes and not self.view.permission_classes

    @property
    def scope(self) -> str | None:
        return required_scope(self.view)

    def url(self, ids: dict[str, str] | None = None) -> str:
        """The path with its parameters filled from `ids` (by parameter name), else random UUIDs."""
        return re.sub(r"\{(\w+)\}", lambda m: (ids or {}).get(m[1], str(uuid.uuid4())), self.path)


def _routes(patterns: list[URLPattern | URLResolver], prefix: str = "") -> Iterator[tuple[str, Any]]:
    for entry in patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from _routes(entry.url_patterns, route)
        else:
            yield route, entry.callback


def _openapi_path(route: str) -> str:
    """`api/v1/^publishes/(?P<pk>[0-9a-f...]{8}...)/retry/?$` -> `/api/v1/publishes/{id}/retry`
    (drf-spectacular names a `pk` parameter `id`)."""
    path = replace_named_groups(route).replace("^", "").replace("$", "").replace("/?", "")
    return "/" + re.sub(r"<(\w+)>", lambda m: "{id}" if m[1] == "pk" else "{" + m[1] + "}", path)


def _served_methods(callback: Any) -> dict[str, str | None]:
    """HTTP method -> viewset action (None for an APIView). OPTIONS and HEAD are the framework's."""
    actions = getattr(callback, "actions", None)
    if actions is not None:
        return {method.upper(): action for method, action in actions.items()}
    cls = callback.cls
    methods = [m for m in cls.http_method_names if m not in ("options", "head") and hasattr(cls, m)]
    return {method.upper(): None for method in methods}


def collect_operations() -> list[Operation]:
    operations = []
    for route, callback in _routes(get_resolver().url_patterns):
        path = _openapi_path(route)
        if not path.startswith(API_PREFIX):
            continue
        for method, action in _served_methods(callback).items():
            view = callback.cls(**callback.initkwargs)
            view.action = action
            operations.append(Operation(method, path, view))
    return sorted(operations, key=lambda op: op.key)


OPERATIONS = collect_operations()
KEYED = [op for op in OPERATIONS if op.takes_a_key]


@pytest.fixture(scope="module")
def document(django_db_blocker: Any) -> dict[str, Any]:
    with django_db_blocker.unblock():
        response = APIClient().get("/api/v1/openapi.json")
    assert response.status_code == 200
    schema: dict[str, Any] = response.json()
    return schema


def _send(client: APIClient, op: Operation, url: str | None = None, body: Any = None) -> Any:
    """`op` with the client's credentials; a body (an empty object unless given) on writes."""
    call = getattr(client, op.method.lower())
    if op.method in ("POST", "PATCH", "PUT", "DELETE"):
        return call(url or op.url(), {} if body is None else body, format="json")
    return call(url or op.url())


def _error(response: Any) -> dict[str, Any]:
    error: dict[str, Any] = response.json()["error"]
    assert set(error) >= {"type", "code", "message", "request_id"}, error
    return error


# --- 1. The operations themselves ------------------------------------------------------------


def test_the_url_conf_serves_exactly_the_documented_operations(document: dict[str, Any]) -> None:
    documented = {(m.upper(), path) for path, item in document["paths"].items() for m in item}

    assert {op.key for op in OPERATIONS} == documented | UNDOCUMENTED
    assert len(OPERATIONS) == len({op.key for op in OPERATIONS})  # no path served by two views


def test_every_operation_takes_a_key_or_is_listed_as_keyless() -> None:
    unclassified = [str(op) for op in OPERATIONS if not op.takes_a_key and op.key not in NO_KEY_OPERATIONS]
    listed_but_keyed = [str(op) for op in OPERATIONS if op.key in NO_KEY_OPERATIONS and not op.takes_no_key]

    assert unclassified == []
    assert listed_but_keyed == []
    assert {op.key for op in OPERATIONS} >= NO_KEY_OPERATIONS


def test_the_keyless_operations_answer_without_a_key_only_what_they_should(api: Api) -> None:
    assert api.get("/api/v1/openapi.json").status_code == 200
    assert api.get("/api/v1/docs").status_code == 200
    # The signed-URL operations: without the signature, a 403 that says so, never the file.
    for op in OPERATIONS:
        if op.key in NO_KEY_OPERATIONS - UNDOCUMENTED:
            response = _send(api.as_(None), op)
            assert (response.status_code, _error(response)["code"]) == (403, "URL_INVALID"), op


# --- 2. No key, a malformed key, a revoked key ---------------------------------------------------


@pytest.fixture(params=["no key", "not a bearer token", "malformed key", "unknown key", "revoked key"])
def bad_credentials(request: pytest.FixtureRequest, owner: Persona) -> tuple[dict[str, str], str]:
    """The request headers, and the error code they must get."""
    if request.param == "revoked key":
        api_key, plaintext = services.api_key_create(user=owner.user, name="revoked", scopes=SCOPES, team=owner.team)
        services.api_key_revoke(api_key=api_key)
        return {"HTTP_AUTHORIZATION": f"Bearer {plaintext}"}, "API_KEY_REVOKED"
    cases = {
        "no key": ({}, "MISSING_API_KEY"),
        "not a bearer token": ({"HTTP_AUTHORIZATION": f"Basic {owner.key}"}, "MALFORMED_AUTHORIZATION"),
        "malformed key": ({"HTTP_AUTHORIZATION": f"Bearer {owner.key[:-1]}"}, "MALFORMED_API_KEY"),
        # Well formed, checksum and all, but never issued.
        "unknown key": ({"HTTP_AUTHORIZATION": f"Bearer {keys.generate().plaintext}"}, "INVALID_API_KEY"),
    }
    return cases[request.param]


@pytest.mark.parametrize("op", KEYED, ids=str)
def test_every_keyed_operation_refuses_a_missing_or_bad_key(
    api: APIClient, op: Operation, bad_credentials: tuple[dict[str, str], str]
) -> None:
    headers, code = bad_credentials
    api.credentials(**headers)

    response = _send(api, op)

    assert response.status_code == 401, (op, response.content)
    assert (_error(response)["type"], _error(response)["code"]) == ("authentication_error", code)
    assert response["WWW-Authenticate"] == 'Bearer realm="api"'


# --- 3. A key without the operation's scope ----------------------------------------------------


def test_the_view_the_document_and_the_spec_name_the_same_scope(document: dict[str, Any]) -> None:
    expected = SPEC_ENDPOINTS | BEYOND_THE_SPEC
    disagreements = []
    for op in KEYED:
        stated = document["paths"][op.path][op.method.lower()]
        found = (op.scope, stated.get("x-required-scope"), expected.get(op.key))
        if len(set(found)) != 1 or f"Requires scope `{op.scope}`." not in stated["description"]:
            disagreements.append((str(op), found))

    assert disagreements == []
    assert {op.key for op in KEYED} == set(expected)


@pytest.mark.parametrize("op", KEYED, ids=str)
def test_every_keyed_operation_needs_its_scope(api: Api, owner: Persona, op: Operation) -> None:
    assert op.scope in SCOPES
    key = owner.key_with(*(scope for scope in SCOPES if scope != op.scope))

    response = _send(api.as_(key), op)

    assert response.status_code == 403, (op, response.content)
    assert (_error(response)["type"], _error(response)["code"]) == ("authorization_error", "MISSING_SCOPE")
    assert op.scope in _error(response)["message"]


# --- 4. Another team's key on team A's objects --------------------------------------------------


@dataclass(frozen=True)
class Probe:
    """How another team's key tries an operation on team A, and what it must get.

    `ids` maps path parameters to the kind of team A object they name; `expect` is
    `not_found` (404), `team_mismatch` (403 TEAM_MISMATCH), `invalid` (400: team A's objects
    named in the body are unknown to the caller), `own_team` (2xx acting on the caller's own
    team), `user_key_only` (2xx acting for a user key's own user, 403 USER_KEY_REQUIRED for a
    team key) or `list` (200; `listed` is the kind of team A id team A's own key sees there)."""

    expect: str
    ids: dict[str, str] | None = None
    body: Any = None
    query: str = ""
    listed: str = ""


PROBES: dict[tuple[str, str], Probe] = {
    ("GET", "/api/v1/accounts"): Probe("list", listed="account"),
    ("GET", "/api/v1/accounts/{id}"): Probe("not_found", {"id": "account"}),
    ("GET", "/api/v1/accounts/{id}/capabilities"): Probe("not_found", {"id": "account"}),
    ("GET", "/api/v1/accounts/{id}/schedule"): Probe("not_found", {"id": "account"}),
    ("PUT", "/api/v1/accounts/{id}/schedule"): Probe(
        "not_found", {"id": "account"}, body={"timezone": "UTC", "slots": [{"day": "mon", "time": "09:00"}]}
    ),
    ("DELETE", "/api/v1/accounts/{id}"): Probe("not_found", {"id": "account"}),
    ("GET", "/api/v1/connect-links"): Probe("list", listed="connect_link"),
    ("POST", "/api/v1/connect-links"): Probe(
        "own_team", body={"redirect_url": "http://localhost:9/done", "platforms": ["x"]}
    ),
    ("GET", "/api/v1/connect-links/{id}"): Probe("not_found", {"id": "connect_link"}),
    ("DELETE", "/api/v1/connect-links/{id}"): Probe("not_found", {"id": "connect_link"}),
    ("GET", "/api/v1/teams"): Probe("list", listed="team"),
    ("PATCH", "/api/v1/teams/{team_id}/default"): Probe("team_mismatch", {"team_id": "team"}),
    ("DELETE", "/api/v1/teams/{team_id}"): Probe(
        "team_mismatch", {"team_id": "team"}, body={"destination_team_id": "{second_team}", "confirmation_name": "Acme"}
    ),
    # A user key creates a team of its own user; a team key may not create teams at all.
    ("POST", "/api/v1/teams"): Probe("user_key_only", body={"name": "Mine"}),
    ("GET", "/api/v1/teams/{team_id}/keys"): Probe("team_mismatch", {"team_id": "team"}),
    ("POST", "/api/v1/teams/{team_id}/keys"): Probe(
        "team_mismatch", {"team_id": "team"}, body={"name": "Mine now", "scopes": ["posts:read"]}
    ),
    ("DELETE", "/api/v1/teams/{team_id}/keys/{key_id}"): Probe(
        "team_mismatch", {"team_id": "team", "key_id": "team_key"}
    ),
    ("GET", "/api/v1/usage"): Probe("own_team"),
    ("POST", "/api/v1/media/uploads"): Probe(
        "own_team", body={"filename": "b.png", "content_type": "image/png", "size_bytes": 10}
    ),
    ("GET", "/api/v1/media/uploads/{id}"): Probe("not_found", {"id": "media_unconfirmed"}),
    ("POST", "/api/v1/media/uploads/{id}/confirm"): Probe("not_found", {"id": "media_unconfirmed"}),
    ("PATCH", "/api/v1/media/uploads/{id}"): Probe("not_found", {"id": "media_ready"}, body={"alt_text": "x"}),
    ("GET", "/api/v1/media"): Probe("list", listed="media_ready"),
    ("GET", "/api/v1/webhooks"): Probe("list", listed="webhook"),
    ("POST", "/api/v1/webhooks"): Probe("own_team", body={"url": "http://127.0.0.1:9/b", "events": ["post.failed"]}),
    ("DELETE", "/api/v1/webhooks/{id}"): Probe("not_found", {"id": "webhook"}),
    ("GET", "/api/v1/webhooks/{id}"): Probe("not_found", {"id": "webhook"}),
    ("POST", "/api/v1/webhooks/{id}/test"): Probe("not_found", {"id": "webhook"}),
    ("GET", "/api/v1/webhooks/{id}/deliveries"): Probe("not_found", {"id": "webhook"}),
    ("GET", "/api/v1/webhooks/{id}/deliveries/{delivery_id}"): Probe(
        "not_found", {"id": "webhook", "delivery_id": "webhook_delivery"}
    ),
    ("POST", "/api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver"): Probe(
        "not_found", {"id": "webhook", "delivery_id": "webhook_delivery"}
    ),
    ("POST", "/api/v1/webhooks/{id}/rotate-secret"): Probe("not_found", {"id": "webhook"}),
    ("POST", "/api/v1/webhooks/{id}/enable"): Probe("not_found", {"id": "webhook"}),
    ("POST", "/api/v1/publishes"): Probe(
        "invalid",
        body={"content": "Mine now", "targets": [{"account_id": "{account}"}], "media_ids": ["{media_ready}"]},
    ),
    ("POST", "/api/v1/publishes/bulk"): Probe(
        "invalid",
        body={"publishes": [{"content": "Mine now", "targets": [{"account_id": "{account}"}]}]},
    ),
    # The dry run answers 200 on the caller's own team: team A's account and media are unknown there.
    ("POST", "/api/v1/publishes/validate"): Probe(
        "own_team",
        body={"content": "Mine now", "targets": [{"account_id": "{account}"}], "media_ids": ["{media_ready}"]},
    ),
    ("GET", "/api/v1/publishes"): Probe("list", query="?account_id={account}", listed="publish_draft"),
    ("GET", "/api/v1/publishes/{id}"): Probe("not_found", {"id": "publish_draft"}),
    ("PATCH", "/api/v1/publishes/{id}"): Probe("not_found", {"id": "publish_draft"}, body={"content": "Changed"}),
    ("DELETE", "/api/v1/publishes/{id}"): Probe("not_found", {"id": "publish_draft"}),
    ("POST", "/api/v1/publishes/{id}/retry"): Probe("not_found", {"id": "publish_partial"}),
    ("POST", "/api/v1/publishes/{id}/unpublish"): Probe("not_found", {"id": "publish_partial"}),
    ("POST", "/api/v1/publishes/{id}/confirm"): Probe("not_found", {"id": "publish_draft"}),
    ("POST", "/api/v1/publishes/{id}/reschedule"): Probe(
        "not_found", {"id": "publish_scheduled"}, body={"scheduled_at": "2099-02-01T00:00:00Z"}
    ),
    ("POST", "/api/v1/publishes/{id}/unschedule"): Probe("not_found", {"id": "publish_scheduled"}),
    ("POST", "/api/v1/publishes/{id}/approve"): Probe("not_found", {"id": "publish_pending"}),
    ("POST", "/api/v1/publishes/{id}/reject"): Probe("not_found", {"id": "publish_pending"}, body={"reason": "No"}),
    ("GET", "/api/v1/approvals"): Probe("list", listed="publish_pending"),
    ("GET", "/api/v1/analytics/posts"): Probe("list", listed="publish_partial"),
    ("GET", "/api/v1/analytics/posts/{id}"): Probe("not_found", {"id": "publish_partial"}),
}


# Answers about an object that do not repeat its id (an account's schedule is its zone and slots).
ANSWERS_NAMING_NOTHING = {("GET", "/api/v1/accounts/{id}/schedule")}


def _filled(value: Any, ids: dict[str, str]) -> Any:
    """`"{account}"` in a body or query -> team A's account id."""
    return json.loads(re.sub(r"\{(\w+)\}", lambda m: ids[m[1]], json.dumps(value)))


def _check(response: Any, probe: Probe, team_a: TeamA, named: set[str], team_key: bool) -> str | None:
    """Why the answer breaks isolation, or None when it is right."""
    leaked = {i for i in team_a.all_ids - named if i in response.content.decode()}
    if leaked:
        return f"{response.status_code} shows team A's ids {sorted(leaked)}"
    wanted = {
        "not_found": (404, "not_found", None),
        "team_mismatch": (403, "authorization_error", "TEAM_MISMATCH"),
        "invalid": (400, "invalid_request", None),
    }
    if probe.expect == "user_key_only" and team_key:
        wanted["user_key_only"] = (403, "authorization_error", "USER_KEY_REQUIRED")
    if probe.expect in wanted:
        status, type_, code = wanted[probe.expect]
        error = response.json().get("error", {}) if response.status_code >= 400 else {}
        if response.status_code != status or error.get("type") != type_ or code not in (None, error.get("code")):
            return f"{response.status_code} {response.content[:200]!r}, wanted {status} {type_} {code or ''}"
        return None
    if not 200 <= response.status_code < 300:
        return f"{response.status_code} {response.content[:200]!r}, wanted 2xx on the caller's own team"
    return None


def test_every_keyed_operation_has_a_cross_team_probe() -> None:
    assert {op.key for op in KEYED} == set(PROBES)


def test_another_teams_key_never_reaches_team_as_objects(api: Api, team_a: TeamA, foreign: Foreign) -> None:
    before, failures = snapshot(team_a), []
    for op in KEYED:
        probe = PROBES[op.key]
        ids = {name: team_a.ids[kind] for name, kind in (probe.ids or {}).items()}
        url, body = op.url(ids) + _filled(probe.query, team_a.ids), _filled(probe.body, team_a.ids)
        response = _send(api.as_(foreign.key), op, url, body)
        # An id the request itself carries may be echoed (a 400 names the unknown account).
        named = {i for i in team_a.all_ids if i in url + json.dumps(body)}
        problem = _check(response, probe, team_a, named, team_key=foreign.label.startswith("team key"))
        if problem is None and snapshot(team_a) != before:
            problem = f"{response.status_code}, and team A's objects changed"
        if problem:
            failures.append(f"{op}: {problem}")

    assert failures == [], foreign.label
    assert snapshot(team_a) == before


def test_team_as_own_key_sees_what_the_other_team_cannot(api: Api, owner: Persona, team_a: TeamA) -> None:
    """The control: the objects the probes name are there for team A, so a 404 or an empty
    list for team B is the isolation at work, not a missing object."""
    for op in KEYED:
        probe = PROBES[op.key]
        if op.method != "GET" or probe.expect not in ("list", "not_found"):
            continue
        ids = {name: team_a.ids[kind] for name, kind in (probe.ids or {}).items()}
        response = _send(api.as_(owner.key), op, op.url(ids) + _filled(probe.query, team_a.ids))
        assert response.status_code == 200, (op, response.content)
        if op.key in ANSWERS_NAMING_NOTHING:
            continue  # the 200 itself shows the object is there: an unknown id is a 404
        shown = team_a.ids[probe.listed] if probe.expect == "list" else next(iter(ids.values()))
        assert shown in response.content.decode(), op

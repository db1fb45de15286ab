"""Who may use `/mcp`. It is not an operation of the OpenAPI document, so the access matrix
(tests/security) does not walk it; these are its cases: the API's 401 for a missing, malformed
or revoked key, no way in with a dashboard session (so CSRF has nothing to protect), a key
of another team seeing none of team A's objects through the tools, the Host and Origin checks
against DNS rebinding, and the key's rate limit on `/mcp` itself."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from publishing.models import Publish
from teams.keys import parse_prefix
from teams.models import ApiKey
from teams.services import api_key_revoke

pytestmark = pytest.mark.django_db

HEADERS = {
    "HTTP_ACCEPT": "application/json, text/event-stream",
    "HTTP_MCP_PROTOCOL_VERSION": "2025-06-18",
}


def _rpc(
    client: Client, method: str, params: dict[str, Any] | None = None, key: str | None = None, **headers: str
) -> Any:
    message = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}}
    auth = {"HTTP_AUTHORIZATION": f"Bearer {key}"} if key else {}
    return client.post("/mcp", json.dumps(message), content_type="application/json", **HEADERS, **auth, **headers)


def _tool(key: str, name: str, **arguments: Any) -> dict[str, Any]:
    response = _rpc(Client(), "tools/call", {"name": name, "arguments": arguments}, key=key)
    assert response.status_code == 200, response.content
    return response.json()["result"]


@pytest.mark.parametrize(
    ("authorization", "code"),
    [(None, "MISSING_API_KEY"), ("Bearer sk_live_nope", "MALFORMED_API_KEY"), ("Basic abc", "MALFORMED_AUTHORIZATION")],
)
def test_mcp_refuses_a_request_without_a_valid_key_as_the_api_does(authorization, code):
    auth = {"HTTP_AUTHORIZATION": authorization} if authorization else {}
    response = Client().post("/mcp", "{}", content_type="application/json", **HEADERS, **auth)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == 'Bearer realm="api"'
    assert response.json()["error"]["type"] == "authentication_error"
    assert response.json()["error"]["code"] == code


def test_a_revoked_key_is_refused(owner):
    api_key_revoke(api_key=ApiKey.objects.get(prefix=parse_prefix(owner.key)))
    response = _rpc(Client(), "tools/list", key=owner.key)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "API_KEY_REVOKED"


def test_a_dashboard_session_alone_does_not_open_mcp(owner):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(owner.user)
    response = _rpc(browser, "tools/list")
    assert response.status_code == 401


def test_a_key_needs_no_csrf_token(owner):
    response = _rpc(Client(enforce_csrf_checks=True), "tools/list", key=owner.key)
    assert response.status_code == 200
    assert "create_publish" in {tool["name"] for tool in response.json()["result"]["tools"]}


@pytest.mark.django_db(transaction=True)  # each tool's request is a request of its own: it sees committed rows
def test_another_teams_key_sees_none_of_team_as_objects(owner, outsider, x_account):
    created = _tool(owner.key, "create_publish", content="A's", targets=[{"account_id": str(x_account.pk)}])
    assert not created["isError"], created
    publish_id = created["structuredContent"]["data"]["id"]
    before = Publish.objects.get(pk=publish_id).updated_at

    for name, arguments in [
        ("get_publish", {"publish_id": publish_id}),
        ("approve_publish", {"publish_id": publish_id}),
        ("reject_publish", {"publish_id": publish_id}),
        ("unpublish_publish", {"publish_id": publish_id}),
        ("get_account_capabilities", {"account_id": str(x_account.pk)}),
    ]:
        response = _rpc(Client(), "tools/call", {"name": name, "arguments": arguments}, key=outsider.key)
        result = response.json()["result"]
        assert result["isError"], name
        refusal = json.loads(result["content"][0]["text"])
        assert refusal["status"] == 404, name
        # The API's request ran under the /mcp request's id: one id to quote for both.
        assert refusal["error"]["request_id"] == response["X-Request-ID"], name
    for name in ("list_publishes", "list_accounts", "list_approvals"):
        listed = _tool(outsider.key, name)["structuredContent"]["data"]
        assert listed == [], name
    assert Publish.objects.get(pk=publish_id).updated_at == before


@pytest.mark.parametrize("method", ["get", "delete"])
def test_a_stateless_server_answers_get_and_delete_with_405(owner, method):
    auth = {"HTTP_AUTHORIZATION": f"Bearer {owner.key}"}
    response = getattr(Client(), method)("/mcp", **HEADERS, **auth)
    assert response.status_code == 405
    assert response["Allow"] == "POST, OPTIONS"


def _listed(response: Any) -> set[str]:
    assert response.status_code == 200, response.content
    return {tool["name"] for tool in response.json()["result"]["tools"]}


def test_a_page_of_another_site_is_refused(owner):
    response = _rpc(Client(), "tools/list", key=owner.key, HTTP_ORIGIN="https://elsewhere.example")
    assert response.status_code == 403
    assert response.json()["error"]["type"] == "authorization_error"
    assert response.json()["error"]["code"] == "ORIGIN_NOT_ALLOWED"
    assert response.json()["error"]["request_id"] == response["X-Request-ID"]


def test_a_host_the_service_does_not_answer_to_is_refused(owner):
    # A DNS-rebinding page reaches the server under its own name.
    response = _rpc(Client(), "tools/list", key=owner.key, HTTP_HOST="rebound.example")
    assert response.status_code == 400
    assert response.json()["error"]["type"] == "invalid_request"


def test_under_a_wildcard_host_a_rebound_page_is_still_refused(owner, settings):
    settings.ALLOWED_HOSTS = ["*"]
    rebound = {"HTTP_HOST": "rebound.example:8000", "HTTP_ORIGIN": "http://rebound.example:8000"}
    response = _rpc(Client(), "tools/list", key=owner.key, **rebound)
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "ORIGIN_NOT_ALLOWED"
    assert "create_publish" in _listed(_rpc(Client(), "tools/list", key=owner.key, HTTP_HOST="rebound.example"))


@pytest.mark.parametrize(
    "origin",
    [None, "http://testserver", "https://testserver:8443", "https://publish.example.com", "https://app.example.com"],
)
def test_clients_without_an_origin_and_the_services_own_pages_are_served(owner, settings, origin):
    settings.PUBLIC_BASE_URL = "https://publish.example.com"
    settings.CSRF_TRUSTED_ORIGINS = ["https://app.example.com"]
    headers = {"HTTP_ORIGIN": origin} if origin else {}
    assert "create_publish" in _listed(_rpc(Client(), "tools/list", key=owner.key, **headers))


def test_a_message_not_sent_as_json_is_the_apis_415(owner):
    message = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    auth = {"HTTP_AUTHORIZATION": f"Bearer {owner.key}"}
    response = Client().post("/mcp", message, content_type="text/plain", **HEADERS, **auth)
    assert response.status_code == 415
    assert response.json()["error"]["code"] == "UNSUPPORTED_MEDIA_TYPE"


def test_a_burst_of_requests_is_rate_limited_per_key(owner, outsider, settings, api):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "mcp": 3}
    served = [_rpc(Client(), "tools/list", key=owner.key) for _ in range(3)]
    assert [response["X-RateLimit-Remaining"] for response in served] == ["2", "1", "0"]
    assert {response["X-RateLimit-Limit"] for response in served} == {"3"}

    limited = _rpc(Client(), "initialize", key=owner.key)
    assert limited.status_code == 429
    assert limited.json()["error"]["type"] == "rate_limited"
    assert limited.json()["error"]["code"] == "RATE_LIMITED"
    assert int(limited["Retry-After"]) >= 1
    assert limited["X-RateLimit-Remaining"] == "0"
    # /mcp has a bucket of its own: the key's REST calls and other keys are not held back.
    assert api.as_(owner.key).get("/api/v1/accounts").status_code == 200
    assert "create_publish" in _listed(_rpc(Client(), "tools/list", key=outsider.key))

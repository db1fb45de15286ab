from __future__ import annotations

import pytest
from openapi_spec_validator import validate

pytestmark = pytest.mark.django_db

OPERATIONS = {
    ("/api/v1/accounts", "get"): "accounts:read",
    ("/api/v1/accounts/{id}", "get"): "accounts:read",
    ("/api/v1/accounts/{id}/capabilities", "get"): "accounts:read",
    ("/api/v1/accounts/{id}/schedule", "get"): "accounts:read",
    ("/api/v1/accounts/{id}/schedule", "put"): "accounts:write",
    ("/api/v1/accounts/{id}", "delete"): "accounts:write",
    ("/api/v1/connect-links", "get"): "accounts:read",
    ("/api/v1/connect-links", "post"): "accounts:write",
    ("/api/v1/connect-links/{id}", "get"): "accounts:read",
    ("/api/v1/connect-links/{id}", "delete"): "accounts:write",
    ("/api/v1/teams", "get"): "teams:read",
    ("/api/v1/teams/{team_id}/default", "patch"): "teams:write",
    ("/api/v1/teams/{team_id}", "delete"): "teams:write",
    ("/api/v1/teams", "post"): "teams:write",
    ("/api/v1/teams/{team_id}/keys", "get"): "teams:read",
    ("/api/v1/teams/{team_id}/keys", "post"): "teams:write",
    ("/api/v1/teams/{team_id}/keys/{key_id}", "delete"): "teams:write",
    ("/api/v1/usage", "get"): "billing:read",
    ("/api/v1/media/uploads", "post"): "media:write",
    ("/api/v1/media/uploads/{id}", "get"): "media:read",
    ("/api/v1/media/uploads/{id}", "patch"): "media:write",
    ("/api/v1/media/uploads/{id}/confirm", "post"): "media:write",
    ("/api/v1/media", "get"): "media:read",
    ("/api/v1/webhooks", "get"): "webhooks:read",
    ("/api/v1/webhooks", "post"): "webhooks:write",
    ("/api/v1/webhooks/{id}", "delete"): "webhooks:write",
    ("/api/v1/webhooks/{id}", "get"): "webhooks:read",
    ("/api/v1/webhooks/{id}/test", "post"): "webhooks:write",
    ("/api/v1/webhooks/{id}/deliveries", "get"): "webhooks:read",
    ("/api/v1/webhooks/{id}/deliveries/{delivery_id}", "get"): "webhooks:read",
    ("/api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver", "post"): "webhooks:write",
    ("/api/v1/webhooks/{id}/rotate-secret", "post"): "webhooks:write",
    ("/api/v1/webhooks/{id}/enable", "post"): "webhooks:write",
    ("/api/v1/publishes", "post"): "posts:write",
    ("/api/v1/publishes", "get"): "posts:read",
    ("/api/v1/publishes/{id}", "get"): "posts:read",
    ("/api/v1/publishes/{id}", "patch"): "posts:write",
    ("/api/v1/publishes/{id}", "delete"): "posts:write",
    ("/api/v1/publishes/validate", "post"): "posts:write",
    ("/api/v1/publishes/bulk", "post"): "posts:write",
    ("/api/v1/publishes/{id}/retry", "post"): "posts:write",
    ("/api/v1/publishes/{id}/unpublish", "post"): "posts:write",
    ("/api/v1/publishes/{id}/confirm", "post"): "posts:write",
    ("/api/v1/publishes/{id}/reschedule", "post"): "posts:write",
    ("/api/v1/publishes/{id}/unschedule", "post"): "posts:write",
    ("/api/v1/publishes/{id}/approve", "post"): "posts:write",
    ("/api/v1/publishes/{id}/reject", "post"): "posts:write",
    ("/api/v1/approvals", "get"): "posts:read",
    ("/api/v1/analytics/posts", "get"): "analytics:read",
    ("/api/v1/analytics/posts/{id}", "get"): "analytics:read",
}
# Reached through signed URLs the API hands out, not with an API key.
SIGNED_URL_OPERATIONS = {("/api/v1/media/uploads/{id}/content", "put"), ("/api/v1/media/files/{id}", "get")}


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    from rest_framework.test import APIClient

    with django_db_blocker.unblock():
        response = APIClient().get("/api/v1/openapi.json")
    assert response.status_code == 200
    return response.json()


def test_the_schema_is_valid_openapi_3(schema):
    validate(schema)
    assert schema["openapi"].startswith("3.")


def test_the_security_scheme_is_named_api_key(schema):
    assert schema["components"]["securitySchemes"]["api-key"]["scheme"] == "bearer"


@pytest.mark.parametrize(("path", "method"), list(OPERATIONS))
def test_every_operation_documents_scope_errors_and_envelope(schema, path, method):
    operation = schema["paths"][path][method]

    assert operation["security"] == [{"api-key": []}]
    assert operation["x-required-scope"] == OPERATIONS[path, method]
    assert OPERATIONS[path, method] in operation["description"]
    assert {"401", "403", "429"} <= set(operation["responses"])
    success = next(code for code in operation["responses"] if code.startswith("2"))
    error_schema = operation["responses"]["401"]["content"]["application/json"]["schema"]
    assert error_schema == {"$ref": "#/components/schemas/ErrorResponse"}
    if success == "204":  # no body to envelope
        assert "content" not in operation["responses"][success]
        return
    ok = operation["responses"][success]["content"]["application/json"]["schema"]["$ref"]
    assert "data" in schema["components"]["schemas"][ok.rsplit("/", 1)[1]]["properties"]


def test_list_operations_document_paging(schema):
    operation = schema["paths"]["/api/v1/accounts"]["get"]
    parameters = {p["name"]: p["schema"] for p in operation["parameters"]}

    assert parameters["page_size"]["maximum"] == 100
    assert parameters["page_size"]["default"] == 50
    page_schema = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    assert set(schema["components"]["schemas"][page_schema]["properties"]) == {"data", "pagination"}


def test_the_documented_paths_are_exactly_the_served_ones(schema):
    assert {(p, m) for p, item in schema["paths"].items() for m in item} == set(OPERATIONS) | SIGNED_URL_OPERATIONS


@pytest.mark.parametrize(("path", "method"), sorted(SIGNED_URL_OPERATIONS))
def test_signed_url_operations_need_no_key(schema, path, method):
    operation = schema["paths"][path][method]

    assert operation.get("security", []) in ([], [{}])
    assert "security" not in schema
    assert {p["name"] for p in operation["parameters"]} >= {"expires", "signature"}


def test_interactive_docs_are_served_without_a_cdn(client):
    html = client.get("/api/v1/docs").content.decode()

    assert "swagger-ui" in html
    assert "cdn.jsdelivr" not in html
    assert "unpkg.com" not in html

"""Every error leaves the API as `{"error": {"type", "code", "message", "request_id", "details"?}}`
and every response carries `X-Request-ID`, the same id as the error's request_id."""

from __future__ import annotations

import re
import time
import uuid

import pytest
from django.conf import settings
from django.urls import include, path
from rest_framework.response import Response
from rest_framework.views import APIView

from config.throttling import WINDOW_SECONDS, _hit
from teams import keys
from teams.models import ApiKey
from tests.factories import SocialAccountFactory

pytestmark = pytest.mark.django_db

_GENERATED_ID = re.compile(r"^req_[0-9a-f]{32}$")
_SECRET_TEXT = "boom: password=hunter2 at /srv/app/secret.py"


# --- test-only views, routed with @pytest.mark.urls(__name__) ------------------------------


class _CrashingView(APIView):
    authentication_classes = []
    permission_classes = []

    def get(self, request):
        raise RuntimeError(_SECRET_TEXT)


class _EchoView(APIView):
    """Reads the JSON body, as every write endpoint does."""

    required_scope = "accounts:read"

    def post(self, request):
        return Response({"data": request.data})


urlpatterns = [
    path("api/v1/test-crash", _CrashingView.as_view()),
    path("api/v1/test-echo", _EchoView.as_view()),
    path("", include("config.urls")),
]
handler404 = "config.handlers.handler404"
handler500 = "config.handlers.handler500"


# --- helpers -----------------------------------------------------------------------------


def _assert_error(response, status, type_, code):
    """The error object, with the request id of the X-Request-ID header."""
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"}
    error = body["error"]
    assert set(error) <= {"type", "code", "message", "request_id", "details"}
    assert (error["type"], error["code"]) == (type_, code)
    assert isinstance(error["message"], str)
    assert error["message"]
    assert error["request_id"] == response["X-Request-ID"]
    assert _GENERATED_ID.match(error["request_id"])
    return error


def _exhaust_default_bucket(plaintext):
    """Use up the key's default bucket in this minute's window and the next, so the next
    request is over the limit even if a minute boundary passes meanwhile."""
    api_key = ApiKey.objects.get(prefix=keys.parse_prefix(plaintext))
    window = int(time.time() // WINDOW_SECONDS)
    for w in (window + 1, window):  # the in-process counter drops older windows: newest first
        for _ in range(settings.RATE_LIMITS["default"]):
            _hit(f"{settings.RATE_LIMIT_KEY_PREFIX}:default:{api_key.pk}:{w}")


# --- one test per status -----------------------------------------------------------------


def test_bad_filter_is_400_naming_the_field(api, owner):
    response = api.as_(owner.key).get("/api/v1/accounts?platform=nope")

    error = _assert_error(response, 400, "invalid_request", "VALIDATION_ERROR")
    assert set(error["details"]) == {"platform"}
    assert "nope" in error["details"]["platform"][0]
    assert "platform" in error["message"]


def test_missing_key_is_401(api, db):
    response = api.get("/api/v1/accounts")

    _assert_error(response, 401, "authentication_error", "MISSING_API_KEY")
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_missing_scope_is_403(api, owner):
    response = api.as_(owner.key_with("teams:read")).get("/api/v1/accounts")

    error = _assert_error(response, 403, "authorization_error", "MISSING_SCOPE")
    assert "accounts:read" in error["message"]


@pytest.mark.parametrize("url", ["/api/v1/nope", "/api/v2/accounts", "/api/v1/accounts/1/2"])
def test_unknown_api_path_is_404(api, owner, url):
    response = api.as_(owner.key).get(url)

    _assert_error(response, 404, "not_found", "NOT_FOUND")


@pytest.mark.parametrize("account_id", ["not-a-uuid", "123", "zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz"])
def test_non_uuid_id_is_404_without_a_query(api, owner, django_assert_num_queries, account_id):
    client = api.as_(owner.key)

    with django_assert_num_queries(0):
        response = client.get(f"/api/v1/accounts/{account_id}")

    _assert_error(response, 404, "not_found", "NOT_FOUND")


def test_unknown_account_uuid_is_404_account_not_found(api, owner):
    SocialAccountFactory(team=owner.team)

    response = api.as_(owner.key).get(f"/api/v1/accounts/{uuid.uuid4()}")

    _assert_error(response, 404, "not_found", "ACCOUNT_NOT_FOUND")


def test_unknown_path_outside_the_api_keeps_an_html_page_with_a_request_id(client, db):
    response = client.get("/no-such-page")

    assert response.status_code == 404
    assert not response["Content-Type"].startswith("application/json")
    assert _GENERATED_ID.match(response["X-Request-ID"])


@pytest.mark.parametrize(("method", "url"), [("post", "/api/v1/accounts"), ("delete", "/api/v1/usage")])
def test_unsupported_method_is_405(api, owner, method, url):
    response = getattr(api.as_(owner.key), method)(url)

    _assert_error(response, 405, "invalid_request", "METHOD_NOT_ALLOWED")


def test_rate_limit_is_429_with_retry_after(api, owner):
    _exhaust_default_bucket(owner.key)

    response = api.as_(owner.key).get("/api/v1/usage")

    _assert_error(response, 429, "rate_limited", "RATE_LIMITED")
    assert 1 <= int(response["Retry-After"]) <= WINDOW_SECONDS


@pytest.mark.urls(__name__)
def test_unexpected_exception_is_500_that_reveals_nothing_but_the_request_id(api, db, caplog):
    response = api.get("/api/v1/test-crash")

    _assert_error(response, 500, "internal_error", "INTERNAL_ERROR")
    raw = response.content.decode()
    for leak in ("RuntimeError", "Traceback", "hunter2", "secret.py", "boom"):
        assert leak not in raw
    assert any(record.exc_info and record.exc_info[0] is RuntimeError for record in caplog.records)


@pytest.mark.urls(__name__)
def test_malformed_json_body_is_400_malformed_body(api, owner):
    response = api.as_(owner.key).post("/api/v1/test-echo", data='{"content": ', content_type="application/json")

    _assert_error(response, 400, "invalid_request", "MALFORMED_BODY")


@pytest.mark.urls(__name__)
def test_well_formed_json_body_reaches_the_view(api, owner):
    response = api.as_(owner.key).post("/api/v1/test-echo", data={"content": "hi"}, format="json")

    assert response.status_code == 200
    assert response.json() == {"data": {"content": "hi"}}


@pytest.mark.urls(__name__)
def test_non_json_body_is_415(api, owner):
    response = api.as_(owner.key).post("/api/v1/test-echo", data="content=hi", content_type="text/plain")

    _assert_error(response, 415, "invalid_request", "UNSUPPORTED_MEDIA_TYPE")


# --- X-Request-ID ------------------------------------------------------------------------


def test_successful_responses_carry_a_fresh_request_id(api, owner):
    first = api.as_(owner.key).get("/api/v1/usage")
    second = api.as_(owner.key).get("/api/v1/usage")

    assert first.status_code == second.status_code == 200
    assert _GENERATED_ID.match(first["X-Request-ID"])
    assert _GENERATED_ID.match(second["X-Request-ID"])
    assert first["X-Request-ID"] != second["X-Request-ID"]


@pytest.mark.parametrize("supplied", ["gateway-1234abcd", "a.b:c-d_e.12345678", "x" * 64])
def test_sane_client_request_id_is_echoed(api, db, supplied):
    response = api.get("/api/v1/accounts", HTTP_X_REQUEST_ID=supplied)

    assert response.status_code == 401
    assert response["X-Request-ID"] == supplied
    assert response.json()["error"]["request_id"] == supplied


@pytest.mark.parametrize(
    "supplied",
    [
        pytest.param("has spaces in it", id="spaces"),
        pytest.param("x" * 65, id="too long"),
        pytest.param("short", id="too short"),
        pytest.param("<script>alert(1)</script>", id="markup"),
        pytest.param("abc12345\r\nSet-Cookie: a=b", id="header injection"),
        pytest.param("ünïcødé-123456", id="non-ascii"),
    ],
)
def test_unsafe_client_request_id_is_replaced(api, db, supplied):
    response = api.get("/api/v1/accounts", HTTP_X_REQUEST_ID=supplied)

    assert response.status_code == 401
    assert response["X-Request-ID"] != supplied
    assert _GENERATED_ID.match(response["X-Request-ID"])
    assert response.json()["error"]["request_id"] == response["X-Request-ID"]


def test_a_database_outage_is_a_retryable_503_not_a_500():
    from django.db import OperationalError

    from config.handlers import exception_handler

    response = exception_handler(OperationalError("connection refused"), {})

    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert response.data["error"]["type"] == "service_unavailable"
    assert "connection refused" not in str(response.data)

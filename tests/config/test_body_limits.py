"""Request bodies have a bounded cost: over 1 MB is a 413, nesting past 32 levels a 400, and
a target's platform_settings is capped, all in the error object and never a 500."""

from __future__ import annotations

import io
import json

import pytest

from config.errors import PayloadTooLarge
from config.parsers import BoundedJSONParser
from demo.seed import sandbox_account

pytestmark = pytest.mark.django_db

PUBLISHES = "/api/v1/publishes"


def _post_raw(api, key, path, raw: str):
    return api.as_(key).generic("POST", path, raw, content_type="application/json")


def _error(response, status: int, error_type: str, code: str) -> dict:
    assert response.status_code == status, response.content[:300]
    error = response.json()["error"]
    assert (error["type"], error["code"]) == (error_type, code)
    assert error["request_id"] == response["X-Request-ID"]
    return error


@pytest.mark.parametrize("path", [PUBLISHES, "/api/v1/webhooks", "/api/v1/media/uploads"])
def test_a_body_over_one_megabyte_is_a_413(api, owner, path):
    raw = json.dumps({"content": "x" * (1024 * 1024)})

    error = _error(_post_raw(api, owner.key, path, raw), 413, "request_too_large", "REQUEST_TOO_LARGE")

    assert error["details"] == {"max_bytes": 1024 * 1024}


def test_a_body_over_djangos_own_upload_limit_is_the_same_413(api, owner):
    # DRF hands JSON parsers request.body, which Django refuses past DATA_UPLOAD_MAX_MEMORY_SIZE.
    raw = json.dumps({"content": "x" * 3_000_000, "targets": []})

    _error(_post_raw(api, owner.key, PUBLISHES, raw), 413, "request_too_large", "REQUEST_TOO_LARGE")


def test_a_body_of_just_under_one_megabyte_is_read(api, owner):
    account = sandbox_account(owner.team, "x")
    body = {"content": "hi", "publish_mode": "draft", "targets": [{"account_id": str(account.pk)}]}
    raw = json.dumps(body)
    raw = raw[:-1] + ", " + json.dumps("pad") + ": " + json.dumps("p" * (1024 * 1024 - len(raw) - 20)) + "}"
    assert len(raw.encode()) < 1024 * 1024

    response = _post_raw(api, owner.key, PUBLISHES, raw)

    assert response.status_code == 201, response.json()


def test_a_body_longer_than_its_declared_length_allows_is_still_cut_at_the_limit(settings):
    # A chunked body has no Content-Length: the parser reads one byte past the limit, no more.
    stream = io.BytesIO(b'{"a": "' + b"x" * (2 * 1024 * 1024) + b'"}')

    with pytest.raises(PayloadTooLarge):
        BoundedJSONParser().parse(stream, "application/json", {})

    assert stream.tell() == settings.API_MAX_BODY_BYTES + 1


@pytest.mark.parametrize("depth", [33, 5000, 100_000])
def test_a_deeply_nested_body_is_a_400(api, owner, depth):
    raw = '{"content": ' + "[" * depth + "]" * depth + "}"

    _error(_post_raw(api, owner.key, PUBLISHES, raw), 400, "invalid_request", "BODY_TOO_DEEP")


def test_a_body_nested_32_levels_is_parsed(api, owner):
    raw = '{"content": ' + "[" * 31 + "]" * 31 + "}"

    error = _error(_post_raw(api, owner.key, PUBLISHES, raw), 400, "invalid_request", "VALIDATION_ERROR")

    assert "content" in error["details"]


@pytest.mark.parametrize("raw", ["{", '{"content": NaN}', '{"a": 1e99999}', b"\xff\xfe".decode("latin-1")])
def test_malformed_json_is_a_400(api, owner, raw):
    response = _post_raw(api, owner.key, PUBLISHES, raw)

    assert response.status_code == 400, response.content[:300]
    assert response.json()["error"]["type"] == "invalid_request"


# --- platform_settings caps ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "settings_value",
    [
        {f"key{i}": i for i in range(51)},
        {"note": "n" * (17 * 1024)},
        {"a": {"b": {"c": {"d": {"e": 1}}}}},
    ],
    ids=["51 keys", "17 KB", "5 levels"],
)
def test_oversized_platform_settings_are_a_400_naming_the_field(api, owner, settings_value):
    account = sandbox_account(owner.team, "pinterest")
    body = {"content": "hi", "targets": [{"account_id": str(account.pk), "platform_settings": settings_value}]}

    response = api.as_(owner.key).post(PUBLISHES, body, format="json")

    error = _error(response, 400, "invalid_request", "VALIDATION_ERROR")
    assert list(error["details"]["targets"]["0"]) == ["platform_settings"]


@pytest.mark.parametrize("settings_value", [{"note\u0000": 1}, {"note": ["a\u0000b"]}], ids=["key", "value"])
def test_a_nul_character_in_platform_settings_is_a_400(api, owner, settings_value):
    # PostgreSQL's jsonb cannot store it: found by the schemathesis run as a 500.
    account = sandbox_account(owner.team, "linkedin")
    body = {
        "content": "hi",
        "publish_mode": "draft",
        "targets": [{"account_id": str(account.pk), "platform_settings": settings_value}],
    }

    response = api.as_(owner.key).post(PUBLISHES, body, format="json")

    error = _error(response, 400, "invalid_request", "VALIDATION_ERROR")
    assert list(error["details"]["targets"]["0"]) == ["platform_settings"]


def test_the_per_account_form_fits_within_the_caps(api, owner):
    account = sandbox_account(owner.team, "x")
    per_account = {str(account.pk): {"reply_to": "1"}}
    body = {
        "content": "hi",
        "publish_mode": "draft",
        "targets": [{"account_id": str(account.pk), "platform_settings": {"per_account": per_account}}],
    }

    response = api.as_(owner.key).post(PUBLISHES, body, format="json")

    assert response.status_code == 201, response.json()

"""The Content-Security-Policy header: strict on the dashboard, inline styles allowed only on
the admin and the API's Swagger UI, the media storage's origin allowed for images, video and
uploads; and no template holds what the policy would refuse (tests/e2e checks it in Chromium)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings

pytestmark = pytest.mark.django_db

TEMPLATES = Path(settings.BASE_DIR) / "templates"


def _policy(response) -> dict[str, str]:
    pairs = (d.strip().split(" ", 1) for d in response["Content-Security-Policy"].split(";"))
    return {pair[0]: pair[1] for pair in pairs}


def test_dashboard_pages_run_only_the_services_own_scripts_and_styles(client, owner):
    client.force_login(owner.user)

    policy = _policy(client.get("/dashboard/publishes/"))

    assert policy["script-src"] == "'self'"
    assert policy["style-src"] == "'self'"
    assert policy["default-src"] == "'self'"
    assert policy["frame-ancestors"] == "'none'"
    assert policy["base-uri"] == "'self'"
    assert policy["form-action"] == "'self'"
    assert policy["object-src"] == "'none'"


def test_the_login_page_has_the_policy_too(client):
    assert _policy(client.get("/login/"))["script-src"] == "'self'"


@pytest.mark.parametrize("path", ["/admin/login/", "/api/v1/docs"])
def test_the_admin_and_the_api_docs_allow_inline_styles_but_no_inline_script(client, path):
    policy = _policy(client.get(path))

    assert policy["style-src"] == "'self' 'unsafe-inline'"
    assert policy["script-src"] == "'self'"


def test_the_api_docs_load_their_start_up_script_as_a_file(client):
    page = client.get("/api/v1/docs").content.decode()

    assert re.findall(r"<script>", page) == []
    assert client.get("/api/v1/docs?script=").status_code == 200


def test_media_urls_origin_is_allowed_for_images_video_and_uploads(client, owner, settings):
    settings.PUBLIC_BASE_URL = "https://social.example.com"
    settings.CSP_MEDIA_ORIGINS = ["https://cdn.example.net"]
    client.force_login(owner.user)

    policy = _policy(client.get("/dashboard/compose/"))

    for directive in ("img-src", "media-src", "connect-src"):
        assert "https://social.example.com" in policy[directive].split()
        assert "https://cdn.example.net" in policy[directive].split()
    assert "blob:" in policy["img-src"].split()  # previews of files being uploaded


def test_api_answers_carry_no_page_policy(api, owner):
    assert "Content-Security-Policy" not in api.as_(owner.key).get("/api/v1/accounts")


@pytest.mark.parametrize(
    ("what", "pattern"),
    [
        ("a style attribute", r"\sstyle="),
        ("an event handler attribute", r"\son[a-z]+="),
        ("an inline script", r"<script(?![^>]*\ssrc=)[^>]*>"),
        ("a style element", r"<style"),
        ("a javascript: URL", r"javascript:"),
    ],
)
def test_no_template_holds_what_the_policy_refuses(what, pattern):
    found = [
        f"{path.relative_to(TEMPLATES)}: {match.group(0)}"
        for path in TEMPLATES.rglob("*.html")
        for match in re.finditer(pattern, path.read_text())
    ]

    assert found == [], f"{what} in templates"


def test_only_the_accounts_page_posts_forms_on_to_the_platforms_authorize_pages(client, owner, settings):
    settings.SANDBOX_URL = "http://127.0.0.1:8100"
    client.force_login(owner.user)

    accounts_page = _policy(client.get("/dashboard/"))["form-action"].split()
    compose_page = _policy(client.get("/dashboard/compose/"))["form-action"].split()

    assert accounts_page == ["'self'", "https:", "http://127.0.0.1:8100"]  # the sandbox, in development
    assert compose_page == ["'self'"]

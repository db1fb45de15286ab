"""The Content-Security-Policy as Chromium enforces it: every main dashboard page, the login
page, the API's Swagger UI and the admin load and run their scripts with nothing refused, and an
inline script slipped into a page does not run."""

from __future__ import annotations

import pytest

from teams import services
from tests.e2e.pages import DASHBOARD_PAGES
from tests.webhooks.helpers import subscribe

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]

PAGES = [
    *DASHBOARD_PAGES,
    "/dashboard/settings/webhooks/{webhook}/",
    "/admin/",
    "/admin/teams/apikey/",
]

# Chromium reports each refusal to the page as an event and to the console as an error.
WATCH = """document.addEventListener('securitypolicyviolation', e =>
    (window.__refused = window.__refused || []).push(e.violatedDirective + ' ' + e.blockedURI));"""


@pytest.fixture
def content(owner, page_ids):
    webhook = subscribe(owner.team, "https://93.184.215.14/hooks/social")  # an address: no DNS needed
    owner.user.is_staff = owner.user.is_superuser = True
    owner.user.save()
    return {**page_ids, "webhook": webhook.pk}


def _watched(page):
    refused = []
    page.on("console", lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None)
    page.add_init_script(WATCH)
    return refused


@pytest.mark.parametrize("path", PAGES)
def test_the_page_loads_with_nothing_refused(signed_in, live_server, content, path):
    page = signed_in
    refused = _watched(page)

    response = page.goto(f"{live_server.url}{path.format(**content)}")
    page.wait_for_load_state("networkidle")

    assert response.status == 200
    assert "script-src 'self'" in response.headers["content-security-policy"]
    assert page.evaluate("window.__refused || []") == []
    assert refused == []


def test_the_login_page_and_the_api_docs_load_with_nothing_refused(page, live_server):
    refused = _watched(page)

    page.goto(f"{live_server.url}/login/")
    page.goto(f"{live_server.url}/api/v1/docs")
    page.wait_for_selector(".swagger-ui .info .title")  # drawn by the docs' own script

    assert page.evaluate("window.__refused || []") == []
    assert refused == []


def test_the_team_switcher_switches_without_an_inline_handler(signed_in, live_server, owner):
    second = services.team_create(name="Second team", owner=owner.user)
    page = signed_in
    page.goto(f"{live_server.url}/dashboard/publishes/")

    with page.expect_navigation():
        page.select_option("#team-switch", str(second.pk))

    assert f"team={second.pk}" in page.url


def test_an_inline_script_in_a_page_does_not_run(signed_in, live_server):
    page = signed_in
    page.goto(f"{live_server.url}/dashboard/publishes/")

    page.evaluate("""() => {
        const s = document.createElement('script');
        s.textContent = 'window.__ran = true';
        document.body.appendChild(s);
    }""")

    assert page.evaluate("window.__ran === true") is False

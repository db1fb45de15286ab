"""axe-core (the engine behind most accessibility audits) on every main dashboard page at laptop
and at phone width, on the login page and on the 404 page: no violation it rates serious or
critical. The script comes from the axe-playwright-python package and runs through the
browser's debugging protocol, so the pages' Content-Security-Policy does not have to allow it.
Compose is checked again with its "Choose from library" dialog open, and a posting schedule
with a refused field and its free slots on the calendar; so is a connect link's hosted page."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from playwright.sync_api import expect

from accounts import connect_links
from accounts.services import posting_schedule_set
from demo.seed import sandbox_account
from tests.e2e.conftest import WIDTHS
from tests.e2e.pages import DASHBOARD_PAGES
from tests.media import files

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]

BLOCKING = ("serious", "critical")


@pytest.fixture(scope="module")
def axe_script() -> str:
    axe = pytest.importorskip("axe_playwright_python")
    return (Path(axe.__file__).parent / "axe.min.js").read_text()


def blocking_violations(page, axe_script: str) -> list[str]:
    """The page's serious and critical violations at each width, one readable line per element."""
    found = []
    for width, (w, h) in WIDTHS.items():
        page.set_viewport_size({"width": w, "height": h})
        if not page.evaluate("typeof axe !== 'undefined'"):
            page.evaluate(axe_script)
        results = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
        for violation in results["violations"]:
            if violation["impact"] not in BLOCKING:
                continue
            for node in violation["nodes"]:
                where = " ".join(node["target"][-1:]) if node["target"] else "?"
                summary = node.get("failureSummary", "").replace("\n", " ")
                found.append(f"[{width}] {violation['id']} ({violation['impact']}) at {where}: {summary}")
    return found


@pytest.mark.parametrize("path", DASHBOARD_PAGES)
def test_no_serious_violation_on_a_dashboard_page(signed_in, live_server, page_ids, axe_script, path):
    page = signed_in
    page.goto(f"{live_server.url}{path.format(**page_ids)}")

    assert blocking_violations(page, axe_script) == []


def test_no_serious_violation_on_compose_with_the_library_dialog_open(signed_in, live_server, owner, axe_script):
    for name in ("in-the-post.png", "photo.png"):
        files.stored_upload(owner.team, files.image(), "image/png", name)
    page = signed_in
    page.goto(f"{live_server.url}/dashboard/compose/?team={owner.team.pk}")
    picker = page.get_by_role("button", name="Choose from library")
    dialog = page.get_by_role("dialog", name="Choose from the media library")
    picker.click()
    dialog.get_by_role("button", name="in-the-post.png").click()  # then shown as already in the post
    picker.click()
    expect(dialog.get_by_role("status")).to_have_text("2 files in the library.")

    assert blocking_violations(page, axe_script) == []


def test_no_serious_violation_on_a_posting_schedule_with_a_refusal_and_free_slots(
    signed_in, live_server, owner, axe_script
):
    account = sandbox_account(owner.team, "x")
    posting_schedule_set(account=account, time_zone="Europe/Paris", slots=[{"day": "tue", "time": "09:00"}])
    page = signed_in
    page.goto(f"{live_server.url}/dashboard/accounts/{account.pk}/schedule/?team={owner.team.pk}")
    page.get_by_label("Thursday").fill("soon")
    page.get_by_role("button", name="Save schedule").click()
    expect(page.locator("#slots_thu-problem")).to_be_visible()

    assert blocking_violations(page, axe_script) == []
    ahead = dt.datetime.now(dt.UTC).date() + dt.timedelta(
        days=7
    )  # the month holding a whole week ahead, with its Tuesday
    page.goto(f"{live_server.url}/dashboard/calendar/?team={owner.team.pk}&view=month&date={ahead}")
    expect(page.locator("li.slot")).not_to_have_count(0)
    assert blocking_violations(page, axe_script) == []


def test_no_serious_violation_on_the_login_page(page, live_server, axe_script):
    page.goto(f"{live_server.url}/login/")

    assert blocking_violations(page, axe_script) == []


def test_no_serious_violation_on_the_404_page(signed_in, live_server, axe_script):
    page = signed_in
    page.goto(f"{live_server.url}/dashboard/no-such-page/")

    assert blocking_violations(page, axe_script) == []


def test_no_serious_violation_on_a_connect_link_page(page, live_server, owner, axe_script):
    link = connect_links.link_create(
        team=owner.team,
        redirect_url="http://localhost:9/done",
        platforms=["x", "bluesky"],
        branding={"name": "Acme Studio", "accent_color": "#c2185b"},
    )
    page.goto(connect_links.page_url(link))

    assert blocking_violations(page, axe_script) == []

"""Browser fixtures: Debian's Chromium driven by Playwright against the live server, and a
page signed in as the owner persona."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest
from django.db import connections

# Playwright's sync API runs an event loop in the test thread; the tests' own ORM calls are
# still synchronous, which Django would otherwise refuse (pytest-django's advice for Playwright).
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# Chromium's own network features reach for hosts this service must not depend on.
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture
def page(live_server, settings) -> Iterator[object]:
    if not os.path.exists(CHROMIUM):
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    settings.PUBLIC_BASE_URL = live_server.url
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield browser.new_page(viewport={"width": 1280, "height": 800})
        finally:
            browser.close()
            # The test's own queries run while Playwright's sync API is active, on a connection
            # nothing else closes: left open, it kept PostgreSQL from dropping the test
            # database at the end of the run.
            connections.close_all()


@pytest.fixture
def signed_in(page, live_server, owner):
    return sign_in(page, live_server, owner)


# SCREENSHOTS_DIR moves them (CI's bare run, beside the PostgreSQL one, keeps its own).
SCREENSHOTS = os.environ.get("SCREENSHOTS_DIR") or os.path.join(
    os.path.dirname(__file__), "..", "..", "var", "screenshots"
)
WIDTHS = {"laptop": (1280, 800), "phone": (390, 844)}


@pytest.fixture
def screenshot():
    """`screenshot(page, "compose")` saves the page as it is at laptop and at phone width under
    var/screenshots/ (or SCREENSHOTS_DIR; CI keeps them as artifacts), then restores the laptop
    width."""

    def take(page, name: str) -> None:
        os.makedirs(SCREENSHOTS, exist_ok=True)
        for width, (w, h) in WIDTHS.items():
            page.set_viewport_size({"width": w, "height": h})
            page.screenshot(path=os.path.join(SCREENSHOTS, f"{name}-{width}.png"), full_page=True)
        page.set_viewport_size({"width": WIDTHS["laptop"][0], "height": WIDTHS["laptop"][1]})

    return take


def open_page(page, name: str) -> None:
    """Follow the header's link to the page `name` and wait until that page has loaded. The page
    may be the one shown (Compose after signing in): without the wait, what the test does next
    could land on the page being left, and be undone when the new one replaces it."""
    with page.expect_navigation():
        page.click(f"header >> text={name}")


def sign_in(page, live_server, persona) -> object:
    """Log `persona` in through the login form (their password becomes a known one)."""
    persona.user.set_password("a long demo password")
    persona.user.save()
    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", persona.user.username)
    page.fill("#id_password", "a long demo password")
    page.click("button[type=submit]")
    page.wait_for_selector("h1")
    return page


@pytest.fixture
def draft(owner):
    """A draft of the owner's team to one sandbox X account: something for every page to show."""
    from demo.seed import sandbox_account
    from publishing import inputs, lifecycle
    from publishing.models import PublishMode

    x = sandbox_account(owner.team, "x")
    return lifecycle.publish_create(
        team=owner.team,
        caller=inputs.Caller(user=owner.user, can_approve=True),
        content="A draft to list",
        media_ids=[],
        targets=[inputs.TargetInput(account_id=str(x.pk))],
        publish_mode=PublishMode.DRAFT,
        scheduled_at=None,
    )


@pytest.fixture
def page_ids(draft) -> dict[str, object]:
    """What tests/e2e/pages.py's `{publish}` and `{account}` stand for."""
    from publishing.models import Target

    return {"publish": draft.pk, "account": Target.objects.get(publish_id=draft.pk).account_id}


# An image's width once it has loaded (0 if it fails to): a list is drawn before its images arrive.
LOADED_WIDTH = """img => img.complete ? img.naturalWidth : new Promise(done => {
    img.addEventListener("load", () => done(img.naturalWidth));
    img.addEventListener("error", () => done(0));
})"""

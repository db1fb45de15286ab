"""The dashboard in a real browser (Playwright driving Debian's Chromium): log in, connect a
sandbox X account through its authorize page, and a Bluesky account with an app password."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest

from accounts.models import SocialAccount

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]

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
            yield browser.new_page()
        finally:
            browser.close()


@pytest.fixture
def signed_in(page, live_server, owner):
    owner.user.set_password("a long demo password")
    owner.user.save()
    page.goto(f"{live_server.url}/")
    page.fill("#id_username", owner.user.username)
    page.fill("#id_password", "a long demo password")
    page.click("button[type=submit]")
    page.wait_for_selector("h1")
    return page


def test_connecting_x_in_a_browser(signed_in, sandbox, owner):
    page = signed_in

    page.click("form[action$='/connect/x/'] button")
    page.wait_for_selector("#approve")  # the sandbox's authorize page for X
    page.click("#approve")
    page.wait_for_selector(".messages")

    assert "Connected" in page.inner_text(".messages")
    account = SocialAccount.objects.get(team=owner.team, platform="x")
    assert account.handle in page.inner_text("table")


def test_connecting_bluesky_with_an_app_password_in_a_browser(signed_in, sandbox, owner):
    page = signed_in

    page.click("form[action$='/connect/bluesky/'] button")
    page.fill("#id_identifier", "acme.bsky.social")
    page.fill("#id_app_password", "abcd-efgh-ijkl-mnop")
    page.click("button[type=submit]")
    page.wait_for_selector(".messages")

    assert "Connected" in page.inner_text(".messages")
    assert SocialAccount.objects.filter(team=owner.team, platform="bluesky").exists()

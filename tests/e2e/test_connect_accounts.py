"""The dashboard in a real browser (Playwright driving Debian's Chromium): log in, connect a
sandbox X account through its authorize page, and a Bluesky account with an app password."""

from __future__ import annotations

import pytest

from accounts.models import SocialAccount

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]


def test_connecting_x_in_a_browser(sandbox, signed_in, live_server, owner, screenshot):
    # The sandbox first: the page's Content-Security-Policy names its address as a form target.
    page = signed_in
    page.goto(f"{live_server.url}/dashboard/")  # Accounts (logging in leads home)

    page.click("form[action$='/connect/x/'] button")
    page.wait_for_selector("#approve")  # the sandbox's authorize page for X
    page.click("#approve")
    page.wait_for_selector(".messages")

    assert "Connected" in page.inner_text(".messages")
    account = SocialAccount.objects.get(team=owner.team, platform="x")
    assert account.handle in page.inner_text("table")
    screenshot(page, "accounts")


def test_connecting_bluesky_with_an_app_password_in_a_browser(signed_in, sandbox, live_server, owner):
    page = signed_in
    page.goto(f"{live_server.url}/dashboard/")  # Accounts (logging in leads home)

    page.click("form[action$='/connect/bluesky/'] button")
    page.fill("#id_identifier", "acme.bsky.social")
    page.fill("#id_app_password", "abcd-efgh-ijkl-mnop")
    page.click("button[type=submit]")
    page.wait_for_selector(".messages")

    assert "Connected" in page.inner_text(".messages")
    assert SocialAccount.objects.filter(team=owner.team, platform="bluesky").exists()

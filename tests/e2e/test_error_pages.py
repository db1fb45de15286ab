"""The error pages in a browser: a wrong address is a page of the dashboard, with its navigation
and a way back, readable at phone width."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]


def test_a_wrong_address_leads_back_to_the_dashboard(signed_in, live_server, screenshot):
    page = signed_in

    response = page.goto(f"{live_server.url}/dashboard/no-such-page/")

    assert response.status == 404
    expect(page.locator("h1")).to_have_text("Page not found")
    expect(page.get_by_role("navigation", name="Main").get_by_role("link", name="Compose")).to_be_visible()
    screenshot(page, "not-found")
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.get_by_role("link", name="Back to the dashboard").click()
    expect(page.locator("h1")).not_to_have_text("Page not found")
    assert page.url.endswith("/dashboard/home/")  # the home page, where `/` leads

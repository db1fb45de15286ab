"""An account's posting schedule in a real browser (Playwright driving Debian's Chromium): an
owner opens it from the accounts page, is told which day holds a word that is not a time, sets
the slots in New York time and reads the next free slots, then finds them on the calendar."""

from __future__ import annotations

import datetime as dt
import zoneinfo

import pytest
from playwright.sync_api import expect

from accounts.selectors import posting_schedule_of
from demo.seed import sandbox_account
from tests.e2e.conftest import open_page

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]


def _fits_a_phone(page) -> None:
    """At 390 px the page itself never scrolls sideways."""
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.set_viewport_size({"width": 1280, "height": 800})


def test_set_a_posting_schedule_and_see_the_next_free_slots(signed_in, owner, screenshot):
    account = sandbox_account(owner.team, "x")
    page = signed_in

    open_page(page, "Accounts")
    page.get_by_role("link", name=f"Posting schedule of X @{account.handle}").click()
    expect(page.locator("#no-free-slots")).to_be_visible()

    page.get_by_label("Time zone").fill("America/New_York")
    page.get_by_label("Monday").fill("9:00 17:30")
    page.get_by_label("Wednesday").fill("12:00 noon")
    page.get_by_role("button", name="Save schedule").click()

    wednesday = page.get_by_label("Wednesday")
    expect(page.locator("#slots_wed-problem")).to_contain_text("Wednesday: “noon” is not a time.")
    expect(wednesday).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_label("Monday")).to_have_value("9:00 17:30")  # what was typed stays
    assert posting_schedule_of(account=account).slots == []

    wednesday.fill("12:00")
    page.get_by_role("button", name="Save schedule").click()

    expect(page.locator(".messages")).to_contain_text("Saved the posting schedule of")
    expect(page.get_by_label("Monday")).to_have_value("09:00 17:30")
    slots = page.locator("#free-slots li")
    expect(slots).to_have_count(10)
    first = dt.datetime.fromisoformat(slots.first.locator("time").get_attribute("datetime"))
    local = first.astimezone(zoneinfo.ZoneInfo("America/New_York"))
    expect(slots.first).to_have_text(f"{local:%a} {local.day} {local:%b %Y, %H:%M} America/New_York")
    assert local.strftime("%a %H:%M") in {"Mon 09:00", "Mon 17:30", "Wed 12:00"}
    screenshot(page, "account-schedule")
    _fits_a_phone(page)

    open_page(page, "Calendar")
    page.get_by_role("link", name="Next week →").click()  # a whole week ahead holds every slot
    expect(page.locator("li.slot")).to_have_count(3)
    screenshot(page, "calendar-free-slots")
    expect(page.locator("li.slot").first).to_contain_text(f"Free slot · {account.display_name or account.handle}")

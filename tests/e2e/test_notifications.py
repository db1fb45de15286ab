"""The notifications settings page in a real browser: a member turns a kind of mail off from
the settings navigation, and the choice holds on the next visit."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from notifications.models import Preference
from tests.e2e.conftest import open_page, sign_in

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]


def test_a_member_turns_a_kind_of_mail_off(page, live_server, member, screenshot):
    sign_in(page, live_server, member)
    open_page(page, "Settings")
    page.click(".subnav >> text=Notifications")
    failed = page.get_by_label("My post failed, in whole or in part")
    expect(failed).to_be_checked()
    screenshot(page, "notifications")

    failed.uncheck()
    page.get_by_role("button", name="Save").click()

    expect(page.locator(".messages")).to_contain_text("Your notification choices are saved.")
    expect(page.get_by_label("My post failed, in whole or in part")).not_to_be_checked()
    expect(page.get_by_label("My post was approved or rejected")).to_be_checked()
    assert Preference.objects.get(user=member.user).delivery_failed is False

"""The team's time zone in a real browser (Playwright driving Debian's Chromium): an owner sets
it on the settings page, then sees a scheduled post at its local time in the calendar and on its
page, schedules another at a local time from compose, and the API still answers in UTC."""

from __future__ import annotations

import datetime as dt
import zoneinfo

import pytest
import requests
from django.utils import timezone
from playwright.sync_api import expect

from demo.seed import sandbox_account
from publishing import inputs, lifecycle
from publishing.models import Publish, PublishMode
from tests.e2e.conftest import open_page

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]

TOKYO = zoneinfo.ZoneInfo("Asia/Tokyo")


def _schedule(owner, content: str, when: dt.datetime) -> Publish:
    return lifecycle.publish_create(
        team=owner.team,
        caller=inputs.Caller(user=owner.user, can_approve=True),
        content=content,
        media_ids=[],
        targets=[inputs.TargetInput(account_id=str(sandbox_account(owner.team, "x").pk))],
        publish_mode=PublishMode.SCHEDULED,
        scheduled_at=when,
    )


def test_set_the_zone_and_see_times_in_it(signed_in, owner, live_server, sandbox, screenshot):
    page = signed_in
    # 23:30 UTC two days ahead: 08:30 the day after in Tokyo.
    utc_day = timezone.now().date() + dt.timedelta(days=2)
    publish = _schedule(owner, "Late in London", dt.datetime.combine(utc_day, dt.time(23, 30), tzinfo=dt.UTC))
    tokyo_day = utc_day + dt.timedelta(days=1)

    open_page(page, "Settings")
    expect(page.get_by_label("Time zone")).to_have_value("UTC")
    page.get_by_label("Time zone").fill("Asia/Tokio")
    page.click("button:has-text('Save time zone')")
    expect(page.locator("#time-zone-problem")).to_contain_text("“Asia/Tokio” is not a time zone name.")
    page.get_by_label("Time zone").fill("Asia/Tokyo")
    page.click("button:has-text('Save time zone')")
    expect(page.locator(".messages")).to_contain_text("shows and reads times in Asia/Tokyo")
    screenshot(page, "settings-time-zone")

    page.goto(f"{live_server.url}/dashboard/calendar/?date={tokyo_day}")
    cell = page.locator(f'.day[data-day="{tokyo_day}"]')
    expect(cell.locator(f"#publish-{publish.pk}")).to_contain_text("08:30 Asia/Tokyo")
    expect(page.locator(".legend")).to_contain_text("Times are in Asia/Tokyo")

    page.click(f"#publish-{publish.pk} a")
    expect(page.locator("main")).to_contain_text(f"{tokyo_day} 08:30 Asia/Tokyo")

    # From compose, 10:15 in Tokyo three days ahead is 01:15 UTC that day.
    later = timezone.now().astimezone(TOKYO).date() + dt.timedelta(days=3)
    open_page(page, "Compose")
    expect(page.get_by_label("Time to publish (Asia/Tokyo)")).to_be_visible()
    page.fill("#content", "Breakfast in Tokyo")
    page.check(f'input.pick[value="{sandbox_account(owner.team, "x").pk}"]')
    page.fill("#scheduled_at", f"{later}T10:15")
    page.click("button:has-text('Schedule')")
    expect(page.locator(".messages")).to_contain_text(f"scheduled for {later} 10:15 Asia/Tokyo")
    created = Publish.objects.get(content="Breakfast in Tokyo")
    headers = {"Authorization": f"Bearer {owner.key}"}
    answer = requests.get(f"{live_server.url}/api/v1/publishes/{created.pk}", headers=headers, timeout=10)
    assert answer.json()["data"]["scheduled_at"] == f"{later}T01:15:00Z"

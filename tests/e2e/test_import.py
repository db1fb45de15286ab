"""Importing in a real browser: an owner uploads a CSV whose text has a quoted comma, checks
it (every row's verdict, nothing created), creates the rows and finds them in the publishes
list; a file with a refused row shows the row's problem in words and offers no create."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from demo.seed import sandbox_account
from publishing.models import Publish, PublishStatus
from tests.e2e.conftest import open_page

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]

HEADER = "content,account_ids,publish_mode,scheduled_at,media_ids\n"


def _later(days):
    return (timezone.now() + dt.timedelta(days=days)).replace(second=0, microsecond=0).isoformat()


def test_an_owner_checks_a_csv_then_creates_its_rows(signed_in, owner, tmp_path, screenshot):
    page = signed_in
    x, bluesky = sandbox_account(owner.team, "x"), sandbox_account(owner.team, "bluesky")
    path = tmp_path / "posts.csv"
    path.write_text(
        HEADER + f'"Hello, world",{x.pk} {bluesky.pk},scheduled,{_later(2)},\nA draft,{x.pk},draft,,\n',
        encoding="utf-8",
    )

    open_page(page, "Import")
    page.set_input_files("#import-file", str(path))
    page.click("button:has-text('Check')")

    rows = page.locator("table.verdicts tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(0).locator("td").nth(1)).to_have_text("Hello, world")
    expect(rows.nth(0).locator("td").nth(2)).to_contain_text(str(bluesky))
    expect(rows.nth(0).locator("td").nth(4)).to_have_text("OK")
    expect(rows.nth(1).locator("td").nth(3)).to_have_text("Draft")
    assert Publish.objects.count() == 0
    screenshot(page, "import")

    page.click("button:has-text('Create 2 publishes')")
    page.wait_for_url(re.compile(r"/dashboard/publishes/\?team="))

    expect(page.locator(".messages")).to_have_text("Created 2 publishes from the file.")
    expect(page.locator("table.publishes")).to_contain_text("Hello, world")
    expect(page.locator("table.publishes")).to_contain_text("A draft")
    assert sorted(Publish.objects.values_list("content", "status")) == [
        ("A draft", PublishStatus.DRAFT),
        ("Hello, world", PublishStatus.SCHEDULED),
    ]


def test_a_refused_row_shows_its_problem_and_nothing_can_be_created(signed_in, owner, tmp_path):
    page = signed_in
    x = sandbox_account(owner.team, "x")
    path = tmp_path / "posts.csv"
    path.write_text(HEADER + f"Fine,{x.pk},scheduled,{_later(2)},\nNo account,,draft,,\n", encoding="utf-8")

    open_page(page, "Import")
    page.set_input_files("#import-file", str(path))
    page.click("button:has-text('Check')")

    rows = page.locator("table.verdicts tbody tr")
    expect(rows.nth(1).locator("td").nth(4)).to_have_text("Choose at least one account to post to.")
    expect(page.locator("button:has-text('Create')")).to_have_count(0)
    expect(page.get_by_role("alert")).to_contain_text("Some rows cannot be created")

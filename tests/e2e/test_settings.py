"""The settings pages in a real browser (Playwright driving Debian's Chromium): an owner
creates an API key, copies the plaintext shown once and calls the API with it, then revokes
it; reads the team's usage as bars; and deletes one of their two teams by typing its name,
finding its content in the other."""

from __future__ import annotations

import pytest
import requests
from playwright.sync_api import expect

from accounts.models import SocialAccount
from demo.seed import sandbox_account
from publishing import inputs, lifecycle
from publishing.models import Publish, PublishMode
from teams import services
from teams.models import ApiKey, Team
from tests.e2e.conftest import open_page, sign_in
from tests.factories import PlanFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]


def _call(live_server, plaintext: str) -> int:
    headers = {"Authorization": f"Bearer {plaintext}"}
    return requests.get(f"{live_server.url}/api/v1/accounts", headers=headers, timeout=10).status_code


def _fits_a_phone(page) -> None:
    """At 390 px the page itself never scrolls sideways (tables stack, grids collapse)."""
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.set_viewport_size({"width": 1280, "height": 800})


def test_create_an_api_key_and_call_the_api_with_it(signed_in, live_server, screenshot):
    page = signed_in
    open_page(page, "Settings")
    page.click(".subnav >> text=API keys")
    page.wait_for_selector("#create-heading")

    page.fill("#key-name", "Deploy script")
    page.check("label:has-text('accounts:read') input")
    page.check("label:has-text('posts:read') input")
    page.click("button:has-text('Create key')")
    plaintext = page.locator("#new-key-plaintext").inner_text().strip()

    assert plaintext.startswith("sk_")
    assert _call(live_server, plaintext) == 200
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.click("button[data-copy]")
    expect(page.locator("[data-copy-status]")).to_have_text("Copied.")
    assert page.evaluate("navigator.clipboard.readText()") == plaintext
    key = ApiKey.objects.get(name="Deploy script")
    row = page.locator(f"#key-{key.pk}")
    expect(row).to_contain_text("posts:read, accounts:read")  # in the order of SCOPES
    screenshot(page, "settings-keys")
    _fits_a_phone(page)

    page.reload()
    expect(page.locator("#new-key-plaintext")).to_have_count(0)  # shown once only
    row.locator("summary").click()
    row.locator("button:has-text('Revoke Deploy script')").click()
    expect(page.locator(".messages")).to_contain_text("Revoked the key “Deploy script”")
    expect(row).to_contain_text("revoked")
    assert _call(live_server, plaintext) == 401


def test_usage_shows_the_plan_limits_as_bars(signed_in, owner, screenshot):
    owner.team.plan = PlanFactory(name="Starter", posts_per_month=20, social_accounts=5, media_storage_gb=2)
    owner.team.save()
    sandbox_account(owner.team, "x")
    services.quota_consume(team=owner.team, posts=15)
    page = signed_in

    open_page(page, "Settings")
    page.click(".subnav >> text=Usage")

    bar = page.get_by_role("progressbar", name="Posts this month")
    expect(bar).to_have_attribute("aria-valuenow", "15")
    expect(bar).to_have_attribute("aria-valuemax", "20")
    expect(page.locator("#usage-accounts")).to_contain_text("1 of 5")
    expect(page.locator("#can-publish")).to_contain_text("Can publish")
    screenshot(page, "settings-usage")
    _fits_a_phone(page)


@pytest.fixture
def two_teams(owner):
    """The owner's default team is "Acme Two"; "Acme" has an account and a draft to move."""
    destination = services.team_create(name="Acme Two", owner=owner.user)
    services.team_set_default(user=owner.user, team=destination)
    account = sandbox_account(owner.team, "x")
    lifecycle.publish_create(
        team=owner.team,
        caller=inputs.Caller(user=owner.user, can_approve=True),
        content="A draft that moves with its team",
        media_ids=[],
        targets=[inputs.TargetInput(account_id=str(account.pk))],
        publish_mode=PublishMode.DRAFT,
        scheduled_at=None,
    )
    return owner.team, destination, account


def test_delete_a_team(page, live_server, owner, admin, member, two_teams, screenshot):
    doomed, destination, account = two_teams
    sign_in(page, live_server, owner)
    page.goto(f"{live_server.url}/dashboard/settings/?team={destination.pk}")
    page.select_option("#team-switch", label="Acme")  # the header's team switcher
    page.wait_for_selector("#delete-heading")
    expect(page.locator("#destination")).to_have_value(str(destination.pk))  # the default, preselected
    expect(page.locator("table.members tbody tr")).to_have_count(3)
    screenshot(page, "settings-team")
    _fits_a_phone(page)

    page.fill("#confirmation-name", "acme")
    page.click("button:has-text('Delete Acme')")
    expect(page.locator("#confirmation-problem")).to_have_text(
        "Type the team's name exactly as it is written above, to confirm that this team is the one to delete."
    )
    expect(page.locator("#confirmation-name")).to_have_value("acme")  # what was typed stays
    assert Team.objects.filter(pk=doomed.pk).exists()

    page.fill("#confirmation-name", "Acme")
    page.click("button:has-text('Delete Acme')")
    expect(page.locator(".messages")).to_contain_text("Deleted “Acme”. Moved to “Acme Two”: 1 account, 1 publish")
    expect(page.locator(".messages")).to_contain_text("3 memberships")
    expect(page.locator("#team-switch")).to_have_count(0)  # one team left: no switcher
    expect(page.locator("#team-name")).to_have_value("Acme Two")
    assert not Team.objects.filter(pk=doomed.pk).exists()
    assert Publish.objects.get(content="A draft that moves with its team").team == destination

    open_page(page, "Accounts")
    expect(page.locator("main table")).to_contain_text(SocialAccount.objects.get(pk=account.pk).handle)
    open_page(page, "Publishes")
    expect(page.locator("main")).to_contain_text("A draft that moves with its team")

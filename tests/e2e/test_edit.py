"""Editing and copying posts in a real browser (Playwright driving Debian's Chromium): a
scheduled post's text and time changed on its edit page and shown on its page, and a rejected
post copied into a new draft in one click."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from accounts import services as account_services
from demo.seed import sandbox_account
from publishing import approval, inputs, lifecycle
from publishing.models import ApprovalStatus, Publish, PublishMode, PublishStatus

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]


def _create(persona, content, *, mode=PublishMode.SCHEDULED, when=None, can_approve=True):
    return lifecycle.publish_create(
        team=persona.team,
        caller=inputs.Caller(user=persona.user, can_approve=can_approve),
        content=content,
        media_ids=[],
        targets=[inputs.TargetInput(account_id=str(sandbox_account(persona.team, "x").pk))],
        publish_mode=mode,
        scheduled_at=when,
    )


def _open(page, live_server, publish):
    page.goto(f"{live_server.url}/dashboard/publishes/{publish.pk}/?team={publish.team_id}")
    page.wait_for_selector("#delivery")


def test_edit_a_scheduled_posts_text_and_time(signed_in, live_server, owner, screenshot):
    page = signed_in
    when = (timezone.now() + dt.timedelta(days=1)).replace(second=0, microsecond=0)
    later = when + dt.timedelta(days=2, hours=3)
    publish = _create(owner, "The first words", when=when)

    _open(page, live_server, publish)
    page.click("#actions a:has-text('Edit')")
    expect(page.locator("h1")).to_contain_text("Edit scheduled post")
    expect(page.locator("#content")).to_have_value("The first words")
    expect(page.locator("#scheduled_at")).to_have_value(when.strftime("%Y-%m-%dT%H:%M"))
    page.fill("#content", "Better words, later")
    page.fill("#scheduled_at", later.strftime("%Y-%m-%dT%H:%M"))
    expect(page.locator("#counts")).to_contain_text("19 / 280")  # the live check counts the new text
    screenshot(page, "edit")
    page.click("button:has-text('Save changes')")

    expect(page.locator(".messages")).to_contain_text("Saved your changes")
    expect(page.locator("#publish-content")).to_have_text("Better words, later")
    expect(page.locator("aside .facts")).to_contain_text(f"{later:%Y-%m-%d %H:%M} UTC")
    saved = Publish.objects.get(pk=publish.pk)
    assert (saved.content, saved.scheduled_at, saved.status) == ("Better words, later", later, PublishStatus.SCHEDULED)


def test_a_rejected_post_is_copied_into_a_new_draft(signed_in, live_server, owner, member, screenshot):
    page = signed_in
    owner.team.approval_required = True
    owner.team.save()
    when = timezone.now() + dt.timedelta(days=1)
    rejected = _create(member, "A bold claim", when=when, can_approve=False)
    approval.publish_reject(
        team=owner.team,
        publish_id=rejected.pk,
        caller=inputs.Caller(user=owner.user, can_approve=True),
        reason="Tone the claim down.",
    )

    _open(page, live_server, rejected)
    expect(page.locator("#rejected")).to_contain_text("Tone the claim down.")
    screenshot(page, "publish-rejected")
    page.click("#rejected button:has-text('Copy into a new draft')")

    expect(page.locator(".messages")).to_contain_text("Copied into a new draft")
    expect(page.locator("h1")).to_contain_text("Edit draft")
    expect(page.locator("#content")).to_have_value("A bold claim")
    page.fill("#content", "A careful claim")
    page.click("button:has-text('Save changes')")

    expect(page.locator("#publish-content")).to_have_text("A careful claim")
    copy = Publish.objects.exclude(pk=rejected.pk).get()
    assert (copy.content, copy.status, copy.confirmed) == ("A careful claim", PublishStatus.DRAFT, False)
    assert Publish.objects.get(pk=rejected.pk).approval_status == ApprovalStatus.REJECTED


def test_an_account_that_needs_reconnecting_stays_on_the_edit_page_with_a_warning(signed_in, live_server, owner):
    page = signed_in
    x, bluesky = sandbox_account(owner.team, "x"), sandbox_account(owner.team, "bluesky")
    publish = lifecycle.publish_create(
        team=owner.team,
        caller=inputs.Caller(user=owner.user, can_approve=True),
        content="For both networks",
        media_ids=[],
        targets=[inputs.TargetInput(account_id=str(x.pk)), inputs.TargetInput(account_id=str(bluesky.pk))],
        publish_mode=PublishMode.SCHEDULED,
        scheduled_at=timezone.now() + dt.timedelta(days=1),
    )
    account_services.account_mark_expired(account=bluesky, reason="The platform refused the token.")
    warning = f"@{bluesky.handle} needs reconnecting: reconnect it or untick it before saving."

    page.goto(f"{live_server.url}/dashboard/publishes/{publish.pk}/edit/?team={owner.team.pk}")
    pick = page.locator(f'.pick[value="{bluesky.pk}"]')
    expect(pick).to_be_checked()
    expect(pick).to_be_enabled()
    expect(page.locator(f"#t-{bluesky.pk}-problem")).to_have_text(warning)
    expect(pick).to_have_attribute("aria-describedby", re.compile(rf"(^| )t-{bluesky.pk}-problem( |$)"))

    page.fill("#content", "Changed words")
    page.click("button:has-text('Save changes')")

    # Kept ticked, it is refused beside the account: nothing is saved, nothing dropped.
    expect(page.locator(f"#t-{bluesky.pk}-problem")).to_have_text(warning)
    expect(page.locator("#content")).to_have_value("Changed words")
    assert Publish.objects.get(pk=publish.pk).targets.count() == 2

    page.locator(f'.pick[value="{bluesky.pk}"]').uncheck()
    expect(page.locator(f"#t-{bluesky.pk}-problem")).to_be_empty()  # the live check drops it with the account
    page.click("button:has-text('Save changes')")

    expect(page.locator(".messages")).to_contain_text("Saved your changes")
    saved = Publish.objects.get(pk=publish.pk)
    assert saved.content == "Changed words"
    assert [t.account_id for t in saved.targets.all()] == [x.pk]

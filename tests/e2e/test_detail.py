"""The publish detail page in a real browser (Playwright driving Debian's Chromium): retry a
failed target after editing it and follow its live link to the sandbox's page of the post; a
member's publishes approved and rejected by the owner; the status turning published while the
page is open, without a reload; taking the posts down, confirmed with a box, followed live."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from demo.seed import sandbox_account
from publishing import inputs, lifecycle, tasks
from publishing.models import ApprovalStatus, DeliveryJob, Publish, PublishMode, PublishStatus, Target

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]


def _create(persona, platforms, content, *, can_approve=True):
    return lifecycle.publish_create(
        team=persona.team,
        caller=inputs.Caller(user=persona.user, can_approve=can_approve),
        content=content,
        media_ids=[],
        targets=[inputs.TargetInput(account_id=str(sandbox_account(persona.team, p).pk)) for p in platforms],
        publish_mode=PublishMode.IMMEDIATE,
        scheduled_at=None,
    )


def _open(page, live_server, publish):
    page.goto(f"{live_server.url}/dashboard/publishes/{publish.pk}/?team={publish.team_id}")
    page.wait_for_selector("#delivery")


def test_retry_a_failed_target_after_editing_it(signed_in, live_server, sandbox, owner, eager_tasks, screenshot):
    page = signed_in
    sandbox.outcomes("x", "error")
    # Eager: the X target fails, the Bluesky one is published.
    publish = _create(owner, ["x", "bluesky"], "Launch day from the browser")
    x = Target.objects.get(publish=publish, platform="x")
    row = f"#target-{x.pk}"

    _open(page, live_server, publish)
    expect(page.locator("#publish-status")).to_have_text("partial")
    expect(page.locator(f"{row} .status").first).to_have_text("failed")
    expect(page.locator(f"{row} .evidence")).to_contain_text("Error")
    expect(page.locator(f"{row} table.attempts")).to_contain_text("403")  # the platform's answer
    screenshot(page, "publish-detail")

    page.fill(f"#content-{x.pk}", "Launch day, edited for X")
    page.click("#retry-form button[type=submit]")

    expect(page.locator(".messages")).to_contain_text("Sending 1 failed target again")
    expect(page.locator("#publish-status")).to_have_text("published")
    expect(page.locator(f"{row} .status").first).to_have_text("published")
    expect(page.locator(f"{row} .attempt-count")).to_have_text("2")
    link = page.locator(f"{row} a.live")
    assert link.get_attribute("href").startswith(f"{sandbox.url}/_sandbox/posts/x/")
    with page.expect_popup() as opened:
        link.click()
    post = opened.value
    expect(post.locator("#post-text")).to_have_text("Launch day, edited for X")
    screenshot(post, "sandbox-post")
    assert [p["text"] for p in sandbox.posts("x")] == ["Launch day, edited for X"]
    assert len(sandbox.posts("bluesky")) == 1  # the published target was not sent again


def test_a_members_posts_approved_and_rejected_by_the_owner(signed_in, live_server, sandbox, member, eager_tasks):
    page = signed_in
    member.team.approval_required = True
    member.team.save()
    approved = _create(member, ["x"], "Please ship this one", can_approve=False)
    rejected = _create(member, ["x"], "And maybe this one", can_approve=False)

    _open(page, live_server, approved)
    expect(page.locator("#approval")).to_contain_text("awaiting approval")
    page.click("#actions button:has-text('Approve')")
    expect(page.locator(".messages")).to_contain_text("Approved")
    expect(page.locator("#publish-status")).to_have_text("published")
    expect(page.locator("#approval")).to_contain_text("approved")

    _open(page, live_server, rejected)
    page.fill("#reason", "Off brand, rewrite the hook.")
    page.click("#actions button:has-text('Reject')")
    expect(page.locator(".messages")).to_contain_text("Rejected")
    expect(page.locator("#approval")).to_contain_text("rejected")
    expect(page.locator("#rejection-reason")).to_have_text("Reason: Off brand, rewrite the hook.")

    approved.refresh_from_db()
    rejected.refresh_from_db()
    assert (approved.approval_status, approved.status) == (ApprovalStatus.APPROVED, PublishStatus.PUBLISHED)
    assert rejected.approval_status == ApprovalStatus.REJECTED
    assert [p["text"] for p in sandbox.posts("x")] == ["Please ship this one"]


def test_the_status_turns_published_while_the_page_is_open(signed_in, live_server, sandbox, owner):
    page = signed_in
    # Handed to a broker no worker reads: the test delivers the jobs itself once the page is open.
    publish = _create(owner, ["x", "bluesky"], "Watch it go out")
    jobs = list(DeliveryJob.objects.filter(target__publish=publish))

    _open(page, live_server, publish)
    expect(page.locator("#publish-status")).to_have_text("publishing")
    page.evaluate("window.stillTheSamePage = true")
    for job in jobs:
        tasks.deliver(str(job.pk))  # what the worker runs

    expect(page.locator("#publish-status")).to_have_text("published", timeout=10_000)
    expect(page.locator(".delivery")).to_have_attribute("data-settled", "true")
    expect(page.locator("#delivery a.live")).to_have_count(2)
    assert page.evaluate("window.stillTheSamePage") is True  # swapped in, not reloaded
    assert Publish.objects.get(pk=publish.pk).status == PublishStatus.PUBLISHED


def test_take_down_asks_for_the_box_then_the_page_follows_the_deletes(signed_in, live_server, sandbox, owner):
    page = signed_in
    publish = _create(owner, ["x", "bluesky"], "Up for an hour")
    for job in DeliveryJob.objects.filter(target__publish=publish):
        tasks.deliver(str(job.pk))  # what the worker runs
    x = Target.objects.get(publish=publish, platform="x")

    _open(page, live_server, publish)
    expect(page.locator("#unpublish-hint")).to_have_text(
        "Deletes the published post on X and Bluesky, with its replies and first comment."
    )
    page.get_by_role("button", name="Take down").click()
    assert page.evaluate("document.querySelector('#unpublish-sure').validity.valueMissing") is True
    assert len(sandbox.posts("x")) == 1  # the browser kept the form until the box is ticked

    page.get_by_label("Yes, delete the published posts on their networks").check()
    page.get_by_role("button", name="Take down").click()
    expect(page.locator(".messages")).to_contain_text("Taking down “Up for an hour”")
    expect(page.locator(f"#removing-{x.pk}")).to_have_text("Being taken down on X…")
    page.evaluate("window.stillTheSamePage = true")
    for job in DeliveryJob.objects.filter(item__target__publish=publish, state="pending"):
        tasks.deliver(str(job.pk))  # the deletes, as the worker runs them

    expect(page.locator(f"#removed-{x.pk}")).to_contain_text("Removed from X", timeout=10_000)
    expect(page.locator("p.removed")).to_have_count(2)
    expect(page.get_by_role("button", name="Take down")).to_have_count(0)
    assert page.evaluate("window.stillTheSamePage") is True  # swapped in, not reloaded
    assert sandbox.posts("x") == sandbox.posts("bluesky") == []

"""Approving in a real browser (Playwright driving Debian's Chromium): an owner opens the
approvals page, approves a member's pending publish and sees it published on the sandbox."""

from __future__ import annotations

import pytest

from demo.seed import sandbox_account
from publishing import inputs, lifecycle
from publishing.links import live_link
from publishing.models import ApprovalStatus, Publish, PublishMode, PublishStatus
from tests.e2e.conftest import open_page

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]


@pytest.fixture(autouse=True)
def _eager(eager_tasks: None) -> None:
    """Delivery runs inside the live server's request, so the page after Approve shows the outcome."""


@pytest.fixture
def pending(team, member) -> Publish:
    team.approval_required = True
    team.save()
    return lifecycle.publish_create(
        team=team,
        caller=inputs.Caller(user=member.user),
        content="Launch day, approved in a browser",
        media_ids=[],
        targets=[inputs.TargetInput(account_id=str(sandbox_account(team, "x").pk))],
        publish_mode=PublishMode.IMMEDIATE,
        scheduled_at=None,
    )


def test_an_owner_approves_a_pending_publish_in_a_browser(signed_in, sandbox, pending, screenshot):
    page = signed_in
    row = f"#publish-{pending.pk}"

    open_page(page, "Approvals")
    page.wait_for_selector(row)
    screenshot(page, "approvals")
    assert "Launch day, approved in a browser" in page.inner_text(row)
    page.click(f"{row} button:has-text('Approve')")
    page.wait_for_selector(".messages")

    assert "Approved" in page.inner_text(".messages")
    assert page.locator(row).count() == 0  # it has left the queue
    pending.refresh_from_db()
    assert (pending.approval_status, pending.status) == (ApprovalStatus.APPROVED, PublishStatus.PUBLISHED)
    [post] = sandbox.posts("x")
    assert post["text"] == "Launch day, approved in a browser"

    open_page(page, "Publishes")
    page.wait_for_selector(row)
    assert "published" in page.inner_text(row)
    target = pending.targets.get()
    # A sandbox account's post: the link opens the sandbox's page of it.
    assert page.get_attribute(f"{row} a:has-text('View post')", "href") == live_link(target)

"""The home page in a real browser (Playwright driving Debian's Chromium): an owner signs in and
lands on it, sees what goes out this week, what waits for their approval (counted in the
navigation), the account to re-authorize and the month's usage, and follows an approval to
its publish."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from accounts.models import AccountStatus
from demo.seed import sandbox_account
from publishing import inputs, lifecycle
from publishing.models import Publish, PublishMode

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]


def _create(team, user, content, *, mode, at=None, can_approve=True) -> Publish:
    return lifecycle.publish_create(
        team=team,
        caller=inputs.Caller(user=user, can_approve=can_approve),
        content=content,
        media_ids=[],
        targets=[inputs.TargetInput(account_id=str(sandbox_account(team, "bluesky").pk))],
        publish_mode=mode,
        scheduled_at=at,
    )


@pytest.fixture
def day(team, owner, member):
    """A scheduled post tomorrow, a member's publish waiting for approval, an expired account."""
    scheduled = _create(
        team, owner.user, "Tomorrow's launch post", mode=PublishMode.SCHEDULED, at=timezone.now() + dt.timedelta(days=1)
    )
    team.approval_required = True
    team.save()
    pending = _create(team, member.user, "Please look at this one", mode=PublishMode.IMMEDIATE, can_approve=False)
    sandbox_account(team, "x", status=AccountStatus.EXPIRED)
    return scheduled, pending


def test_an_owner_starts_the_day_on_the_home_page(day, signed_in, screenshot):
    page = signed_in
    scheduled, pending = day

    assert page.url.endswith("/dashboard/home/")  # where the login leads
    assert page.inner_text("h1") == "Home"
    approvals_link = page.get_by_role("link", name="Approvals, 1 waiting")
    assert approvals_link.inner_text().split() == ["Approvals", "1"]
    assert "Tomorrow's launch post" in page.inner_text("#upcoming")
    assert "Bluesky" in page.inner_text(f"#upcoming-{scheduled.pk}")
    assert page.get_by_role("button", name="Re-authorize X").count() == 1
    assert "Posts this month" in page.inner_text("#usage")
    screenshot(page, "home")

    page.click(f"#approval-{pending.pk} a")

    page.wait_for_url(f"**/dashboard/publishes/{pending.pk}/?team={pending.team_id}")
    assert page.get_by_role("button", name="Approve").count() == 1

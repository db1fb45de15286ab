"""The publishing pages of the dashboard: the team's publishes with each target's delivery, and
the approvals queue, through Django's test client with delivery over HTTP to the sandbox."""

from __future__ import annotations

import datetime as dt
import html

import pytest
from django.utils import timezone

from demo.seed import sandbox_account
from publishing import inputs, lifecycle
from publishing.links import live_link
from publishing.models import ApprovalStatus, Publish, PublishMode, PublishStatus
from teams import services
from teams.models import Role
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def approval(team):
    team.approval_required = True
    team.save()
    return team


def _submit(user, account, content="Hello from the team", *, mode=PublishMode.IMMEDIATE, can_approve=False):
    """A publish to `account` as the API creates it for `user` (pending when the team is gated)."""
    return lifecycle.publish_create(
        team=account.team,
        caller=inputs.Caller(user=user, can_approve=can_approve),
        content=content,
        media_ids=[],
        targets=[inputs.TargetInput(account_id=str(account.pk))],
        publish_mode=mode,
        scheduled_at=None,
    )


@pytest.fixture
def pending(approval, member, accounts):
    publish = _submit(member.user, accounts.x, "Launch day")
    assert publish.approval_status == ApprovalStatus.PENDING
    return publish


@pytest.fixture
def elsewhere(outsider):
    """A pending publish of another team."""
    outsider.team.approval_required = True
    outsider.team.save()
    return _submit(outsider.user, sandbox_account(outsider.team, "x"), "Their secret plans")


def _as(client, persona):
    client.force_login(persona.user)
    return client


def _decide(client, persona, publish, verb, **data):
    """What the approvals queue's forms post: back to the queue, whatever the outcome."""
    return _as(client, persona).post(
        f"/dashboard/publishes/{publish.pk}/{verb}/", {"team": str(persona.team.pk), "back": "approvals", **data}
    )


def _page(response):
    assert response.status_code == 200
    return response.content.decode()


# --- the publishes page ------------------------------------------------------------------------


def test_the_publishes_page_lists_only_the_teams_publishes(client, owner, pending, elsewhere):
    page = _page(_as(client, owner).get("/dashboard/publishes/"))

    assert "Launch day" in page
    assert "Their secret plans" not in page


def test_a_publish_of_another_team_is_not_shown_by_naming_that_team(client, owner, elsewhere):
    response = _as(client, owner).get(f"/dashboard/publishes/?team={elsewhere.team_id}")

    assert response.status_code == 404


def test_each_target_shows_its_status_live_post_and_error(client, owner, accounts, sandbox):
    sandbox.outcomes("bluesky", "error")
    publish = lifecycle.publish_create(
        team=owner.team,
        caller=inputs.Caller(user=owner.user, can_approve=True),
        content="Two networks",
        media_ids=[],
        targets=[
            inputs.TargetInput(account_id=str(accounts.x.pk)),
            inputs.TargetInput(account_id=str(accounts.bluesky.pk)),
        ],
        publish_mode=PublishMode.IMMEDIATE,
        scheduled_at=None,
    )  # its jobs run as the create hands them over (eager)
    x, bluesky = sorted(Publish.objects.get(pk=publish.pk).targets.all(), key=lambda t: t.platform, reverse=True)

    page = _page(_as(client, owner).get("/dashboard/publishes/"))

    assert '<span class="status partial">partial</span>' in page
    assert x.platform_post_url
    assert f'href="{live_link(x)}"' in page  # a sandbox account's post: its page in the sandbox
    assert bluesky.error_message
    assert html.escape(bluesky.error_message) in page


def test_publishes_are_newest_first_twenty_a_page(client, owner, accounts):
    for number in range(21):
        _submit(owner.user, accounts.x, f"Draft number {number:02d}", mode=PublishMode.DRAFT)

    first = _page(_as(client, owner).get("/dashboard/publishes/"))
    second = _page(client.get(f"/dashboard/publishes/?team={owner.team.pk}&page=2"))

    assert first.count("Draft number") == 20
    assert first.index("Draft number 20") < first.index("Draft number 19")
    assert "Draft number 00" not in first
    assert second.count("Draft number") == 1
    assert "Draft number 00" in second


def test_the_pages_need_a_login(client):
    for path in ("/dashboard/publishes/", "/dashboard/publishes/approvals/"):
        response = client.get(path)
        assert response.status_code == 302
        assert response["Location"].startswith("/login/")


def test_a_user_without_a_team_is_told_so(client, db):
    client.force_login(UserFactory(username="loner"))

    response = client.get("/dashboard/publishes/")

    assert response.status_code == 403
    assert "You belong to no team yet." in response.content.decode()


def test_a_malformed_team_id_is_not_found(client, owner):
    assert _as(client, owner).get("/dashboard/publishes/?team=not-a-uuid").status_code == 404


# --- approving and rejecting -------------------------------------------------------------------


def test_owner_approves_and_the_publish_is_published_through_the_sandbox(client, owner, pending, sandbox):
    response = _decide(client, owner, pending, "approve")

    assert response.status_code == 302
    assert response["Location"] == f"/dashboard/publishes/approvals/?team={owner.team.pk}"
    pending.refresh_from_db()
    assert pending.approval_status == ApprovalStatus.APPROVED
    assert (pending.approved_by, pending.status) == (owner.user, PublishStatus.PUBLISHED)
    assert [p["text"] for p in sandbox.posts("x")] == ["Launch day"]
    page = _page(client.get(response["Location"]))
    assert "Approved “Launch day”" in page
    assert "Nothing is waiting for approval." in page


def test_approving_a_scheduled_publish_leaves_it_for_its_time(client, owner, member, approval, accounts, sandbox):
    when = timezone.now() + dt.timedelta(days=1)
    publish = lifecycle.publish_create(
        team=approval,
        caller=inputs.Caller(user=member.user),
        content="Tomorrow",
        media_ids=[],
        targets=[inputs.TargetInput(account_id=str(accounts.x.pk))],
        publish_mode=PublishMode.SCHEDULED,
        scheduled_at=when,
    )

    response = _decide(client, owner, publish, "approve")

    publish.refresh_from_db()
    assert (publish.approval_status, publish.status) == (ApprovalStatus.APPROVED, PublishStatus.SCHEDULED)
    assert "it is published at its scheduled time" in _page(client.get(response["Location"]))
    assert sandbox.posts() == []


def test_admin_rejects_with_a_reason_and_nothing_is_sent(client, admin, pending, sandbox):
    response = _decide(client, admin, pending, "reject", reason="  Off brand, rewrite the hook.  ")

    assert response.status_code == 302
    pending.refresh_from_db()
    assert pending.approval_status == ApprovalStatus.REJECTED
    assert (pending.rejected_by, pending.rejection_reason) == (admin.user, "Off brand, rewrite the hook.")
    assert sandbox.posts() == []
    assert "Rejected “Launch day”" in _page(client.get(response["Location"]))
    assert "Off brand, rewrite the hook." in _page(client.get("/dashboard/publishes/"))


def test_rejecting_without_a_reason_records_none(client, owner, pending):
    _decide(client, owner, pending, "reject")

    pending.refresh_from_db()
    assert (pending.approval_status, pending.rejection_reason) == (ApprovalStatus.REJECTED, "")


def test_a_too_long_reason_is_refused_with_a_message(client, owner, pending):
    response = _decide(client, owner, pending, "reject", reason="x" * 2001)

    pending.refresh_from_db()
    assert pending.approval_status == ApprovalStatus.PENDING
    assert "Keep the reason to 2000 characters or fewer." in _page(client.get(response["Location"]))


def test_deciding_on_a_publish_no_longer_pending_shows_why(client, owner, pending, sandbox):
    _decide(client, owner, pending, "reject")
    response = _decide(client, owner, pending, "approve")

    assert response.status_code == 302
    assert "This publish is not waiting for approval." in _page(client.get(response["Location"]))
    pending.refresh_from_db()
    assert pending.approval_status == ApprovalStatus.REJECTED
    assert sandbox.posts() == []


def test_approving_twice_says_it_was_already_approved(client, owner, pending, sandbox):
    _decide(client, owner, pending, "approve")
    response = _decide(client, owner, pending, "approve")

    assert "was already approved" in _page(client.get(response["Location"]))
    assert len(sandbox.posts("x")) == 1


@pytest.mark.parametrize("verb", ["approve", "reject"])
def test_member_cannot_approve_or_reject(client, member, pending, verb):
    response = _decide(client, member, pending, verb)

    assert response.status_code == 404
    pending.refresh_from_db()
    assert pending.approval_status == ApprovalStatus.PENDING


@pytest.mark.parametrize("verb", ["approve", "reject"])
def test_another_teams_publish_is_not_found(client, owner, elsewhere, verb):
    in_own_team = _decide(client, owner, elsewhere, verb)
    naming_its_team = client.post(f"/dashboard/publishes/{elsewhere.pk}/{verb}/", {"team": str(elsewhere.team_id)})

    assert (in_own_team.status_code, naming_its_team.status_code) == (404, 404)
    elsewhere.refresh_from_db()
    assert elsewhere.approval_status == ApprovalStatus.PENDING


def test_deciding_needs_a_post(client, owner, pending):
    response = _as(client, owner).get(f"/dashboard/publishes/{pending.pk}/approve/")

    assert response.status_code == 405


# --- the approvals page ------------------------------------------------------------------------


@pytest.fixture
def other_member(approval):
    user = UserFactory(username="second_member")
    services.membership_add(team=approval, user=user, role=Role.MEMBER)
    return user


def test_owner_and_admin_see_every_pending_publish_with_buttons(client, owner, admin, member, other_member, accounts):
    mine = _submit(member.user, accounts.x, "Mine to ship")
    _submit(other_member, accounts.x, "From a colleague")

    for persona in (owner, admin):
        page = _page(_as(client, persona).get("/dashboard/publishes/approvals/"))
        assert "Mine to ship" in page
        assert "From a colleague" in page
        assert page.count(">Approve</button>") == 2
        # The buttons post to the dashboard's views, not to the API's actions of the same name.
        assert f'action="/dashboard/publishes/{mine.pk}/approve/"' in page
        assert f'action="/dashboard/publishes/{mine.pk}/reject/"' in page


def test_member_sees_only_own_pending_publishes_and_no_buttons(client, member, other_member, accounts):
    _submit(member.user, accounts.x, "Mine to ship")
    _submit(other_member, accounts.x, "From a colleague")

    page = _page(_as(client, member).get("/dashboard/publishes/approvals/"))

    assert "Mine to ship" in page
    assert "colleague" not in page
    assert ">Approve</button>" not in page
    assert "/reject/" not in page


def test_approved_and_rejected_publishes_leave_the_queue(client, owner, member, approval, accounts, sandbox):
    approved = _submit(member.user, accounts.x, "First")
    rejected = _submit(member.user, accounts.x, "Second")
    waiting = _submit(member.user, accounts.x, "Third")
    _decide(client, owner, approved, "approve")
    _decide(client, owner, rejected, "reject")

    page = _page(client.get("/dashboard/publishes/approvals/"))

    assert f'id="publish-{waiting.pk}"' in page
    assert f'id="publish-{approved.pk}"' not in page
    assert f'id="publish-{rejected.pk}"' not in page

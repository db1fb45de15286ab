"""Approval in a team that requires it: approve, reject and GET /approvals (spec §3 approval
moves, §4 approve/reject and approvals, §5 rule 5, §6 events)."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from django.utils import timezone

from demo.seed import sandbox_account
from publishing.release import release_due
from teams import services as team_services
from teams.models import SCOPES, Role
from tests.factories import UserFactory
from webhooks.models import Event

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def approval_required(team):
    team.approval_required = True
    team.save()


# --- helpers ---------------------------------------------------------------------------------


def _at(hours: float) -> dt.datetime:
    return (timezone.now() + dt.timedelta(hours=hours)).replace(microsecond=0)


def _create(api, key, *accounts, **body):
    payload = {"content": "Please approve", "targets": [{"account_id": str(a.pk)} for a in accounts], **body}
    response = api.as_(key).post("/api/v1/publishes", payload, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["data"]


def _get(api, key, publish_id):
    return api.as_(key).get(f"/api/v1/publishes/{publish_id}").json()["data"]


def _approve(api, key, publish_id):
    return api.as_(key).post(f"/api/v1/publishes/{publish_id}/approve")


def _reject(api, key, publish_id, body=None):
    return api.as_(key).post(f"/api/v1/publishes/{publish_id}/reject", body, format="json" if body else None)


def _events(event_type, publish_id):
    return [e for e in Event.objects.filter(type=event_type) if e.data.get("publish_id") == str(publish_id)]


def _member_key(team, username):
    user = UserFactory(username=username)
    team_services.membership_add(team=team, user=user, role=Role.MEMBER)
    _, key = team_services.api_key_create(user=user, name="all scopes", scopes=SCOPES, team=team)
    return key


def _approvals(api, key, **params):
    response = api.as_(key).get("/api/v1/approvals", params)
    assert response.status_code == 200, response.json()
    return response.json()


def _ids(page):
    return {p["id"] for p in page["data"]}


# --- gating ------------------------------------------------------------------------------------


def test_a_members_immediate_publish_waits_for_approval_unsent(api, member, accounts, sandbox):
    pending = _create(api, member.key, accounts.x)

    assert (pending["status"], pending["approval_status"]) == ("draft", "pending_approval")
    assert len(_events("post.pending_approval", pending["id"])) == 1
    assert sandbox.posts() == []


# --- approve -----------------------------------------------------------------------------------


@pytest.mark.parametrize("approver", ["owner", "admin"])
def test_an_owner_or_admin_approval_releases_the_publish(api, request, member, accounts, sandbox, approver):
    persona = request.getfixturevalue(approver)
    pending = _create(api, member.key, accounts.x, accounts.bluesky)

    response = _approve(api, persona.key, pending["id"])

    assert response.status_code == 200, response.json()
    data = response.json()["data"]
    assert data["approval_status"] == "approved"
    assert data["already_approved"] is False
    assert data["approved_by"]["id"] == persona.user.pk
    approved_at = dt.datetime.fromisoformat(data["approved_at"])
    assert abs(timezone.now() - approved_at) < dt.timedelta(minutes=1)
    assert len(_events("post.approved", pending["id"])) == 1
    final = _get(api, persona.key, pending["id"])
    assert final["status"] == "published"
    assert [p["text"] for p in sandbox.posts("x")] == ["Please approve"]
    assert len(sandbox.posts("bluesky")) == 1


def test_approving_again_says_already_approved_and_sends_nothing_more(api, owner, member, accounts, sandbox):
    pending = _create(api, member.key, accounts.x)
    assert _approve(api, owner.key, pending["id"]).status_code == 200
    posts_before = len(sandbox.posts())

    response = _approve(api, owner.key, pending["id"])

    assert response.status_code == 200, response.json()
    assert response.json()["data"]["already_approved"] is True
    assert response.json()["data"]["approval_status"] == "approved"
    assert len(sandbox.posts()) == posts_before == 1
    assert len(_events("post.approved", pending["id"])) == 1


def test_a_member_cannot_approve(api, member, accounts, sandbox):
    pending = _create(api, member.key, accounts.x)

    response = _approve(api, member.key, pending["id"])

    assert response.status_code == 404
    assert _get(api, member.key, pending["id"])["approval_status"] == "pending_approval"
    assert sandbox.posts() == []


def test_another_team_cannot_approve(api, member, outsider, accounts, sandbox):
    pending = _create(api, member.key, accounts.x)

    response = _approve(api, outsider.key, pending["id"])

    assert response.status_code == 404
    assert _get(api, member.key, pending["id"])["approval_status"] == "pending_approval"
    assert sandbox.posts() == []


def test_approving_an_unknown_publish_is_a_404(api, owner):
    assert _approve(api, owner.key, uuid.uuid4()).status_code == 404


def test_approving_a_publish_that_is_not_pending_is_a_400(api, owner, accounts, sandbox):
    published = _create(api, owner.key, accounts.x)  # an owner's request is not gated
    assert published["approval_status"] is None

    response = _approve(api, owner.key, published["id"])

    assert response.status_code == 400
    assert len(sandbox.posts("x")) == 1


def test_a_pending_scheduled_publish_is_released_only_once_approved_and_due(api, owner, member, accounts, sandbox):
    when = _at(1)
    pending = _create(api, member.key, accounts.x, publish_mode="scheduled", scheduled_at=when.isoformat())
    assert (pending["status"], pending["approval_status"]) == ("scheduled", "pending_approval")

    assert release_due(now=when + dt.timedelta(seconds=1)) == 0
    assert sandbox.posts() == []

    approved = _approve(api, owner.key, pending["id"]).json()["data"]
    assert (approved["status"], approved["approval_status"]) == ("scheduled", "approved")
    assert sandbox.posts() == []
    assert release_due(now=when - dt.timedelta(seconds=1)) == 0
    assert sandbox.posts() == []

    assert release_due(now=when + dt.timedelta(seconds=1)) == 1
    assert _get(api, owner.key, pending["id"])["status"] == "published"
    assert len(sandbox.posts("x")) == 1


# --- reject ------------------------------------------------------------------------------------


def test_a_rejection_records_the_reason_and_nothing_is_sent(api, owner, member, accounts, sandbox):
    pending = _create(api, member.key, accounts.x)

    response = _reject(api, owner.key, pending["id"], {"reason": "Off brand"})

    assert response.status_code == 200, response.json()
    data = _get(api, owner.key, pending["id"])
    assert data["approval_status"] == "rejected"
    assert data["rejection_reason"] == "Off brand"
    [event] = _events("post.rejected", pending["id"])
    assert event.data["reason"] == "Off brand"
    assert sandbox.posts() == []


def test_a_rejection_needs_no_body(api, admin, member, accounts, sandbox):
    pending = _create(api, member.key, accounts.x)

    response = _reject(api, admin.key, pending["id"])

    assert response.status_code == 200, response.json()
    assert _get(api, admin.key, pending["id"])["approval_status"] == "rejected"
    assert len(_events("post.rejected", pending["id"])) == 1
    assert sandbox.posts() == []


def test_a_rejected_publish_cannot_be_approved_later(api, owner, member, accounts, sandbox):
    pending = _create(api, member.key, accounts.x)
    _reject(api, owner.key, pending["id"], {"reason": "No"})

    response = _approve(api, owner.key, pending["id"])

    assert response.status_code == 400
    assert _get(api, owner.key, pending["id"])["approval_status"] == "rejected"
    assert _events("post.approved", pending["id"]) == []
    assert sandbox.posts() == []


def test_a_rejected_scheduled_publish_is_never_released(api, owner, member, accounts, sandbox):
    when = _at(1)
    pending = _create(api, member.key, accounts.x, publish_mode="scheduled", scheduled_at=when.isoformat())
    _reject(api, owner.key, pending["id"], {"reason": "Wrong day"})

    assert release_due(now=when + dt.timedelta(hours=1)) == 0
    assert sandbox.posts() == []
    assert _get(api, owner.key, pending["id"])["approval_status"] == "rejected"


def test_a_member_cannot_reject(api, member, accounts):
    pending = _create(api, member.key, accounts.x)

    response = _reject(api, member.key, pending["id"], {"reason": "Changed my mind"})

    assert response.status_code == 404
    assert _get(api, member.key, pending["id"])["approval_status"] == "pending_approval"
    assert _events("post.rejected", pending["id"]) == []


def test_rejecting_a_publish_that_is_not_pending_is_a_400(api, owner, accounts, sandbox):
    published = _create(api, owner.key, accounts.x)

    assert _reject(api, owner.key, published["id"], {"reason": "late"}).status_code == 400


def test_another_team_and_unknown_ids_cannot_be_rejected(api, member, outsider, owner, accounts):
    pending = _create(api, member.key, accounts.x)

    assert _reject(api, outsider.key, pending["id"]).status_code == 404
    assert _reject(api, owner.key, uuid.uuid4()).status_code == 404
    assert _get(api, owner.key, pending["id"])["approval_status"] == "pending_approval"


# --- GET /approvals ----------------------------------------------------------------------------


@pytest.fixture
def queue(api, owner, member, outsider, accounts, sandbox):
    """Pending requests of two members, one approved and one rejected, and another team's."""
    other_member = _member_key(owner.team, "writer")
    mine = [_create(api, member.key, accounts.x, content=f"mine {i}")["id"] for i in range(2)]
    theirs = [_create(api, other_member, accounts.x, content="theirs")["id"]]
    approved = _create(api, member.key, accounts.x, content="approved")["id"]
    _approve(api, owner.key, approved)
    rejected = _create(api, other_member, accounts.x, content="rejected")["id"]
    _reject(api, owner.key, rejected)
    outsider.team.approval_required = True
    outsider.team.save()
    foreign = _create(api, _member_key(outsider.team, "foreigner"), sandbox_account(outsider.team, "x"))["id"]
    return {"mine": mine, "theirs": theirs, "approved": approved, "rejected": rejected, "foreign": foreign}


@pytest.mark.parametrize("viewer", ["owner", "admin"])
def test_owners_and_admins_see_every_pending_request_of_the_team(api, request, queue, viewer):
    page = _approvals(api, request.getfixturevalue(viewer).key)

    assert _ids(page) == set(queue["mine"] + queue["theirs"])
    assert {p["approval_status"] for p in page["data"]} == {"pending_approval"}


def test_a_member_sees_only_the_requests_they_submitted(api, member, queue):
    assert _ids(_approvals(api, member.key)) == set(queue["mine"])


def test_the_approvals_list_is_paginated(api, owner, queue):
    first = _approvals(api, owner.key, page_size=2)
    second = _approvals(api, owner.key, page_size=2, page=2)

    assert len(first["data"]) == 2
    assert len(second["data"]) == 1
    assert _ids(first) | _ids(second) == set(queue["mine"] + queue["theirs"])
    assert first["pagination"]["total_count"] == 3


def test_another_teams_pending_requests_are_never_listed(api, owner, outsider, queue):
    assert queue["foreign"] not in _ids(_approvals(api, owner.key))
    assert _ids(_approvals(api, outsider.key)) == {queue["foreign"]}


# --- retry in a team that requires approval ----------------------------------------------------


@pytest.fixture
def members_partial(api, owner, member, accounts, sandbox):
    """A member's publish, approved, then partial: X published, Bluesky refused."""
    sandbox.outcomes("bluesky", "error")
    pending = _create(api, member.key, accounts.x, accounts.bluesky)
    assert _approve(api, owner.key, pending["id"]).status_code == 200
    data = _get(api, owner.key, pending["id"])
    assert data["status"] == "partial", data
    return data


def _retry(api, key, publish_id, body):
    return api.as_(key).post(f"/api/v1/publishes/{publish_id}/retry", body, format="json")


def _bluesky_edit(data, **edit):
    (failed,) = [t for t in data["targets"] if t["platform"] == "bluesky"]
    return {"targets": [{"target_id": failed["id"], **edit}]}


@pytest.mark.parametrize(
    "edit",
    [{"content": "Unreviewed words"}, {"platform_settings": {"first_comment": "Unreviewed comment"}}],
    ids=["content", "platform_settings"],
)
def test_a_members_edited_retry_waits_for_approval_unsent(api, owner, member, accounts, sandbox, members_partial, edit):
    response = _retry(api, member.key, members_partial["id"], _bluesky_edit(members_partial, **edit))

    assert response.status_code == 200, response.json()
    data = response.json()["data"]
    assert (data["status"], data["approval_status"]) == ("partial", "pending_approval")
    assert data["approved_by"] is None
    assert sandbox.posts("bluesky") == []
    assert len(_events("post.pending_approval", data["id"])) == 2  # the create, then the edited retry
    assert data["id"] in _ids(_approvals(api, owner.key))


def test_approving_an_edited_retry_resends_only_the_failed_target(
    api, owner, member, accounts, sandbox, members_partial
):
    _retry(api, member.key, members_partial["id"], _bluesky_edit(members_partial, content="Reviewed words"))

    assert _approve(api, owner.key, members_partial["id"]).status_code == 200

    data = _get(api, owner.key, members_partial["id"])
    assert (data["status"], data["approval_status"]) == ("published", "approved")
    assert [p["text"] for p in sandbox.posts("bluesky")] == ["Reviewed words"]
    assert len(sandbox.posts("x")) == 1


def test_rejecting_an_edited_retry_keeps_what_was_published_and_sends_nothing(
    api, owner, member, accounts, sandbox, members_partial
):
    _retry(api, member.key, members_partial["id"], _bluesky_edit(members_partial, content="Rejected words"))

    assert _reject(api, owner.key, members_partial["id"], {"reason": "off brand"}).status_code == 200

    data = _get(api, owner.key, members_partial["id"])
    assert (data["status"], data["approval_status"]) == ("partial", "rejected")
    assert {t["platform"]: t["status"] for t in data["targets"]} == {"x": "published", "bluesky": "failed"}
    again = _retry(api, member.key, members_partial["id"], {})
    assert again.status_code == 400, again.json()
    assert again.json()["error"]["code"] == "NOT_RETRYABLE"
    assert sandbox.posts("bluesky") == []


def test_a_retry_while_an_edited_retry_waits_for_approval_is_a_400(
    api, owner, member, accounts, sandbox, members_partial
):
    _retry(api, member.key, members_partial["id"], _bluesky_edit(members_partial, content="Unreviewed words"))

    response = _retry(api, member.key, members_partial["id"], {})

    assert response.status_code == 400, response.json()
    assert response.json()["error"]["code"] == "NOT_RETRYABLE"
    assert sandbox.posts("bluesky") == []


@pytest.mark.parametrize("who", ["owner", "admin"])
def test_an_owners_or_admins_edited_retry_resends_at_once(api, request, who, accounts, sandbox, members_partial):
    key = request.getfixturevalue(who).key

    response = _retry(api, key, members_partial["id"], _bluesky_edit(members_partial, content="Approver's words"))

    assert response.status_code == 200, response.json()
    assert response.json()["data"]["approval_status"] == "approved"
    assert [p["text"] for p in sandbox.posts("bluesky")] == ["Approver's words"]


@pytest.mark.parametrize("body", [{}, "same content"], ids=["no edits", "an entry that changes nothing"])
def test_a_members_retry_without_edits_of_an_approved_publish_resends(api, member, sandbox, members_partial, body):
    if body == "same content":
        body = _bluesky_edit(members_partial, content=members_partial["content"])
    # The target inherits the publish's text: naming that same text changes nothing sent.
    response = _retry(api, member.key, members_partial["id"], body)

    assert response.status_code == 200, response.json()
    assert response.json()["data"]["approval_status"] == "approved"
    assert [p["text"] for p in sandbox.posts("bluesky")] == [members_partial["content"]]

"""In a team that requires approval, no change skips it: a member's edit, reschedule or edited
retry of a submitted publish (whoever submitted it, approved or not) waits for an owner or
admin again, and nothing of it is sent before that, through the API, the dashboard or the
admin alike."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from publishing.models import Publish
from publishing.release import release_due
from tests.factories import UserFactory
from webhooks.models import Event

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def approval_required(team):
    team.approval_required = True
    team.save()


def _at(hours: float) -> dt.datetime:
    return (timezone.now() + dt.timedelta(hours=hours)).replace(microsecond=0)


def _scheduled(api, persona, *accounts, when):
    body = {
        "content": "The owner's words",
        "targets": [{"account_id": str(a.pk)} for a in accounts],
        "publish_mode": "scheduled",
        "scheduled_at": when.isoformat(),
    }
    response = api.as_(persona.key).post("/api/v1/publishes", body, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["data"]


def _patch(api, persona, publish_id, body):
    response = api.as_(persona.key).patch(f"/api/v1/publishes/{publish_id}", body, format="json")
    assert response.status_code == 200, response.json()
    return response.json()["data"]


def _pending_events(publish_id):
    return [e for e in Event.objects.filter(type="post.pending_approval") if e.data["publish_id"] == str(publish_id)]


def _edits(accounts):
    return {
        "content": {"content": "The member's words"},
        "an added target": {"targets": [{"account_id": str(accounts.x.pk)}, {"account_id": str(accounts.bluesky.pk)}]},
        "a target's own text": {"targets": [{"account_id": str(accounts.x.pk), "content": "The member's words"}]},
        "a target's settings": {"targets": [{"account_id": str(accounts.x.pk), "platform_settings": {"x": 1}}]},
    }


@pytest.mark.parametrize("edit", ["content", "an added target", "a target's own text", "a target's settings"])
def test_a_members_edit_of_an_owners_scheduled_publish_waits_for_approval_unsent(
    api, owner, member, accounts, sandbox, edit
):
    when = _at(1)
    publish = _scheduled(api, owner, accounts.x, when=when)
    assert publish["approval_status"] is None  # an owner's submission needs no approval

    edited = _patch(api, member, publish["id"], _edits(accounts)[edit])

    assert (edited["status"], edited["approval_status"]) == ("scheduled", "pending_approval")
    assert len(_pending_events(publish["id"])) == 1
    assert release_due(now=when + dt.timedelta(seconds=1)) == 0
    assert sandbox.posts() == []


def test_approving_a_members_edit_sends_the_edited_post_at_its_time(api, owner, member, accounts, sandbox):
    when = _at(1)
    publish = _scheduled(api, owner, accounts.x, when=when)
    _patch(api, member, publish["id"], _edits(accounts)["an added target"] | {"content": "The member's words"})

    approved = api.as_(owner.key).post(f"/api/v1/publishes/{publish['id']}/approve").json()["data"]

    assert (approved["status"], approved["approval_status"]) == ("scheduled", "approved")
    assert release_due(now=when + dt.timedelta(seconds=1)) == 1
    assert sorted(p["text"] for p in sandbox.posts()) == ["The member's words", "The member's words"]


def test_a_members_edit_of_an_approved_publish_withdraws_the_approval(api, owner, member, accounts, sandbox):
    when = _at(1)
    publish = _scheduled(api, member, accounts.x, when=when)
    assert api.as_(owner.key).post(f"/api/v1/publishes/{publish['id']}/approve").status_code == 200

    edited = _patch(api, member, publish["id"], {"content": "Changed after approval"})

    assert (edited["approval_status"], edited["approved_by"]) == ("pending_approval", None)
    assert release_due(now=when + dt.timedelta(seconds=1)) == 0
    assert sandbox.posts() == []


def test_a_members_edit_of_a_publish_already_waiting_asks_once(api, member, accounts, sandbox):
    publish = _scheduled(api, member, accounts.x, when=_at(1))

    edited = _patch(api, member, publish["id"], {"content": "Second thoughts"})

    assert edited["approval_status"] == "pending_approval"
    assert len(_pending_events(publish["id"])) == 1  # the submission's own; the edit adds none


@pytest.mark.parametrize("editor", ["owner", "admin"])
def test_an_owners_or_admins_edit_needs_no_approval(api, request, owner, accounts, sandbox, editor):
    when = _at(1)
    publish = _scheduled(api, owner, accounts.x, when=when)

    edited = _patch(api, request.getfixturevalue(editor), publish["id"], {"content": "Approver's change"})

    assert edited["approval_status"] is None
    assert release_due(now=when + dt.timedelta(seconds=1)) == 1
    assert [p["text"] for p in sandbox.posts()] == ["Approver's change"]


def test_a_draft_edited_by_a_member_is_decided_when_submitted(api, owner, member, accounts, sandbox):
    body = {"content": "Draft", "targets": [{"account_id": str(accounts.x.pk)}], "publish_mode": "draft"}
    draft = api.as_(owner.key).post("/api/v1/publishes", body, format="json").json()["data"]

    edited = _patch(api, member, draft["id"], {"content": "The member's draft"})

    assert (edited["status"], edited["approval_status"]) == ("draft", None)


# --- reschedule --------------------------------------------------------------------------------


def _reschedule(api, persona, publish_id, when):
    response = api.as_(persona.key).post(
        f"/api/v1/publishes/{publish_id}/reschedule", {"scheduled_at": when.isoformat()}, format="json"
    )
    assert response.status_code == 200, response.json()
    return response.json()["data"]


def test_a_members_reschedule_of_an_owners_publish_waits_for_approval(api, owner, member, accounts, sandbox):
    publish = _scheduled(api, owner, accounts.x, when=_at(2))
    sooner = _at(1)

    moved = _reschedule(api, member, publish["id"], sooner)

    assert (moved["scheduled_at"], moved["approval_status"]) == (
        sooner.isoformat().replace("+00:00", "Z"),
        "pending_approval",
    )
    assert release_due(now=_at(3)) == 0
    assert sandbox.posts() == []


def test_an_admins_reschedule_keeps_the_publish_going_out(api, owner, admin, accounts, sandbox):
    publish = _scheduled(api, owner, accounts.x, when=_at(2))

    moved = _reschedule(api, admin, publish["id"], _at(1))

    assert moved["approval_status"] is None
    assert release_due(now=_at(1.5)) == 1


def test_a_members_reschedule_to_the_same_time_changes_nothing(api, owner, member, accounts, sandbox):
    when = _at(2)
    publish = _scheduled(api, owner, accounts.x, when=when)

    assert _reschedule(api, member, publish["id"], when)["approval_status"] is None


# --- retry -------------------------------------------------------------------------------------


def test_a_members_edited_retry_of_an_owners_publish_waits_for_approval(api, owner, member, accounts, sandbox):
    sandbox.outcomes("x", "error")
    body = {"content": "The owner's words", "targets": [{"account_id": str(accounts.x.pk)}]}
    failed = api.as_(owner.key).post("/api/v1/publishes", body, format="json").json()["data"]
    assert api.as_(owner.key).get(f"/api/v1/publishes/{failed['id']}").json()["data"]["status"] == "failed"
    (target,) = failed["targets"]

    retried = api.as_(member.key).post(
        f"/api/v1/publishes/{failed['id']}/retry",
        {"targets": [{"target_id": target["id"], "content": "The member's words"}]},
        format="json",
    )

    assert retried.status_code == 200, retried.json()
    assert retried.json()["data"]["approval_status"] == "pending_approval"
    assert sandbox.posts() == []


def _edited_retry_waiting(api, owner, member, accounts, sandbox):
    """An owner's publish that failed, retried by a member with new words: it waits for approval."""
    sandbox.outcomes("x", "error")
    body = {"content": "The owner's words", "targets": [{"account_id": str(accounts.x.pk)}]}
    failed = api.as_(owner.key).post("/api/v1/publishes", body, format="json").json()["data"]
    (target,) = failed["targets"]
    edit = {"targets": [{"target_id": target["id"], "content": "The member's words"}]}
    retried = api.as_(member.key).post(f"/api/v1/publishes/{failed['id']}/retry", edit, format="json")
    assert retried.json()["data"]["approval_status"] == "pending_approval"
    return failed["id"]


def test_an_owner_cannot_retry_around_an_edited_retry_waiting_for_approval(api, owner, member, accounts, sandbox):
    publish_id = _edited_retry_waiting(api, owner, member, accounts, sandbox)

    again = api.as_(owner.key).post(f"/api/v1/publishes/{publish_id}/retry", {}, format="json")

    assert again.status_code == 400
    assert again.json()["error"]["code"] == "NOT_RETRYABLE"
    assert sandbox.posts() == []


def test_a_rejected_edited_retry_keeps_its_failed_target_and_cannot_be_retried(api, owner, member, accounts, sandbox):
    publish_id = _edited_retry_waiting(api, owner, member, accounts, sandbox)

    rejected = api.as_(owner.key).post(f"/api/v1/publishes/{publish_id}/reject", {"reason": "off brand"}, format="json")
    again = api.as_(owner.key).post(f"/api/v1/publishes/{publish_id}/retry", {}, format="json")

    data = rejected.json()["data"]
    assert (data["status"], data["approval_status"]) == ("failed", "rejected")
    assert [t["status"] for t in data["targets"]] == ["failed"]
    assert again.status_code == 400
    assert sandbox.posts() == []


# --- the dashboard and the admin ---------------------------------------------------------------


def test_a_members_move_on_the_dashboard_calendar_waits_for_approval(client, api, owner, member, accounts, sandbox):
    publish = _scheduled(api, owner, accounts.x, when=_at(2))
    sooner = _at(1)
    client.force_login(member.user)

    response = client.post(
        f"/dashboard/calendar/{publish['id']}/reschedule/",
        {"team": str(member.team.pk), "scheduled_at": sooner.strftime("%Y-%m-%dT%H:%M")},
    )

    assert response.status_code == 302
    moved = Publish.objects.get(pk=publish["id"])
    assert (moved.scheduled_at, moved.approval_status) == (sooner.replace(second=0), "pending_approval")
    assert release_due(now=_at(3)) == 0
    assert sandbox.posts() == []


def test_an_admins_move_on_the_dashboard_calendar_needs_no_approval(client, api, owner, admin, accounts, sandbox):
    publish = _scheduled(api, owner, accounts.x, when=_at(2))
    client.force_login(admin.user)

    client.post(
        f"/dashboard/calendar/{publish['id']}/reschedule/",
        {"team": str(admin.team.pk), "scheduled_at": _at(1).strftime("%Y-%m-%dT%H:%M")},
    )

    assert Publish.objects.get(pk=publish["id"]).approval_status is None


def test_staff_actions_send_nothing_of_an_edit_waiting_for_approval(client, api, owner, member, accounts, sandbox):
    publish = _scheduled(api, owner, accounts.x, when=_at(1))
    _patch(api, member, publish["id"], {"content": "The member's words"})
    client.force_login(UserFactory(username="staff", is_staff=True, is_superuser=True))

    for action in ("send_jobs_again", "retry"):
        client.post(
            reverse("admin:publishing_publish_changelist"),
            {"action": action, "_selected_action": [publish["id"]]},
            follow=True,
        )

    assert Publish.objects.get(pk=publish["id"]).approval_status == "pending_approval"
    assert release_due(now=_at(2)) == 0
    assert sandbox.posts() == []

"""The publish admin's actions, through the changelist as staff use them: each goes through
the lifecycle, so its rules (who may approve, what may be retried) hold there too."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts.schedules import DAYS
from accounts.services import posting_schedule_set
from publishing.models import DeliveryJob, Publish
from tests.factories import UserFactory
from tests.publishing.safety_support import broker_down

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client):
    client.force_login(UserFactory(username="staff", is_staff=True, is_superuser=True))
    return client


def _action(client, action, *publishes):
    return client.post(
        reverse("admin:publishing_publish_changelist"),
        {"action": action, "_selected_action": [str(p["id"]) for p in publishes]},
        follow=True,
    )


def _create(api, key, account, **body):
    response = api.as_(key).post(
        "/api/v1/publishes",
        {"content": "From the admin", "targets": [{"account_id": str(account.pk)}], **body},
        format="json",
    )
    assert response.status_code == 201, response.json()
    return response.json()["data"]


def test_staff_approve_a_pending_publish_and_it_is_published(api, staff, member, accounts, sandbox):
    member.team.approval_required = True
    member.team.save()
    pending = _create(api, member.key, accounts.x)

    _action(staff, "approve", pending)

    publish = Publish.objects.get(pk=pending["id"])
    assert (publish.approval_status, publish.status) == ("approved", "published")
    assert [p["text"] for p in sandbox.posts("x")] == ["From the admin"]


def test_staff_reject_records_the_reason(api, staff, member, accounts, sandbox):
    member.team.approval_required = True
    member.team.save()
    pending = _create(api, member.key, accounts.x)

    _action(staff, "reject", pending)

    publish = Publish.objects.get(pk=pending["id"])
    assert (publish.approval_status, publish.rejection_reason) == ("rejected", "Rejected by staff.")
    assert sandbox.posts() == []


def test_retry_re_sends_only_the_failed_target(api, staff, owner, accounts, sandbox):
    sandbox.outcomes("x", "error")
    body = {"targets": [{"account_id": str(accounts.x.pk)}, {"account_id": str(accounts.bluesky.pk)}]}
    partial = _create(api, owner.key, accounts.x, **body)
    assert Publish.objects.get(pk=partial["id"]).status == "partial"

    _action(staff, "retry", partial)

    assert Publish.objects.get(pk=partial["id"]).status == "published"
    assert len(sandbox.posts("x")) == 1
    assert len(sandbox.posts("bluesky")) == 1


def test_an_action_that_does_not_apply_says_why_and_changes_nothing(api, staff, owner, accounts, sandbox):
    published = _create(api, owner.key, accounts.x)

    response = _action(staff, "retry", published)

    assert "Only a failed or partial publish can be retried" in response.content.decode()
    assert Publish.objects.get(pk=published["id"]).status == "published"


def test_sending_jobs_again_hands_over_what_the_queue_refused(api, staff, owner, accounts, sandbox):
    body = {"content": "From the admin", "targets": [{"account_id": str(accounts.x.pk)}]}
    with broker_down():
        refused = api.as_(owner.key).post("/api/v1/publishes", body, format="json")
        assert refused.status_code == 503, refused.json()
        publish = {"id": refused.json()["error"]["details"]["publish_id"]}

        still = _action(staff, "send_jobs_again", publish)

    assert "The queue did not take its jobs" in still.content.decode()
    assert DeliveryJob.objects.filter(target__publish_id=publish["id"], enqueued_at=None).count() == 1
    assert sandbox.posts() == []

    sent = _action(staff, "send_jobs_again", publish)

    assert "Sent the jobs of 1 publish(es)." in sent.content.decode()
    assert Publish.objects.get(pk=publish["id"]).status == "published"
    assert len(sandbox.posts("x")) == 1


def test_unschedule_turns_a_scheduled_publish_back_into_a_draft(api, staff, owner, accounts, sandbox):
    scheduled = _create(api, owner.key, accounts.x, scheduled_at="2099-01-01T00:00:00Z")

    _action(staff, "unschedule", scheduled)

    assert Publish.objects.get(pk=scheduled["id"]).status == "draft"


def test_the_changelist_filters_by_platform(api, staff, owner, accounts, sandbox):
    on_x = _create(api, owner.key, accounts.x)
    _create(api, owner.key, accounts.bluesky)

    response = staff.get(reverse("admin:publishing_publish_changelist"), {"platform": "x"})

    assert response.status_code == 200
    assert list(response.context["cl"].queryset.values_list("id", flat=True)) == [Publish.objects.get(pk=on_x["id"]).pk]


def test_a_targets_page_shows_its_thread_items_with_their_ids(api, staff, owner, accounts, sandbox):
    target = {"account_id": str(accounts.bluesky.pk), "thread": [{"content": "The reply below it"}]}
    created = _create(api, owner.key, accounts.bluesky, targets=[target])
    target = created["targets"][0]

    page = staff.get(reverse("admin:publishing_target_change", args=[target["id"]]))

    assert page.status_code == 200
    html = page.content.decode()
    assert "The reply below it" in html
    [reply] = [p for p in sandbox.posts("bluesky") if p["text"] == "The reply below it"]
    assert reply["id"] in html


def test_a_queued_publishs_page_shows_the_slot_it_took(api, staff, owner, accounts):
    posting_schedule_set(account=accounts.x, time_zone="UTC", slots=[{"day": day, "time": "07:45"} for day in DAYS])
    created = _create(api, owner.key, accounts.x, publish_mode="queue")

    page = staff.get(reverse("admin:publishing_publish_change", args=[created["id"]]))

    assert page.status_code == 200
    html = page.content.decode()
    assert "queue slots taken" in html.lower()
    assert "7:45" in html

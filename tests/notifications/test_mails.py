"""Who is mailed when: approval asked for (owners and admins), approved or rejected (the
author), failed or partial (the author), an account needing reconnection (the owner); each
person's switches; each mail sent once, and none for a change that rolled back. Mails go
through Django's real email machinery into the locmem backend (`mail.outbox`)."""

from __future__ import annotations

import smtplib

import pytest
from django.core import mail
from django.db import transaction

from accounts.models import AccountStatus
from accounts.services import account_mark_expired
from demo.seed import sandbox_account
from notifications import services, tasks
from notifications.models import SentMail
from teams import services as team_services
from teams.models import Role
from tests.factories import UserFactory
from webhooks.models import Event

pytestmark = pytest.mark.django_db


@pytest.fixture
def approval_team(team, owner, admin, member):
    team.approval_required = True
    team.save()
    return team


def _create(api, key, *accounts, content="Launch day is here"):
    payload = {"content": content, "targets": [{"account_id": str(a.pk)} for a in accounts]}
    response = api.as_(key).post("/api/v1/publishes", payload, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["data"]


def _post(api, key, path, body=None):
    response = api.as_(key).post(path, body, format="json" if body else None)
    assert response.status_code == 200, response.json()
    return response.json()["data"]


def _to(outbox):
    return sorted(address for message in outbox for address in message.to)


def test_a_post_waiting_for_approval_mails_the_owner_and_admins_not_its_author(
    api, approval_team, owner, admin, member, sandbox, django_capture_on_commit_callbacks
):
    x = sandbox_account(approval_team, "x")
    with django_capture_on_commit_callbacks(execute=True):
        pending = _create(api, member.key, x)

    assert _to(mail.outbox) == ["admin@example.com", "owner@example.com"]
    message = mail.outbox[0]
    assert message.subject == "[Acme] A post waits for your approval"
    assert "member submitted a post in Acme" in message.body
    assert "Launch day is here" in message.body
    assert f"https://social.example.com/dashboard/publishes/{pending['id']}/?team={approval_team.pk}" in message.body
    assert "https://social.example.com/dashboard/settings/notifications/" in message.body
    assert sandbox.posts() == []


def test_an_approval_mails_the_author_only(
    api, approval_team, owner, member, sandbox, django_capture_on_commit_callbacks
):
    x = sandbox_account(approval_team, "x")
    pending = _create(api, member.key, x)

    with django_capture_on_commit_callbacks(execute=True):
        _post(api, owner.key, f"/api/v1/publishes/{pending['id']}/approve")

    assert _to(mail.outbox) == ["member@example.com"]
    assert mail.outbox[0].subject == "[Acme] Your post was approved"
    assert "owner approved your post in Acme" in mail.outbox[0].body


def test_a_rejection_mails_the_author_with_the_reason(
    api, approval_team, admin, member, sandbox, django_capture_on_commit_callbacks
):
    x = sandbox_account(approval_team, "x")
    pending = _create(api, member.key, x)

    with django_capture_on_commit_callbacks(execute=True):
        _post(api, admin.key, f"/api/v1/publishes/{pending['id']}/reject", {"reason": "Wrong date & tone"})

    assert _to(mail.outbox) == ["member@example.com"]
    assert mail.outbox[0].subject == "[Acme] Your post was rejected"
    assert "admin rejected your post in Acme" in mail.outbox[0].body
    assert "Their reason: Wrong date & tone" in mail.outbox[0].body  # plain text: nothing escaped


def test_a_failed_post_mails_its_author_which_accounts_failed_and_why(
    api, team, owner, member, sandbox, django_capture_on_commit_callbacks
):
    x = sandbox_account(team, "x")
    sandbox.outcomes("x", "error")
    with django_capture_on_commit_callbacks(execute=True):
        _create(api, member.key, x)

    assert _to(mail.outbox) == ["member@example.com"]
    message = mail.outbox[0]
    assert message.subject == "[Acme] Your post failed"
    assert "could not be published" in message.body
    assert f"- {x}: " in message.body
    assert x.access_token not in message.body  # no secret in a mail


def test_a_partial_post_names_the_accounts_that_failed(api, team, owner, sandbox, django_capture_on_commit_callbacks):
    x, bluesky = sandbox_account(team, "x"), sandbox_account(team, "bluesky")
    sandbox.outcomes("bluesky", "error")
    with django_capture_on_commit_callbacks(execute=True):
        _create(api, owner.key, x, bluesky)

    assert _to(mail.outbox) == ["owner@example.com"]
    message = mail.outbox[0]
    assert message.subject == "[Acme] Your post failed on some accounts"
    assert "failed on 1 of 2" in message.body
    assert f"- {bluesky}: " in message.body
    assert f"- {x}:" not in message.body


def test_a_published_post_mails_no_one(api, team, owner, member, sandbox, django_capture_on_commit_callbacks):
    x = sandbox_account(team, "x")
    with django_capture_on_commit_callbacks(execute=True):
        _create(api, member.key, x)

    assert mail.outbox == []


def test_an_expired_account_mails_the_owner_only(team, owner, admin, member, django_capture_on_commit_callbacks):
    x = sandbox_account(team, "x")
    with django_capture_on_commit_callbacks(execute=True):
        account_mark_expired(account=x, reason="The platform refused the token. Re-authorize it in the dashboard.")
        account_mark_expired(account=x, reason="Refused again")  # already expired: no second mail

    assert _to(mail.outbox) == ["owner@example.com"]
    message = mail.outbox[0]
    assert message.subject == f"[Acme] Reconnect {x}"
    assert "The platform refused the token." in message.body
    assert f"https://social.example.com/dashboard/?team={team.pk}" in message.body


def test_an_account_expiring_again_after_reconnection_mails_again(team, owner, django_capture_on_commit_callbacks):
    x = sandbox_account(team, "x")
    with django_capture_on_commit_callbacks(execute=True):
        account_mark_expired(account=x, reason="refused")
    x.status = AccountStatus.ACTIVE
    x.save()
    with django_capture_on_commit_callbacks(execute=True):
        account_mark_expired(account=x, reason="refused again")

    assert len(mail.outbox) == 2


def test_a_kind_turned_off_is_not_mailed(
    api, approval_team, owner, admin, member, sandbox, django_capture_on_commit_callbacks
):
    services.preference_set(user=admin.user, wanted=["approval_decided", "delivery_failed"])
    x = sandbox_account(approval_team, "x")
    with django_capture_on_commit_callbacks(execute=True):
        _create(api, member.key, x)

    assert _to(mail.outbox) == ["owner@example.com"]


def test_the_author_who_turned_decisions_off_hears_nothing(
    api, approval_team, owner, member, sandbox, django_capture_on_commit_callbacks
):
    services.preference_set(user=member.user, wanted=[])
    pending = _create(api, member.key, sandbox_account(approval_team, "x"))
    with django_capture_on_commit_callbacks(execute=True):
        _post(api, owner.key, f"/api/v1/publishes/{pending['id']}/reject")

    assert mail.outbox == []


def test_people_without_an_email_address_or_outside_the_team_get_nothing(
    api, approval_team, owner, member, outsider, sandbox, django_capture_on_commit_callbacks
):
    silent = UserFactory(username="silent", email="")
    team_services.membership_add(team=approval_team, user=silent, role=Role.ADMIN)
    with django_capture_on_commit_callbacks(execute=True):
        _create(api, member.key, sandbox_account(approval_team, "x"))

    assert _to(mail.outbox) == ["admin@example.com", "owner@example.com"]


def test_a_task_run_again_sends_nothing_twice(
    api, approval_team, owner, admin, member, sandbox, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        pending = _create(api, member.key, sandbox_account(approval_team, "x"))
    event = Event.objects.get(type="post.pending_approval")

    assert tasks.mail_event.delay(str(event.pk)).get() == 0  # the broker delivered it twice

    assert len(mail.outbox) == 2
    assert SentMail.objects.filter(object_id=pending["id"], sent_at__isnull=False).count() == 2


def test_a_temporary_refusal_is_retried_and_each_mail_sent_once(
    api, approval_team, owner, admin, member, sandbox, flaky_mail_server, django_capture_on_commit_callbacks
):
    # The first mail meets a dropped connection, then a greylisting, then goes through.
    flaky_mail_server.refusals = [smtplib.SMTPServerDisconnected("gone"), smtplib.SMTPDataError(451, b"later")]
    with django_capture_on_commit_callbacks(execute=True):
        _create(api, member.key, sandbox_account(approval_team, "x"))

    assert _to(mail.outbox) == ["admin@example.com", "owner@example.com"]
    assert SentMail.objects.filter(sent_at__isnull=False).count() == 2


def test_a_permanent_refusal_is_recorded_and_not_retried(
    team, owner, flaky_mail_server, django_capture_on_commit_callbacks
):
    flaky_mail_server.refusals = [smtplib.SMTPRecipientsRefused({"owner@example.com": (550, b"no such mailbox")})]
    x = sandbox_account(team, "x")
    with django_capture_on_commit_callbacks(execute=True):
        account_mark_expired(account=x, reason="refused")

    assert mail.outbox == []
    record = SentMail.objects.get()
    assert record.sent_at is None
    assert "no such mailbox" in record.error


def test_a_change_that_rolls_back_mails_no_one(team, owner, django_capture_on_commit_callbacks):
    x = sandbox_account(team, "x")

    def expire_then_fail() -> None:
        with transaction.atomic():
            account_mark_expired(account=x, reason="refused")
            raise RuntimeError("the change fails after the expiry")

    with django_capture_on_commit_callbacks(execute=True), pytest.raises(RuntimeError):
        expire_then_fail()

    assert mail.outbox == []
    assert SentMail.objects.count() == 0

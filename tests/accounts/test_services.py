"""`platform_call`, the one way anything calls a platform for an account, against the sandbox
over HTTP: tokens a client renewed during a call are kept, and a refused token, whether the
platform's answer says so or a raised error does, expires the account."""

from __future__ import annotations

import pytest
import requests

from accounts.models import AccountStatus, Platform, SocialAccount
from accounts.platforms.base import Outcome, OutcomeKind, PlatformError, Post
from accounts.services import platform_call
from sandbox import tokens
from tests.factories import SocialAccountFactory
from tests.platforms.bluesky_helpers import DID, HANDLE, logged

pytestmark = pytest.mark.django_db


def bluesky_account(team, *, lifetime_seconds: int) -> SocialAccount:
    return SocialAccountFactory(
        team=team,
        platform=Platform.BLUESKY,
        external_id=DID,
        handle=HANDLE,
        access_token=tokens.issue("bluesky", DID, lifetime_seconds=lifetime_seconds),
        refresh_token=tokens.issue("bluesky", DID, kind="sbr"),
    )


def revoked_x_account(team, sandbox) -> SocialAccount:
    account = SocialAccountFactory(team=team, platform=Platform.X, access_token=tokens.issue("x", "x-revoked"))
    requests.post(f"{sandbox.url}/_sandbox/tokens/revoke", json={"token": account.access_token}, timeout=5)
    return account


def publish(account: SocialAccount, text: str) -> Outcome:
    return platform_call(account=account, call=lambda client, conn: client.publish(conn, Post(text=text)))


def test_a_token_renewed_during_a_call_is_stored_and_the_next_call_uses_it(owner, sandbox):
    account = bluesky_account(owner.team, lifetime_seconds=-10)
    expired_access, spent_refresh = account.access_token, account.refresh_token

    first = publish(account, "after a refresh")
    # The same account object again: Bluesky's refresh tokens are good for one use, so a second
    # refresh with the spent one would be refused and expire the account.
    second = publish(account, "with the renewed token")

    assert (first.kind, second.kind) == (OutcomeKind.PUBLISHED, OutcomeKind.PUBLISHED)
    assert len(logged(sandbox, "com.atproto.server.refreshSession")) == 1
    stored = SocialAccount.objects.get(pk=account.pk)
    assert stored.status == AccountStatus.ACTIVE
    assert stored.access_token != expired_access
    assert stored.refresh_token != spent_refresh
    assert (stored.access_token, stored.refresh_token) == (account.access_token, account.refresh_token)


def test_a_refused_token_in_the_answer_expires_the_account(owner, sandbox):
    account = revoked_x_account(owner.team, sandbox)

    outcome = publish(account, "refused")

    assert outcome.kind is OutcomeKind.FAILED
    assert outcome.auth_failed
    account.refresh_from_db()
    assert account.status == AccountStatus.EXPIRED
    assert "Re-authorize it in the dashboard" in account.status_reason
    assert sandbox.posts("x") == []


def test_a_refused_token_in_a_raised_error_expires_the_account_and_reaches_the_caller(owner, sandbox):
    account = revoked_x_account(owner.team, sandbox)

    with pytest.raises(PlatformError) as raised:
        platform_call(account=account, call=lambda client, conn: client.metrics(conn, ["1"]))

    assert raised.value.outcome.auth_failed
    account.refresh_from_db()
    assert account.status == AccountStatus.EXPIRED


def test_a_call_that_fails_for_another_reason_leaves_the_account_active(owner, sandbox):
    account = SocialAccountFactory(team=owner.team, platform=Platform.X, access_token=tokens.issue("x", "x-ok"))
    sandbox.outcomes("x", "rate_limited")

    outcome = publish(account, "throttled")

    assert outcome.kind is OutcomeKind.NOT_SENT
    account.refresh_from_db()
    assert account.status == AccountStatus.ACTIVE

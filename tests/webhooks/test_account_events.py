"""The account events (account.connected, .disconnected, .expired, .expiring): what a receiver
subscribed to them gets, signed, over real HTTP on loopback, for changes made the way the
dashboard and the background jobs make them, against the platform sandbox."""

from __future__ import annotations

import datetime as dt
import html
import json
import re
from typing import Any
from urllib.parse import urlsplit

import pytest
import requests
from django.core import mail
from django.utils import timezone
from standardwebhooks import Webhook

from accounts import services as account_services
from accounts.models import AccountStatus, SocialAccount
from accounts.platforms.types import Credentials
from config.errors import InvalidRequest
from tests.factories import SocialAccountFactory
from webhooks.models import SUBSCRIBABLE_EVENTS, Event

pytestmark = pytest.mark.django_db

ACCOUNT_EVENTS = ["account.connected", "account.disconnected", "account.expired", "account.expiring"]
APPROVE = re.compile(r'id="approve" href="([^"]+)"')
ACCOUNT_FIELDS = {"id", "platform", "handle", "display_name", "status", "status_reason", "token_expires_at", "sandbox"}
APP_PASSWORD = "abcd-efgh-ijkl-mnop"


class Hook:
    """A webhook subscribed to the account events through the API, and what its receiver got."""

    def __init__(self, receiver: Any, secret: str) -> None:
        self.receiver, self.secret = receiver, secret

    def events(self) -> list[dict[str, Any]]:
        """Every delivery so far, each verified against its signature, as the receiver reads it."""
        return [Webhook(self.secret).verify(post.body, post.headers) for post in self.receiver.posts]

    def of(self, event_type: str) -> list[dict[str, Any]]:
        return [event for event in self.events() if event["type"] == event_type]


@pytest.fixture
def hook(api, owner, receiver) -> Hook:
    body = {"url": receiver.url, "events": ACCOUNT_EVENTS}
    created = api.as_(owner.key).post("/api/v1/webhooks", body, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["data"]["events"] == ACCOUNT_EVENTS
    return Hook(receiver, created.json()["data"]["secret"])


@pytest.fixture
def browser(client, owner):
    client.force_login(owner.user)
    return client


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """Run a block, then what it left for after commit (the deliveries, sent at once: eager tasks)."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


def _authorize(browser, owner, platform: str = "x") -> None:
    """Connect through the dashboard: start, approve on the sandbox's page, come back."""
    start = browser.post(f"/dashboard/accounts/connect/{platform}/", {"team": owner.team.pk})
    page = requests.get(start["Location"], timeout=10)
    back = urlsplit(html.unescape(APPROVE.search(page.text).group(1)))
    assert browser.get(f"{back.path}?{back.query}").status_code == 302


def _bluesky(browser, owner) -> None:
    login = {"team": owner.team.pk, "identifier": "acme.bsky.social", "app_password": APP_PASSWORD}
    assert browser.post("/dashboard/accounts/password/bluesky/", login).status_code == 302


def _no_token_in(event: dict[str, Any], account: SocialAccount) -> None:
    body = json.dumps(event)
    for token in (account.access_token, account.refresh_token):
        assert not token or token not in body


# --- subscribing -----------------------------------------------------------------------------


def test_a_subscription_takes_the_account_events_and_still_refuses_unknown_ones(api, owner, receiver):
    assert set(ACCOUNT_EVENTS) <= set(SUBSCRIBABLE_EVENTS)
    refused = api.as_(owner.key).post(
        "/api/v1/webhooks", {"url": receiver.url, "events": ["account.connected", "account.deleted"]}, format="json"
    )

    assert refused.status_code == 400
    assert refused.json()["error"]["type"] == "invalid_request"


def test_the_dashboard_form_offers_the_account_events(browser, owner):
    page = browser.get(f"/dashboard/settings/webhooks/?team={owner.team.pk}")

    assert page.status_code == 200
    for event_type in ACCOUNT_EVENTS:
        assert f'value="{event_type}"' in page.content.decode()


# --- connected ---------------------------------------------------------------------------------


def test_connecting_an_account_sends_a_signed_account_connected(browser, owner, sandbox, hook, committed):
    with committed():
        _authorize(browser, owner)

    account = SocialAccount.objects.get(team=owner.team, platform="x")
    (event,) = hook.events()
    assert event["type"] == "account.connected"
    assert event["team_id"] == str(owner.team.pk)
    assert event["data"]["reauthorized"] is False
    assert event["data"]["connect_link_id"] is None
    sent = event["data"]["account"]
    assert set(sent) == ACCOUNT_FIELDS
    assert sent["id"] == str(account.pk)
    assert (sent["platform"], sent["handle"], sent["status"], sent["sandbox"]) == ("x", account.handle, "active", True)
    assert sent["token_expires_at"] == account.token_expires_at.isoformat().replace("+00:00", "Z")
    _no_token_in(event, account)
    assert mail.outbox == []  # notifications mails no one of a connect


def test_connecting_the_same_identity_again_says_reauthorized(browser, owner, sandbox, hook, committed):
    with committed():
        _bluesky(browser, owner)
        _bluesky(browser, owner)  # the same handle: the same DID, the same account

    account = SocialAccount.objects.get(team=owner.team, platform="bluesky")
    first, second = hook.of("account.connected")
    assert first["data"]["reauthorized"] is False
    assert second["data"]["reauthorized"] is True
    assert first["data"]["account"]["id"] == second["data"]["account"]["id"] == str(account.pk)
    assert first["id"] != second["id"]


def test_re_authorizing_an_expired_account_says_reauthorized(owner, hook, committed):
    account = SocialAccountFactory(team=owner.team, platform="linkedin", status=AccountStatus.EXPIRED)
    credentials = account_services.connection_for(account).credentials

    with committed():
        account_services.account_connect(
            team=owner.team,
            platform="linkedin",
            credentials=credentials,
            sandbox=True,
            reauthorize=account,
            connect_link_id="cl_0123",
        )

    (event,) = hook.events()
    assert (event["data"]["reauthorized"], event["data"]["connect_link_id"]) == (True, "cl_0123")
    assert event["data"]["account"]["status"] == "active"


def test_a_connect_that_rolls_back_tells_no_one(owner, hook, committed):
    credentials = Credentials(access_token="a-token")  # no identity: refused before anything is stored

    with committed(), pytest.raises(InvalidRequest, match="did not say which account"):
        account_services.account_connect(team=owner.team, platform="x", credentials=credentials, sandbox=True)

    assert hook.events() == []
    assert not Event.objects.exists()


# --- disconnected ------------------------------------------------------------------------------


def test_disconnecting_sends_account_disconnected_once(browser, owner, hook, committed):
    account = SocialAccountFactory(team=owner.team, platform="x")

    with committed():
        assert browser.post(f"/dashboard/accounts/{account.pk}/disconnect/").status_code == 302
        account_services.account_disconnect(account=account)  # already disconnected: tells no one

    (event,) = hook.events()
    assert event["type"] == "account.disconnected"
    assert event["data"]["account"]["id"] == str(account.pk)
    assert event["data"]["account"]["status"] == AccountStatus.DISCONNECTED
    assert event["data"]["account"]["token_expires_at"] is None
    assert set(event["data"]) == {"account"}
    assert mail.outbox == []


# --- expired -----------------------------------------------------------------------------------


def test_an_expiry_sends_account_expired_once_and_mails_the_owner_once(owner, hook, committed):
    account = SocialAccountFactory(team=owner.team, platform="x")

    with committed():
        account_services.account_mark_expired(account=account, reason="The platform refused the token.")
        account_services.account_mark_expired(account=account, reason="Refused again.")

    (event,) = hook.events()
    assert event["type"] == "account.expired"
    assert event["data"]["account"]["status"] == "expired"
    assert event["data"]["account"]["status_reason"] == "The platform refused the token."
    expired_at = dt.datetime.fromisoformat(event["data"]["expired_at"])
    assert abs(expired_at - timezone.now()) < dt.timedelta(minutes=1)
    # notifications mails the owner of the expiry itself, and nothing more for the event
    assert len(mail.outbox) == 1


def test_a_refused_refresh_through_the_sandbox_sends_account_expired(browser, owner, sandbox, hook, committed):
    _authorize(browser, owner)  # before any subscriber would care: only the refresh is watched
    hook.receiver.requests.clear()
    account = SocialAccount.objects.get(platform="x")
    old_refresh = account.refresh_token
    SocialAccount.objects.filter(pk=account.pk).update(token_expires_at=timezone.now() + dt.timedelta(minutes=5))
    assert account_services.accounts_refresh_due() == 1  # X rotates the refresh token: the old one is spent
    SocialAccount.objects.filter(pk=account.pk).update(
        refresh_token=old_refresh, token_expires_at=timezone.now() + dt.timedelta(minutes=5)
    )

    with committed():
        assert account_services.accounts_refresh_due() == 0
        assert account_services.accounts_refresh_due() == 0  # expired now: not tried, not told again

    (event,) = hook.events()
    assert event["type"] == "account.expired"
    assert event["data"]["account"]["id"] == str(account.pk)
    assert "refused to renew" in event["data"]["account"]["status_reason"]
    _no_token_in(event, SocialAccount.objects.get(pk=account.pk))


# --- expiring ----------------------------------------------------------------------------------


def _unrenewable(owner, expires_in: dt.timedelta, **fields: Any) -> SocialAccount:
    """A LinkedIn account without a refresh token: its token cannot be renewed."""
    return SocialAccountFactory(
        team=owner.team,
        platform="linkedin",
        refresh_token="",
        token_expires_at=timezone.now() + expires_in,
        **fields,
    )


def test_a_token_that_cannot_be_renewed_is_warned_of_once_per_expiry(owner, hook, committed):
    account = _unrenewable(owner, dt.timedelta(days=3))

    with committed():
        assert account_services.accounts_warn_expiring() == 1
        assert account_services.accounts_warn_expiring() == 0

    (event,) = hook.events()
    assert event["type"] == "account.expiring"
    assert event["data"]["account"]["id"] == str(account.pk)
    assert event["data"]["account"]["status"] == "active"
    expires_at = account.token_expires_at.isoformat().replace("+00:00", "Z")
    assert event["data"]["expires_at"] == event["data"]["account"]["token_expires_at"] == expires_at
    assert len(mail.outbox) == 0  # notifications mails nothing for account events

    # Re-authorized with a token that again cannot be renewed: its new expiry is warned of too.
    renewed = timezone.now() + dt.timedelta(days=6)
    SocialAccount.objects.filter(pk=account.pk).update(token_expires_at=renewed)
    with committed():
        assert account_services.accounts_warn_expiring() == 1
        assert account_services.accounts_warn_expiring() == 0

    first, second = hook.of("account.expiring")
    assert second["data"]["expires_at"] == renewed.isoformat().replace("+00:00", "Z")
    assert first["id"] != second["id"]


def test_a_later_run_warns_of_a_token_once_it_comes_within_seven_days(owner, hook, committed):
    account = _unrenewable(owner, dt.timedelta(days=8))

    with committed():
        assert account_services.accounts_warn_expiring() == 0
        assert account_services.accounts_warn_expiring(now=timezone.now() + dt.timedelta(days=1, hours=1)) == 1

    (event,) = hook.events()
    assert event["data"]["account"]["id"] == str(account.pk)


def test_no_warning_for_renewable_distant_or_inactive_tokens(owner, hook, committed):
    soon = dt.timedelta(days=2)
    in_two_days = timezone.now() + soon
    SocialAccountFactory(team=owner.team, platform="x", token_expires_at=in_two_days)  # it has a refresh token
    # Instagram and Threads renew the long-lived token with itself: no refresh token needed.
    SocialAccountFactory(team=owner.team, platform="instagram", refresh_token="", token_expires_at=in_two_days)
    SocialAccountFactory(team=owner.team, platform="threads", refresh_token="", token_expires_at=in_two_days)
    _unrenewable(owner, dt.timedelta(days=7, hours=1))
    _unrenewable(owner, soon, status=AccountStatus.EXPIRED)
    _unrenewable(owner, soon, status=AccountStatus.DISABLED)
    _unrenewable(owner, -dt.timedelta(hours=1))  # already past: a refused call will expire it
    SocialAccountFactory(team=owner.team, platform="facebook", refresh_token="", token_expires_at=None)

    with committed():
        assert account_services.accounts_warn_expiring() == 0

    assert hook.events() == []


def test_two_runs_that_read_the_same_account_warn_once(owner, hook, committed):
    account = _unrenewable(owner, dt.timedelta(days=1))
    seen_by_one = SocialAccount.objects.get(pk=account.pk)
    seen_by_other = SocialAccount.objects.get(pk=account.pk)

    with committed():
        warned = [account_services._warn_expiring(seen) for seen in (seen_by_one, seen_by_other)]

    assert warned == [True, False]
    assert len(hook.of("account.expiring")) == 1


def test_an_instagram_token_about_to_expire_is_renewed_not_warned_of(browser, owner, sandbox, hook, committed):
    _authorize(browser, owner, "instagram")
    hook.receiver.requests.clear()
    account = SocialAccount.objects.get(platform="instagram")
    assert account.refresh_token == ""
    SocialAccount.objects.filter(pk=account.pk).update(token_expires_at=timezone.now() + dt.timedelta(minutes=5))

    with committed():
        assert account_services.accounts_warn_expiring() == 0
        assert account_services.accounts_refresh_due() == 1

    account.refresh_from_db()
    assert account.status == AccountStatus.ACTIVE
    assert account.token_expires_at > timezone.now() + dt.timedelta(days=50)
    assert hook.events() == []

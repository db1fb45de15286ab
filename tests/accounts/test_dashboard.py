"""Connecting accounts through the dashboard views, against the sandbox's real authorize pages."""

from __future__ import annotations

import datetime as dt
import html
import re
from urllib.parse import urlsplit

import pytest
import requests
from django.utils import timezone

from accounts import services
from accounts.models import AccountStatus, SocialAccount
from sandbox import tokens
from tests.factories import SocialAccountFactory

pytestmark = pytest.mark.django_db

APPROVE = re.compile(r'id="approve" href="([^"]+)"')


@pytest.fixture
def browser(client, owner):
    client.force_login(owner.user)
    return client


def _authorize(browser, owner, platform="x", path=None):
    """Start a connect, approve on the sandbox's page, and come back to our callback."""
    start = browser.post(path or f"/dashboard/accounts/connect/{platform}/", {"team": owner.team.pk})
    assert start.status_code == 302
    page = requests.get(start["Location"], timeout=10)
    assert page.status_code == 200
    back = urlsplit(html.unescape(APPROVE.search(page.text).group(1)))
    return browser.get(f"{back.path}?{back.query}")


def test_connecting_x_stores_the_account_with_encrypted_tokens(browser, owner, sandbox):
    response = _authorize(browser, owner)

    assert response.status_code == 302
    account = SocialAccount.objects.get(team=owner.team, platform="x")
    assert (account.status, account.sandbox) == (AccountStatus.ACTIVE, True)
    assert tokens.parse(account.access_token).account == account.external_id
    assert account.refresh_token
    page = browser.get(response["Location"]).content.decode()
    assert "Connected" in page
    assert account.handle in page


def test_the_dashboard_sends_state_and_a_pkce_challenge(browser, owner, sandbox):
    start = browser.post("/dashboard/accounts/connect/x/", {"team": owner.team.pk})

    query = dict(part.split("=", 1) for part in urlsplit(start["Location"]).query.split("&"))
    assert start["Location"].startswith(f"{sandbox.url}/x.com/i/oauth2/authorize")
    assert query["code_challenge_method"] == "S256"
    assert len(query["state"]) >= 32
    assert len(query["code_challenge"]) == 43


def test_a_callback_with_an_unknown_or_reused_state_is_refused(browser, owner, sandbox):
    first = _authorize(browser, owner)
    assert first.status_code == 302
    replay = browser.get(f"/dashboard/accounts/callback/x/?code=whatever&state={'a' * 43}")

    assert replay.status_code == 302
    assert "unknown or too old" in browser.get(replay["Location"]).content.decode()
    assert SocialAccount.objects.filter(platform="x").count() == 1


def test_re_authorizing_with_another_identity_is_refused(browser, owner, sandbox):
    _authorize(browser, owner)
    account = SocialAccount.objects.get(platform="x")
    services.account_mark_expired(account=account, reason="refused")
    # The sandbox authorizes a new user each time, so this one cannot come back.
    SocialAccount.objects.filter(pk=account.pk).update(external_id="replaced")

    response = _authorize(browser, owner, path=f"/dashboard/accounts/{account.pk}/reauthorize/")

    assert response.status_code == 302
    account.refresh_from_db()
    assert account.status == AccountStatus.EXPIRED  # a different identity came back: refused
    assert "different account" in browser.get(response["Location"]).content.decode()


def test_re_authorizing_with_the_same_identity_revives_the_account(browser, owner, sandbox):
    account = SocialAccountFactory(
        team=owner.team, platform="bluesky", external_id="", handle="acme.bsky.social", status=AccountStatus.EXPIRED
    )
    login = {"team": owner.team.pk, "account": account.pk, "identifier": "acme.bsky.social"}
    # Learn the DID the sandbox gives this handle, as a real account's would be known.
    first = browser.post("/dashboard/accounts/password/bluesky/", {**login, "app_password": "abcd-efgh-ijkl-mnop"})
    assert first.status_code == 400  # refused: the stored identity (none) differs
    did = requests.post(
        f"{sandbox.url}/bsky.social/xrpc/com.atproto.server.createSession",
        json={"identifier": "acme.bsky.social", "password": "abcd-efgh-ijkl-mnop"},
        timeout=10,
    ).json()["did"]
    SocialAccount.objects.filter(pk=account.pk).update(external_id=did)

    response = browser.post("/dashboard/accounts/password/bluesky/", {**login, "app_password": "abcd-efgh-ijkl-mnop"})

    assert response.status_code == 302
    account.refresh_from_db()
    assert (account.status, account.external_id) == (AccountStatus.ACTIVE, did)
    assert SocialAccount.objects.filter(platform="bluesky").count() == 1


def test_bluesky_connects_with_a_handle_and_an_app_password(browser, owner, sandbox):
    form = browser.post("/dashboard/accounts/connect/bluesky/", {"team": owner.team.pk})
    assert form.status_code == 302
    assert browser.get(form["Location"]).status_code == 200

    refused = browser.post(
        form["Location"], {"team": owner.team.pk, "identifier": "acme.bsky.social", "app_password": "hunter2"}
    )
    accepted = browser.post(
        form["Location"],
        {"team": owner.team.pk, "identifier": "acme.bsky.social", "app_password": "abcd-efgh-ijkl-mnop"},
    )

    assert refused.status_code == 400
    assert accepted.status_code == 302
    account = SocialAccount.objects.get(platform="bluesky")
    assert account.external_id.startswith("did:")
    assert "hunter2" not in account.access_token


def test_members_cannot_connect_accounts(client, member, sandbox):
    client.force_login(member.user)

    response = client.post("/dashboard/accounts/connect/x/", {"team": member.team.pk})

    assert response.status_code == 403


def test_disconnecting_forgets_the_tokens(browser, owner, sandbox):
    _authorize(browser, owner)
    account = SocialAccount.objects.get(platform="x")

    browser.post(f"/dashboard/accounts/{account.pk}/disconnect/")

    account.refresh_from_db()
    assert (account.status, account.access_token, account.refresh_token) == (AccountStatus.DISCONNECTED, "", "")


def test_another_teams_account_cannot_be_touched(browser, outsider):
    theirs = SocialAccountFactory(team=outsider.team)

    assert browser.post(f"/dashboard/accounts/{theirs.pk}/disconnect/").status_code == 404
    assert browser.post(f"/dashboard/accounts/{theirs.pk}/reauthorize/").status_code == 404


def test_the_dashboard_needs_a_login(client):
    response = client.get("/dashboard/")

    assert response.status_code == 302
    assert response["Location"].startswith("/login/")


def test_tokens_about_to_expire_are_refreshed_and_a_refused_refresh_expires_the_account(browser, owner, sandbox):
    _authorize(browser, owner)
    account = SocialAccount.objects.get(platform="x")
    old_access, old_refresh = account.access_token, account.refresh_token
    SocialAccount.objects.filter(pk=account.pk).update(token_expires_at=timezone.now() + dt.timedelta(minutes=5))

    assert services.accounts_refresh_due() == 1

    account.refresh_from_db()
    assert account.access_token != old_access
    assert account.refresh_token != old_refresh
    # The rotated-out refresh token is refused: the account must be re-authorized.
    SocialAccount.objects.filter(pk=account.pk).update(
        refresh_token=old_refresh, token_expires_at=timezone.now() + dt.timedelta(minutes=5)
    )
    assert services.accounts_refresh_due() == 0
    account.refresh_from_db()
    assert account.status == AccountStatus.EXPIRED


def test_a_refresh_that_cannot_reach_the_platform_leaves_the_account_active(browser, owner, sandbox, settings):
    _authorize(browser, owner)
    account = SocialAccount.objects.get(platform="x")
    SocialAccount.objects.filter(pk=account.pk).update(token_expires_at=timezone.now() + dt.timedelta(minutes=5))
    settings.SANDBOX_URL = "http://127.0.0.1:9"  # nothing listens there

    assert services.accounts_refresh_due() == 0

    account.refresh_from_db()
    assert account.status == AccountStatus.ACTIVE


@pytest.mark.parametrize(
    "platform", ["x", "instagram", "tiktok", "youtube", "facebook", "linkedin", "pinterest", "threads"]
)
def test_every_oauth_platform_connects_through_the_dashboard(browser, owner, sandbox, platform):
    response = _authorize(browser, owner, platform)

    assert response.status_code == 302
    messages = browser.get(response["Location"]).content.decode()
    account = SocialAccount.objects.get(team=owner.team, platform=platform)
    assert "Connected" in messages, messages
    assert (account.status, account.sandbox) == (AccountStatus.ACTIVE, True)
    assert account.access_token
    assert account.external_id


@pytest.mark.parametrize("team_id", ["not-a-uuid", "00000000-0000-7000-8000-000000000000"])
def test_a_malformed_or_foreign_team_in_the_address_is_not_found(client, owner, team_id):
    client.force_login(owner.user)

    assert client.get("/dashboard/", {"team": team_id}).status_code == 404


@pytest.mark.parametrize("account", ["not-a-uuid", "00000000-0000-0000-0000-000000000000"])
def test_connect_page_with_an_unknown_account_is_a_404(browser, owner, account):
    page = browser.get(f"/dashboard/accounts/password/bluesky/?team={owner.team.pk}&account={account}")
    form = browser.post(
        "/dashboard/accounts/password/bluesky/",
        {"team": owner.team.pk, "account": account, "identifier": "a.bsky.social", "app_password": "x"},
    )

    assert (page.status_code, form.status_code) == (404, 404)


def test_another_teams_account_cannot_be_re_authorized_from_the_connect_page(browser, owner, outsider):
    theirs = SocialAccountFactory(team=outsider.team, platform="bluesky")

    page = browser.get(f"/dashboard/accounts/password/bluesky/?team={owner.team.pk}&account={theirs.pk}")

    assert page.status_code == 404


# --- the capabilities the compose page reads ------------------------------------------------------


def _capabilities_url(account, team):
    return f"/dashboard/accounts/{account.pk}/capabilities/?team={team.pk}"


def test_a_member_reads_an_accounts_live_options_with_the_session(client, owner, member, sandbox):
    account = SocialAccountFactory(
        team=owner.team,
        platform="pinterest",
        external_id="pin-dash",
        access_token=tokens.issue("pinterest", "pin-dash"),
    )
    client.force_login(member.user)

    response = client.get(_capabilities_url(account, owner.team))

    assert response.status_code == 200
    data = response.json()["data"]
    assert data["live"]["boards"] == [{"id": "549755885175", "name": "Demo board"}]
    assert data["platform_settings_schema"]["properties"]["boardId"]["enum"] == ["549755885175"]


def test_another_teams_account_has_no_capabilities_page(browser, owner, outsider):
    theirs = SocialAccountFactory(team=outsider.team, platform="pinterest")

    as_own_team = browser.get(_capabilities_url(theirs, owner.team))
    as_their_team = browser.get(_capabilities_url(theirs, outsider.team))

    assert as_own_team.status_code == 404
    assert as_their_team.status_code == 404


def test_the_capabilities_page_needs_a_signed_in_user(client, owner):
    account = SocialAccountFactory(team=owner.team, platform="x")

    response = client.get(_capabilities_url(account, owner.team))

    assert response.status_code == 302
    assert "/login/" in response["Location"]

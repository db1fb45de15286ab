"""The sandbox does not exist in production: no sandbox account is connected or used there, and
a platform without app credentials cannot be connected (development is unchanged)."""

from __future__ import annotations

import pytest
from cryptography.fernet import Fernet
from django.core.management import CommandError, call_command
from django.urls import reverse

from accounts import services
from accounts.errors import SandboxUnavailable
from accounts.models import AccountStatus, SocialAccount
from accounts.platforms.base import Connection, Credentials, Post
from accounts.platforms.registry import client_for
from demo.seed import sandbox_account
from publishing import inputs, lifecycle, tasks
from publishing.models import DeliveryJob
from tests.factories import SocialAccountFactory, UserFactory

pytestmark = pytest.mark.django_db

KEY = Fernet.generate_key().decode()


@pytest.fixture
def production(settings):
    settings.APP_ENV = "production"
    settings.DEVELOPMENT = False
    settings.FIELD_ENCRYPTION_KEYS = [KEY]  # production has no derived key
    for platform in ("X", "INSTAGRAM", "TIKTOK", "YOUTUBE", "FACEBOOK", "LINKEDIN", "PINTEREST", "THREADS"):
        setattr(settings, f"{platform}_CLIENT_ID", "")
    return settings


@pytest.fixture
def browser(client, owner):
    client.force_login(owner.user)
    return client


def _messages(browser, response) -> str:
    return browser.get(response["Location"]).content.decode()


def test_a_platform_without_app_credentials_cannot_be_connected_in_production(browser, owner, production):
    response = browser.post("/dashboard/accounts/connect/x/", {"team": owner.team.pk, "sandbox": "on"})

    assert response.status_code == 302
    assert not response["Location"].startswith("http")  # back to the dashboard, not to an authorize page
    assert "X cannot be connected. Its app credentials are not configured (X_CLIENT_ID" in _messages(browser, response)
    assert not [key for key in browser.session.keys() if key.startswith("connect:")]  # noqa: SIM118 - no __iter__


def test_the_dashboard_says_which_platforms_lack_app_credentials_in_production(browser, owner, production):
    production.X_CLIENT_ID = "real-client-id"

    page = browser.get(f"/dashboard/?team={owner.team.pk}").content.decode()

    assert "(TIKTOK_CLIENT_ID, TIKTOK_CLIENT_SECRET)" in page
    assert "X_CLIENT_ID" not in page  # configured
    assert "BLUESKY_CLIENT_ID" not in page  # connects with an app password
    assert "there is no sandbox in production" in page


def test_a_configured_platform_connects_the_real_platform_in_production(browser, owner, production):
    production.X_CLIENT_ID = "real-client-id"

    response = browser.post("/dashboard/accounts/connect/x/", {"team": owner.team.pk, "sandbox": "on"})

    assert response.status_code == 302
    assert response["Location"].startswith("https://x.com/i/oauth2/authorize?")
    attempt = next(value for key, value in browser.session.items() if key.startswith("connect:"))
    assert attempt["sandbox"] is False


def test_development_still_connects_unconfigured_platforms_to_the_sandbox(browser, owner, settings):
    settings.X_CLIENT_ID = ""

    response = browser.post("/dashboard/accounts/connect/x/", {"team": owner.team.pk})

    assert response["Location"].startswith(f"{settings.SANDBOX_URL}/x.com/i/oauth2/authorize?")


def test_re_authorizing_a_sandbox_account_is_refused_in_production(browser, owner, production):
    production.X_CLIENT_ID = "real-client-id"
    account = SocialAccountFactory(team=owner.team, sandbox=True, status=AccountStatus.EXPIRED)

    response = browser.post(f"/dashboard/accounts/{account.pk}/reauthorize/")

    assert response.status_code == 302
    assert "Sandbox accounts exist only in development" in _messages(browser, response)


def test_re_authorizing_a_sandbox_bluesky_account_is_refused_in_production(browser, owner, production):
    account = SocialAccountFactory(team=owner.team, platform="bluesky", sandbox=True, status=AccountStatus.EXPIRED)

    response = browser.post(
        "/dashboard/accounts/password/bluesky/",
        {"team": owner.team.pk, "account": account.pk, "identifier": "a.bsky.social", "app_password": "x"},
    )

    assert response.status_code == 400
    assert "Sandbox accounts exist only in development" in response.content.decode()


def test_no_sandbox_account_can_be_created_in_production(owner, production):
    credentials = Credentials(access_token="token", external_id="ext-1")

    with pytest.raises(SandboxUnavailable):
        services.account_connect(team=owner.team, platform="x", credentials=credentials, sandbox=True)
    with pytest.raises(SandboxUnavailable):
        sandbox_account(owner.team, "x")

    assert not SocialAccount.objects.exists()


def test_seed_demo_refuses_to_run_in_production(production):
    with pytest.raises(CommandError, match="APP_ENV=development"):
        call_command("seed_demo", "--fresh", "--json")


def test_a_sandbox_account_sends_nothing_to_the_sandbox_in_production(owner, sandbox, production):
    account = SocialAccountFactory(team=owner.team, platform="x", sandbox=True)

    with pytest.raises(SandboxUnavailable):
        client_for("x").publish(services.connection_for(account), Post(text="hello"))
    with pytest.raises(SandboxUnavailable):
        Connection(Credentials(access_token="t"), sandbox=True).url("https://api.x.com/2/tweets")

    assert sandbox.posts() == []


def test_a_publish_to_a_sandbox_account_is_a_400_in_production(api, owner, sandbox, settings):
    settings.FIELD_ENCRYPTION_KEYS = [KEY]
    account = sandbox_account(owner.team, "x")  # made in development, then found in production
    settings.APP_ENV, settings.DEVELOPMENT = "production", False

    response = api.as_(owner.key).post(
        "/api/v1/publishes", {"content": "Hello", "targets": [{"account_id": str(account.pk)}]}, format="json"
    )

    assert response.status_code == 400, response.json()
    error = response.json()["error"]
    assert (error["code"], error["details"]) == ("SANDBOX_UNAVAILABLE", {"target": 0, "account_id": str(account.pk)})
    assert sandbox.posts() == []


def test_a_publish_queued_in_development_fails_without_sending_in_production(api, owner, sandbox, settings):
    settings.FIELD_ENCRYPTION_KEYS = [KEY]
    account = sandbox_account(owner.team, "x")
    # Tasks are not eager: its job goes to a broker no worker reads, and waits there.
    publish = lifecycle.publish_create(
        team=owner.team,
        caller=inputs.Caller(user=owner.user),
        content="Hello",
        media_ids=[],
        targets=[inputs.TargetInput(account_id=str(account.pk))],
        publish_mode="immediate",
        scheduled_at=None,
    )
    settings.APP_ENV, settings.DEVELOPMENT = "production", False

    for job in DeliveryJob.objects.filter(target__publish=publish):
        tasks.deliver(str(job.pk))  # what a worker of the production deployment runs

    data = api.as_(owner.key).get(f"/api/v1/publishes/{publish.pk}").json()["data"]
    assert data["status"] == "failed"
    assert data["targets"][0]["error"]["code"] == "SANDBOX_UNAVAILABLE"
    assert sandbox.posts() == []


def test_the_admin_cannot_mark_an_account_as_sandbox_in_production(client, owner, production):
    client.force_login(UserFactory(username="staff", is_staff=True, is_superuser=True))
    account = SocialAccountFactory(team=owner.team, sandbox=False)

    page = client.get(reverse("admin:accounts_socialaccount_change", args=[account.pk])).content.decode()

    assert 'name="sandbox"' not in page


def test_a_sandbox_accounts_capabilities_say_why_no_live_options_are_read(api, owner, production):
    account = SocialAccountFactory(team=owner.team, platform="pinterest", sandbox=True)

    response = api.as_(owner.key).get(f"/api/v1/accounts/{account.pk}/capabilities")

    assert response.status_code == 200
    live = response.json()["data"]["live"]
    assert live["available"] is False
    assert live["error"]["code"] == "SANDBOX_UNAVAILABLE"

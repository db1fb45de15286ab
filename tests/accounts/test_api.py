from __future__ import annotations

import pytest
from django.db import connection

from accounts.models import AccountStatus, Platform, SocialAccount
from accounts.platforms.limits import PLATFORMS
from tests.factories import SocialAccountFactory

pytestmark = pytest.mark.django_db


def test_lists_the_teams_accounts_oldest_first_with_capabilities(api, owner):
    first = SocialAccountFactory(team=owner.team, platform=Platform.X)
    second = SocialAccountFactory(team=owner.team, platform=Platform.BLUESKY)

    body = api.as_(owner.key).get("/api/v1/accounts").json()

    assert [a["id"] for a in body["data"]] == [str(first.pk), str(second.pk)]
    x = body["data"][0]
    assert x["platform"] == "x"
    assert x["status"] == "active"
    assert x["capabilities"]["text"]["max_length"] == 280
    assert x["capabilities"]["text"]["counting"] == "weighted"
    assert body["pagination"]["total_count"] == 2


def test_tokens_never_leave_the_service(api, owner):
    SocialAccountFactory(team=owner.team, access_token="secret-access", refresh_token="secret-refresh")

    raw = api.as_(owner.key).get("/api/v1/accounts").content.decode()

    assert "secret-access" not in raw
    assert "secret-refresh" not in raw


def test_tokens_are_encrypted_at_rest(owner):
    account = SocialAccountFactory(team=owner.team, access_token="secret-access")

    with connection.cursor() as cursor:
        cursor.execute("SELECT access_token FROM accounts_socialaccount WHERE id = %s", [account.pk.hex])
        row = cursor.fetchone()
    if row is None:  # PostgreSQL stores the uuid natively
        with connection.cursor() as cursor:
            cursor.execute("SELECT access_token FROM accounts_socialaccount WHERE id = %s", [account.pk])
            row = cursor.fetchone()

    assert "secret-access" not in row[0]
    assert SocialAccount.objects.get(pk=account.pk).access_token == "secret-access"


@pytest.mark.parametrize("platform", PLATFORMS)
def test_every_platform_has_capabilities(api, owner, platform):
    account = SocialAccountFactory(team=owner.team, platform=platform)

    body = api.as_(owner.key).get(f"/api/v1/accounts/{account.pk}").json()

    capabilities = body["data"]["capabilities"]
    assert set(capabilities) >= {"text", "images", "videos", "title", "requires_media"}
    assert capabilities["videos"]["supported"] is True


def test_youtube_capabilities_say_a_title_is_required(api, owner):
    account = SocialAccountFactory(team=owner.team, platform=Platform.YOUTUBE)

    capabilities = api.as_(owner.key).get(f"/api/v1/accounts/{account.pk}").json()["data"]["capabilities"]

    assert capabilities["title"]["required"] is True
    assert capabilities["images"]["supported"] is False


def test_filters_by_comma_separated_platforms(api, owner):
    SocialAccountFactory(team=owner.team, platform=Platform.X)
    SocialAccountFactory(team=owner.team, platform=Platform.TIKTOK)
    SocialAccountFactory(team=owner.team, platform=Platform.BLUESKY)

    body = api.as_(owner.key).get("/api/v1/accounts?platform=x,bluesky").json()

    assert sorted(a["platform"] for a in body["data"]) == ["bluesky", "x"]


def test_filters_by_status(api, owner):
    SocialAccountFactory(team=owner.team, status=AccountStatus.ACTIVE)
    expired = SocialAccountFactory(team=owner.team, status=AccountStatus.EXPIRED)

    body = api.as_(owner.key).get("/api/v1/accounts?status=expired").json()

    assert [a["id"] for a in body["data"]] == [str(expired.pk)]


@pytest.mark.parametrize(
    ("query", "field"),
    [("platform=x,myspace", "platform"), ("status=sleeping", "status"), ("platform=,", "platform")],
)
def test_unknown_filter_values_are_a_400_naming_the_field(api, owner, query, field):
    response = api.as_(owner.key).get(f"/api/v1/accounts?{query}")

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["type"] == "invalid_request"
    assert field in error["details"]


def test_one_account_by_id(api, owner):
    account = SocialAccountFactory(team=owner.team, platform=Platform.LINKEDIN, handle="acme")

    response = api.as_(owner.key).get(f"/api/v1/accounts/{account.pk}")

    assert response.status_code == 200
    assert response.json()["data"]["handle"] == "acme"


def test_another_teams_account_is_not_found_and_not_listed(api, owner, outsider):
    theirs = SocialAccountFactory(team=outsider.team)

    detail = api.as_(owner.key).get(f"/api/v1/accounts/{theirs.pk}")
    listing = api.as_(owner.key).get("/api/v1/accounts").json()

    assert detail.status_code == 404
    assert detail.json()["error"]["code"] == "ACCOUNT_NOT_FOUND"
    assert str(theirs.pk) not in [a["id"] for a in listing["data"]]


def test_unknown_account_id_is_account_not_found(api, owner):
    response = api.as_(owner.key).get("/api/v1/accounts/01900000-0000-7000-8000-000000000000")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "ACCOUNT_NOT_FOUND"


def test_listing_costs_a_fixed_number_of_queries(api, owner, django_assert_max_num_queries):
    for platform in PLATFORMS:
        SocialAccountFactory(team=owner.team, platform=platform)
    api.as_(owner.key).get("/api/v1/accounts")  # warm: last_used_at is written once a minute

    with django_assert_max_num_queries(4):
        assert api.get("/api/v1/accounts").status_code == 200

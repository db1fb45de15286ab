"""GET /api/v1/accounts/{id}/capabilities: the platform_settings schema, the limits and the live
options, read from the sandbox over HTTP, cached, and never a 5xx when the platform fails."""

from __future__ import annotations

import jsonschema
import pytest
import requests

from accounts.models import AccountStatus, Platform, SocialAccount
from accounts.platforms.limits import PLATFORMS, limits_for
from sandbox import tokens
from tests.factories import SocialAccountFactory

pytestmark = pytest.mark.django_db

BOARD = "549755885175"


def sandbox_account(team, platform: str, external_id: str) -> SocialAccount:
    token = tokens.issue(platform, external_id)
    return SocialAccountFactory(team=team, platform=platform, external_id=external_id, access_token=token)


def capabilities(api, key, account, query=""):
    return api.as_(key).get(f"/api/v1/accounts/{account.pk}/capabilities{query}")


def read(sandbox, path_end: str) -> list[dict]:
    return [r for r in sandbox.state.requests if r["path"].endswith(path_end)]


def add_boards(sandbox, account: str, names: list[str]) -> list[dict]:
    response = requests.post(
        f"{sandbox.url}/_sandbox/pinterest/boards", json={"account": account, "names": names}, timeout=5
    )
    return response.json()["boards"]


def test_pinterest_boards_from_every_page_become_the_board_choices(api, owner, sandbox):
    account = sandbox_account(owner.team, Platform.PINTEREST, "pin-owner-1")
    added = add_boards(sandbox, "pin-owner-1", [f"Board {n}" for n in range(120)])

    response = capabilities(api, owner.key, account)

    assert response.status_code == 200
    data = response.json()["data"]
    assert data["account_id"] == str(account.pk)
    assert data["platform"] == "pinterest"
    live = data["live"]
    assert live["available"] is True
    assert live["error"] is None
    assert live["fetched_at"]
    assert [b["id"] for b in live["boards"]] == [BOARD, *(b["id"] for b in added)]
    board = data["platform_settings_schema"]["properties"]["boardId"]
    assert board["enum"][0] == BOARD
    assert {"const": added[-1]["id"], "title": "Board 119"} in board["oneOf"]
    assert len(read(sandbox, "/api.pinterest.com/v5/boards")) == 2  # two pages of 100


def test_the_limits_are_the_accounts_capabilities(api, owner, sandbox):
    account = sandbox_account(owner.team, Platform.PINTEREST, "pin-owner-2")

    data = capabilities(api, owner.key, account).json()["data"]

    assert data["limits"] == limits_for("pinterest").capabilities()
    assert data["platform_settings_schema"]["required"] == ["boardId"]


def test_the_formats_say_which_codecs_sizes_and_aspect_ratios_the_platform_documents(api, owner, sandbox):
    x = sandbox_account(owner.team, Platform.X, "x-formats")
    tiktok = sandbox_account(owner.team, Platform.TIKTOK, "tiktok-formats")

    x_formats = capabilities(api, owner.key, x).json()["data"]["formats"]
    tiktok_formats = capabilities(api, owner.key, tiktok).json()["data"]["formats"]

    assert x_formats["videos"]["codecs"] == ["h264"]
    assert (x_formats["videos"]["max_width"], x_formats["videos"]["max_height"]) == (1280, 1024)
    assert x_formats["videos"]["aspect_ratio"] == {"min": 0.3333, "max": 3.0}
    assert tiktok_formats["images"]["max_pixels"] == 1920 * 1080


def test_a_second_read_comes_from_the_cache_and_refresh_reads_again(api, owner, sandbox):
    account = sandbox_account(owner.team, Platform.PINTEREST, "pin-owner-3")

    first = capabilities(api, owner.key, account).json()["data"]["live"]
    second = capabilities(api, owner.key, account).json()["data"]["live"]
    assert len(read(sandbox, "/v5/boards")) == 1
    assert (first["cached"], second["cached"]) == (False, True)
    assert second["fetched_at"] == first["fetched_at"]
    assert second["boards"] == first["boards"]

    add_boards(sandbox, "pin-owner-3", ["Fresh board"])
    refreshed = capabilities(api, owner.key, account, "?refresh=true").json()["data"]["live"]

    assert len(read(sandbox, "/v5/boards")) == 2
    assert refreshed["cached"] is False
    assert refreshed["boards"][-1]["name"] == "Fresh board"


def test_refreshes_read_the_platform_once_per_window_for_the_api_and_the_dashboard(client, api, owner, sandbox):
    account = sandbox_account(owner.team, Platform.PINTEREST, "pin-owner-loop")
    client.force_login(owner.user)
    dashboard = f"/dashboard/accounts/{account.pk}/capabilities/?team={owner.team.pk}&refresh=true"

    first = capabilities(api, owner.key, account, "?refresh=true").json()["data"]["live"]
    add_boards(sandbox, "pin-owner-loop", ["Fresh board"])
    again = [capabilities(api, owner.key, account, "?refresh=true").json()["data"]["live"] for _ in range(5)]
    from_page = [client.get(dashboard).json()["data"]["live"] for _ in range(5)]

    assert len(read(sandbox, "/v5/boards")) == 1
    assert first["cached"] is False
    for live in again + from_page:
        assert live["cached"] is True
        assert (live["fetched_at"], live["boards"]) == (first["fetched_at"], first["boards"])


def test_tiktok_creator_info_narrows_privacy_and_gives_the_video_cap(api, owner, sandbox):
    account = sandbox_account(owner.team, Platform.TIKTOK, "tt-creator-1")

    data = capabilities(api, owner.key, account).json()["data"]

    live = data["live"]
    assert live["privacy_level_options"] == [
        "PUBLIC_TO_EVERYONE",
        "MUTUAL_FOLLOW_FRIENDS",
        "FOLLOWER_OF_CREATOR",
        "SELF_ONLY",
    ]
    assert live["max_video_post_duration_sec"] == 600
    assert live["comment_disabled"] is False
    assert data["platform_settings_schema"]["properties"]["privacy_level"]["enum"] == live["privacy_level_options"]
    [call] = read(sandbox, "/v2/post/publish/creator_info/query/")
    assert call["method"] == "POST"


def test_youtube_offers_only_assignable_categories_of_the_region(api, owner, sandbox, settings):
    settings.YOUTUBE_REGION_CODE = "GB"
    account = sandbox_account(owner.team, Platform.YOUTUBE, "UCsandboxChannel00000002")

    data = capabilities(api, owner.key, account).json()["data"]

    categories = data["live"]["categories"]
    assert {"id": "22", "name": "People & Blogs"} in categories
    assert "18" not in [c["id"] for c in categories]  # Short Movies: not assignable
    assert data["live"]["region_code"] == "GB"
    category = data["platform_settings_schema"]["properties"]["category_id"]
    assert category["enum"] == [c["id"] for c in categories]
    [call] = read(sandbox, "/youtube/v3/videoCategories")
    assert "regionCode=GB" in call["query"]
    assert "part=snippet" in call["query"]


def test_a_form_value_valid_by_the_live_schema_is_one_the_platform_offers(api, owner, sandbox):
    account = sandbox_account(owner.team, Platform.YOUTUBE, "UCsandboxChannel00000003")
    schema = capabilities(api, owner.key, account).json()["data"]["platform_settings_schema"]

    validator = jsonschema.Draft202012Validator(schema)

    assert validator.is_valid({"title": "A video", "category_id": "22", "fit_media": False})
    assert not validator.is_valid({"title": "A video", "category_id": "18"})
    assert not validator.is_valid({"category_id": "22"})  # no title


@pytest.mark.parametrize("platform", [p for p in PLATFORMS if p not in ("tiktok", "pinterest", "youtube")])
def test_platforms_without_live_options_answer_the_static_schema_without_a_call(api, owner, sandbox, platform):
    account = sandbox_account(owner.team, platform, f"{platform}-static")

    data = capabilities(api, owner.key, account).json()["data"]

    assert data["live"] == {"supported": False, "available": False, "cached": False, "fetched_at": None, "error": None}
    assert data["platform_settings_schema"]["properties"]["fit_media"]["default"] is True
    assert list(sandbox.state.requests) == []


def test_a_refused_token_answers_200_without_live_options_and_expires_the_account(api, owner, sandbox):
    account = sandbox_account(owner.team, Platform.PINTEREST, "pin-revoked")
    requests.post(f"{sandbox.url}/_sandbox/tokens/revoke", json={"token": account.access_token}, timeout=5)

    response = capabilities(api, owner.key, account)

    assert response.status_code == 200
    data = response.json()["data"]
    assert data["live"]["available"] is False
    assert data["live"]["error"]["code"] == "ACCOUNT_EXPIRED"
    assert "enum" not in data["platform_settings_schema"]["properties"]["boardId"]
    account.refresh_from_db()
    assert account.status == AccountStatus.EXPIRED


def test_a_platform_that_does_not_answer_is_not_cached(api, owner, sandbox):
    account = sandbox_account(owner.team, Platform.TIKTOK, "tt-slow")
    sandbox.hasty()
    requests.post(f"{sandbox.url}/_sandbox/latency", json={"seconds": 2}, timeout=5)

    failed = capabilities(api, owner.key, account)
    requests.post(f"{sandbox.url}/_sandbox/latency", json={"seconds": 0}, timeout=5)
    recovered = capabilities(api, owner.key, account).json()["data"]["live"]

    assert failed.status_code == 200
    live = failed.json()["data"]["live"]
    assert (live["available"], live["error"]["code"]) == (False, "PLATFORM_UNAVAILABLE")
    assert "privacy_level_options" not in live
    assert recovered["available"] is True
    assert recovered["cached"] is False
    assert len(read(sandbox, "/creator_info/query/")) == 2
    account.refresh_from_db()
    assert account.status == AccountStatus.ACTIVE


@pytest.mark.parametrize(
    ("status", "code"),
    [
        (AccountStatus.EXPIRED, "ACCOUNT_EXPIRED"),
        (AccountStatus.DISABLED, "ACCOUNT_DISABLED"),
        (AccountStatus.DISCONNECTED, "ACCOUNT_DISCONNECTED"),
    ],
)
def test_an_account_that_is_not_active_gets_the_static_schema_without_a_call(api, owner, sandbox, status, code):
    account = sandbox_account(owner.team, Platform.TIKTOK, f"tt-{status}")
    SocialAccount.objects.filter(pk=account.pk).update(status=status)

    data = capabilities(api, owner.key, account).json()["data"]

    assert data["live"]["available"] is False
    assert data["live"]["error"]["code"] == code
    assert len(data["platform_settings_schema"]["properties"]["privacy_level"]["enum"]) == 4
    assert list(sandbox.state.requests) == []


def test_needs_the_accounts_read_scope(api, owner):
    account = SocialAccountFactory(team=owner.team, platform=Platform.X)

    response = capabilities(api, owner.key_with("posts:read"), account)

    assert response.status_code == 403


def test_another_teams_or_an_unknown_account_is_not_found(api, owner, outsider):
    theirs = SocialAccountFactory(team=outsider.team, platform=Platform.PINTEREST)

    other = api.as_(owner.key).get(f"/api/v1/accounts/{theirs.pk}/capabilities")
    unknown = api.as_(owner.key).get("/api/v1/accounts/0190b5d4-0000-7000-8000-000000000000/capabilities")

    for response in (other, unknown):
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "ACCOUNT_NOT_FOUND"


def test_a_refresh_that_is_not_a_boolean_is_a_400(api, owner):
    account = SocialAccountFactory(team=owner.team, platform=Platform.X)

    response = capabilities(api, owner.key, account, "?refresh=soon")

    assert response.status_code == 400
    assert "refresh" in response.json()["error"]["details"]


def test_what_a_tiktok_creator_switched_off_is_locked_in_the_schema(api, owner, sandbox):
    account = sandbox_account(owner.team, Platform.TIKTOK, "tt-creator-2")
    creator = {"privacy_level_options": ["FOLLOWER_OF_CREATOR", "SELF_ONLY"], "duet_disabled": True}
    requests.post(f"{sandbox.url}/_sandbox/tiktok/creator", json={"account": "tt-creator-2", **creator}, timeout=5)

    schema = capabilities(api, owner.key, account).json()["data"]["platform_settings_schema"]

    properties = schema["properties"]
    assert properties["privacy_level"]["enum"] == ["FOLLOWER_OF_CREATOR", "SELF_ONLY"]
    assert properties["allows_duet"]["const"] is False
    assert properties["allows_duet"]["readOnly"] is True
    assert "const" not in properties["allows_comments"]
    validator = jsonschema.Draft202012Validator(schema)
    assert not validator.is_valid({"privacy_level": "PUBLIC_TO_EVERYONE"})
    assert not validator.is_valid({"allows_duet": True})


@pytest.mark.parametrize(
    ("platform", "posted_as", "max_length", "unpublish"),
    [
        ("x", "reply", 280, True),
        ("bluesky", "reply", 300, True),
        ("threads", "reply", 500, True),
        ("facebook", "comment", 8000, True),
        ("instagram", "comment", 2200, False),
        ("linkedin", "comment", 1250, True),
        ("youtube", "comment", 10000, True),
        ("tiktok", None, None, False),
        ("pinterest", None, None, True),
    ],
)
def test_capabilities_say_how_a_first_comment_goes_and_whether_posts_can_be_taken_down(
    api, owner, sandbox, platform, posted_as, max_length, unpublish
):
    account = sandbox_account(owner.team, platform, f"{platform}-caps")

    found = capabilities(api, owner.key, account).json()["data"]

    assert found["first_comment"] == {
        "supported": posted_as is not None,
        "posted_as": posted_as,
        "max_length": max_length,
    }
    assert found["unpublish"]["supported"] is unpublish
    assert (found["unpublish"]["message"] is None) is unpublish
    schema = found["platform_settings_schema"]["properties"]
    assert ("first_comment" in schema) is (posted_as is not None)

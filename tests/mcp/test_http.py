"""The MCP tools over streamable HTTP at `/mcp`, with the SDK's own client: each tool is the
REST operation it names, with that operation's scopes, team and errors."""

from __future__ import annotations

import datetime as dt
import json
import typing
from urllib.parse import urlsplit

import pytest
import requests
from django.utils import timezone

from accounts.models import AccountStatus, Platform
from accounts.schedules import DAYS
from demo.seed import sandbox_account
from mcpserver import tools
from media.models import CONTENT_TYPES
from publishing.models import CREATE_MODES, PublishStatus
from teams import services
from teams.models import SCOPES
from tests.mcp.conftest import data, error
from tests.media import files
from tests.media.test_fetch import _serve as serve_files

pytestmark = pytest.mark.django_db(transaction=True)

PNG = files.image("PNG", (40, 30))

TOOLS = {
    "list_accounts",
    "get_account_capabilities",
    "get_posting_schedule",
    "set_posting_schedule",
    "validate_publish",
    "create_publish",
    "bulk_create_publishes",
    "reschedule_publish",
    "get_publish",
    "list_publishes",
    "list_approvals",
    "approve_publish",
    "reject_publish",
    "unpublish_publish",
    "upload_media_from_url",
    "get_media_upload",
    "confirm_media_upload",
    "list_media",
    "list_post_analytics",
    "get_post_analytics",
    "disconnect_account",
    "create_team",
    "create_team_key",
    "list_team_keys",
    "revoke_team_key",
    "create_connect_link",
    "get_connect_link",
    "list_connect_links",
    "revoke_connect_link",
}
DESTRUCTIVE = {"reject_publish", "unpublish_publish", "disconnect_account", "revoke_team_key", "revoke_connect_link"}


def _later(hours: float) -> str:
    return (timezone.now() + dt.timedelta(hours=hours)).replace(microsecond=0).isoformat()


def test_every_tool_is_listed_with_a_description_and_an_input_schema(mcp, owner):
    listed = mcp.session(owner.key, lambda client: client.list_tools())
    assert {tool.name for tool in listed.tools} == TOOLS
    for tool in listed.tools:
        assert tool.description, tool.name
        assert tool.input_schema["type"] == "object"
    create = next(tool for tool in listed.tools if tool.name == "create_publish")
    assert create.input_schema["required"] == ["targets"]
    assert {tool.name for tool in listed.tools if tool.annotations.destructive_hint} == DESTRUCTIVE


def test_the_tools_choices_are_the_apis():
    def choices(alias: typing.Any) -> set[str]:
        return set(typing.get_args(alias))

    assert choices(tools.Platform) == set(Platform.values)
    assert choices(tools.AccountStatus) == set(AccountStatus.values)
    assert choices(tools.PublishStatus) == set(PublishStatus.values)
    assert choices(tools.ContentType) == set(CONTENT_TYPES)
    assert choices(tools.PublishMode) == {mode for mode, _ in CREATE_MODES}
    assert choices(tools.Weekday) == set(DAYS)
    assert choices(tools.Scope) == set(SCOPES)


def test_mcp_without_a_key_is_the_apis_401(live_server):
    response = requests.post(f"{live_server.url}/mcp", json={}, timeout=10)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "MISSING_API_KEY"
    assert response.json()["error"]["type"] == "authentication_error"
    wrong = requests.post(f"{live_server.url}/mcp", json={}, headers={"Authorization": "Bearer sk_nope"}, timeout=10)
    assert wrong.status_code == 401
    assert wrong.json()["error"]["code"] in {"MALFORMED_API_KEY", "INVALID_API_KEY"}


def test_list_accounts_returns_the_callers_team_only(mcp, owner, outsider, x_account):
    sandbox_account(outsider.team, "bluesky")
    body = data(mcp.call(owner.key, "list_accounts"))
    assert [account["id"] for account in body["data"]] == [str(x_account.pk)]
    filtered = data(mcp.call(owner.key, "list_accounts", platform=["bluesky"]))
    assert filtered["data"] == []
    theirs = error(mcp.call(outsider.key, "get_account_capabilities", account_id=str(x_account.pk)))
    assert theirs["status"] == 404
    assert theirs["error"]["code"] == "ACCOUNT_NOT_FOUND"


def test_a_key_without_posts_write_reads_but_cannot_create(mcp, owner, x_account):
    key = owner.key_with("accounts:read", "posts:read")
    assert data(mcp.call(key, "list_accounts"))["data"][0]["id"] == str(x_account.pk)
    assert data(mcp.call(key, "list_publishes"))["data"] == []
    refused = error(mcp.call(key, "create_publish", content="Hi", targets=[{"account_id": str(x_account.pk)}]))
    assert refused["status"] == 403
    assert refused["error"]["type"] == "authorization_error"
    assert refused["error"]["message"] == "This key lacks the scope posts:write."
    assert refused["error"]["request_id"].startswith("req_")


def test_create_then_get_publish_follows_it_to_published(mcp, owner, x_account, sandbox):
    created = data(
        mcp.call(owner.key, "create_publish", content="Hello from MCP", targets=[{"account_id": str(x_account.pk)}])
    )
    publish_id = created["data"]["id"]
    assert created["data"]["status"] == "publishing"
    got = data(mcp.call(owner.key, "get_publish", publish_id=publish_id))["data"]
    assert got["status"] == "published", got
    assert got["targets"][0]["platform_post_url"]
    assert [post["text"] for post in sandbox.posts("x")] == ["Hello from MCP"]


def test_an_idempotency_key_makes_a_repeated_create_one_publish(mcp, owner, x_account):
    arguments = {
        "content": "Once",
        "targets": [{"account_id": str(x_account.pk)}],
        "scheduled_at": _later(2),
        "idempotency_key": "mcp-once",
    }

    async def twice(client):
        first = await client.call_tool("create_publish", arguments)
        second = await client.call_tool("create_publish", arguments)
        return first, second

    first, second = mcp.session(owner.key, twice)
    assert data(first)["data"]["id"] == data(second)["data"]["id"]
    assert data(first)["data"]["status"] == "scheduled"


def test_tool_calls_count_against_the_keys_rate_limit(mcp, owner, settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "default": 2}

    async def three(client):
        return [await client.call_tool("list_accounts", {}) for _ in range(3)]

    first, second, third = mcp.session(owner.key, three)
    assert not first.is_error
    assert not second.is_error
    limited = error(third)
    assert limited["status"] == 429
    assert limited["error"]["type"] == "rate_limited"


def test_a_scheduled_publish_is_rescheduled(mcp, owner, x_account):
    created = data(
        mcp.call(
            owner.key,
            "create_publish",
            content="Later",
            targets=[{"account_id": str(x_account.pk)}],
            scheduled_at=_later(2),
        )
    )["data"]
    moved = data(mcp.call(owner.key, "reschedule_publish", publish_id=created["id"], scheduled_at=_later(5)))["data"]
    assert moved["status"] == "scheduled"
    assert moved["scheduled_at"] != created["scheduled_at"]
    past = error(mcp.call(owner.key, "reschedule_publish", publish_id=created["id"], scheduled_at=_later(-1)))
    assert past["status"] == 400


def test_validate_reports_problems_and_creates_nothing(mcp, owner, x_account):
    too_long = data(
        mcp.call(owner.key, "validate_publish", content="x" * 300, targets=[{"account_id": str(x_account.pk)}])
    )["data"]
    assert too_long["valid"] is False
    assert too_long["targets"][0]["problems"][0]["code"] == "TEXT_TOO_LONG"
    fine = data(mcp.call(owner.key, "validate_publish", content="Short", targets=[{"account_id": str(x_account.pk)}]))
    assert fine["data"]["valid"] is True
    assert data(mcp.call(owner.key, "list_publishes"))["data"] == []


def test_invalid_arguments_are_the_apis_validation_error(mcp, owner):
    refused = error(mcp.call(owner.key, "create_publish", content="Hi", targets=[{"account_id": "not-a-uuid"}]))
    assert refused["status"] == 400
    assert refused["error"]["code"] == "VALIDATION_ERROR"
    assert "targets" in refused["error"]["details"]


@pytest.fixture
def approval_required(team):
    team.approval_required = True
    team.save()


def test_an_admin_approves_and_rejects_what_a_member_sends(mcp, owner, member, x_account, sandbox, approval_required):
    def create(content):
        arguments = {"content": content, "targets": [{"account_id": str(x_account.pk)}]}
        return data(mcp.call(member.key, "create_publish", **arguments))["data"]

    first, second = create("First"), create("Second")
    assert first["approval_status"] == "pending_approval"
    pending = data(mcp.call(owner.key, "list_approvals"))["data"]
    assert {p["id"] for p in pending} == {first["id"], second["id"]}

    refused = error(mcp.call(member.key, "approve_publish", publish_id=first["id"]))
    assert refused["status"] == 404  # a member cannot approve, as over REST

    approved = data(mcp.call(owner.key, "approve_publish", publish_id=first["id"]))
    assert approved["data"]["already_approved"] is False
    assert data(mcp.call(owner.key, "get_publish", publish_id=first["id"]))["data"]["status"] == "published"

    rejected = data(mcp.call(owner.key, "reject_publish", publish_id=second["id"], reason="Off brand"))["data"]
    assert rejected["approval_status"] == "rejected"
    assert data(mcp.call(owner.key, "list_approvals"))["data"] == []
    assert [post["text"] for post in sandbox.posts("x")] == ["First"]


def test_a_published_post_is_taken_down_and_a_second_ask_finds_nothing_to_take_down(mcp, owner, x_account, sandbox):
    created = data(
        mcp.call(owner.key, "create_publish", content="Gone soon", targets=[{"account_id": str(x_account.pk)}])
    )
    assert len(sandbox.posts("x")) == 1

    publish_id = created["data"]["id"]
    assert data(mcp.call(owner.key, "unpublish_publish", publish_id=publish_id))["data"]["id"] == publish_id

    assert data(mcp.call(owner.key, "get_publish", publish_id=publish_id))["data"]["targets"][0]["removed_by"] == "user"
    assert sandbox.posts("x") == []
    again = error(mcp.call(owner.key, "unpublish_publish", publish_id=publish_id))
    assert (again["status"], again["error"]["code"]) == (409, "NOTHING_PUBLISHED")


def test_media_from_a_url_is_fetched_confirmed_and_listed(mcp, owner, settings):
    settings.SSRF_ALLOW_PRIVATE = True  # the origin below is on loopback
    with serve_files("127.0.0.1") as (origin, base):
        origin.RequestHandlerClass.routes["/launch.png"] = (200, {"Content-Type": "image/png"}, PNG)
        started = data(
            mcp.call(
                owner.key,
                "upload_media_from_url",
                url=f"{base}/launch.png",
                filename="launch.png",
                content_type="image/png",
                size_bytes=len(PNG),
            )
        )["data"]
    assert started["upload_url"] is None  # nothing to PUT: the service fetches it
    fetched = data(mcp.call(owner.key, "get_media_upload", media_id=started["id"]))["data"]
    assert fetched["fetch_status"] == "done"
    assert data(mcp.call(owner.key, "list_media"))["data"] == []  # not confirmed yet
    confirmed = data(mcp.call(owner.key, "confirm_media_upload", media_id=started["id"]))["data"]
    assert confirmed["id"] == started["id"]
    assert [m["id"] for m in data(mcp.call(owner.key, "list_media"))["data"]] == [started["id"]]


def test_analytics_of_a_post_not_published_is_not_found(mcp, owner, x_account):
    assert data(mcp.call(owner.key, "list_post_analytics"))["data"] == []
    created = data(
        mcp.call(
            owner.key,
            "create_publish",
            content="Later",
            targets=[{"account_id": str(x_account.pk)}],
            scheduled_at=_later(2),
        )
    )["data"]
    missing = error(mcp.call(owner.key, "get_post_analytics", publish_id=created["id"]))
    assert missing["status"] == 404
    assert json.dumps(missing).count("POST_NOT_FOUND") == 1


# --- posting schedules, the queue and bulk creates -------------------------------------------


def _schedule(mcp, key, account, *slots, zone="Europe/Paris"):
    arguments = {"account_id": str(account.pk), "timezone": zone, "slots": [{"day": d, "time": t} for d, t in slots]}
    return mcp.call(key, "set_posting_schedule", **arguments)


def test_a_posting_schedule_is_set_read_and_filled_by_a_queued_publish(mcp, owner, x_account):
    made = data(_schedule(mcp, owner.key, x_account, ("thu", "18:30"), ("mon", "09:00")))["data"]
    read = data(mcp.call(owner.key, "get_posting_schedule", account_id=str(x_account.pk)))["data"]
    queued = data(
        mcp.call(
            owner.key,
            "create_publish",
            content="Into the next slot",
            targets=[{"account_id": str(x_account.pk)}],
            publish_mode="queue",
        )
    )["data"]
    after = data(mcp.call(owner.key, "get_posting_schedule", account_id=str(x_account.pk)))["data"]

    assert made["slots"] == read["slots"] == [{"day": "mon", "time": "09:00"}, {"day": "thu", "time": "18:30"}]
    assert read["timezone"] == "Europe/Paris"
    assert queued["status"] == "scheduled"
    assert dt.datetime.fromisoformat(queued["scheduled_at"]) == dt.datetime.fromisoformat(read["next_free_slots"][0])
    assert after["next_free_slots"][0] == read["next_free_slots"][1]


def test_queueing_to_an_account_without_slots_is_no_queue_slots(mcp, owner, x_account):
    refused = error(
        mcp.call(
            owner.key,
            "create_publish",
            content="Nowhere",
            targets=[{"account_id": str(x_account.pk)}],
            publish_mode="queue",
        )
    )
    assert refused["status"] == 400
    assert refused["error"]["code"] == "NO_QUEUE_SLOTS"


def test_setting_a_schedule_needs_accounts_write_and_the_callers_team(mcp, owner, outsider, x_account):
    reader = owner.key_with("accounts:read")
    assert data(mcp.call(reader, "get_posting_schedule", account_id=str(x_account.pk)))["data"]["slots"] == []
    refused = error(_schedule(mcp, reader, x_account, ("mon", "09:00")))
    assert refused["status"] == 403
    assert refused["error"]["code"] == "MISSING_SCOPE"
    theirs = error(_schedule(mcp, outsider.key, x_account, ("mon", "09:00")))
    assert theirs["status"] == 404
    bad_zone = error(_schedule(mcp, owner.key, x_account, ("mon", "09:00"), zone="Mars/Olympus"))
    assert bad_zone["status"] == 400


def _rows(account, *contents, mode=None):
    rows = [{"content": text, "targets": [{"account_id": str(account.pk)}]} for text in contents]
    return [{**row, "publish_mode": mode} if mode else row for row in rows]


def test_bulk_dry_run_judges_every_row_and_creates_nothing(mcp, owner, x_account):
    checked = data(mcp.call(owner.key, "bulk_create_publishes", rows=_rows(x_account, "Fine", "x" * 300), dry_run=True))

    assert checked["meta"] == {"valid": False, "status": 400}
    assert [verdict["index"] for verdict in checked["data"]] == [0, 1]
    assert [verdict["valid"] for verdict in checked["data"]] == [True, False]
    assert checked["data"][1]["targets"][0]["problems"][0]["code"] == "TEXT_TOO_LONG"
    assert data(mcp.call(owner.key, "list_publishes"))["data"] == []


def test_a_bulk_with_a_refused_row_creates_nothing_and_names_the_row(mcp, owner, x_account):
    refused = error(mcp.call(owner.key, "bulk_create_publishes", rows=_rows(x_account, "Fine", "x" * 300)))

    assert refused["status"] == 400
    assert refused["error"]["code"] == "INVALID_ROWS"
    rows = refused["error"]["details"]["rows"]
    assert [row["index"] for row in rows] == [1]
    assert rows[0]["problems"][0]["field"] == "targets[0].text"
    assert data(mcp.call(owner.key, "list_publishes"))["data"] == []


def test_a_bulk_creates_every_row_in_order_and_queued_rows_take_successive_slots(mcp, owner, x_account):
    slots = data(_schedule(mcp, owner.key, x_account, ("mon", "09:00"), ("wed", "12:00")))["data"]["next_free_slots"]

    created = data(
        mcp.call(
            owner.key,
            "bulk_create_publishes",
            rows=_rows(x_account, "First", "Second", mode="queue"),
            idempotency_key="b1",
        )
    )["data"]
    again = data(
        mcp.call(
            owner.key,
            "bulk_create_publishes",
            rows=_rows(x_account, "First", "Second", mode="queue"),
            idempotency_key="b1",
        )
    )["data"]

    assert [publish["content"] for publish in created] == ["First", "Second"]
    assert [dt.datetime.fromisoformat(p["scheduled_at"]) for p in created] == [
        dt.datetime.fromisoformat(slot) for slot in slots[:2]
    ]
    assert [publish["id"] for publish in again] == [publish["id"] for publish in created]
    assert len(data(mcp.call(owner.key, "list_publishes"))["data"]) == 2


# --- teams and their keys, connect links, disconnecting --------------------------------------


def test_a_user_key_creates_a_team_and_mints_lists_and_revokes_its_keys(mcp, owner, live_server):
    _, user_key = services.api_key_create(user=owner.user, name="user key", scopes=SCOPES)

    team = data(mcp.call(user_key, "create_team", name="Customer 4821"))["data"]
    minted = data(
        mcp.call(user_key, "create_team_key", team_id=team["id"], name="Customer key", scopes=["accounts:read"])
    )["data"]
    listed = data(mcp.call(user_key, "list_team_keys", team_id=team["id"]))["data"]
    accounts = data(mcp.call(minted["key"], "list_accounts"))["data"]
    revoked = data(mcp.call(user_key, "revoke_team_key", team_id=team["id"], key_id=minted["id"]))
    # A revoked key no longer opens an MCP session at all.
    refused = requests.post(
        f"{live_server.url}/mcp", json={}, headers={"Authorization": f"Bearer {minted['key']}"}, timeout=10
    )

    assert (team["name"], team["is_default"]) == ("Customer 4821", False)
    assert minted["key"].startswith(f"sk_{minted['prefix']}_")
    assert minted["scopes"] == ["accounts:read"]
    assert [(key["id"], key["prefix"]) for key in listed] == [(minted["id"], minted["prefix"])]
    assert "key" not in listed[0]
    assert accounts == []  # the new team's key sees the new team only
    assert revoked == {"data": None}
    assert (refused.status_code, refused.json()["error"]["code"]) == (401, "API_KEY_REVOKED")
    assert data(mcp.call(user_key, "list_team_keys", team_id=team["id"]))["data"] == []
    again = error(mcp.call(user_key, "revoke_team_key", team_id=team["id"], key_id=minted["id"]))
    assert (again["status"], again["error"]["code"]) == (404, "API_KEY_NOT_FOUND")


def test_a_team_key_cannot_create_a_team_nor_mint_a_stronger_key(mcp, owner):
    refused = error(mcp.call(owner.key, "create_team", name="Not with a team key"))
    weak = owner.key_with("teams:write", "teams:read")
    stronger = error(mcp.call(weak, "create_team_key", team_id=str(owner.team.pk), name="More", scopes=["posts:write"]))
    theirs = error(
        mcp.call(weak, "list_team_keys", team_id=str(services.team_create(name="Else", owner=owner.user).pk))
    )

    assert refused["status"] == 403
    assert (refused["error"]["type"], refused["error"]["code"]) == ("authorization_error", "USER_KEY_REQUIRED")
    assert (stronger["status"], stronger["error"]["code"]) == (403, "SCOPE_ESCALATION")
    assert (theirs["status"], theirs["error"]["code"]) == (403, "TEAM_MISMATCH")


def test_a_connect_link_is_created_read_listed_and_revoked(mcp, owner, outsider, sandbox, live_server):
    made = data(
        mcp.call(
            owner.key,
            "create_connect_link",
            redirect_url="https://app.example.com/socials/done",
            platforms=["x", "bluesky"],
            expires_in=600,
            branding={"name": "Acme Studio", "accent_color": "#0a7cff"},
        )
    )["data"]
    # The page, on this test's server (the url names PUBLIC_BASE_URL's).
    page_url = live_server.url + urlsplit(made["url"]).path
    page = requests.get(page_url, timeout=10)
    got = data(mcp.call(owner.key, "get_connect_link", link_id=made["id"]))["data"]
    listed = data(mcp.call(owner.key, "list_connect_links"))["data"]
    theirs = error(mcp.call(outsider.key, "get_connect_link", link_id=made["id"]))
    revoked = data(mcp.call(owner.key, "revoke_connect_link", link_id=made["id"]))["data"]

    assert (made["status"], made["platforms"]) == ("pending", ["x", "bluesky"])
    assert made["branding"]["name"] == "Acme Studio"
    assert page.status_code == 200
    assert "Acme Studio" in page.text
    assert (got["id"], got["url"], got["accounts"]) == (made["id"], made["url"], [])
    assert [link["id"] for link in listed] == [made["id"]]
    assert theirs["status"] == 404
    assert revoked["status"] == "revoked"
    assert requests.get(page_url, timeout=10).status_code == 410


def test_a_connect_link_needs_accounts_write_and_a_safe_redirect(mcp, owner, sandbox):
    reader = owner.key_with("accounts:read")
    refused = error(mcp.call(reader, "create_connect_link", redirect_url="https://app.example.com/done"))
    unsafe = error(mcp.call(owner.key, "create_connect_link", redirect_url="javascript:alert(1)"))

    assert (refused["status"], refused["error"]["code"]) == (403, "MISSING_SCOPE")
    assert (unsafe["status"], unsafe["error"]["code"]) == (400, "INVALID_REDIRECT_URL")
    assert data(mcp.call(owner.key, "list_connect_links"))["data"] == []


def test_disconnect_account_revokes_its_token_once(mcp, owner, outsider, x_account, sandbox):
    theirs = error(mcp.call(outsider.key, "disconnect_account", account_id=str(x_account.pk)))
    gone = data(mcp.call(owner.key, "disconnect_account", account_id=str(x_account.pk)))
    again = data(mcp.call(owner.key, "disconnect_account", account_id=str(x_account.pk)))
    listed = data(mcp.call(owner.key, "list_accounts"))["data"]
    disconnected = data(mcp.call(owner.key, "list_accounts", status=["disconnected"]))["data"]

    assert theirs["status"] == 404
    assert (gone["data"]["status"], gone["already_disconnected"], gone["token_revoked"]) == (
        "disconnected",
        False,
        True,
    )
    assert (again["already_disconnected"], again["token_revoked"]) == (True, None)
    assert listed == []
    assert [account["id"] for account in disconnected] == [str(x_account.pk)]

"""`socialpub` for a SaaS serving its own customers, against the running stack: a team and its
keys from a user key, connect links, and disconnecting an account."""

from __future__ import annotations

import json
import re

import requests

from tests.clients.conftest import Socialpub
from tests.clients.test_cli import ERROR_LINE
from tests.long.stack import LiveStack

UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"


def _refusal(err: str) -> tuple[str, ...]:
    found = ERROR_LINE.match(err.strip())
    assert found, err
    return found.groups()[:3]


def test_a_user_key_creates_a_team_and_mints_revokes_its_keys(socialpub: Socialpub, stack: LiveStack) -> None:
    user_key = stack.seed["keys"]["owner_user"]

    made = socialpub("teams", "create", "Customer 4821", key=user_key)
    found = re.fullmatch(rf"team ({UUID}): Customer 4821\n", made.out)
    assert made.code == 0, made.err
    assert found, made.out
    team_id = found.group(1)
    listed_teams = json.loads(socialpub("teams", "list", "--json", key=user_key).out)
    minted = socialpub(
        "keys", "create", "--team", team_id, "--name", "Publishing", "--scope", "accounts:read", "posts:write",
        key=user_key,
    )  # fmt: skip
    reader = json.loads(
        socialpub(
            "keys", "create", "--team", team_id, "--name", "Reader", "--scope", "accounts:read",
            "--expires-at", "2031-01-01T00:00", "--json", key=user_key,
        ).out
    )  # fmt: skip

    assert {team["name"]: team["is_default"] for team in listed_teams}["Customer 4821"] is False
    assert minted.code == 0, minted.err
    headline, key, *rest = minted.out.splitlines()
    header = re.fullmatch(
        rf"key ({UUID}) \(prefix (\w+)\): Publishing; accounts:read, posts:write; never expires", headline
    )
    assert header, headline
    key_id, prefix = header.groups()
    assert key.startswith(f"sk_{prefix}_")
    assert rest == []
    assert "shown once" in minted.err
    assert reader["key"].startswith(f"sk_{reader['prefix']}_")
    assert reader["scopes"] == ["accounts:read"]
    assert reader["expires_at"].startswith("2031-01-01T00:00:00")

    # The new key acts in the new team alone: it has no accounts yet.
    assert json.loads(socialpub("accounts", "--json", key=key).out) == []
    table = socialpub("keys", "list", "--team", team_id, key=user_key)
    assert table.code == 0, table.err
    assert key_id in table.out
    assert reader["id"] in table.out
    assert "2031-01-01 00:00" in table.out
    assert key not in table.out
    assert reader["key"] not in table.out

    revoked = socialpub("keys", "revoke", "--team", team_id, key_id, key=user_key)
    assert revoked.code == 0, revoked.err
    assert revoked.out.strip() == f"key {key_id}: revoked"
    refused = socialpub("accounts", key=key)
    assert refused.code == 1
    assert _refusal(refused.err) == ("401", "authentication_error", "API_KEY_REVOKED")
    listed = json.loads(socialpub("keys", "list", "--team", team_id, "--json", key=user_key).out)
    assert [item["id"] for item in listed] == [reader["id"]]
    again = socialpub("--json", "keys", "revoke", "--team", team_id, key_id, key=user_key)
    assert again.code == 1
    assert json.loads(again.out)["error"]["code"] == "API_KEY_NOT_FOUND"


def test_a_team_key_cannot_create_a_team(socialpub: Socialpub) -> None:
    refused = socialpub("teams", "create", "Not with this key")

    assert refused.code == 1
    assert refused.out == ""
    assert _refusal(refused.err) == ("403", "authorization_error", "USER_KEY_REQUIRED")


def test_a_key_cannot_mint_a_stronger_key(socialpub: Socialpub, stack: LiveStack) -> None:
    user_key = stack.seed["keys"]["owner_user"]
    team_id = json.loads(socialpub("--json", "teams", "create", "Escalation", key=user_key).out)["id"]
    weak = json.loads(
        socialpub(
            "keys", "create", "--team", team_id, "--name", "Weak", "--scope", "teams:write", "--json", key=user_key
        ).out
    )["key"]

    refused = socialpub("keys", "create", "--team", team_id, "--name", "Strong", "--scope", "posts:write", key=weak)

    assert refused.code == 1
    assert _refusal(refused.err) == ("403", "authorization_error", "SCOPE_ESCALATION")


def test_a_connect_link_is_created_shown_listed_and_revoked(socialpub: Socialpub, stack: LiveStack) -> None:
    made = socialpub(
        "connect-link", "--redirect-url", "https://app.example.com/socials/done", "--platform", "x", "bluesky",
        "--expires-in", "600", "--name", "Acme Studio", "--accent-color", "#0a7cff",
    )  # fmt: skip
    headline, url, *rest = made.out.splitlines()
    found = re.fullmatch(rf"connect link ({UUID}): pending, expires at [\d-]+ [\d:]+ UTC", headline)
    assert made.code == 0, made.err
    assert found, headline
    assert rest == []
    link_id = found.group(1)
    page = requests.get(url, timeout=10)
    shown = json.loads(socialpub("connect-link", "show", link_id, "--json").out)
    listed = socialpub("connect-link", "list")

    assert url.startswith(stack.url)
    assert page.status_code == 200
    assert "Acme Studio" in page.text
    assert (shown["id"], shown["status"], shown["url"]) == (link_id, "pending", url)
    assert shown["platforms"] == ["x", "bluesky"]
    assert shown["redirect_url"] == "https://app.example.com/socials/done"
    assert shown["branding"]["name"] == "Acme Studio"
    assert shown["branding"]["accent_color"] == "#0a7cff"
    assert shown["accounts"] == []
    assert listed.code == 0, listed.err
    assert link_id in listed.out

    revoked = socialpub("connect-link", "revoke", link_id)
    assert revoked.code == 0, revoked.err
    assert revoked.out == f"connect link {link_id}: revoked\n"
    assert requests.get(url, timeout=10).status_code == 410
    assert json.loads(socialpub("--json", "connect-link", "show", link_id).out)["status"] == "revoked"


def test_a_connect_link_refusals_are_clear(socialpub: Socialpub, stack: LiveStack) -> None:
    not_https = socialpub("connect-link", "--redirect-url", "ftp://app.example.com/done")
    no_redirect = socialpub("connect-link", "--platform", "x")
    theirs = json.loads(
        socialpub(
            "--json",
            "connect-link",
            "--redirect-url",
            "https://other.example/done",
            key=stack.seed["keys"]["other_owner"],
        ).out
    )
    other_teams = socialpub("connect-link", "show", theirs["id"])
    read_only = socialpub(
        "connect-link", "--redirect-url", "https://app.example.com/done", key=stack.seed["keys"]["acme_readonly"]
    )

    assert not_https.code == 1
    assert _refusal(not_https.err) == ("400", "invalid_request", "INVALID_REDIRECT_URL")
    assert no_redirect.code == 2
    assert no_redirect.err.strip().endswith("error: creating a connect link needs --redirect-url URL")
    assert other_teams.code == 1
    assert _refusal(other_teams.err)[0] == "404"
    assert read_only.code == 1
    assert _refusal(read_only.err) == ("403", "authorization_error", "MISSING_SCOPE")
    assert "Traceback" not in not_https.err + no_redirect.err + other_teams.err + read_only.err


def test_disconnect_says_whether_the_token_was_revoked(socialpub: Socialpub, stack: LiveStack) -> None:
    # The quota team's accounts: no other test of the command uses them.
    key = stack.seed["keys"]["quota_owner"]
    account_id = stack.seed["accounts"]["quota"]["bluesky"]

    gone = socialpub("disconnect", account_id, key=key)
    again = json.loads(socialpub("--json", "disconnect", account_id, key=key).out)
    active = json.loads(socialpub("accounts", "--json", key=key).out)
    disconnected = json.loads(socialpub("accounts", "--status", "disconnected", "--json", key=key).out)
    publish = socialpub("publish", "Gone", "--to", account_id, key=key)

    assert gone.code == 0, gone.err
    assert re.fullmatch(
        rf"account {account_id} \(bluesky @[\w.-]+\): disconnected, token revoked at the platform\n", gone.out
    ), gone.out
    assert (again["already_disconnected"], again["token_revoked"], again["data"]["status"]) == (
        True,
        None,
        "disconnected",
    )
    assert account_id not in [account["id"] for account in active]
    assert [account["id"] for account in disconnected] == [account_id]
    assert publish.code == 1
    assert _refusal(publish.err) == ("400", "invalid_request", "ACCOUNT_DISCONNECTED")

"""`manage.py mcp`: the same tools over stdio, in a subprocess on the test database, acting
with the one key it was started with."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import anyio
import pytest
from django.conf import settings
from django.db import connection
from mcp import Client, StdioServerParameters

from tests.mcp.conftest import data, error

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]

ROOT = Path(__file__).resolve().parents[2]


def _environment(**extra: str) -> dict[str, str]:
    db = connection.settings_dict
    credentials = quote(db["USER"]) + (f":{quote(db['PASSWORD'])}" if db["PASSWORD"] else "")
    url = f"postgres://{credentials}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    return {"DATABASE_URL": url, "REDIS_URL": settings.REDIS_URL, "LOG_LEVEL": "WARNING", **extra}


def _command(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: S603 - our own interpreter and manage.py
        [sys.executable, "manage.py", "mcp", *args],
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", **_environment(**env)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize("via", ["environment", "file"])
def test_stdio_serves_the_tools_with_the_keys_scopes(owner, outsider, x_account, tmp_path, via):
    key = owner.key_with("accounts:read", "posts:read")
    if via == "file":
        (tmp_path / "key").write_text(f"{key}\n")
        args, env = ["manage.py", "mcp", "--api-key-file", str(tmp_path / "key")], _environment()
    else:
        args, env = ["manage.py", "mcp"], _environment(SOCIALPUB_API_KEY=key)
    server = StdioServerParameters(command=sys.executable, args=args, cwd=ROOT, env=env)

    async def session():
        async with Client(server) as client:
            listed = await client.list_tools()
            accounts = await client.call_tool("list_accounts", {})
            create = await client.call_tool("create_publish", {"targets": [{"account_id": str(x_account.pk)}]})
            return listed, accounts, create

    listed, accounts, create = anyio.run(session)
    assert "create_publish" in {tool.name for tool in listed.tools}
    assert [account["id"] for account in data(accounts)["data"]] == [str(x_account.pk)]
    refused = error(create)
    assert refused["status"] == 403
    assert refused["error"]["type"] == "authorization_error"


def test_stdio_refuses_to_start_without_a_key():
    ended = _command()
    assert ended.returncode != 0
    assert "No API key: set SOCIALPUB_API_KEY or pass --api-key-file PATH." in ended.stderr


def test_stdio_refuses_a_key_on_the_command_line(owner):
    ended = _command("--api-key", owner.key)
    assert ended.returncode == 2
    assert "--api-key is not accepted" in ended.stderr
    assert "Set SOCIALPUB_API_KEY or pass --api-key-file PATH." in ended.stderr
    assert owner.key not in ended.stderr


def test_stdio_refuses_to_start_with_a_revoked_key(owner):
    from teams.keys import parse_prefix
    from teams.models import ApiKey
    from teams.services import api_key_revoke

    key = owner.key_with("posts:read")
    api_key_revoke(api_key=ApiKey.objects.get(prefix=parse_prefix(key)))
    ended = _command(SOCIALPUB_API_KEY=key)
    assert ended.returncode != 0
    assert "The API key was refused: The API key has been revoked." in ended.stderr
    assert key not in ended.stderr

"""The `socialpub` command against the running stack: what a user sees and the exit codes."""

from __future__ import annotations

import json
import re
import struct
import zlib
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import requests

from bench.common import free_port
from tests.clients.conftest import Socialpub, run_socialpub
from tests.long.stack import LiveStack

ERROR_LINE = re.compile(r"^error: (\d{3}) (\w+) \((\w+)\): .+ \[request id: (req_\w+)\]$")


def _png(path: Path) -> Path:
    """A real 64x64 RGB PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\x30\x60\x90" * 64 for _ in range(64))
    header = struct.pack(">IIBBBBB", 64, 64, 8, 2, 0, 0, 0)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
    )
    return path


def _publish_id(out: str) -> str:
    found = re.search(r"publish ([0-9a-f-]{36}): (\w+)", out)
    assert found, out
    return found.group(1)


def test_accounts_lists_the_teams_accounts(socialpub: Socialpub, stack: LiveStack) -> None:
    table = socialpub("accounts")
    listed = json.loads(socialpub("accounts", "--json").out)

    assert table.code == 0, table.err
    x = next(account for account in listed if account["platform"] == "x" and account["status"] == "active")
    assert x["id"] in table.out
    assert x["handle"] in table.out
    assert {account["platform"] for account in listed} >= {"x", "bluesky", "instagram", "youtube"}
    assert "expired" in table.out


def test_publish_with_a_png_to_x_and_bluesky_is_published(socialpub: Socialpub, tmp_path: Path) -> None:
    image = _png(tmp_path / "square.png")

    made = socialpub("publish", "Hello from socialpub", "--to", "x,bluesky", "--media", str(image))
    publish_id = _publish_id(made.out)
    watched = socialpub("status", publish_id, "--watch", "--timeout", "60")
    final = json.loads(socialpub("--json", "status", publish_id).out)

    assert made.code == 0, made.err
    assert watched.code == 0, watched.out + watched.err
    assert f"publish {publish_id}: published" in watched.out
    assert final["status"] == "published"
    assert sorted(target["platform"] for target in final["targets"]) == ["bluesky", "x"]
    assert all(target["status"] == "published" and target["platform_post_url"] for target in final["targets"])
    assert len(final["media_ids"]) == 1
    assert "Traceback" not in made.err + watched.err


def test_publish_json_wait_prints_only_the_final_publish(socialpub: Socialpub) -> None:
    made = socialpub("publish", "Waited for", "--to", "bluesky", "--json", "--wait")

    assert made.code == 0, made.err
    publish = json.loads(made.out)
    assert publish["status"] == "published"
    assert [target["status"] for target in publish["targets"]] == ["published"]


def test_publish_at_a_time_is_scheduled(socialpub: Socialpub) -> None:
    at = (datetime.now(UTC) + timedelta(days=3)).strftime("%Y-%m-%dT%H:%MZ")

    made = socialpub("publish", "Later", "--to", "x", "--at", at, "--json")
    publish = json.loads(made.out)
    shown = socialpub("status", publish["id"])

    assert made.code == 0, made.err
    assert publish["status"] == "scheduled"
    assert publish["scheduled_at"].startswith(at[:16].replace("Z", ""))
    assert f"publish {publish['id']}: scheduled" in shown.out
    assert shown.code == 0


def test_key_without_posts_write_gets_a_readable_403(socialpub: Socialpub, stack: LiveStack) -> None:
    refused = socialpub("publish", "Not allowed", "--to", "x", key=stack.seed["keys"]["acme_readonly"])

    assert refused.code != 0
    assert refused.out == ""
    line = refused.err.strip()
    assert "\n" not in line, line
    found = ERROR_LINE.match(line)
    assert found, line
    assert found.groups()[:3] == ("403", "authorization_error", "MISSING_SCOPE")


def test_json_errors_are_the_error_object(socialpub: Socialpub, stack: LiveStack) -> None:
    refused = socialpub("--json", "publish", "Not allowed", "--to", "x", key=stack.seed["keys"]["acme_readonly"])

    assert refused.code != 0
    error = json.loads(refused.out)["error"]
    assert (error["status"], error["code"]) == (403, "MISSING_SCOPE")
    assert error["request_id"].startswith("req_")


def test_an_unknown_platform_is_a_clear_error(socialpub: Socialpub) -> None:
    refused = socialpub("publish", "Where?", "--to", "x,mastodon")

    assert refused.code != 0
    assert refused.err.startswith("error: --to: 'mastodon' is neither a platform")
    assert "Traceback" not in refused.err


def test_a_member_submission_waits_and_an_admin_approves_or_rejects_it(socialpub: Socialpub, stack: LiveStack) -> None:
    keys = stack.seed["keys"]
    first = json.loads(socialpub("publish", "Please review", "--to", "x", "--json", key=keys["review_member"]).out)
    second = json.loads(socialpub("publish", "Or this", "--to", "x", "--json", key=keys["review_member"]).out)
    waiting = socialpub("approvals", key=keys["review_admin"])
    approved = socialpub("approve", first["id"], key=keys["review_admin"])
    rejected = socialpub("reject", second["id"], "--reason", "Off brand", "--json", key=keys["review_admin"])

    assert first["approval_status"] == second["approval_status"] == "pending_approval"
    assert first["id"] in waiting.out
    assert second["id"] in waiting.out
    assert approved.code == 0, approved.err
    assert approved.out.startswith(f"publish {first['id']}: approved")
    assert rejected.code == 0, rejected.err
    assert json.loads(rejected.out)["approval_status"] == "rejected"


def test_unpublish_takes_the_posts_down_and_a_second_one_finds_nothing(socialpub: Socialpub, stack: LiveStack) -> None:
    made = json.loads(socialpub("publish", "Gone by tonight", "--to", "x,bluesky", "--wait", "--json").out)
    targets = {target["platform"]: target["id"] for target in made["targets"]}

    only_x = socialpub("unpublish", made["id"], "--target", targets["x"], "--wait")
    rest = socialpub("unpublish", made["id"], "--wait", "--json")
    again = socialpub("unpublish", made["id"])

    assert only_x.code == 0, only_x.err
    assert only_x.out.strip() == f"x {targets['x']}: taken down (user)"
    assert rest.code == 0, rest.err
    shown = {target["platform"]: target["removed_by"] for target in json.loads(rest.out)["targets"]}
    assert shown == {"x": "user", "bluesky": "user"}
    assert again.code == 1
    assert ERROR_LINE.match(again.err.strip()), again.err
    assert "(NOTHING_PUBLISHED)" in again.err


def test_an_unreachable_service_is_named_without_a_traceback() -> None:
    url = f"http://127.0.0.1:{free_port()}"

    refused = run_socialpub("accounts", url=url, key="sk_test")

    assert refused.code != 0
    assert refused.err.strip() == f"error: cannot reach {url}: connection refused (is the service running?)"


def test_a_missing_key_is_named() -> None:
    refused = run_socialpub("accounts", url="http://127.0.0.1:9", key=None)

    assert refused.code != 0
    assert refused.err.strip() == "error: no API key: set SOCIALPUB_API_KEY or pass --api-key-file PATH"


@pytest.mark.parametrize(
    "args", [("--api-key", "sk_in_argv", "accounts"), ("accounts", "--api-key=sk_in_argv"), ("accounts", "--api-key")]
)
def test_a_key_on_the_command_line_is_refused_with_the_ways_to_pass_one(args: tuple[str, ...]) -> None:
    refused = run_socialpub(*args, url="http://127.0.0.1:9", key=None)

    assert refused.code == 2
    assert refused.err.strip().endswith(
        "error: --api-key is not accepted: a key on the command line is visible to every user of this machine. "
        "Set SOCIALPUB_API_KEY or pass --api-key-file PATH."
    )
    assert "sk_in_argv" not in refused.err


def test_a_key_file_is_read_before_the_service_is_called(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    (tmp_path / "key").write_text("sk_from_a_file\n")
    (tmp_path / "blank").write_text("\n")

    from_file = run_socialpub("accounts", "--api-key-file", str(tmp_path / "key"), url=url, key=None)
    from_stdin = run_socialpub("--api-key-file", "-", "accounts", url=url, key=None, stdin="sk_from_stdin\n")
    absent = run_socialpub("accounts", "--api-key-file", str(tmp_path / "absent"), url=url, key=None)
    blank = run_socialpub("accounts", "--api-key-file", str(tmp_path / "blank"), url=url, key=None)

    # With a key, the command goes on to call the service (which is not there).
    assert from_file.err.strip() == f"error: cannot reach {url}: connection refused (is the service running?)"
    assert from_stdin.err.strip() == from_file.err.strip()
    assert absent.err.strip() == f"error: --api-key-file: cannot read {tmp_path / 'absent'}: No such file or directory"
    assert blank.err.strip() == f"error: --api-key-file: {tmp_path / 'blank'} is empty"
    assert {from_file.code, from_stdin.code, absent.code, blank.code} == {1}


def test_the_key_file_wins_over_the_environment(socialpub: Socialpub, stack: LiveStack, tmp_path: Path) -> None:
    (tmp_path / "key").write_text(stack.seed["keys"]["acme_readonly"] + "\n")

    listed = socialpub("accounts", "--json", "--api-key-file", str(tmp_path / "key"))
    refused = socialpub("publish", "Not allowed", "--to", "x", "--api-key-file", str(tmp_path / "key"))

    assert listed.code == 0, listed.err
    assert {account["platform"] for account in json.loads(listed.out)} >= {"x", "bluesky"}
    found = ERROR_LINE.match(refused.err.strip())
    assert found, refused.err
    assert found.groups()[:3] == ("403", "authorization_error", "MISSING_SCOPE")


@pytest.mark.parametrize("at", ["tomorrow", "2026-13-01T09:00Z"])
def test_a_bad_time_is_named(socialpub: Socialpub, at: str) -> None:
    refused = socialpub("publish", "When?", "--to", "x", "--at", at)

    assert refused.code != 0
    assert refused.err.strip() == f"error: --at: {at!r} is not an ISO 8601 time such as 2026-12-01T09:00Z"


def test_wait_exits_non_zero_when_a_target_fails(socialpub: Socialpub, stack: LiveStack) -> None:
    queued = requests.post(
        f"{stack.sandbox_url}/_sandbox/outcomes", json={"platform": "threads", "outcomes": ["error"]}, timeout=10
    )
    assert queued.status_code == 200, queued.text

    made = socialpub("publish", "Refused", "--to", "threads", "--wait")

    assert made.code == 1, made.out + made.err
    assert re.search(r"publish [0-9a-f-]{36}: failed", made.out), made.out
    assert "Traceback" not in made.err

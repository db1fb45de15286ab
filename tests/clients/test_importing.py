"""`socialpub import FILE.csv` against the running stack: rows created all together or not at
all, each named `row N (line L)` as the file reads."""

from __future__ import annotations

import json
import re
import secrets
from datetime import UTC, datetime, timedelta
from pathlib import Path

import requests

from tests.clients.conftest import Socialpub
from tests.long.stack import LiveStack

HEADER = "content,account_ids,publish_mode,scheduled_at,media_ids\n"


def _later(days: int) -> str:
    return (datetime.now(UTC) + timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:00Z")


def _contents(stack: LiveStack) -> list[str]:
    """The texts of the team's newest publishes."""
    listed = requests.get(
        f"{stack.url}/api/v1/publishes",
        params={"page_size": 100},
        headers={"Authorization": f"Bearer {stack.seed['keys']['acme_owner']}"},
        timeout=10,
    )
    assert listed.status_code == 200, listed.text
    return [publish["content"] for publish in listed.json()["data"]]


def _csv(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "posts.csv"
    path.write_text(text, encoding="utf-8")
    return path


def test_import_creates_every_row_with_quoted_cells_and_a_queued_row(
    socialpub: Socialpub, stack: LiveStack, tmp_path: Path
) -> None:
    accounts = stack.seed["accounts"]["acme"]
    x, bluesky, threads = accounts["x"], accounts["bluesky"], accounts["threads"]
    slot = json.loads(socialpub("schedule", threads, "--set", "wed 07:45", "--timezone", "UTC", "--json").out)
    tag = secrets.token_hex(3)
    two_lines = f'Two lines {tag}\nin one cell, "quoted"'
    path = _csv(
        tmp_path,
        HEADER
        + f'"Hello, world {tag}",{x},scheduled,{_later(2)},\n'
        + f'"Two lines {tag}\nin one cell, ""quoted""","{x} {bluesky}",scheduled,{_later(3)},\n'
        + f"Queued {tag},{threads},queue,,\n",
    )

    made = socialpub("import", str(path))

    assert made.code == 0, made.err
    lines = made.out.splitlines()
    assert re.fullmatch(r"row 1 \(line 2\): publish [0-9a-f-]{36}: scheduled, scheduled at .+ UTC", lines[0]), lines
    assert lines[1].startswith("row 2 (line 3): publish ")
    assert lines[2].startswith("row 3 (line 5): publish ")  # row 2's cell spans lines 3 and 4
    first_free = datetime.fromisoformat(slot["next_free_slots"][0])
    assert f", scheduled at {first_free:%Y-%m-%d %H:%M} UTC" in lines[2]
    assert lines[3] == "3 publishes created from posts.csv"
    assert {f"Hello, world {tag}", two_lines, f"Queued {tag}"} <= set(_contents(stack))


def test_import_json_prints_the_created_publishes(socialpub: Socialpub, stack: LiveStack, tmp_path: Path) -> None:
    x = stack.seed["accounts"]["acme"]["x"]
    path = _csv(tmp_path, HEADER + f"Draft one,{x},draft,,\nDraft two,{x},draft,,\n")

    made = socialpub("import", str(path), "--json")

    assert made.code == 0, made.err
    body = json.loads(made.out)
    assert [publish["content"] for publish in body["data"]] == ["Draft one", "Draft two"]
    assert {publish["status"] for publish in body["data"]} == {"draft"}


def _mixed(stack: LiveStack, tmp_path: Path, tag: str) -> Path:
    """A valid row over two lines, then a row too long for X."""
    x = stack.seed["accounts"]["acme"]["x"]
    return _csv(tmp_path, HEADER + f'"Fine {tag}\nreally",{x},,,\n' + f"{'y' * 300} {tag},{x},,,\n")


def test_a_dry_run_prints_each_rows_verdict_and_creates_nothing(
    socialpub: Socialpub, stack: LiveStack, tmp_path: Path
) -> None:
    tag = secrets.token_hex(3)

    checked = socialpub("import", str(_mixed(stack, tmp_path, tag)), "--dry-run")
    as_json = socialpub("import", str(_mixed(stack, tmp_path, tag)), "--dry-run", "--json")

    assert checked.code == 1, checked.err
    lines = checked.out.splitlines()
    assert lines[0] == "row 1 (line 2): ok"
    assert lines[1] == "row 2 (line 4): refused"
    assert lines[2].startswith("  targets[0].text TEXT_TOO_LONG: ")
    assert lines[-1] == "dry run: 1 of 2 rows would be refused; nothing was created"
    body = json.loads(as_json.out)
    assert body["meta"] == {"valid": False, "status": 400}
    assert [verdict["valid"] for verdict in body["data"]] == [True, False]
    assert not any(tag in content for content in _contents(stack))


def test_a_valid_dry_run_names_each_queued_rows_slot_and_exits_0(
    socialpub: Socialpub, stack: LiveStack, tmp_path: Path
) -> None:
    bluesky = stack.seed["accounts"]["acme"]["bluesky"]
    socialpub("schedule", bluesky, "--set", "sat 06:00", "sun 06:00", "--timezone", "UTC")
    free = json.loads(socialpub("schedule", bluesky, "--json").out)["next_free_slots"]
    document = HEADER + f"Would go,{bluesky},,,\nFirst,{bluesky},queue,,\nSecond,{bluesky},queue,,\n"

    checked = socialpub("import", str(_csv(tmp_path, document)), "--dry-run")

    assert checked.code == 0, checked.err
    slots = [f"{datetime.fromisoformat(slot):%Y-%m-%d %H:%M} UTC" for slot in free[:2]]
    assert checked.out.splitlines() == [
        "row 1 (line 2): ok",
        f"row 2 (line 3): ok, scheduled at {slots[0]}",
        f"row 3 (line 4): ok, scheduled at {slots[1]}",
        "dry run: every row would be created; nothing was created",
    ]


def test_a_refused_batch_prints_each_rows_problems_and_creates_nothing(
    socialpub: Socialpub, stack: LiveStack, tmp_path: Path
) -> None:
    tag = secrets.token_hex(3)

    refused = socialpub("import", str(_mixed(stack, tmp_path, tag)))
    as_json = socialpub("--json", "import", str(_mixed(stack, tmp_path, tag)))

    assert refused.code == 1
    assert refused.out == ""
    first, *rows = refused.err.strip().splitlines()
    assert re.match(r"^error: 400 \w+ \(INVALID_ROWS\): 1 of 2 rows cannot be created; nothing was created\.", first)
    assert len(rows) == 1
    assert rows[0].startswith("row 2 (line 4): targets[0].text TEXT_TOO_LONG: ")
    assert as_json.code == 1
    error = json.loads(as_json.out)["error"]
    assert error["code"] == "INVALID_ROWS"
    assert [row["index"] for row in error["details"]["rows"]] == [1]
    assert not any(tag in content for content in _contents(stack))


def test_an_unknown_column_and_a_missing_file_are_named(socialpub: Socialpub, stack: LiveStack, tmp_path: Path) -> None:
    x = stack.seed["accounts"]["acme"]["x"]

    unknown = socialpub("import", str(_csv(tmp_path, f"content,account_ids,colour\nHi,{x},blue\n")))
    missing = socialpub("import", str(tmp_path / "absent.csv"))

    assert unknown.code == 1
    assert "(CSV_UNKNOWN_COLUMNS)" in unknown.err
    assert missing.code == 1
    assert missing.err.strip() == f"error: {tmp_path / 'absent.csv'}: No such file or directory"

"""`socialpub.Client` from a Python program against the running stack, with this checkout's
package (a program of its own, as a user's script runs)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

from tests.clients.conftest import SOURCE
from tests.long.stack import LiveStack

BULK = """
import json, sys
from socialpub import ApiError, Client
from socialpub._generated.models import CreatePublishRequest

client = Client()
account = sys.argv[1]
rows = [
    {"content": "Kept as a draft", "targets": [{"account_id": account}], "publish_mode": "draft"},
    CreatePublishRequest.from_dict(
        {"content": "Another draft", "targets": [{"account_id": account}], "publish_mode": "draft"}
    ),
]
checked = client.bulk(rows, dry_run=True)
created = client.bulk(rows, idempotency_key="client-bulk-once")
again = client.bulk(rows, idempotency_key="client-bulk-once")
try:
    client.bulk([rows[0], {"content": "x" * 300, "targets": [{"account_id": account}]}])
    refused = None
except ApiError as exc:
    refused = {"status": exc.status, "code": exc.code, "rows": exc.details["rows"]}
print(json.dumps({
    "checked": [checked.meta.valid, [verdict.valid for verdict in checked.data]],
    "created": [[str(p.id), p.content, str(p.status)] for p in created.data],
    "again": [str(p.id) for p in again.data],
    "refused": refused,
}))
"""


def _program(stack: LiveStack, source: str, *args: str) -> dict:
    env = {name: value for name, value in os.environ.items() if not name.startswith("SOCIALPUB_")}
    env |= {"SOCIALPUB_URL": stack.url, "SOCIALPUB_API_KEY": stack.seed["keys"]["acme_owner"]}
    env["PYTHONPATH"] = str(SOURCE)
    done = subprocess.run(  # noqa: S603
        [sys.executable, "-c", textwrap.dedent(source), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_bulk_checks_creates_once_and_raises_the_refused_rows(stack: LiveStack) -> None:
    answer = _program(stack, BULK, str(stack.seed["accounts"]["acme"]["x"]))

    assert answer["checked"] == [True, [True, True]]
    assert [(content, status) for _, content, status in answer["created"]] == [
        ("Kept as a draft", "draft"),
        ("Another draft", "draft"),
    ]
    assert answer["again"] == [publish_id for publish_id, _, _ in answer["created"]]
    refused = answer["refused"]
    assert (refused["status"], refused["code"]) == (400, "INVALID_ROWS")
    assert [row["index"] for row in refused["rows"]] == [1]
    assert refused["rows"][0]["problems"][0]["code"] == "TEXT_TOO_LONG"

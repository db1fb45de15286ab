"""Mixed load on the whole stack: locust (tests/long/locustfile.py) drives creates of every
mode, reads, lists, media uploads, retries and approvals through several keys of three teams for
LONG_LOAD_SECONDS (90 by default) while the sandbox answers ok, error, rate_limited, timeout
and processing, and a local receiver takes every webhook. Once the queues have drained, the
checker (tests/long/checker.py) finds nothing lost and nothing sent twice, and no request got a
5xx. The figures are printed at the end (`make test-long` shows them)."""

from __future__ import annotations

import json
import os
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from bench.common import BIN, ROOT
from tests.long.checker import UnknownWatch, check, drain, stuck
from tests.long.stack import LiveStack

pytestmark = pytest.mark.long

LOAD_SECONDS = int(os.environ.get("LONG_LOAD_SECONDS", "90"))
USERS, SPAWN_RATE = 14, 7
DRAIN_SECONDS = 120
LOCUSTFILE = Path(__file__).with_name("locustfile.py")
# Requests of these names must have succeeded at least once, or the mix did not run.
MUST_SUCCEED = (
    "POST /publishes (immediate)",
    "POST /publishes (scheduled)",
    "POST /publishes (draft)",
    "POST /publishes (media)",
    "POST /publishes/{id}/confirm",
    "POST /publishes/{id}/retry",
    "POST /publishes/{id}/approve",
    "POST /publishes/{id}/reject",
    "GET /publishes/{id}",
    "GET /publishes",
    "PUT upload_url",
    "sandbox: POST /_sandbox/outcomes",
)

Request = tuple[str, str, int]


def _run_locust(stack: LiveStack) -> list[Request]:
    """Run the load headless in its own process; every request it made as (method, name, status)."""
    record, config = stack.folder / "requests.jsonl", stack.folder / "locust.json"
    config.write_text(
        json.dumps(
            {
                "keys": stack.keys,
                "accounts": stack.seed["accounts"],
                "sandbox_url": stack.sandbox_url,
                "record": str(record),
            }
        )
    )
    argv = [str(BIN / "locust"), "-f", str(LOCUSTFILE), "--headless", "-u", str(USERS), "-r", str(SPAWN_RATE)]
    argv += ["-t", f"{LOAD_SECONDS}s", "--host", stack.url, "--csv", str(stack.folder / "locust"), "--only-summary"]
    argv += ["--stop-timeout", "15", "--exit-code-on-error", "0", "--loglevel", "WARNING"]
    done = subprocess.run(  # noqa: S603
        argv,
        cwd=ROOT,
        env={**os.environ, "LONG_CONFIG": str(config)},
        capture_output=True,
        text=True,
        timeout=LOAD_SECONDS + 120,
    )
    (stack.folder / "logs" / "locust.log").write_text(done.stdout + done.stderr)
    assert done.returncode == 0, f"locust exited with {done.returncode}:\n{done.stderr[-3000:]}"
    return [(m, n, s) for m, n, s in map(json.loads, record.read_text().splitlines())]


def _figures(made: list[Request], counts: Counter[str]) -> str:
    statuses = dict(sorted(Counter(f"{s // 100}xx" if s else "no answer" for _, _, s in made).items()))

    def by(prefix: str) -> str:
        return ", ".join(f"{k.removeprefix(prefix)} {v}" for k, v in sorted(counts.items()) if k.startswith(prefix))

    lines = [
        f"requests:  {len(made)} in {LOAD_SECONDS} s ({len(made) / LOAD_SECONDS:.1f}/s), {statuses}",
        f"publishes: {counts['publishes']} ({by('publishes ')})",
        f"targets:   {counts['targets']} ({by('targets ')})",
        f"attempts:  {counts['delivery attempts']} ({counts['attempts seen unknown']} seen unknown, then read back)",
        f"posts:     {counts['sandbox posts']} on the sandbox",
        f"webhooks:  {counts['webhook events']} events, {counts['webhook arrivals']} arrivals "
        f"({counts['webhook retries']} answered 503 and retried)",
        f"lost {counts['lost']}, duplicated {counts['duplicated']}, wrong {counts['wrong']}",
    ]
    return "\n".join(lines)


def test_mixed_load_loses_nothing_sends_nothing_twice_and_never_answers_5xx(stack: LiveStack) -> None:
    with UnknownWatch(stack.database_url) as watch:
        made = _run_locust(stack)
        left = drain(stack.database_url, timeout=DRAIN_SECONDS)
    stack.processes.check_alive()
    report = check(stack.database_url, stack.sandbox_posts(), stack.receiver.received(), watch.seen)
    print(f"\nMixed load, {USERS} clients for {LOAD_SECONDS} s:\n{_figures(made, report.counts)}")

    errors = Counter((m, n, s) for m, n, s in made if s >= 500 or s == 0)
    assert not errors, f"5xx or no answer: {dict(errors)} (logs in {stack.processes.logs})"
    succeeded = {n for _, n, s in made if 200 <= s < 300}
    assert not set(MUST_SUCCEED) - succeeded, f"never succeeded: {set(MUST_SUCCEED) - succeeded}"
    assert not left, f"unsettled after {DRAIN_SECONDS} s: {left}, first ones: {stuck(stack.database_url)}"
    assert report.problems == [], "\n".join(report.problems)
    assert stack.receiver.bad_signatures == 0
    assert stack.log_errors() == []
    # The platforms' bad answers reached the workers: refusals, and answers that never came.
    assert report.counts["attempts failed"] > 0
    assert watch.seen, "no attempt was ever unknown: the sandbox's timeouts did not happen"
    stack.keep_logs = False

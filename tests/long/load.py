"""One run of the mixed load (tests/long/locustfile.py) against a live stack, with an optional
fault injected while it runs; what the clients saw; and the judgement every long suite shares:
the queues drain, the checker finds nothing lost and nothing sent twice, no answer was a 500,
and a 503 came only while a fault lasted."""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import BIN, ROOT
from tests.long.checker import Report, UnknownWatch, check, drain, stuck
from tests.long.stack import LiveStack

USERS, SPAWN_RATE = 14, 7
DRAIN_SECONDS = 150
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
SERVICE_UNAVAILABLE_LOGGED = re.compile(r"ERROR django\.request \[[^]]*\] Service Unavailable: /api/")
# After a fault ends, this long may pass before every answer is a good one again.
RECOVERY_SECONDS = 15.0


@dataclass
class Window:
    """When a fault lasted (time.time()), filled in by the injector as it goes."""

    start: float = 0.0
    end: float = 0.0
    injected: Counter[str] = field(default_factory=Counter)  # what was done, how often

    def begin(self) -> None:
        self.start = time.time()

    def finish(self) -> None:
        self.end = time.time()

    def covers(self, moment: float) -> bool:
        return self.start <= moment <= self.end + RECOVERY_SECONDS


@dataclass
class LoadRun:
    seconds: int
    requests: list[dict[str, Any]]  # {t, method, name, status[, error]}
    creates: list[dict[str, Any]]  # {content, status, publish_id, tries}
    window: Window | None = None
    report: Report = field(default_factory=Report)
    left: dict[str, int] = field(default_factory=dict)

    def statuses(self) -> dict[str, int]:
        return dict(sorted(Counter(_status_class(r["status"]) for r in self.requests).items()))


def _status_class(status: int) -> str:
    return f"{status // 100}xx" if status else "no answer"


def run_load(
    stack: LiveStack,
    seconds: int,
    fault: Callable[[Window], None] | None = None,
    *,
    leave_out: frozenset[str] = frozenset(),
) -> LoadRun:
    """Run the load headless in its own process for `seconds` while `fault` (if any) runs in a
    thread of this one; then wait for the queues to drain and check what was left behind (but
    the webhooks of the teams in `leave_out`, by slug)."""
    window = Window() if fault else None
    failure: list[Exception] = []

    def inject() -> None:
        assert fault is not None
        assert window is not None
        try:
            fault(window)
        except Exception as exc:  # re-raised in the test's thread  # noqa: BLE001
            failure.append(exc)

    with UnknownWatch(stack.database_url) as watch:
        injector = threading.Thread(target=inject, daemon=True) if fault else None
        if injector:
            injector.start()
        requests, creates = _locust(stack, seconds)
        if injector:
            injector.join()
        if failure:
            raise failure[0]
        left = drain(stack.database_url, timeout=DRAIN_SECONDS)
    posts = stack.sandbox_posts()
    arrivals = {event: got for event, got in stack.receiver.received().items() if got[0].team not in leave_out}
    subscriptions = frozenset(stack.subscriptions[slug] for slug in leave_out)
    retention = stack.processes.env.get("WEBHOOK_DELIVERY_RETENTION_SECONDS")  # a soak may shorten it
    purged_before = time.time() - float(retention) if retention else None
    report = check(
        stack.database_url, posts, arrivals, watch.seen, creates, leave_out=subscriptions, purged_before=purged_before
    )
    return LoadRun(seconds, requests, creates, window, report, left)


def _locust(stack: LiveStack, seconds: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    record, creates, config = (stack.folder / name for name in ("requests.jsonl", "creates.jsonl", "locust.json"))
    config.write_text(
        json.dumps(
            {
                "keys": stack.keys,
                "accounts": stack.seed["accounts"],
                "sandbox_url": stack.sandbox_url,
                "record": str(record),
                "creates": str(creates),
            }
        )
    )
    argv = [str(BIN / "locust"), "-f", str(LOCUSTFILE), "--headless", "-u", str(USERS), "-r", str(SPAWN_RATE)]
    argv += ["-t", f"{seconds}s", "--host", stack.url, "--csv", str(stack.folder / "locust"), "--only-summary"]
    argv += ["--stop-timeout", "60", "--exit-code-on-error", "0", "--loglevel", "WARNING"]
    done = subprocess.run(  # noqa: S603
        argv,
        cwd=ROOT,
        env={**os.environ, "LONG_CONFIG": str(config)},
        capture_output=True,
        text=True,
        timeout=seconds + 180,
    )
    (stack.folder / "logs" / "locust.log").write_text(done.stdout + done.stderr)
    assert done.returncode == 0, f"locust exited with {done.returncode}:\n{done.stderr[-3000:]}"
    return _lines(record), _lines(creates)


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def assert_held(stack: LiveStack, run: LoadRun, *, expected_log: re.Pattern[str] | None = None) -> None:
    """What every long suite demands of its run: the mix ran, every create the service accepted
    is there once, the queues drained, nothing lost or sent twice, no 500 ever, a 503 only while
    the fault lasted (and said so), every process alive, and no error in the logs but the
    fault's own (`expected_log`)."""
    stack.processes.check_alive()
    unexpected = [
        (r["method"], r["name"], r["status"], r.get("error", ""))
        for r in run.requests
        if (r["status"] >= 500 or r["status"] == 0) and not _fault_answer(run, r)
    ]
    if unexpected:  # what the processes logged meanwhile tells a crash from a dropped connection
        logged = "\n".join(stack.log_errors()[:20])
        where = f"logs in {stack.processes.logs}"
        raise AssertionError(f"5xx or no answer: {dict(Counter(unexpected))} ({where})\n{logged}")
    succeeded = {r["name"] for r in run.requests if 200 <= r["status"] < 300}
    assert not set(MUST_SUCCEED) - succeeded, f"never succeeded: {set(MUST_SUCCEED) - succeeded}"
    if run.window:
        recovered = run.window.end + RECOVERY_SECONDS
        after = [r for r in run.requests if r["t"] > recovered and r["name"].startswith("POST /publishes (")]
        assert any(r["status"] == 201 for r in after), "no create succeeded once the fault was over"
    assert not run.left, f"unsettled after {DRAIN_SECONDS} s: {run.left}, first ones: {stuck(stack.database_url)}"
    assert run.report.problems == [], "\n".join(run.report.problems)
    assert stack.receiver.bad_signatures == 0
    errors = stack.log_errors()
    if run.window:  # Django logs each 5xx it answers, and the 503s were judged above
        errors = [line for line in errors if not SERVICE_UNAVAILABLE_LOGGED.search(line)]
    if expected_log is not None:  # its errors' tracebacks too: a dead process shows as such above
        errors = [line for line in errors if not expected_log.search(line) and "Traceback" not in line]
    assert errors == [], "\n".join(errors[:40])


def _fault_answer(run: LoadRun, request: dict[str, Any]) -> bool:
    """A 503 saying the service is unavailable, while the fault lasted or shortly after."""
    return (
        run.window is not None
        and request["status"] == 503
        and request.get("error") == "service_unavailable"
        and run.window.covers(request["t"])
    )


def figures(run: LoadRun) -> str:
    counts = run.report.counts

    def by(prefix: str) -> str:
        return ", ".join(f"{k.removeprefix(prefix)} {v}" for k, v in sorted(counts.items()) if k.startswith(prefix))

    retried = sum(1 for c in run.creates if c["tries"] > 1)
    rate = len(run.requests) / run.seconds
    lines = [
        f"requests:  {len(run.requests)} in {run.seconds} s ({rate:.1f}/s), {run.statuses()}",
        f"creates:   {len(run.creates)} ({retried} sent again with their Idempotency-Key)",
        f"publishes: {counts['publishes']} ({by('publishes ')})",
        f"targets:   {counts['targets']} ({by('targets ')})",
        f"attempts:  {counts['delivery attempts']} ({counts['attempts seen unknown']} seen unknown, then read back)",
        f"posts:     {counts['sandbox posts']} on the sandbox",
        f"webhooks:  {counts['webhook events']} events, {counts['webhook arrivals']} arrivals "
        f"({counts['webhook retries']} answered 503 and retried)",
    ]
    if run.window:
        done = ", ".join(f"{what} {n}" for what, n in run.window.injected.items())
        lines.append(f"fault:     {done}, over {run.window.end - run.window.start:.0f} s")
    lines.append(f"lost {counts['lost']}, duplicated {counts['duplicated']}, wrong {counts['wrong']}")
    return "\n".join(lines)

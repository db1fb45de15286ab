"""Dispatch claims per worker process (figure 2 of bench.workers).

Pending jobs are handed to the broker first, then one worker process (the Procfile's `dispatch`
line: threads) drains them against the sandbox, which answers at once: delivered jobs per second
between the first claim and the last answer recorded. PostgreSQL's `pg_stat_database.sessions`
for the scratch database, read before and after, says how many connections were opened
meanwhile; the CPU time of the worker, its PostgreSQL backend and the sandbox says what one
delivery costs each.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import time
from pathlib import Path
from typing import Any

from bench.common import Figure, Stack
from bench.workers.stack import QUICK, Run, Sizes, check_posts, procfile_worker


def _sessions(run: Run) -> int:
    row = run.sql("SELECT sessions FROM pg_stat_database WHERE datname = current_database()")
    return int(row[0])


def _cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process and its children still alive, from /proc."""
    ticks = os.sysconf("SC_CLK_TCK")
    total, pids = 0.0, [pid]
    with contextlib.suppress(OSError):
        pids += [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    for one in pids:
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = Path(f"/proc/{one}/stat").read_text().rpartition(")")[2].split()
            total += (int(fields[11]) + int(fields[12])) / ticks
    return total


def _worker_backends(run: Run, since: float) -> list[int]:
    """PostgreSQL backends of the scratch database opened after `since` (the worker's)."""
    rows = run.db.execute(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_start > to_timestamp(%s)",
        (since,),
    ).fetchall()
    return [int(row[0]) for row in rows]


def figure(run: Run, sizes: Sizes) -> Figure:
    tag = f"claims {secrets.token_hex(3)}"
    run.flush_broker()
    made = run.helper("make_jobs", tag=tag, n=sizes.claims, accounts=run.accounts, enqueue=True)
    if run.queued() != sizes.claims:
        raise RuntimeError(f"{run.queued()} messages queued for {sizes.claims} jobs")
    before = _sessions(run)  # counted when a session starts: nothing pending from the helper's
    stack = run.stack()
    cpu: dict[str, float] = {}
    last: dict[str, float] = {}
    try:
        launched = time.time()
        stack.start("claims", procfile_worker("dispatch"))
        deadline = time.monotonic() + 30 + sizes.claims_cap
        done = 0
        while time.monotonic() < deadline and done < sizes.claims:
            stack.check_alive()
            time.sleep(0.25)
            done, started = run.sql(
                "SELECT count(*) FILTER (WHERE j.state = 'done'), min(j.claimed_at) FROM publishing_deliveryjob j "
                "JOIN publishing_target t ON t.id = j.target_id JOIN publishing_publish p ON p.id = t.publish_id "
                "WHERE p.content LIKE %s",
                f"Bench {tag}: %",
            )
            # CPU is counted from the first delivery on: the worker's start-up is not a task's.
            sample = _cpu_sample(run, stack, launched, done)
            cpu = cpu or (sample if done else {})
            if started is not None and time.time() - started.timestamp() > sizes.claims_cap:
                break
        last = _cpu_sample(run, stack, launched, done)
    finally:
        stack.stop()
    time.sleep(0.5)  # the worker's backends exit, flushing what they counted
    opened = _sessions(run) - before
    report = run.helper("claims_report", tag=tag)
    finished, claimed = report["finished"], report["claimed"]
    if report["runs_over_one"] or report["attempts"] != len(claimed) or not finished:
        raise RuntimeError(
            f"claims run broken: { ({k: v for k, v in report.items() if k not in ('claimed', 'finished')}) }"
        )
    check_posts(run, tag, report["published"])
    span = finished[-1] - claimed[0]
    rate = len(finished) / span if span > 0 else float("nan")
    return Figure(
        name="dispatch claims per worker process (sandbox answering at once)",
        value=round(rate, 1),
        unit="/s",
        goal=">= 150/s, no new DB connection per task",
        met=rate >= 150 and opened < len(finished) / 10,
        extra={
            "delivered": len(finished),
            "preloaded_jobs": made["jobs"],
            "seconds": round(span, 2),
            "pg_sessions_opened": opened,
            "pg_sessions_note": "pg_stat_database.sessions delta while the dispatch worker process ran",
            "cut_short": len(finished) < sizes.claims,
            **_cpu_per_delivery(cpu, last),
            "quick": sizes is QUICK,
        },
    )


def _cpu_sample(run: Run, stack: Stack, launched: float, done: int) -> dict[str, float]:
    return {
        "done": float(done),
        "worker": _cpu_seconds(stack.procs["claims"].pid),
        "postgres": sum(_cpu_seconds(pid) for pid in _worker_backends(run, launched)),
        "sandbox": _cpu_seconds(run.sandbox_pid),
    }


def _cpu_per_delivery(first: dict[str, float], last: dict[str, float]) -> dict[str, Any]:
    """CPU milliseconds a delivery cost each process, between two samples. The PostgreSQL
    figure counts only backends alive at both samples (a connection per task escapes it)."""
    delivered = last.get("done", 0.0) - first.get("done", 0.0)
    if not first or delivered <= 0:
        return {}
    per = {k: round((last[k] - first[k]) / delivered * 1000, 2) for k in ("worker", "postgres", "sandbox")}
    return {
        "cpu_ms_per_delivery": per,
        "cpu_note": "worker = the dispatch worker process (its threads); one core spent only on it "
        f"would deliver about {1000 / per['worker']:.0f}/s"
        if per["worker"] > 0
        else "",
    }

"""What the hour-long soak watches (README, Reliability): every LONG_SOAK_EVERY seconds (60 by
default) the resident memory of each process of the stack (with its children: gunicorn's and
the prefork worker's) and the rows of every table that must stay bounded, one JSON line each in
the report file; at the end, a summary of first, highest and last values.

    LONG_LOAD_SECONDS=3600 LONG_SOAK_REPORT=var/soak.jsonl make test-long PYTEST_ARGS=-k mixed

Memory that keeps climbing in the second half of the run, or a bounded table that grows past
what its retention allows, is what the soak exists to catch.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import requests

from publishing.models import DeliveryJob, IdempotencyKey
from tests.long.checker import connect
from tests.long.stack import LiveStack
from webhooks.models import Delivery, DeliveryAttempt, Event

# Tables whose rows a retention rule removes: they must level off, not grow with the run.
BOUNDED = {
    "idempotency keys": IdempotencyKey._meta.db_table,
    "delivery jobs": DeliveryJob._meta.db_table,
    "webhook events": Event._meta.db_table,
    "webhook deliveries": Delivery._meta.db_table,
    "webhook delivery attempts": DeliveryAttempt._meta.db_table,
}


def _rss_mb(pid: int) -> float:
    try:
        root = psutil.Process(pid)
        rss = sum(p.memory_info().rss for p in (root, *root.children(recursive=True)))
    except psutil.Error:
        return 0.0
    return round(rss / 2**20, 1)


def sample(stack: LiveStack) -> dict[str, Any]:
    memory = {name: _rss_mb(proc.pid) for name, proc in stack.processes.procs.items()}
    if stack.redis.proc is not None:
        memory["redis"] = _rss_mb(stack.redis.proc.pid)
    with connect(stack.database_url) as conn:
        rows = {what: conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] for what, table in BOUNDED.items()}  # type: ignore[index]  # noqa: S608
    posts = requests.get(f"{stack.sandbox_url}/_sandbox/posts", timeout=30).json()["posts"]
    return {"t": round(time.time(), 1), "rss_mb": memory, "rows": rows, "sandbox posts": len(posts)}


def summary(samples: list[dict[str, Any]]) -> str:
    if not samples:
        return "soak: no sample"
    first, last = samples[0], samples[-1]
    lines = [f"soak: {len(samples)} samples over {(last['t'] - first['t']) / 60:.0f} min"]
    for name in last["rss_mb"]:
        peak = max(s["rss_mb"].get(name, 0) for s in samples)
        lines.append(f"  {name}: {first['rss_mb'].get(name, 0)} MB, peak {peak}, last {last['rss_mb'][name]}")
    for what in last["rows"]:
        peak = max(s["rows"][what] for s in samples)
        lines.append(f"  {what}: {first['rows'][what]} rows, peak {peak}, last {last['rows'][what]}")
    return "\n".join(lines)


@contextlib.contextmanager
def soak_watch(stack: LiveStack, report: str | None) -> Iterator[None]:
    """Sample into `report` (a file path) while the block runs; nothing when it is None."""
    if not report:
        yield
        return
    every = float(os.environ.get("LONG_SOAK_EVERY", "60"))
    samples: list[dict[str, Any]] = []
    stop = threading.Event()

    def watch() -> None:
        with Path(report).open("a", encoding="utf-8") as out:
            while True:
                samples.append(sample(stack))
                out.write(json.dumps(samples[-1]) + "\n")
                out.flush()
                if stop.wait(every):
                    return

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        print(summary(samples))

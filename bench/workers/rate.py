"""Create → published at a constant arrival rate (figure 1 of bench.workers).

The stack as the Procfile runs it (gunicorn 2x4 threads, the `dispatch` worker, the `worker`
worker with one prefork process for every other lane, beat, the sandbox): two worker processes.
Creates (X and Bluesky targets) are sent at RATE a second on a fixed timetable (an open model: a
slow answer does not slow the arrivals), each on its own API key's budget. The figure is the p99
from a create's scheduled arrival to its last target's `published_at`; the backlog (publishes
created and not final) is sampled every half second and must stay flat.
"""

from __future__ import annotations

import math
import secrets
import threading
import time
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

import psycopg

from bench.common import BIN, Figure, Stack, free_port, http_ok, replace_option, wait_for
from bench.publish_throughput import CREATES_PER_KEY, Create, _create, _pct
from bench.workers.stack import (
    QUICK,
    Run,
    Sizes,
    celery,
    check_posts,
    procfile_worker,
    psycopg_url,
    quit_now,
    worker_ready,
)

FINAL = ("published", "failed", "partial")
# The lanes the Procfile gives workers of their own, served here by one process (two cores).
OTHER_QUEUES = ("default", "control", "fetch", "media", "webhooks", "analytics")
WEB = ["--workers", "2", "--threads", "4", "--timeout", "60", "--no-control-socket"]  # the Procfile's web line


def _start_stack(run: Run, stack: Stack, port: int) -> None:
    stack.start("web", [str(BIN / "gunicorn"), "config.wsgi", "--bind", f"127.0.0.1:{port}", *WEB])
    # Two worker processes: the dispatch worker's one, and one prefork process for the rest.
    others = replace_option(procfile_worker("worker"), "--queues", ",".join(OTHER_QUEUES))
    stack.start("worker", replace_option(others, "--concurrency", "1"))
    stack.start("dispatch", procfile_worker("dispatch"))
    celery(stack, "beat", "beat", "--loglevel", "INFO", "--schedule", str(run.logs / "beat-schedule"))
    wait_for(stack, "web server", lambda: http_ok(port, "/healthz"))
    worker_ready(stack, "worker")
    worker_ready(stack, "dispatch")


def _payload(tag: str, n: int, accounts: list[str]) -> dict[str, Any]:
    return {
        "content": f"Bench {tag}: {n}",
        "targets": [{"account_id": a} for a in accounts],
        "publish_mode": "immediate",
    }


@dataclass(frozen=True)
class Arrivals:
    creates: list[Create]  # each `sent` is its scheduled moment: a late send counts as latency
    seconds: float  # from the first scheduled arrival to the last send
    lag: float  # the latest a create went out after its scheduled moment


def _open_model(port: int, keys: list[str], accounts: list[str], tag: str, rate: float, count: int) -> Arrivals:
    """Send `count` creates on a fixed timetable of `rate` a second, whatever their answers take."""
    started, wall = time.monotonic(), time.time()
    with ThreadPoolExecutor(max_workers=256) as pool:
        futures: list[Future[Create]] = []
        for n in range(count):
            pause = started + n / rate - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            futures.append(pool.submit(_create, port, keys[n % len(keys)], _payload(tag, n, accounts)))
        seconds = time.monotonic() - started
        done = [f.result() for f in futures]
    creates = [replace(c, sent=wall + n / rate) for n, c in enumerate(done)]
    lag = max((d.sent - c.sent for d, c in zip(done, creates, strict=True)), default=0.0)
    return Arrivals(creates, seconds, lag)


def _sampler(run: Run, tag: str, stop: threading.Event, samples: list[tuple[float, int]]) -> None:
    with psycopg.connect(psycopg_url(run.database_url), autocommit=True) as conn:
        while not stop.is_set():
            row = conn.execute(
                "SELECT count(*) FROM publishing_publish WHERE content LIKE %s AND status <> ALL(%s)",
                (f"Bench {tag}: %", list(FINAL)),
            ).fetchone()
            samples.append((time.monotonic(), int(row[0]) if row else 0))
            stop.wait(0.5)


def _slope(points: list[tuple[float, int]]) -> float:
    """Least-squares slope of the backlog over time, in publishes a second."""
    if len(points) < 2:
        return 0.0
    mean_t = sum(t for t, _ in points) / len(points)
    mean_v = sum(v for _, v in points) / len(points)
    spread = sum((t - mean_t) ** 2 for t, _ in points)
    return sum((t - mean_t) * (v - mean_v) for t, v in points) / spread if spread else 0.0


def figure(run: Run, sizes: Sizes) -> Figure:
    tag = f"rate {secrets.token_hex(3)}"
    count = int(sizes.rate * sizes.rate_seconds)
    keys = run.helper("make_keys", team=run.team, n=math.ceil(count / CREATES_PER_KEY))
    run.flush_broker()
    port = free_port()
    stack = run.stack()
    samples: list[tuple[float, int]] = []
    stop = threading.Event()
    try:
        _start_stack(run, stack, port)
        warm = [_create(port, run.demo_key, _payload(f"{tag} warm-up", n, run.accounts)) for n in range(2)]
        _published(run, warm, wait=30)
        sampler = threading.Thread(target=_sampler, args=(run, tag, stop, samples), daemon=True)
        sampler.start()
        begun = time.monotonic()
        arrivals = _open_model(port, keys, run.accounts, tag, sizes.rate, count)
        creates, sent_for = arrivals.creates, arrivals.seconds
        rows = _published(run, creates, wait=60 + 0.1 * count)  # a slow drain is slow, not broken
        stop.set()
        sampler.join()
        stack.check_alive()
        quit_now(stack)  # everything is published: nothing in flight is worth a graceful stop
    finally:
        stop.set()
        stack.stop()
    latencies = [
        max(t["published_at"] for t in rows[c.publish_id]["targets"]) - c.sent for c in creates if c.publish_id
    ]
    posts = check_posts(run, tag, sum(len(r["targets"]) for r in rows.values()))
    during = [(t, v) for t, v in samples if t - begun <= sent_for]
    steady = during[len(during) // 5 :]  # past the first fifth: the pipeline has filled
    slope = _slope(steady)
    p99 = _pct(latencies, 99)
    flat = slope <= 0.05 * sizes.rate
    return Figure(
        name=f"create -> published at {sizes.rate:g} publishes/s (2 targets, open model, 2 worker processes)",
        value=round(p99, 3),
        unit="s",
        goal="p99 <= 1.5 s, backlog flat",
        met=p99 <= 1.5 and flat,
        extra={
            "publishes": len(creates),
            "arrival_seconds": round(sent_for, 1),
            "p50_s": round(_pct(latencies, 50), 3),
            "p95_s": round(_pct(latencies, 95), 3),
            "max_s": round(max(latencies), 3),
            "create_call_p50_ms": round(_pct([c.seconds for c in creates], 50) * 1000, 1),
            "create_call_p99_ms": round(_pct([c.seconds for c in creates], 99) * 1000, 1),
            "backlog_slope_per_s": round(slope, 3),
            "backlog_max": max((v for _, v in during), default=0),
            "backlog_at_quarters": [during[int(q * (len(during) - 1))][1] for q in (0.25, 0.5, 0.75, 1.0)]
            if during
            else [],
            "latest_send_after_schedule_s": round(arrivals.lag, 3),
            "latency_note": "from each create's scheduled arrival to its last target's published_at",
            "sandbox_posts": posts,
            "quick": sizes is QUICK,
        },
    )


def _published(run: Run, creates: list[Create], *, wait: float) -> dict[str, Any]:
    """Every create answered 201 and its publish is published with one attempt a target; raise
    otherwise. The publishes' rows, read once they are final."""
    refused = [c for c in creates if c.status != 201]
    if refused:
        raise RuntimeError(
            f"{len(refused)} creates answered {dict(Counter(c.status for c in refused))}: {refused[0].body[:300]!r}"
        )
    rows: dict[str, Any] = run.helper("watch", ids=[c.publish_id for c in creates], wait=wait)
    bad = {
        pid: r for pid, r in rows.items() if r["status"] != "published" or any(t["attempts"] != 1 for t in r["targets"])
    }
    if bad or len(rows) != len(creates):
        first = next(iter(bad.items()), None)
        raise RuntimeError(f"{len(bad)} of {len(creates)} publishes not published once, e.g. {first}")
    return rows

"""Scheduled release (figure 4 of bench.workers).

RELEASE scheduled publishes are all made due at the same moment while a worker (2 processes,
`default` queue) runs. The bench sends beat's `publishing.release_due` task on beat's timetable,
with a tick just before the due time (the phase where beat alone would release them a whole
SCHEDULER_TICK_SECONDS late): that tick finds nothing due yet and arms a run for the due moment,
as it does for anything due before the next tick. Lateness is the moment a publish's job reached
the broker minus its due time. Deliveries are not consumed during this figure.
"""

from __future__ import annotations

import secrets
import time

from bench.common import Figure, Stack
from bench.publish_throughput import _pct
from bench.workers.stack import QUICK, Run, Sizes, celery, quit_now, worker_ready

WORKER = ["--without-gossip", "--without-mingle", "--loglevel", "INFO"]


def figure(run: Run, sizes: Sizes) -> Figure:
    tag = f"release {secrets.token_hex(3)}"
    run.flush_broker()
    stack = run.stack()
    try:
        celery(stack, "release-worker", "worker", "-Q", "control", "-c", "2", "-n", "release@%h", *WORKER)
        run.helper("make_scheduled", tag=tag, n=sizes.release, accounts=run.accounts)
        worker_ready(stack, "release-worker")
        tick = float(run.helper("tick_seconds"))
        due = time.time() + 0.5
        run.helper("set_due", tag=tag, at=due)
        # A tick just before the due time finds nothing due yet (it arms a run for the due
        # moment); the next one comes a whole tick later. The bench sends beat's task on that
        # timetable.
        ticks = (due - 0.05 + tick * n for n in range(1000))
        deadline = due + sizes.release_cap
        while time.time() < deadline:
            _until(next(ticks), stack)
            run.helper("tick")
            if _released(run, tag, sizes.release, wait=min(tick, deadline - time.time()), stack=stack) >= sizes.release:
                break
        quit_now(stack)  # whatever is still running changes nothing the figure reads
    finally:
        stack.stop()
    report = run.helper("release_report", tag=tag)
    handed = sorted(report["handed"][p] - due for p in report["due"] if report["handed"].get(p) is not None)
    messages = run.queued()
    # A relay racing a release may send a job twice (harmless: the claim is a compare-and-set).
    if report["jobs"] != len(report["handed"]) or messages < len(handed):
        raise RuntimeError(f"{report['jobs']} jobs for {len(report['handed'])} publishes, {messages} messages")
    run.flush_broker()
    if not handed:
        raise RuntimeError(f"nothing was released within {sizes.release_cap:g} s of the due time")
    released_all = len(handed) == sizes.release
    last = handed[-1] if handed else float("nan")
    p99 = _pct(handed, 99) if released_all else float("inf")
    tick = report["tick"]
    spread = last - handed[0] if handed else 0.0
    rate = (len(handed) - 1) / spread if spread > 0 else None
    extrapolated = handed[0] + sizes.release / rate if rate else last
    return Figure(
        name=f"scheduled release: {sizes.release:,} publishes due in the same second",
        value=round(last if released_all else extrapolated, 2),
        unit="s",
        goal=f"all released <= 15 s; lateness p99 <= tick + 1 s ({tick + 1:g} s)",
        met=released_all and last <= 15 and p99 <= tick + 1,
        extra={
            "released": len(handed),
            "still_waiting": report["waiting"],
            "lateness_first_s": round(min(handed, default=float("nan")), 2),
            "lateness_p50_s": round(_pct(handed, 50), 2),
            "lateness_p99_s": round(_pct(handed, 99), 2),
            "lateness_max_s": round(last, 2),
            "tick_s": tick,
            "released_per_s_after_first": None if rate is None else round(rate, 1),
            "all_released_in_time": released_all,
            "value_note": "the last lateness, or an extrapolation at the measured rate when cut short",
            "duplicate_messages": messages - len(handed),
            "lateness_note": "job handed to the broker minus due time; the first value is when the first run began",
            "quick": sizes is QUICK,
        },
    )


def _until(moment: float, stack: Stack) -> None:
    while (pause := moment - time.time()) > 0:
        stack.check_alive()
        time.sleep(min(pause, 0.5))


def _released(run: Run, tag: str, total: int, *, wait: float, stack: Stack) -> int:
    """Jobs of the tag's publishes handed to the broker, once all `total` are or `wait` is over."""
    deadline = time.time() + wait
    while True:
        stack.check_alive()
        row = run.sql(
            "SELECT count(*) FROM publishing_deliveryjob j JOIN publishing_target t ON t.id = j.target_id "
            "JOIN publishing_publish p ON p.id = t.publish_id WHERE p.content LIKE %s AND j.enqueued_at IS NOT NULL",
            f"Bench {tag}: %",
        )
        if int(row[0]) >= total or time.time() >= deadline:
            return int(row[0])
        time.sleep(0.25)

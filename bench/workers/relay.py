"""The outbox relay (figure 3 of bench.workers).

RELAY jobs are written pending and never handed over; one process calls the relay as beat does.
The figure counts beat's relay interval for each call beyond the first.
"""

from __future__ import annotations

import secrets

from bench.common import Figure
from bench.workers.stack import QUICK, Run, Sizes


def figure(run: Run, sizes: Sizes) -> Figure:
    tag = f"relay {secrets.token_hex(3)}"
    run.helper("settle_leftovers")  # jobs an earlier figure left pending are not the relay's here
    run.flush_broker()
    run.helper("make_jobs", tag=tag, n=sizes.relay, accounts=run.accounts, enqueue=False)
    # The same bound as the release figure: a relay that needs more calls is cut short.
    drained = run.helper("relay_drain", tag=tag, max_calls=200)
    if drained["left"] or run.queued() != sizes.relay:
        raise RuntimeError(f"relay left {drained['left']} jobs; {run.queued()} messages for {sizes.relay} jobs")
    calls, seconds, interval = len(drained["calls"]), drained["seconds"], drained["interval"]
    # Beat calls the relay once an interval: each call beyond the first waits for the next one.
    at_cadence = (calls - 1) * interval + seconds[-1]
    run.flush_broker()
    return Figure(
        name=f"outbox relay: {sizes.relay:,} pending jobs drained by one process",
        value=round(at_cadence, 2),
        unit="s",
        goal="<= 10 s",
        met=at_cadence <= 10,
        extra={
            "relay_calls": calls,
            "relay_interval_s": interval,
            "work_seconds": round(sum(seconds), 2),
            "jobs_per_work_second": round(sizes.relay / sum(seconds), 1),
            "messages_queued": sizes.relay,
            "quick": sizes is QUICK,
        },
    )

"""The worker side of publishing (issue #12): four figures, each measured on its own processes.

1. **create → published at a constant arrival rate** (`rate`): the p99 from a create's scheduled
   arrival to its last target's `published_at`, with the backlog flat.
2. **dispatch claims per worker process** (`claims`): delivered jobs a second, the connections
   opened and the CPU time one delivery costs.
3. **outbox relay** (`relay`): the time beat's relay takes to hand RELAY pending jobs over.
4. **scheduled release** (`release`): how late RELEASE publishes due in the same second reach
   the broker.

Each figure is one module of this package exposing `figure(run, sizes)`, whose docstring says
how it is measured. They share the run of `stack` (scratch databases, sandbox, Celery processes)
and talk to the Django process of `helper`.

A run is broken (RuntimeError) on any create answered other than 201, a publish not published,
a sandbox post missing or sent twice, a job delivered twice or a message count that does not
match. It uses its own PostgreSQL database (`bench_workers_<hex>`, beside DATABASE_URL's server,
dropped at the end) and Redis database 13 (flushed before and after).

QUICK (CI) uses smaller counts, named in each figure and marked `quick` in its extras.

    .venv/bin/python -m bench.workers [--quick] [--only claims|rate|relay|release ...]
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator

from bench.common import Figure
from bench.workers import claims, rate, relay, release
from bench.workers.stack import FULL, QUICK, Run, Sizes, open_run

FIGURES: dict[str, Callable[[Run, Sizes], Figure]] = {
    "claims": claims.figure,
    "rate": rate.figure,
    "relay": relay.figure,
    "release": release.figure,
}


def figures(quick: bool, only: list[str] | None) -> Iterator[Figure]:
    """Each figure (all, or those named in `only`) as soon as it is measured, on one run."""
    sizes = QUICK if quick else FULL
    started = time.monotonic()
    with open_run() as run:
        print(f"bench.workers: set up in {time.monotonic() - started:.1f} s", file=sys.stderr)
        for name in only or FIGURES:
            begun = time.monotonic()
            figure = FIGURES[name](run, sizes)
            figure.extra["load_average"] = [round(load, 2) for load in os.getloadavg()]
            print(f"bench.workers: {name} took {time.monotonic() - begun:.1f} s", file=sys.stderr)
            yield figure


def measure(quick: bool, only: list[str] | None = None) -> list[Figure]:
    """The figures of issue #12; `quick` uses the smaller counts of QUICK (CI)."""
    return list(figures(quick, only))

"""The web-tier figures: the service's publish endpoints beside a bare DRF app on the same rows.

Two servers run side by side, each as the Procfile's `web` line starts the service (gunicorn,
2 workers x 4 threads, access log to a file): the service (`config.wsgi`) and its ceiling, the
bare app of `bench/ceiling` (no middleware, authentication, permissions or throttles) writing
and reading the same tables of the same scratch PostgreSQL database. No Celery worker runs:
the delivery messages both push pile up in a scratch Redis database (number 12, emptied
before and after).

For POST /api/v1/publishes (3 targets), GET /api/v1/publishes/{id} and GET /api/v1/publishes
(a page of 20 with targets), each server's saturation rate is measured with the same number of
keep-alive connections sending back to back, in rounds that alternate which server goes
first, so that noise from the rest of the machine hits both; the figure is the median round.
POST is then driven at a constant arrival rate of 70% of the service's own saturation rate
(open model, latency from each request's due time), for its p99, and in full runs the ceiling
at the same rate, whose p99 is the figure's ceiling; as wrk2 does, the first
seconds at that rate (connections opening, the server settling after the saturation runs)
only warm up and are not counted. While both servers warm up,
the SQL statements of one list page at page sizes 5 and 20, one create and one read are
counted through Django's test client against the same database. Each run also reports the
time gunicorn logged for its requests, beside the latency the client saw. Last, a 500-row
POST /api/v1/publishes/bulk is timed on both (`bulk`).

The create limit (30 a minute per key) and the read limit (120) are fixed in settings, so the
requests rotate over team keys: each key is filled up to its limit of the current minute
before the next one is taken, and no request is ever throttled. Any answer but the expected
status makes the run broken (RuntimeError), as does a server that does not start.

The servers and their requests are in `servers`, the load driven at them in `load`, the figures
built from it in `figures`.
"""

from __future__ import annotations

import secrets
import subprocess
import tempfile
import time
from pathlib import Path

from bench.common import Figure, Stack, postgres_database
from bench.web.bulk import bulk_figure, bulk_rounds
from bench.web.figures import create_sql, latency, median_rate, query_figure, throughput
from bench.web.load import at_rate, kept_ids, rounds, warm_up_and_count
from bench.web.servers import (
    FULL,
    GET_ONE,
    GET_PAGE,
    KEPT_IDS,
    OPEN_FRACTION,
    POST,
    QUICK,
    Plan,
    database_server,
    environment,
    say,
    scratch_redis,
    set_requests,
    set_up,
)


def _measure(stack: Stack, plan: Plan) -> list[Figure]:
    started = time.monotonic()
    servers, seed = set_up(stack)
    say(f"both servers up, database seeded ({time.monotonic() - started:.0f} s)")
    ids: list[str] = []
    for server in servers:
        set_requests(server, seed, ids)
    queries = warm_up_and_count(stack, servers, seed, ids)
    say(f"warmed up ({time.monotonic() - started:.0f} s)")

    posts = rounds(servers, POST, plan, keep=KEPT_IDS // (2 * plan.rounds))
    ids[:] = kept_ids(posts) or ids
    saturation = median_rate(posts["service"])
    rate = OPEN_FRACTION * saturation
    open_service = at_rate(servers[0], rate, plan)
    open_ceiling = at_rate(servers[1], rate, plan) if plan.ceiling_open else None
    reads = rounds(servers, GET_ONE, plan)
    pages = rounds(servers, GET_PAGE, plan)
    batches = bulk_rounds(servers, seed, plan)
    stack.check_alive()
    return [
        throughput(POST, posts, 0.5, create_sql(queries)),
        latency(open_service, open_ceiling, saturation),
        throughput(GET_ONE, reads, 0.7, {"sql_per_read": {k: v["read"] for k, v in queries.items()}}),
        throughput(GET_PAGE, pages, 0.25, {"page_size": 20}),
        query_figure(queries),
        bulk_figure(batches),
    ]


def measure(quick: bool) -> list[Figure]:
    """The web-tier figures; a RuntimeError when the run is broken. Logs are kept on failure."""
    plan = QUICK if quick else FULL
    scratch = Path(tempfile.mkdtemp(prefix="bench-web-"))
    (scratch / "logs").mkdir()
    tag = secrets.token_hex(4)
    ok = False
    started = time.monotonic()
    try:
        with scratch_redis() as redis, postgres_database(database_server(), f"bench_web_{tag}") as database:
            stack = Stack(logs=scratch / "logs", env=environment(database, redis, tag))
            try:
                figures = _measure(stack, plan)
            finally:
                stack.stop()
        ok = True
        say(f"done in {time.monotonic() - started:.0f} s")
        return figures
    finally:
        if ok:
            subprocess.run(["/bin/rm", "-rf", str(scratch)], check=False)  # noqa: S603
        else:
            say(f"logs kept in {scratch / 'logs'}")

"""Driving the two servers: saturation rounds, the open-model run, the warm-up, and the SQL
statements of one request counted beside them. Any answer but the expected one is a RuntimeError.
"""

from __future__ import annotations

import json
import math
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from bench import loadgen
from bench.common import Stack
from bench.web.servers import (
    CONNECTIONS,
    GET_ONE,
    GET_PAGE,
    PAGE_FILL,
    POST,
    SLICE_SECONDS,
    TARGET_PLATFORMS,
    WARM_ANSWERS,
    Plan,
    Seed,
    Server,
    publish_body,
    say,
)

# Run with `manage.py shell -c` under the service's or the ceiling's settings: the SQL
# statements of one list page at page sizes 5 and 20, one create and one read.
QUERIES_SCRIPT = """
import json, os
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
headers = {"Authorization": "Bearer " + os.environ["BENCH_KEY"]} if os.environ.get("BENCH_KEY") else {}
client, extra = Client(headers=headers), os.environ.get("BENCH_QUERY", "")
def count(method, path, expect, **kwargs):
    with CaptureQueriesContext(connection) as queries:
        answer = getattr(client, method)(path, **kwargs)
    if answer.status_code != expect:
        raise SystemExit(f"{method} {path} answered {answer.status_code}: {answer.content[:500]!r}")
    return len(queries), answer
statements = []
def spy(execute, sql, params, many, context):  # "T" inside a transaction, "A" autocommitted
    where = "T" if context["connection"].in_atomic_block else "A"
    statements.append(where + " " + " ".join(sql.split())[:90])
    return execute(sql, params, many, context)
body = os.environ["BENCH_BODY"]
for _ in range(int(os.environ["BENCH_FILL"])):  # more publishes than the largest page counted
    count("post", "/api/v1/publishes", 201, data=body, content_type="application/json")
sep = "&" if extra else "?"
page5, _ = count("get", f"/api/v1/publishes{extra}{sep}page_size=5", 200)
page20, _ = count("get", f"/api/v1/publishes{extra}{sep}page_size=20", 200)
with connection.execute_wrapper(spy):
    create, answer = count("post", "/api/v1/publishes", 201, data=body, content_type="application/json")
publish_id = answer.json()["data"]["id"]
read, _ = count("get", f"/api/v1/publishes/{publish_id}", 200)
writes = [s for s in statements if s.split()[1] in ("INSERT", "UPDATE", "DELETE")]
print(json.dumps({"page_5": page5, "page_20": page20, "create": create, "read": read, "create_sql": statements,
                  "create_autocommitted_writes": sum(s.startswith("A") for s in writes)}))
"""

EXPECTED = {POST: frozenset({201}), GET_ONE: frozenset({200}), GET_PAGE: frozenset({200})}


def _checked(server: Server, what: str, result: loadgen.Result, allow_none: bool = False) -> loadgen.Result:
    """`result`, or a RuntimeError when a request failed or was answered unexpectedly (or, unless
    `allow_none`, when no answer came at all)."""
    problems = result.problems(EXPECTED[what])
    if problems or not (result.count or allow_none):
        detail = "; ".join(problems) or "no answer at all"
        raise RuntimeError(f"{server.name} {what}: {detail}")
    for body in result.kept[:5]:
        _check_body(server, what, body)
    return result


def _check_body(server: Server, what: str, body: bytes) -> None:
    """RuntimeError unless `body` holds the publish (or the page of 20) with its 3 targets."""
    try:
        answer = json.loads(body)
        if what == GET_PAGE:
            items = answer["data"] if server.name == "service" else answer["results"]
            ok = len(items) == 20 and all(len(p["targets"]) == len(TARGET_PLATFORMS) for p in items)
        else:
            ok = len(answer["data"]["targets"]) == len(TARGET_PLATFORMS)
    except (ValueError, KeyError, TypeError):
        ok = False
    if not ok:
        raise RuntimeError(f"{server.name} {what} answered an unexpected body: {body[:500]!r}")


def _saturate(server: Server, what: str, plan: Plan, keep: int = 5) -> loadgen.Result:
    offset = server.log_offset()
    load = loadgen.Closed(connections=CONNECTIONS, duration=plan.window, warmup=plan.warmup)
    result = loadgen.run(server.port, server.requests[what], load, expected=EXPECTED[what], keep=keep)
    _checked(server, what, result)
    result.server_ms = server.server_ms(offset)
    say(
        f"{server.name:8} {what}: {result.rate:.1f} req/s, p50 {_ms(result, 50)}, p99 {_ms(result, 99)}; "
        f"in the server p50 {statistics.median(result.server_ms or [math.nan]):.0f} ms; "
        f"load generator CPU {result.cpu_seconds / (plan.window + plan.warmup):.0%}"
    )
    return result


def rounds(servers: list[Server], what: str, plan: Plan, keep: int = 5) -> dict[str, list[loadgen.Result]]:
    """Saturation runs of each server, alternating which goes first from round to round."""
    runs: dict[str, list[loadgen.Result]] = {s.name: [] for s in servers}
    for n in range(plan.rounds):
        for server in servers if n % 2 == 0 else servers[::-1]:
            runs[server.name].append(_saturate(server, what, plan, keep))
    return runs


def kept_ids(runs: dict[str, list[loadgen.Result]]) -> list[str]:
    return [json.loads(body)["data"]["id"] for results in runs.values() for r in results for body in r.kept]


def warm_up_and_count(stack: Stack, servers: list[Server], seed: Seed, ids: list[str]) -> dict[str, dict[str, Any]]:
    """Warm both servers up while the SQL statements per request are counted beside them."""
    with ThreadPoolExecutor(len(servers)) as pool:
        counting = {s.name: pool.submit(_count_queries, stack, s, seed) for s in servers}
        _warm_up(servers, ids)
        queries = {name: future.result() for name, future in counting.items()}
    counts = {side: {k: v for k, v in q.items() if isinstance(v, int)} for side, q in queries.items()}
    say(f"SQL statements per request (BEGIN, COMMIT included): {counts}")
    return queries


def _warm_up(servers: list[Server], ids: list[str]) -> None:
    """Both servers answer each endpoint until every web thread has connected to the database
    and imported what it needs: short runs until they give WARM_ANSWERS answers."""
    for what in (POST, GET_ONE, GET_PAGE):
        for server in servers:
            results = _warm(server, what)
            if what == POST:
                ids.extend(kept_ids({server.name: results}))


def _warm(server: Server, what: str, budget: float = 30.0) -> list[loadgen.Result]:
    brief = loadgen.Closed(connections=CONNECTIONS, duration=0.5)
    results: list[loadgen.Result] = []
    deadline = time.monotonic() + budget
    while sum(r.count for r in results) < WARM_ANSWERS:
        if time.monotonic() > deadline:
            raise RuntimeError(f"{server.name} {what}: {sum(r.count for r in results)} answers in {budget:.0f} s")
        result = loadgen.run(server.port, server.requests[what], brief, keep=20)
        results.append(_checked(server, what, result, allow_none=True))
    return results


def at_rate(server: Server, rate: float, plan: Plan) -> loadgen.Result:
    offset = server.log_offset()
    duration = plan.open_warmup + plan.open_seconds
    whole = loadgen.run(server.port, server.requests[POST], loadgen.Open(rate=rate, duration=duration))
    _checked(server, POST, whole)
    whole.server_ms = server.server_ms(offset)
    result = whole.after(plan.open_warmup)  # as wrk2 does, the first seconds only warm up
    say(
        f"{server.name:8} {POST} at {rate:.1f}/s (open model): p50 {_ms(result, 50)}, p99 {_ms(result, 99)}, "
        f"max {max(result.latencies) * 1000:.0f} ms, {result.connections} connections; "
        f"in the server p50 {statistics.median(result.server_ms or [math.nan]):.0f} ms; p99 by {SLICE_SECONDS:.0f} s: "
        + " ".join(f"{part['p99_ms']:.0f}" for part in result.slices(SLICE_SECONDS))
    )
    return result


def _count_queries(stack: Stack, server: Server, seed: Seed) -> dict[str, Any]:
    """SQL statements per request of `server`, counted in a `manage.py shell` under its settings."""
    service = server.name == "service"
    extra = {
        "DJANGO_SETTINGS_MODULE": server.env["DJANGO_SETTINGS_MODULE"],
        "BENCH_KEY": seed.keys[0] if service else "",  # the key no KeyRing hands out
        "BENCH_QUERY": "" if service else f"?team_id={seed.team}",
        "BENCH_BODY": publish_body(seed, 0, ceiling=not service).decode(),
        "BENCH_FILL": str(PAGE_FILL),
    }
    return dict(stack.shell(QUERIES_SCRIPT, **extra))


def _ms(result: loadgen.Result, q: float) -> str:
    return f"{result.percentile(q) * 1000:.1f} ms"

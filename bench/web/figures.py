"""The web-tier figures, each the service beside its ceiling, built from what `load` measured."""

from __future__ import annotations

import math
import statistics
from typing import Any

from bench import loadgen
from bench.common import Figure
from bench.web.servers import CONNECTIONS, OPEN_FRACTION, P99_GOAL_MS, SLICE_SECONDS


def median_rate(results: list[loadgen.Result]) -> float:
    return float(statistics.median(r.rate for r in results))


def throughput(what: str, runs: dict[str, list[loadgen.Result]], goal: float, extra: dict[str, Any]) -> Figure:
    value, ceiling = median_rate(runs["service"]), median_rate(runs["ceiling"])
    ratio = value / ceiling if ceiling else math.nan
    details = {
        side: {
            "rounds_req_s": [round(r.rate, 1) for r in results],
            "p50_ms": round(statistics.median(r.percentile(50) for r in results) * 1000, 1),
            "p99_ms": round(statistics.median(r.percentile(99) for r in results) * 1000, 1),
            "server_p50_ms": statistics.median(t for r in results for t in r.server_ms or [math.nan]),
            "loadgen_cpu_share": round(sum(r.cpu_seconds for r in results) / sum(r.duration for r in results), 3),
        }
        for side, results in runs.items()
    }
    return Figure(
        name=what,
        value=round(value, 1),
        unit="req/s",
        goal=f">= {goal} x ceiling",
        met=ratio >= goal,
        ceiling=round(ceiling, 1),
        ratio=round(ratio, 3),
        extra={"connections": CONNECTIONS, **details, **extra},
    )


def latency(service: loadgen.Result, ceiling: loadgen.Result | None, saturation: float) -> Figure:
    """The service's POST p99 at the open-model rate, beside the bare app's p99 at the same
    rate (full runs): at one arrival rate both load the machine alike, so the ceiling's tail
    shows how much of the service's is the machine's."""
    p99 = service.percentile(99) * 1000
    extra: dict[str, Any] = {
        "saturation_req_s": round(saturation, 1),
        **service.summary(),
        "by_slice": service.slices(SLICE_SECONDS),
    }
    ceiling_p99 = None
    if ceiling is not None:
        extra["ceiling_at_same_rate"] = {**ceiling.summary(), "by_slice": ceiling.slices(SLICE_SECONDS)}
        ceiling_p99 = ceiling.percentile(99) * 1000
    return Figure(
        name=f"POST /api/v1/publishes p99 at {OPEN_FRACTION:.0%} of saturation",
        value=round(p99, 1),
        unit="ms",
        goal=f"<= {P99_GOAL_MS:.0f} ms (open model)",
        met=p99 <= P99_GOAL_MS,
        ceiling=None if ceiling_p99 is None else round(ceiling_p99, 1),
        ratio=None if not ceiling_p99 else round(p99 / ceiling_p99, 3),
        extra=extra,
    )


def query_figure(queries: dict[str, dict[str, Any]]) -> Figure:
    service = queries["service"]
    return Figure(
        name="GET /api/v1/publishes SQL per page",
        value=service["page_20"],
        unit="queries",
        goal="same at page_size 5 and 20",
        met=service["page_5"] == service["page_20"],
        extra={side: {k: queries[side][k] for k in ("page_5", "page_20")} for side in queries},
    )


def create_sql(queries: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """SQL of one create on each side ("T" inside a transaction, "A" autocommitted)."""
    return {
        "sql_per_create": {side: q["create"] for side, q in queries.items()},
        "autocommitted_writes_per_create": {side: q["create_autocommitted_writes"] for side, q in queries.items()},
        "create_sql": {side: q["create_sql"] for side, q in queries.items()},
    }

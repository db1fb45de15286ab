"""The bulk create figure: one POST /api/v1/publishes/bulk of BULK_ROWS rows (each an immediate
publish to one account) sent to each server in turn, timed from the request's first byte to the
answer's last, in rounds that alternate which server goes first. The figure is the median round;
its goal is the issue's (a 500-row batch within 2 s)."""

from __future__ import annotations

import http.client
import json
import statistics
import time

from bench.common import Figure
from bench.web.servers import JSON, Plan, Seed, Server

BULK_ROWS = 500
GOAL_SECONDS = 2.0
NAME = f"POST /api/v1/publishes/bulk ({BULK_ROWS} rows)"


def _body(seed: Seed, round_number: int, *, ceiling: bool) -> bytes:
    rows = [
        {"content": f"Benchmark bulk row {round_number}.{n}", "targets": [{"account_id": seed.accounts[n % 3]}]}
        for n in range(BULK_ROWS)
    ]
    payload: dict[str, object] = {"publishes": rows}
    if ceiling:
        payload["team_id"] = seed.team
    return json.dumps(payload).encode()


def _send(server: Server, seed: Seed, round_number: int) -> float:
    """Seconds one batch took; a RuntimeError for any answer but 201 with every row."""
    ceiling = server.name != "service"
    headers = dict(JSON) if ceiling else {**JSON, "Authorization": f"Bearer {seed.keys[0]}"}
    body = _body(seed, round_number, ceiling=ceiling)
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
    try:
        started = time.perf_counter()
        connection.request("POST", "/api/v1/publishes/bulk", body=body, headers=headers)
        response = connection.getresponse()
        answer = response.read()
        elapsed = time.perf_counter() - started
    finally:
        connection.close()
    if response.status != 201 or len(json.loads(answer)["data"]) != BULK_ROWS:
        raise RuntimeError(f"{server.name} answered a bulk create with {response.status}: {answer[:300]!r}")
    return elapsed


def bulk_rounds(servers: list[Server], seed: Seed, plan: Plan) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {server.name: [] for server in servers}
    for number in range(max(plan.rounds, 2)):
        order = servers if number % 2 == 0 else list(reversed(servers))
        for server in order:
            times[server.name].append(_send(server, seed, number))
    return times


def bulk_figure(times: dict[str, list[float]]) -> Figure:
    value, ceiling = statistics.median(times["service"]), statistics.median(times["ceiling"])
    return Figure(
        name=NAME,
        value=round(value, 3),
        unit="s",
        goal=f"<= {GOAL_SECONDS} s",
        met=value <= GOAL_SECONDS,
        ceiling=round(ceiling, 3),
        ratio=round(value / ceiling, 2) if ceiling else None,
        extra={"rounds_s": {side: [round(t, 3) for t in runs] for side, runs in times.items()}, "targets_per_row": 1},
    )

"""Publishes created per second through the API, and how long each takes to reach `published`.

The whole stack runs for real, each part in its own process as the Procfile starts it: the web
server (gunicorn, 2 workers x 4 threads), WORKERS Celery worker processes on the `dispatch`
queue, and the platform sandbox (`python -m sandbox`). The database is a scratch SQLite file,
or a scratch database created beside the one DATABASE_URL names when it is PostgreSQL (dropped
at the end; any other DATABASE_URL is not touched); the broker is a scratch folder, or Redis when
REDIS_URL is set. `seed_demo --fresh` provides the sandbox accounts (X and Bluesky, team `acme`).

After a short warm-up, five publishes are sent one at a time, each polled through GET
/api/v1/publishes/{id} until published: the latency of an idle pipeline. Then CLIENTS threads
POST PUBLISHES immediate text publishes (one target on each account) to /api/v1/publishes,
timing each call: creates per second and p50/p95 of the create call. Then the database is read
until every publish is final: a publish's create-to-published latency is its last
Target.published_at minus the moment its create request was sent.
It fails (exit 1) on any answer but 201, a publish not `published`, a sandbox post missing or
sent twice, or a WARNING/ERROR line in a process's log; the logs are then kept.

The create limit (30 a minute per API key, spec §8) is fixed in settings.RATE_LIMITS, not read
from the environment, so the benchmark creates one team key for every 30 publishes instead and
no key is ever throttled.

    .venv/bin/python bench/publish_throughput.py [PUBLISHES] [--workers N] [--clients N] [--targets 1|2]
"""

from __future__ import annotations

import argparse
import datetime as dt
import http.client
import itertools
import json
import math
import os
import re
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: bench.common is imported from the project root
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import (
    BIN,
    ROOT,
    Stack,
    free_port,
    http_ok,
    parse_json,
    scratch_database,
    wait_for,
)

__all__ = ["BIN", "ROOT", "Stack", "_database", "_free_port", "_http_ok", "_json", "_wait"]

CREATES_PER_KEY = 30  # settings.RATE_LIMITS["create_publish"]: per key and minute, not configurable
FINAL = ("published", "failed", "partial")
WEB_WORKERS, WEB_THREADS = 2, 4  # as in the Procfile
TASK_TIME = re.compile(r"publishing\.deliver\[[^]]*\] succeeded in ([0-9.]+)s")
LOG_PROBLEM = re.compile(r"\b(WARNING|ERROR|CRITICAL)\b|Traceback")

# Run with `manage.py shell -c`; parameters come in through the environment.
KEYS_SCRIPT = """
import json, os
from teams import services
from teams.models import SCOPES, Membership, Role
owner = Membership.objects.select_related("team", "user").get(team_id=os.environ["BENCH_TEAM"], role=Role.OWNER)
keys = [
    services.api_key_create(user=owner.user, name=f"bench {n}", scopes=SCOPES, team=owner.team)[1]
    for n in range(int(os.environ["BENCH_KEYS"]))
]
print(json.dumps(keys))
"""

WATCH_SCRIPT = """
import json, os, time
from publishing.models import Publish, Target
ids = json.loads(open(os.environ["BENCH_IDS"]).read())
deadline = time.monotonic() + float(os.environ["BENCH_WAIT"])
while Publish.objects.filter(pk__in=ids).exclude(status__in=%r).exists() and time.monotonic() < deadline:
    time.sleep(0.2)
stamp = lambda moment: None if moment is None else moment.timestamp()
rows = {
    str(p.pk): {"status": p.status, "created_at": stamp(p.created_at), "targets": []}
    for p in Publish.objects.filter(pk__in=ids)
}
for t in Target.objects.filter(publish_id__in=ids).prefetch_related("attempts"):
    rows[str(t.publish_id)]["targets"].append({
        "platform": t.platform, "state": t.state, "published_at": stamp(t.published_at),
        "error": f"{t.error_code} {t.error_message}".strip(),
        "attempts": [[a.state, stamp(a.started_at), stamp(a.finished_at)] for a in t.attempts.all()],
    })
print(json.dumps(rows))
""" % (FINAL,)  # noqa: UP031 - the tuple is written into the script as a literal


_json = parse_json
# The process and database helpers live in bench.common; these names stay importable from here.
_free_port = free_port
_wait = wait_for
_http_ok = http_ok
_database = scratch_database


# --- the measured calls ----------------------------------------------------------------------


@dataclass
class Create:
    sent: float  # wall clock (time.time), comparable with the database's timestamps
    seconds: float
    status: int
    body: bytes

    @property
    def publish_id(self) -> str | None:
        return str(_json(self.body, "POST /api/v1/publishes")["data"]["id"]) if self.status == 201 else None


def _create(port: int, key: str, payload: dict[str, Any]) -> Create:
    body = json.dumps(payload).encode()
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    sent, started = time.time(), time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        conn.request("POST", "/api/v1/publishes", body, headers)
        response = conn.getresponse()
        status, answer = response.status, response.read()
    except OSError as exc:
        status, answer = 0, repr(exc).encode()
    finally:
        conn.close()
    return Create(sent, time.perf_counter() - started, status, answer)


def _payload(tag: str, n: int, accounts: list[str]) -> dict[str, Any]:
    return {
        "content": f"Benchmark {tag}: publish {n}",
        "targets": [{"account_id": a} for a in accounts],
        "publish_mode": "immediate",
    }


def _probe(port: int, key: str, accounts: list[str], tag: str, count: int = 5) -> list[float]:
    """Create-to-published of publishes sent one at a time to an idle pipeline, polling the API."""
    latencies = []
    for n in range(count):
        create = _create(port, key, _payload(tag, n, accounts))
        if create.publish_id is None:
            raise RuntimeError(f"probe create answered {create.status}: {create.body[:500]!r}")
        deadline = time.monotonic() + 30
        while True:  # 50 ms apart: a handful of reads, far below the 120 a minute allowed per key
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            try:
                conn.request(
                    "GET", f"/api/v1/publishes/{create.publish_id}", headers={"Authorization": f"Bearer {key}"}
                )
                publish = _json(conn.getresponse().read(), "GET /api/v1/publishes/{id}")["data"]
            finally:
                conn.close()
            if publish["status"] in FINAL or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        if publish["status"] != "published":
            raise RuntimeError(f"probe publish is {publish['status']}: {publish['targets']}")
        done = max(dt.datetime.fromisoformat(t["published_at"]).timestamp() for t in publish["targets"])
        latencies.append(done - create.sent)
    return latencies


def _create_all(port: int, keys: list[str], accounts: list[str], count: int, clients: int, tag: str) -> list[Create]:
    results: list[Create | None] = [None] * count
    numbers = itertools.count()  # next() on it is atomic under the GIL

    def client() -> None:
        while (n := next(numbers)) < count:
            # Round robin: no key gets more than CREATES_PER_KEY creates in the whole run.
            results[n] = _create(port, keys[n % len(keys)], _payload(tag, n, accounts))

    threads = [threading.Thread(target=client, daemon=True) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [r for r in results if r is not None]


def _watch(stack: Stack, creates: list[Create], wait: float) -> dict[str, Any]:
    """Wait (in a manage.py process) until every created publish is final; read its targets."""
    ids = [c.publish_id for c in creates if c.publish_id]
    ids_file = stack.logs / f"ids-{secrets.token_hex(4)}.json"
    ids_file.write_text(json.dumps(ids))
    return dict(stack.shell(WATCH_SCRIPT, BENCH_IDS=str(ids_file), BENCH_WAIT=str(wait)))


# --- report ----------------------------------------------------------------------------------


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)] if ordered else float("nan")


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


def _suspicious(stack: Stack) -> list[str]:
    found = []
    for name in stack.procs:
        for line in stack.log_lines(name):
            if LOG_PROBLEM.search(line):
                found.append(f"{name}: {line}")
    return found


def _sandbox_posts(port: int) -> list[dict[str, Any]]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", "/_sandbox/posts")
        return list(_json(conn.getresponse().read(), "GET /_sandbox/posts")["posts"])
    finally:
        conn.close()


def _report(creates: list[Create], rows: dict[str, Any], wall: float, stack: Stack, tag: str) -> int:
    failures = []
    ok = [c for c in creates if c.status == 201]
    times = [c.seconds for c in ok]
    print(
        f"create:     {len(ok)} of {len(creates)} answered 201 in {wall:.1f} s: {len(creates) / wall:.1f} requests/s; "
        f"create call p50 {_ms(_pct(times, 50))}, p95 {_ms(_pct(times, 95))}, max {_ms(max(times, default=0))}"
    )
    if len(ok) < len(creates):
        failures.append(f"answers {dict(Counter(c.status for c in creates))}")
        failures += [f"  {c.status}: {c.body[:300].decode(errors='replace')}" for c in creates if c.status != 201][:3]

    latencies, queued, sending, states, last = [], [], [], Counter[str](), 0.0
    for c in ok:
        row = rows.get(str(c.publish_id))
        states[row["status"] if row else "missing"] += 1
        if not row or row["status"] != "published":
            continue
        done = max(t["published_at"] for t in row["targets"])
        latencies.append(done - c.sent)
        last = max(last, done)
        for target in row["targets"]:
            queued.append(min(begun for _, begun, _ in target["attempts"]) - c.sent)
            sending += [finished - begun for _, begun, finished in target["attempts"] if begun and finished]
    tasks = [float(m[1]) for name in stack.procs for line in stack.new_lines(name) if (m := TASK_TIME.search(line))]
    if latencies:
        first = min(c.sent for c in creates)
        targets = len(queued)  # those of the published publishes
        print(
            f"published:  {states['published']} of {len(ok)}; create to published p50 {_ms(_pct(latencies, 50))}, "
            f"p95 {_ms(_pct(latencies, 95))}, max {_ms(max(latencies))}"
        )
        print(
            f"per target: create to a worker starting it p50 {_ms(_pct(queued, 50))}, p95 {_ms(_pct(queued, 95))}; "
            f"deliver task p50 {_ms(_pct(tasks, 50))}, p95 {_ms(_pct(tasks, 95))} "
            f"(its platform call and recording p50 {_ms(_pct(sending, 50))}, p95 {_ms(_pct(sending, 95))})"
        )
        print(
            f"total:      first create to last target published {last - first:.1f} s "
            f"({targets / (last - first):.1f} targets delivered/s)"
        )
    if states["published"] < len(ok):
        failures.append(f"publish statuses {dict(states)}")
        stuck = [(pid, r) for pid, r in rows.items() if r["status"] != "published"]
        failures += [f"  {pid} {row['status']}: {row['targets']}" for pid, row in stuck[:3]]

    posts = [p for p in _sandbox_posts(int(stack.env["SANDBOX_PORT"])) if p["text"].startswith(f"Benchmark {tag}: ")]
    copies = Counter((p["platform"], p["text"]) for p in posts)
    published = sum(t["state"] == "published" for r in rows.values() for t in r["targets"])
    if len(posts) != published or max(copies.values(), default=1) > 1:
        failures.append(
            f"the sandbox holds {len(posts)} posts ({len(copies)} distinct) for {published} published targets"
        )

    suspicious = _suspicious(stack)
    if suspicious:
        failures.append(f"{len(suspicious)} warning or error lines in the logs ({stack.logs}), first ones:")
        failures += [f"  {line[:300]}" for line in suspicious[:8]]
    for line in failures:
        print(f"{'FAIL: ' if not line.startswith(' ') else '      '}{line}")
    return 1 if failures else 0


# --- main ------------------------------------------------------------------------------------


def run(publishes: int, workers: int, clients: int, n_targets: int, keep_logs: bool) -> int:
    tag = secrets.token_hex(3)
    scratch_dir = tempfile.mkdtemp(prefix="bench-publish-")
    scratch = Path(scratch_dir)
    (scratch / "logs").mkdir()
    web_port, sandbox_port = _free_port(), _free_port()
    code = 1
    try:
        with _database(scratch_dir) as (database_url, database):
            env = {
                **os.environ,
                "APP_ENV": "development",
                "DEBUG": "false",
                "DATABASE_URL": database_url,
                "BROKER_DIR": str(scratch / "broker"),
                "PORT": str(web_port),
                "SANDBOX_PORT": str(sandbox_port),
                "SANDBOX_URL": f"http://127.0.0.1:{sandbox_port}",
                "RATE_LIMIT_KEY_PREFIX": f"bench-{tag}",  # fresh counters in a shared Redis
                "PYTHONUNBUFFERED": "1",
                # Thousands of posts through two sandbox accounts: paced, as the service paces a real
                # account (accounts.pacing), they would wait out X's 15-minute window; these figures
                # measure the engine alone.
                "PACE_ACCOUNTS": "false",
            }
            broker = "Redis" if env.get("REDIS_URL") else "folder broker"
            print(
                f"{publishes} publishes x {n_targets} target(s), {clients} client threads, gunicorn "
                f"{WEB_WORKERS}x{WEB_THREADS} threads, {workers} dispatch worker process(es); {database}, {broker}; "
                f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}"
            )
            stack = Stack(logs=scratch / "logs", env=env)
            try:
                code = _run_stack(stack, publishes, workers, clients, n_targets, web_port, tag)
            finally:
                stack.stop()
    finally:
        if keep_logs or code:
            print(f"logs kept in {scratch / 'logs'}")
        else:
            subprocess.run(["/bin/rm", "-rf", scratch_dir], check=False)  # noqa: S603
    return code


def _logged(stack: Stack, name: str, text: str) -> Callable[[], bool]:
    """Whether process `name` of `stack` has logged `text` yet."""
    return lambda: any(text in line for line in stack.log_lines(name))


def _run_stack(stack: Stack, publishes: int, workers: int, clients: int, n_targets: int, port: int, tag: str) -> int:
    stack.manage("migrate", "-v0")
    seed = _json(stack.manage("seed_demo", "--fresh", "--json"), "seed_demo")
    accounts = [seed["accounts"]["acme"]["x"], seed["accounts"]["acme"]["bluesky"]][:n_targets]
    needed = math.ceil(publishes / CREATES_PER_KEY)
    probe_key, *keys = stack.shell(KEYS_SCRIPT, BENCH_TEAM=seed["teams"]["acme"]["id"], BENCH_KEYS=str(needed + 1))

    stack.start("sandbox", [sys.executable, "-m", "sandbox"])
    stack.start(
        "web",
        [
            str(BIN / "gunicorn"),
            "config.wsgi",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            str(WEB_WORKERS),
            "--threads",
            str(WEB_THREADS),
            "--timeout",
            "60",
            "--no-control-socket",  # gunicorn 27 would otherwise take over ~/.gunicorn/gunicorn.ctl
        ],
    )
    for n in range(1, workers + 1):
        stack.start(
            f"worker{n}",
            [
                str(BIN / "celery"),
                "-A",
                "config",
                "worker",
                "-Q",
                "dispatch",
                "-c",
                "1",
                "-n",
                f"bench{n}@%h",
                "--without-gossip",
                "--without-mingle",
                "--loglevel",
                "INFO",
            ],
        )
    sandbox_port = int(stack.env["SANDBOX_PORT"])
    _wait(stack, "sandbox", lambda: _http_ok(sandbox_port, "/_sandbox/posts"))
    _wait(stack, "web server", lambda: _http_ok(port, "/healthz"))
    for n in range(1, workers + 1):
        _wait(stack, f"worker{n}", _logged(stack, f"worker{n}", " ready."))

    # Warm-up on the demo key: every web thread imports and connects once, the pipeline works.
    warm = _create_all(port, [seed["keys"]["acme_owner"]], accounts, min(2 * clients, 20), clients, f"{tag} warm-up")
    warm_rows = _watch(stack, warm, wait=60)
    if any(c.status != 201 for c in warm) or any(r["status"] != "published" for r in warm_rows.values()):
        print("FAIL: the warm-up publishes did not all get published:")
        return _report(warm, warm_rows, 1.0, stack, f"{tag} warm-up") or 1

    idle = _probe(port, probe_key, accounts, f"{tag} probe")
    print(
        f"idle:       {len(idle)} publishes one at a time: create to published "
        f"p50 {_ms(_pct(idle, 50))}, max {_ms(max(idle))}"
    )

    stack.mark()
    started = time.perf_counter()
    creates = _create_all(port, keys, accounts, publishes, clients, tag)
    wall = time.perf_counter() - started
    rows = _watch(stack, creates, wait=60 + publishes * n_targets * 0.5)
    stack.check_alive()
    return _report(creates, rows, wall, stack, tag)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("publishes", nargs="?", type=int, default=200, help="publishes to create (default 200)")
    parser.add_argument("--workers", type=int, default=2, help="Celery worker processes on `dispatch` (default 2)")
    parser.add_argument("--clients", type=int, default=4, help="client threads creating publishes (default 4)")
    parser.add_argument("--targets", type=int, choices=(1, 2), default=2, help="X only, or X and Bluesky (default)")
    parser.add_argument("--keep-logs", action="store_true", help="keep the processes' logs even on success")
    args = parser.parse_args()
    if min(args.publishes, args.workers, args.clients) < 1:
        parser.error("PUBLISHES, --workers and --clients must be at least 1")
    # A plain `kill` of this script also stops the stack (the finally blocks run).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    return run(args.publishes, args.workers, args.clients, args.targets, args.keep_logs)


if __name__ == "__main__":
    sys.exit(main())

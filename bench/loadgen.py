"""An HTTP/1.1 load generator light enough to share the machine with the server it measures.

Two models, both over raw keep-alive connections on asyncio streams, either driven by `run()`:

- closed (`Closed`): N connections each send their next request as soon as the previous answer
  is read. Its completions per second are the server's saturation rate.
- open (`Open`): request i is due at t0 + i / rate whatever happened before, and its
  latency is counted from that due time. A request finding no idle connection opens one (up to
  a bound) or waits for one, and the wait counts: a slow server cannot hide the queue it causes
  (no coordinated omission).

Requests come from a source: a callable taking the request's number, or a list cycled through,
each giving (method, path, headers, body).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections import Counter, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

Request = tuple[str, str, dict[str, str], bytes]
Source = Callable[[int], Request] | Sequence[Request]

IDLE_LIMIT = 1.5  # seconds: a connection idle longer is closed (gunicorn drops them after 2 s)
TIMEOUT = 30.0  # seconds for one answer
SAMPLES = 3  # answers kept per unexpected status


@dataclass
class Result:
    """What one load run saw. Latencies are in seconds."""

    mode: str
    duration: float  # seconds the rate is computed over
    latencies: list[float] = field(default_factory=list)
    sent: list[float] = field(default_factory=list)  # for each latency, when it was due or sent (monotonic)
    statuses: Counter[int] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    samples: dict[int, list[bytes]] = field(default_factory=dict)  # bodies of unexpected statuses
    kept: list[bytes] = field(default_factory=list)  # bodies of the first `keep` expected answers
    target_rate: float | None = None
    connections: int = 0  # connections opened
    cpu_seconds: float = 0.0  # of the load generator itself (process time) during the run
    server_ms: list[float] = field(default_factory=list)  # the server's own times, when its log gives them

    @property
    def count(self) -> int:
        return len(self.latencies)

    @property
    def rate(self) -> float:
        return self.count / self.duration if self.duration > 0 else 0.0

    def percentile(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)] if ordered else math.nan

    def slices(self, seconds: float) -> list[dict[str, float]]:
        """p50 and p99 (ms) of the requests started in each `seconds` of the run: whether a
        latency comes from a passing stall or a queue that kept growing."""
        if not self.sent:
            return []
        start, parts = min(self.sent), dict[int, list[float]]()
        for at, latency in zip(self.sent, self.latencies, strict=True):
            parts.setdefault(int((at - start) // seconds), []).append(latency)
        shown = []
        for n, values in sorted(parts.items()):
            part = Result(mode="", duration=seconds, latencies=values)
            p50, p99 = part.percentile(50), part.percentile(99)
            shown.append({"from_s": n * seconds, "p50_ms": round(p50 * 1000, 1), "p99_ms": round(p99 * 1000, 1)})
        return shown

    def after(self, seconds: float) -> Result:
        """The requests started `seconds` or more after the run's first: the run without its
        warm-up (connections being opened, the server settling at the new rate)."""
        start = min(self.sent, default=0.0)
        kept = [(at, latency) for at, latency in zip(self.sent, self.latencies, strict=True) if at - start >= seconds]
        return replace(
            self,
            duration=max(0.0, self.duration - seconds),
            latencies=[latency for _, latency in kept],
            sent=[at for at, _ in kept],
        )

    def summary(self) -> dict[str, Any]:
        """Count, achieved rate, percentiles (ms), status counts and errors, for a report."""
        ms = {f"p{q}_ms": round(self.percentile(q) * 1000, 1) for q in (50, 90, 99)}
        return {
            "mode": self.mode,
            "count": self.count,
            "rate": round(self.rate, 1),
            **({"target_rate": round(self.target_rate, 1)} if self.target_rate is not None else {}),
            **ms,
            "max_ms": round(max(self.latencies, default=math.nan) * 1000, 1),
            "statuses": {str(k): v for k, v in sorted(self.statuses.items())},
            "errors": dict(self.errors),
            "connections": self.connections,
            "loadgen_cpu_s": round(self.cpu_seconds, 2),
            **({"server_p50_ms": _median(self.server_ms)} if self.server_ms else {}),
        }

    def problems(self, expected: frozenset[int]) -> list[str]:
        """Every unexpected status and error, each with the first answers that showed it."""
        found = [f"{n} x {error}" for error, n in self.errors.items()]
        for code, n in sorted(self.statuses.items()):
            if code not in expected:
                bodies = "; ".join(b[:300].decode(errors="replace") for b in self.samples.get(code, []))
                found.append(f"{n} x HTTP {code}: {bodies}")
        return found


class _Recorder:
    """Adds answers to a Result: every status is counted, the latency only of answers that
    arrive within `window` (all when it is None)."""

    def __init__(self, result: Result, expected: frozenset[int], keep: int) -> None:
        self.result, self.expected, self.keep = result, expected, keep
        self.window: tuple[float, float] | None = None

    def answer(self, status: int, body: bytes, since: float) -> None:
        now, result = time.monotonic(), self.result
        result.statuses[status] += 1
        if status not in self.expected:
            samples = result.samples.setdefault(status, [])
            if len(samples) < SAMPLES:
                samples.append(body)
        if self.window is None or self.window[0] <= now <= self.window[1]:
            result.latencies.append(now - since)
            result.sent.append(since)
            if status in self.expected and len(result.kept) < self.keep:
                result.kept.append(body)

    def error(self, exc: BaseException) -> None:
        self.result.errors[type(exc).__name__ if str(exc) == "" else f"{type(exc).__name__}: {exc}"[:200]] += 1


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def _source(source: Source) -> Callable[[int], Request]:
    if callable(source):
        return source
    items = list(source)
    if not items:
        raise ValueError("the request list is empty")
    return lambda n: items[n % len(items)]


def encode(host: str, port: int, request: Request) -> bytes:
    """The request as HTTP/1.1 bytes on a keep-alive connection."""
    method, path, headers, body = request
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}:{port}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    if body or method in ("POST", "PUT", "PATCH"):
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


class _Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.idle_since = time.monotonic()
        self.reusable = True

    async def exchange(self, raw: bytes) -> tuple[int, bytes]:
        self.writer.write(raw)
        await self.writer.drain()
        head = await self.reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        status = int(status_line.split(" ", 2)[1])
        headers = {}
        for line in header_lines:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if "content-length" in headers:
            body = await self.reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            body = await self._chunked()
        else:
            body, self.reusable = await self.reader.read(), False
        if headers.get("connection", "").lower() == "close":
            self.reusable = False
        self.idle_since = time.monotonic()
        return status, body

    async def _chunked(self) -> bytes:
        parts: list[bytes] = []
        while True:
            size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                while await self.reader.readuntil(b"\r\n") != b"\r\n":  # trailers
                    pass
                return b"".join(parts)
            parts.append(await self.reader.readexactly(size))
            await self.reader.readexactly(2)

    def close(self) -> None:
        self.writer.close()


class _Pool:
    """Keep-alive connections, at most `limit` open at a time, the one idle longest taken first.

    Requests rotate over every open connection, as wrk2 spreads its rate over its connections
    and as independent clients would: a server's worker processes each hold some of the
    connections, and each gets its share of the load. Taking the most recently used instead
    would send a moderate rate over the few connections last answered, which can all belong to
    one worker process while the others idle."""

    def __init__(self, host: str, port: int, limit: int, result: Result) -> None:
        self.host, self.port, self.result = host, port, result
        self.idle: deque[_Connection] = deque()
        self.open = 0
        self.slots = asyncio.Semaphore(limit)

    async def acquire(self) -> _Connection:
        await self.slots.acquire()
        while self.idle:
            conn = self.idle.popleft()
            if time.monotonic() - conn.idle_since < IDLE_LIMIT:
                return conn
            self._drop(conn)
        try:
            reader, writer = await asyncio.open_connection(self.host, self.port)
        except BaseException:
            self.slots.release()
            raise
        self.open += 1
        self.result.connections += 1
        return _Connection(reader, writer)

    def release(self, conn: _Connection, healthy: bool) -> None:
        if healthy and conn.reusable:
            self.idle.append(conn)
        else:
            self._drop(conn)
        self.slots.release()

    def _drop(self, conn: _Connection) -> None:
        conn.close()
        self.open -= 1

    def close(self) -> None:
        while self.idle:
            self._drop(self.idle.pop())


async def _send(pool: _Pool, raw: bytes, since: float, recorder: _Recorder) -> bool:
    """Send one request on a pooled connection and record its answer, its latency counted
    from `since`. False when it got no answer."""
    conn: _Connection | None = None
    healthy = False
    try:
        conn = await pool.acquire()
        status, body = await asyncio.wait_for(conn.exchange(raw), TIMEOUT)
        healthy = True
        recorder.answer(status, body, since)
    except (TimeoutError, OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError) as exc:
        recorder.error(exc)
    finally:
        if conn is not None:
            pool.release(conn, healthy)
    return healthy


@dataclass(frozen=True)
class Closed:
    """Saturation: CONNECTIONS keep-alive connections sending back to back for WARMUP + DURATION
    seconds. The rate and latencies are those of the answers that arrive within the DURATION
    after the warm-up; statuses and errors are counted for every request."""

    connections: int
    duration: float
    warmup: float = 0.0

    def result(self) -> Result:
        return Result(mode=f"closed, {self.connections} connections", duration=self.duration)

    async def drive(self, host: str, port: int, make: Callable[[int], Request], rec: _Recorder) -> None:
        pool = _Pool(host, port, self.connections, rec.result)
        numbers = iter(range(1 << 62))
        begin = time.monotonic() + self.warmup
        rec.window = (begin, begin + self.duration)

        async def client() -> None:
            while (now := time.monotonic()) < begin + self.duration:
                if not await _send(pool, encode(host, port, make(next(numbers))), now, rec):
                    await asyncio.sleep(0.05)  # a refused connection must not spin

        try:
            await asyncio.gather(*(client() for _ in range(self.connections)))
        finally:
            pool.close()


@dataclass(frozen=True)
class Open:
    """Constant arrival rate: RATE requests a second for DURATION seconds, latency from each
    request's due time; connections are opened as needed, at most MAX_CONNECTIONS."""

    rate: float
    duration: float
    max_connections: int = 64

    def __post_init__(self) -> None:
        if self.rate <= 0:
            raise ValueError("rate must be positive")

    def result(self) -> Result:
        return Result(mode=f"open, {self.rate:.1f}/s", duration=self.duration, target_rate=self.rate)

    async def drive(self, host: str, port: int, make: Callable[[int], Request], rec: _Recorder) -> None:
        pool = _Pool(host, port, self.max_connections, rec.result)
        t0 = time.monotonic() + 0.05
        tasks = []
        try:
            for n in range(max(1, round(self.rate * self.duration))):
                due = t0 + n / self.rate
                if (delay := due - time.monotonic()) > 0:
                    await asyncio.sleep(delay)
                tasks.append(asyncio.create_task(_send(pool, encode(host, port, make(n)), due, rec)))
            await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.gather(*tasks, return_exceptions=True)
            pool.close()
        rec.result.duration = time.monotonic() - t0


def run(
    port: int,
    source: Source,
    load: Closed | Open,
    *,
    host: str = "127.0.0.1",
    expected: frozenset[int] = frozenset({200, 201}),
    keep: int = 0,
) -> Result:
    """What `load` saw of the server on HOST:PORT, sent requests from `source`. Answers with an
    `expected` status are the good ones, of which the first `keep` bodies are kept; the load
    generator's own CPU time is counted."""
    result = load.result()
    recorder = _Recorder(result, expected, keep)
    started = time.process_time()
    try:
        asyncio.run(load.drive(host, port, _source(source), recorder))
    finally:
        result.cpu_seconds = time.process_time() - started
    return result

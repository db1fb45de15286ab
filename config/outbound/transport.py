"""Sending one hop: a pinned connection to a checked address, under a total deadline.

Connect to a checked IP address, never to the name (pinning), so DNS rebinding between check
and connect has nothing to swap. The `Host` header carries the original name; for https,
urllib3's `server_hostname` makes SNI and OpenSSL's certificate check use the original name
too, so verification is as strict as for an unpinned connection.

The deadline is enforced by a watchdog thread (one per process) that shuts the socket down when
it expires, which wakes a read that is blocked on a server trickling one byte at a time
(per-read timeouts alone never fire there). The deadline holds a `dup()` of the TCP socket's
descriptor, so it also cuts a TLS handshake. A deadline may also ask for a minimum throughput:
past a grace period the body bytes received must keep up with `min_rate` bytes a second on
average, so it also expires, sooner, once a server falls behind, even one that sends nothing.

Connections are not reused unless the caller asks for keep-alive (webhooks, which send many
requests to one receiver): then a hop first takes an idle connection from the pool under the
key (scheme, host, port, checked address, CA bundle) of an address that this hop's own policy
check returned, and gives it back once the response ended (`pool`). Without keep-alive a hop
sends `Connection: close` and closes its connection.

A receiver may close an idle keep-alive connection at any moment. One found closed before use
is dropped and a fresh connection is opened: nothing was sent. When writing the request on a
reused connection fails, the receiver cannot have received the whole request, so it is sent
once more on a fresh connection. When the request was written but no answer came, that is an
ordinary failure with `sent=True` (the receiver may have acted on it): never sent again here.
"""

from __future__ import annotations

import heapq
import itertools
import os
import socket
import ssl
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from http.client import HTTPException
from types import TracebackType
from typing import Final

import certifi
from django.conf import settings
from requests.structures import CaseInsensitiveDict
from urllib3 import exceptions as urllib3_errors
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.response import HTTPResponse

from .errors import OutboundConnectionError, OutboundError, OutboundTimeout
from .policy import Location, Target
from .pool import POOL, PoolKey

USER_AGENT: Final = "SocialPublishing/1.0 (+outbound)"

# We frame the request and pick the destination; a caller's copy of these could contradict us.
_OWN_HEADERS: Final = frozenset({"host", "content-length", "transfer-encoding", "connection"})
# What is left of a response body is read before its connection is reused, when it is this
# small and already on its way; otherwise the connection is closed.
_DRAIN_BYTES: Final = 64 * 1024
_DRAIN_SECONDS: Final = 0.1


# --- Deadline -----------------------------------------------------------------------------


def _shutdown(sock: socket.socket) -> None:
    with suppress(OSError):  # already closed by the peer or by us: nothing left to wake
        sock.shutdown(socket.SHUT_RDWR)


class _Watchdog:
    """One daemon thread per process that expires deadlines when their time comes (a thread
    per request would cost a thread start on every request). A finished deadline stays queued
    until its time, then is dropped unexpired."""

    def __init__(self) -> None:
        self._reset()
        os.register_at_fork(after_in_child=self._reset)  # the thread does not cross a fork

    def _reset(self) -> None:
        self._wake = threading.Condition()
        self._queue: list[tuple[float, int, Deadline]] = []
        self._order = itertools.count()
        self._thread: threading.Thread | None = None

    def add(self, deadline: Deadline, at: float) -> None:
        """Call `deadline.expire()` at monotonic time `at`."""
        with self._wake:
            heapq.heappush(self._queue, (at, next(self._order), deadline))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="outbound-deadlines", daemon=True)
                self._thread.start()
            elif self._queue[0][2] is deadline:  # sooner than what the thread sleeps towards
                self._wake.notify()

    def _run(self) -> None:
        while True:
            for deadline in self._due():
                deadline.expire()

    def _due(self) -> list[Deadline]:
        with self._wake:
            while not self._queue or self._queue[0][0] > time.monotonic():
                self._wake.wait(self._queue[0][0] - time.monotonic() if self._queue else None)
            due = []
            while self._queue and self._queue[0][0] <= time.monotonic():
                due.append(heapq.heappop(self._queue)[2])
            return due


class Deadline:
    """A total time budget. When it runs out, the watchdog shuts the watched socket down, so a
    read blocked on a trickling server returns at once instead of waiting for more bytes.

    With `min_rate` (bytes a second), it also runs out as soon as the body bytes received
    (`received`) fall below `min_rate * (elapsed - grace)`: when no more bytes come, that
    happens at `started + grace + received / min_rate`. The watchdog is woken at that time;
    if bytes came meanwhile, the time has moved on and it is woken again then."""

    def __init__(self, seconds: float, *, min_rate: float = 0.0, grace: float = 0.0) -> None:
        self.started = time.monotonic()
        self.ends = self.started + max(seconds, 0.0)
        self.min_rate, self.grace = max(min_rate, 0.0), max(grace, 0.0)
        self._lock = threading.Lock()
        self._watched: socket.socket | None = None
        self._finished = False
        self._received = 0
        self.expired = False
        self.too_slow = False  # expired by the minimum throughput, before `ends`
        _WATCHDOG.add(self, self.due())

    def due(self) -> float:
        """When the deadline expires if no further byte arrives."""
        if not self.min_rate:
            return self.ends
        return min(self.ends, self.started + self.grace + self._received / self.min_rate)

    def remaining(self) -> float:
        return max(0.0, self.due() - time.monotonic())

    def received(self, count: int) -> None:
        """Count body bytes towards the minimum throughput."""
        with self._lock:
            self._received += count

    def error(self, *, sent: bool) -> OutboundTimeout:
        if self.too_slow or (not self.expired and self.due() < self.ends):
            message = f"The server sent less than {self.min_rate:g} bytes a second."
            return OutboundTimeout(message, code="TOO_SLOW", sent=sent)
        return OutboundTimeout("The request ran past its deadline.", code="TIMEOUT", sent=sent)

    def check(self, *, sent: bool) -> None:
        if self.expired or self.remaining() <= 0:
            raise self.error(sent=sent)

    def watch(self, sock: socket.socket) -> None:
        # A plain socket on a duplicate of the descriptor: shutting it down also ends a TLS
        # socket on the same connection, without touching the SSL object another thread reads.
        duplicate = socket.socket(sock.family, sock.type, sock.proto, fileno=os.dup(sock.fileno()))
        with self._lock:
            self._release()
            self._watched = duplicate
            if self.expired:
                _shutdown(duplicate)

    def unwatch(self) -> None:
        """Stop watching the socket; from now on expiry leaves it alone."""
        with self._lock:
            self._release()

    def expire(self) -> None:
        """Called by the watchdog at the time `due` said. Unless bytes arrived since and moved
        that time on, the time is up: mark the deadline expired and shut the watched socket down."""
        with self._lock:
            if self._finished:
                return
            due = self.due()
            if time.monotonic() >= due:
                self.expired, self.too_slow = True, due < self.ends
                if self._watched is not None:
                    _shutdown(self._watched)
                return
        _WATCHDOG.add(self, due)

    def _release(self) -> None:
        if self._watched is not None:
            self._watched.close()  # the duplicate would otherwise keep the connection open
            self._watched = None

    def __enter__(self) -> Deadline:
        return self

    def __exit__(self, *exc_info: type[BaseException] | BaseException | TracebackType | None) -> None:
        with self._lock:
            self._finished = True
            self._release()


_WATCHDOG: Final = _Watchdog()


# --- Connections --------------------------------------------------------------------------


class _WatchedHTTPConnection(HTTPConnection):
    """Hands each new TCP socket to the deadline before TLS or HTTP use it."""

    deadline: Deadline | None = None

    def _new_conn(self) -> socket.socket:
        sock = super()._new_conn()
        if self.deadline is not None:
            self.deadline.watch(sock)
        return sock


class _WatchedHTTPSConnection(_WatchedHTTPConnection, HTTPSConnection):
    pass


@dataclass(frozen=True)
class Request:
    method: str
    headers: CaseInsensitiveDict[str]
    body: bytes | None
    connect_timeout: float
    read_timeout: float
    keep_alive: bool = False


def caller_headers(headers: Mapping[str, str] | None) -> CaseInsensitiveDict[str]:
    merged: CaseInsensitiveDict[str] = CaseInsensitiveDict({"User-Agent": USER_AGENT})
    merged.update({name: value for name, value in (headers or {}).items() if name.lower() not in _OWN_HEADERS})
    return merged


def _wire_headers(request: Request, location: Location) -> CaseInsensitiveDict[str]:
    headers = CaseInsensitiveDict(request.headers)
    headers["Host"] = location.host_header
    if not request.keep_alive:
        headers["Connection"] = "close"
    return headers


def _ca_bundle() -> str:
    return getattr(settings, "OUTBOUND_CA_BUNDLE", None) or certifi.where()


def _connection(location: Location, address: str, request: Request, deadline: Deadline) -> HTTPConnection:
    timeout = max(0.001, min(request.connect_timeout, deadline.remaining()))
    conn: _WatchedHTTPConnection
    if location.scheme == "https":
        conn = _WatchedHTTPSConnection(
            address,
            location.port,
            timeout=timeout,
            server_hostname=location.host,  # SNI and certificate check against the name, not the IP
            cert_reqs="CERT_REQUIRED",
            ca_certs=_ca_bundle(),
        )
    else:
        conn = _WatchedHTTPConnection(address, location.port, timeout=timeout)
    conn.deadline = deadline
    return conn


def _translate(exc: BaseException, deadline: Deadline, *, sent: bool) -> OutboundError:
    if deadline.expired:
        return deadline.error(sent=sent)
    # NewConnectionError subclasses ConnectTimeoutError, so it is tested first.
    if isinstance(exc, urllib3_errors.NewConnectionError):
        return OutboundConnectionError("The server could not be reached.", sent=False)
    if isinstance(exc, urllib3_errors.ConnectTimeoutError):
        return OutboundTimeout("Connecting to the server timed out.", sent=False)
    if isinstance(exc, urllib3_errors.ReadTimeoutError | TimeoutError):
        return OutboundTimeout("The server did not answer in time.", sent=sent)
    if isinstance(exc, ssl.SSLError | urllib3_errors.SSLError):
        return OutboundConnectionError("TLS failed (handshake or certificate).", code="TLS_FAILED", sent=sent)
    return OutboundConnectionError("The connection failed.", sent=sent)


@contextmanager
def translated(deadline: Deadline, *, sent: bool) -> Iterator[None]:
    try:
        yield
    except (urllib3_errors.HTTPError, HTTPException, OSError) as exc:
        raise _translate(exc, deadline, sent=sent) from exc


def _pool_key(location: Location, address: str) -> PoolKey:
    ca_bundle = _ca_bundle() if location.scheme == "https" else None
    return PoolKey(location.scheme, location.host, location.port, address, ca_bundle)


def _connect(target: Target, request: Request, deadline: Deadline) -> tuple[HTTPConnection, str]:
    """A new connection to the first checked address that answers, and that address."""
    failure: OutboundError | None = None
    for address in target.addresses:  # like a browser, try the next address if one is down
        deadline.check(sent=False)
        conn = _connection(target.location, address, request, deadline)
        try:
            with translated(deadline, sent=False):
                conn.connect()
        except OutboundError as exc:
            conn.close()
            failure = exc
            continue
        conn.timeout = request.read_timeout  # urllib3 applies it to the socket before each phase
        return conn, address
    raise failure or OutboundConnectionError("The server could not be reached.")


def _pooled(target: Target, request: Request, deadline: Deadline) -> tuple[HTTPConnection, PoolKey] | None:
    """An idle connection to one of this hop's checked addresses, now watched by `deadline`."""
    for address in target.addresses:
        key = _pool_key(target.location, address)
        conn = POOL.take(key)
        if conn is None or conn.sock is None:
            continue
        try:
            deadline.watch(conn.sock)
            conn.sock.settimeout(request.read_timeout)
        except OSError:
            conn.close()
            continue
        if isinstance(conn, _WatchedHTTPConnection):
            conn.deadline = deadline
        conn.timeout = request.read_timeout
        return conn, key
    return None


# --- One hop ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Hop:
    location: Location
    connection: HTTPConnection
    response: HTTPResponse
    deadline: Deadline
    pool_key: PoolKey | None = None  # set when the connection may be kept for another request

    def close(self) -> None:
        """Close the connection, whatever is left unread."""
        self.response.close()
        self.connection.close()

    def release(self) -> None:
        """Done with the response: keep the connection for the next request when the response
        ended cleanly (what is left of its body is drained when small), else close it."""
        if self.pool_key is None or not _drained(self.response, self.connection):
            self.close()
            return
        self.deadline.unwatch()
        if self.deadline.expired or self.connection.sock is None:  # shut down, or the server said close
            self.close()
            return
        POOL.give(self.pool_key, self.connection)


def _drained(response: HTTPResponse, conn: HTTPConnection) -> bool:
    """Whether the response has ended, after reading what is left of its body when that is
    small and arrives at once. Never raises: a connection that cannot be drained is closed."""
    remaining = response.length_remaining
    if conn.sock is None or (remaining is not None and remaining > _DRAIN_BYTES):
        return False
    received = 0
    try:
        conn.sock.settimeout(_DRAIN_SECONDS)
        while not response.isclosed():
            chunk = response.read(_DRAIN_BYTES + 1 - received, decode_content=False)
            received += len(chunk)
            if not chunk or received > _DRAIN_BYTES:
                break
    except (urllib3_errors.HTTPError, HTTPException, OSError, ValueError):
        return False
    return response.isclosed() and received <= _DRAIN_BYTES


def _write(conn: HTTPConnection, target: Target, request: Request) -> None:
    conn.request(
        request.method,
        target.location.target,
        body=request.body,
        headers=_wire_headers(request, target.location),
        preload_content=False,
        decode_content=False,
    )


def _answer(conn: HTTPConnection, target: Target, deadline: Deadline, key: PoolKey | None) -> Hop:
    try:
        with translated(deadline, sent=True):
            return Hop(target.location, conn, conn.getresponse(), deadline, key)
    except BaseException:
        conn.close()
        raise


def _send_reused(
    conn: HTTPConnection, key: PoolKey, target: Target, request: Request, deadline: Deadline
) -> Hop | None:
    """The hop on a reused connection, or None when the request could not be written: the
    receiver had closed the connection and cannot have received the whole request."""
    try:
        with translated(deadline, sent=False):
            _write(conn, target, request)
    except OutboundError:
        conn.close()
        if deadline.expired:
            raise
        return None
    return _answer(conn, target, deadline, key)


def send(target: Target, request: Request, deadline: Deadline) -> Hop:
    if request.keep_alive and (pooled := _pooled(target, request, deadline)) is not None:
        hop = _send_reused(*pooled, target, request, deadline)
        if hop is not None:
            return hop
    conn, address = _connect(target, request, deadline)
    try:
        with translated(deadline, sent=True):
            _write(conn, target, request)
    except BaseException:
        conn.close()
        raise
    return _answer(conn, target, deadline, _pool_key(target.location, address) if request.keep_alive else None)

"""Sending one hop: a pinned connection to a checked address, under a total deadline.

Connect to a checked IP address, never to the name (pinning), so DNS rebinding between check
and connect has nothing to swap. The `Host` header carries the original name; for https,
urllib3's `server_hostname` makes SNI and OpenSSL's certificate check use the original name
too, so verification is as strict as for an unpinned connection.

The deadline is enforced by a timer that shuts the socket down when it expires, which wakes a
read that is blocked on a server trickling one byte at a time (per-read timeouts alone never
fire there). The timer holds a `dup()` of the TCP socket, so it also cuts a TLS handshake.

Connections are not pooled: each hop opens one connection to one checked address, sends
`Connection: close` and closes it, so a connection can never be reused for another host or
address. Destinations are many and distinct (every user's own server), so keep-alive would
rarely pay off.
"""

from __future__ import annotations

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

USER_AGENT: Final = "SocialPublishing/1.0 (+outbound)"

# We frame the request and pick the destination; a caller's copy of these could contradict us.
_OWN_HEADERS: Final = frozenset({"host", "content-length", "transfer-encoding", "connection"})


# --- Deadline -----------------------------------------------------------------------------


def _shutdown(sock: socket.socket) -> None:
    with suppress(OSError):  # already closed by the peer or by us: nothing left to wake
        sock.shutdown(socket.SHUT_RDWR)


class Deadline:
    """A total time budget. When it runs out, a timer shuts the watched socket down, so a read
    blocked on a trickling server returns at once instead of waiting for more bytes."""

    def __init__(self, seconds: float) -> None:
        self._ends = time.monotonic() + seconds
        self._lock = threading.Lock()
        self._watched: socket.socket | None = None
        self.expired = False
        self._timer = threading.Timer(max(seconds, 0.0), self._expire)
        self._timer.daemon = True
        self._timer.start()

    def remaining(self) -> float:
        return max(0.0, self._ends - time.monotonic())

    def check(self, *, sent: bool) -> None:
        if self.expired or self.remaining() <= 0:
            raise OutboundTimeout("The request ran past its deadline.", code="TIMEOUT", sent=sent)

    def watch(self, sock: socket.socket) -> None:
        # A duplicate of the plain TCP socket: shutting it down also ends a TLS socket that
        # wraps the original, without touching the SSL object another thread is reading.
        duplicate = sock.dup()
        with self._lock:
            self._release()
            self._watched = duplicate
            if self.expired:
                _shutdown(duplicate)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            if self._watched is not None:
                _shutdown(self._watched)

    def _release(self) -> None:
        if self._watched is not None:
            self._watched.close()  # the duplicate would otherwise keep the connection open
            self._watched = None

    def __enter__(self) -> Deadline:
        return self

    def __exit__(self, *exc_info: type[BaseException] | BaseException | TracebackType | None) -> None:
        self._timer.cancel()
        with self._lock:
            self._release()


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


def caller_headers(headers: Mapping[str, str] | None) -> CaseInsensitiveDict[str]:
    merged: CaseInsensitiveDict[str] = CaseInsensitiveDict({"User-Agent": USER_AGENT})
    merged.update({name: value for name, value in (headers or {}).items() if name.lower() not in _OWN_HEADERS})
    return merged


def _wire_headers(request: Request, location: Location) -> CaseInsensitiveDict[str]:
    headers = CaseInsensitiveDict(request.headers)
    headers["Host"] = location.host_header
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
        return OutboundTimeout("The request ran past its deadline.", sent=sent)
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


def _connect(target: Target, request: Request, deadline: Deadline) -> HTTPConnection:
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
        return conn
    raise failure or OutboundConnectionError("The server could not be reached.")


# --- One hop ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Hop:
    location: Location
    connection: HTTPConnection
    response: HTTPResponse

    def close(self) -> None:
        self.response.close()
        self.connection.close()


def send(target: Target, request: Request, deadline: Deadline) -> Hop:
    conn = _connect(target, request, deadline)
    try:
        with translated(deadline, sent=True):
            headers = _wire_headers(request, target.location)
            conn.request(
                request.method,
                target.location.target,
                body=request.body,
                headers=headers,
                preload_content=False,
                decode_content=False,
            )
            return Hop(target.location, conn, conn.getresponse())
    except BaseException:
        conn.close()
        raise

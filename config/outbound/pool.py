"""Idle keep-alive connections, for callers that send many requests to one receiver (webhooks).

A connection is filed under its `PoolKey`: scheme, host name, port, the exact checked IP address
it is connected to, and for https the CA bundle its certificate was verified with. A request
takes one only after the policy has checked the URL again (every request resolves the name and
checks every address anew; no DNS answer is cached, so one that the policy refuses never
reaches the pool), and only under the key of an address that this check returned. So a
connection is never used for another name, port or address, and a TLS connection is reused
only for the name its certificate was verified for.

A connection goes back to the pool only when its response was read to the end and neither side
asked to close it. It is dropped instead of reused when it sat idle for more than IDLE_SECONDS
(below the keep-alive timeout of common servers: gunicorn 2 s, Node.js, uvicorn and Apache 5 s,
so a server rarely closes it while a request is on the way), or when the socket is readable
while idle (the receiver closed it, or sent bytes nobody asked for). Connections never cross
a fork: a child process starts with an empty pool.
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Final

from urllib3.connection import HTTPConnection

IDLE_SECONDS: Final = 1.0
MAX_IDLE_PER_KEY: Final = 4
MAX_IDLE: Final = 64  # in the whole process; the longest idle go first


@dataclass(frozen=True)
class PoolKey:
    scheme: str
    host: str  # the URL's host: Host header, SNI and certificate name
    port: int
    address: str  # the checked IP address the connection goes to
    ca_bundle: str | None  # https only: what the certificate was verified with


@dataclass
class _Idle:
    connection: HTTPConnection
    since: float


class ConnectionPool:
    """Idle connections by key, newest last. Thread-safe; a taken connection belongs to its taker."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle: OrderedDict[PoolKey, list[_Idle]] = OrderedDict()

    def take(self, key: PoolKey) -> HTTPConnection | None:
        """An idle connection for `key` that is still open and fresh, or None."""
        while (idle := self._pop(key)) is not None:
            if time.monotonic() - idle.since <= IDLE_SECONDS and idle.connection.is_connected:
                return idle.connection
            idle.connection.close()
        return None

    def give(self, key: PoolKey, connection: HTTPConnection) -> None:
        """Keep `connection` for the next request with the same key; close what has been idle
        too long or is over the limits."""
        now = time.monotonic()
        with self._lock:
            entries = self._idle.setdefault(key, [])
            entries.append(_Idle(connection, now))
            self._idle.move_to_end(key)
            surplus = [entries.pop(0)] if len(entries) > MAX_IDLE_PER_KEY else []
            surplus += self._stale_or_over_total(now)
        for idle in surplus:
            idle.connection.close()

    def clear(self) -> None:
        """Close every idle connection."""
        with self._lock:
            entries = [idle for idles in self._idle.values() for idle in idles]
            self._idle.clear()
        for idle in entries:
            idle.connection.close()

    def idle_count(self) -> int:
        with self._lock:
            return sum(len(idles) for idles in self._idle.values())

    def _pop(self, key: PoolKey) -> _Idle | None:
        with self._lock:
            entries = self._idle.get(key)
            if not entries:
                return None
            idle = entries.pop()
            if not entries:
                del self._idle[key]
            return idle

    def _stale_or_over_total(self, now: float) -> list[_Idle]:
        # Keys are ordered by their last give() and each key's list by age, so the longest idle
        # are at the front; this stops at the first fresh one (a stale one behind it is closed
        # when taken or pushed out by the limits).
        surplus = []
        total = sum(len(idles) for idles in self._idle.values())
        while self._idle:
            key, entries = next(iter(self._idle.items()))
            if total <= MAX_IDLE and now - entries[0].since <= IDLE_SECONDS:
                break
            surplus.append(entries.pop(0))
            total -= 1
            if not entries:
                del self._idle[key]
        return surplus

    def _after_fork(self) -> None:
        # The parent may still use these sockets; the child just lets go of its copies. The lock
        # is new because another thread may have held the old one at the moment of the fork.
        self._lock = threading.Lock()
        entries = [idle for idles in self._idle.values() for idle in idles]
        self._idle = OrderedDict()
        for idle in entries:
            idle.connection.close()  # closes the child's descriptor only: no FIN, no TLS alert


POOL: Final = ConnectionPool()
os.register_at_fork(after_in_child=POOL._after_fork)

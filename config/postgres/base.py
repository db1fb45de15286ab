"""Django's PostgreSQL backend with a health check that needs no round trip.

With CONN_HEALTH_CHECKS Django checks a kept connection before the first query of each request
or task by running `SELECT 1`: a round trip, and work for the server, on every request. A
connection the server has given up on (restart, `pg_terminate_backend`, an idle timeout) shows
on the client first as a readable socket: the server sends its last error and closes. So an
idle connection whose socket has nothing to read, and whose state libpq reports as OK, is
taken as usable without asking; any other is checked with `SELECT 1` as before. A connection
lost without a word (a cut network) passes either check alike, and fails its first query.
"""

from __future__ import annotations

import select

from django.db.backends.postgresql.base import DatabaseWrapper as PostgresDatabaseWrapper
from psycopg import pq


class DatabaseWrapper(PostgresDatabaseWrapper):
    def is_usable(self) -> bool:
        if self.connection is None:
            return False
        pgconn = self.connection.pgconn
        idle = pgconn.status == pq.ConnStatus.OK and pgconn.transaction_status == pq.TransactionStatus.IDLE
        if idle and not _readable(pgconn.socket):
            return True
        return bool(super().is_usable())


def _readable(fd: int) -> bool:
    """Whether the socket has data or an end of stream to read (or cannot be polled)."""
    poller = select.poll()
    try:
        poller.register(fd, select.POLLIN)
        return bool(poller.poll(0))
    except (OSError, ValueError):
        return True

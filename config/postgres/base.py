"""Django's PostgreSQL backend with a health check that needs no round trip.

With CONN_HEALTH_CHECKS Django checks a kept connection before the first query of each request
or task by running `SELECT 1`, and psycopg_pool checks each connection it lends with an empty
query: a round trip, and work for the server, every time. A connection the server has given up
on (restart, `pg_terminate_backend`, an idle timeout) shows on the client first as a readable
socket: the server sends its last error and closes. So an idle connection whose socket has
nothing to read, and whose state libpq reports as OK, is taken as usable without asking; any
other is checked with a statement as before. That holds for a kept connection (`is_usable`)
and for one lent by the pool of a worker process (`get_new_connection`, config.dbpool), where
one that fails is closed, given back (the pool drops it and opens another) and the next one is
taken. A connection lost without a word (a cut network) passes either check alike, and fails
its first query.
"""

from __future__ import annotations

import select
from typing import Any

import psycopg
from django.db.backends.postgresql.base import DatabaseWrapper as PostgresDatabaseWrapper
from psycopg import pq
from psycopg_pool import ConnectionPool


class DatabaseWrapper(PostgresDatabaseWrapper):
    def is_usable(self) -> bool:
        if self.connection is None:
            return False
        if _quiet(self.connection.pgconn):
            return True
        return bool(super().is_usable())

    def get_new_connection(self, conn_params: Any) -> Any:
        pool = self.pool
        if pool is None:
            return super().get_new_connection(conn_params)
        for _ in range(pool.max_size):  # each connection the server dropped, at most once
            lent = super().get_new_connection(conn_params)
            if _lendable(lent):
                return lent
            lent.close()
            pool.putconn(lent)  # closed: the pool discards it and opens another in its place
        return super().get_new_connection(conn_params)


def _quiet(pgconn: Any) -> bool:
    """An idle connection libpq reports as OK, whose socket has nothing to read."""
    idle = pgconn.status == pq.ConnStatus.OK and pgconn.transaction_status == pq.TransactionStatus.IDLE
    return idle and not _readable(pgconn.socket)


def _lendable(conn: psycopg.Connection[Any]) -> bool:
    """Whether a connection taken from the pool answers: at once when it is quiet, else by
    psycopg_pool's own check (an empty statement)."""
    if _quiet(conn.pgconn):
        return True
    try:
        ConnectionPool.check_connection(conn)
    except psycopg.Error:
        return False
    return True


def _readable(fd: int) -> bool:
    """Whether the socket has data or an end of stream to read (or cannot be polled)."""
    poller = select.poll()
    try:
        poller.register(fd, select.POLLIN)
        return bool(poller.poll(0))
    except (OSError, ValueError):
        return True

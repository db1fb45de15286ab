"""The PostgreSQL backend's health check (config.postgres): a kept connection is checked before
a request's first query, and a pooled one when it is lent (config.dbpool), without a statement,
and one the server closed is still replaced. The server is the real PostgreSQL; a second
connection watches and terminates the first."""

from __future__ import annotations

import select
import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from django.db import close_old_connections, connection, connections

from config.postgres.base import DatabaseWrapper
from tests.publishing.safety_support import database_url

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def watcher() -> Iterator[psycopg.Connection]:
    with psycopg.connect(database_url(), autocommit=True) as other:
        yield other


@pytest.fixture
def pooled() -> Iterator[Any]:
    """A second handle on the test database, set up as `config.dbpool.use_pool` sets a worker's
    (a pool of one, so that a connection given back is the next one lent), under an alias of
    its own so that its pool is its own."""
    settings = {
        **connection.settings_dict,
        "OPTIONS": {**connection.settings_dict["OPTIONS"], "pool": {"min_size": 1, "max_size": 1, "timeout": 10}},
        "CONN_MAX_AGE": 0,
        "CONN_HEALTH_CHECKS": False,
    }
    wrapper = DatabaseWrapper(settings, alias=f"pooled-{uuid.uuid4().hex[:8]}")
    yield wrapper
    wrapper.close()
    wrapper.close_pool()


def _pid(on: Any = connection) -> int:
    with on.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return int(cursor.fetchone()[0])


def _last_statement(watcher: psycopg.Connection, pid: int) -> str:
    row = watcher.execute("SELECT query FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone()
    assert row is not None
    return str(row[0])


def test_the_backend_is_ours():
    assert connection.vendor == "postgresql"
    assert type(connections["default"]).__module__ == "config.postgres.base"
    assert connection.settings_dict["CONN_HEALTH_CHECKS"]


def test_a_kept_idle_connection_is_checked_without_a_statement(watcher):
    pid = _pid()
    with connection.cursor() as cursor:
        cursor.execute("SELECT 'the last statement'")

    close_old_connections()  # a request starts: the connection is kept, its check is due
    connection.close_if_health_check_failed()  # what Django runs before the first query

    assert connection.connection is not None  # kept
    assert _last_statement(watcher, pid) == "SELECT 'the last statement'"  # not SELECT 1
    assert _pid() == pid


def test_a_connection_the_server_closed_is_replaced_before_the_next_query(watcher):
    pid = _pid()
    assert watcher.execute("SELECT pg_terminate_backend(%s)", (pid,)).fetchone() == (True,)
    assert connection.connection is not None
    # The server's last word arrives on the socket (an error, then the end of the stream).
    assert select.select([connection.connection.pgconn.socket], [], [], 10)[0]

    assert not connection.is_usable()
    close_old_connections()  # the next request starts
    with connection.cursor() as cursor:
        cursor.execute("SELECT 'a new connection'")
        assert cursor.fetchone() == ("a new connection",)

    assert _pid() != pid


def test_a_pooled_connection_is_lent_without_a_statement(watcher, pooled):
    pid = _pid(pooled)
    with pooled.cursor() as cursor:
        cursor.execute("SELECT 'the last statement'")
    pooled.close()  # given back to the pool, as at the end of a task

    assert _pid_without_a_statement(pooled) == pid  # the same connection, lent again
    assert _last_statement(watcher, pid) == "SELECT 'the last statement'"  # no check statement


def test_a_pooled_connection_the_server_closed_is_replaced_when_it_is_lent(watcher, pooled):
    pid = _pid(pooled)
    pooled.close()
    assert watcher.execute("SELECT pg_terminate_backend(%s)", (pid,)).fetchone() == (True,)
    _wait_until_gone(watcher, pid)  # its socket now shows the end of the stream
    assert pooled.pool.get_stats()["pool_available"] >= 1  # still in the pool, unaware

    with pooled.cursor() as cursor:  # the terminated connection is dropped, not lent
        cursor.execute("SELECT 'a new connection'")
        assert cursor.fetchone() == ("a new connection",)

    assert _pid(pooled) != pid


def _pid_without_a_statement(on: Any) -> int:
    on.ensure_connection()
    return int(on.connection.info.backend_pid)


def _wait_until_gone(watcher: psycopg.Connection, pid: int) -> None:
    for _ in range(1000):
        if watcher.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone() == (0,):
            return
        select.select([], [], [], 0.01)
    raise AssertionError(f"backend {pid} still running 10 s after pg_terminate_backend")

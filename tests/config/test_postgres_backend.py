"""The PostgreSQL backend's health check (config.postgres): a kept connection is checked before
a request's first query without a statement, and one the server closed is still replaced.
The server is the real PostgreSQL; a second connection watches and terminates the first."""

from __future__ import annotations

import select
from collections.abc import Iterator

import psycopg
import pytest
from django.db import close_old_connections, connection, connections

from tests.publishing.safety_support import database_url

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def watcher() -> Iterator[psycopg.Connection]:
    with psycopg.connect(database_url(), autocommit=True) as other:
        yield other


def _pid() -> int:
    with connection.cursor() as cursor:
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

"""A bounded pool of PostgreSQL connections for a worker process whose threads mostly wait on
the network, and the one rule that makes it work: a thread holds no connection while it waits.

Django gives each thread its own connection and keeps it for the thread's life, so a dispatch
worker running 200 platform calls at once would hold 200 connections (PostgreSQL allows 100 by
default), each idle while its call waits a second for the platform. A worker started with
`--db-connections N` (config.celery) instead takes its connections from one pool of at most N
(Django's own pooling over psycopg_pool): a thread borrows one for each step that reads or
writes, gives it back at the end of its task (config.celery.recycle_database) and, before it
calls a platform, right away (`release`, in accounts.services.platform_call, and after a ref
saved mid-call). A step waits for a free connection when all N are
lent, which takes milliseconds: the steps are short and the waits long.

A pooled connection is checked when it is lent, by the backend (config.postgres: a quiet
socket needs no statement; psycopg_pool's own check would send one with every loan), and one
that fails the check is replaced: a server restart costs no task.
"""

from __future__ import annotations

import logging

from django.db import connection, connections

logger = logging.getLogger(__name__)

# How long a step waits for a free connection before its task fails (and its message is
# delivered again: the claim's compare-and-set keeps that harmless).
POOL_WAIT_SECONDS = 30.0


def use_pool(size: int) -> bool:
    """Make this process take its PostgreSQL connections from one pool of at most `size`,
    before any thread connects; False (nothing changed) on other databases."""
    settings = connections.settings["default"]
    if "postgresql" not in settings["ENGINE"] and not settings["ENGINE"].startswith("config.postgres"):
        logger.info("--db-connections applies to PostgreSQL only; %s keeps a connection per thread", settings["ENGINE"])
        return False
    for conn in connections.all(initialized_only=True):
        conn.close()
    settings["OPTIONS"] = {
        **settings.get("OPTIONS", {}),
        "pool": {"min_size": 1, "max_size": size, "timeout": POOL_WAIT_SECONDS},
    }
    settings["CONN_MAX_AGE"] = 0  # given back at the end of each task, not kept by the thread
    settings["CONN_HEALTH_CHECKS"] = False  # the pool's check is a statement: the backend checks instead
    return True


def pooled() -> bool:
    """Whether this thread's connections come from a pool."""
    return getattr(connection, "pool", None) is not None


def release() -> None:
    """Give this thread's connection back to the pool, unless a transaction holds it (or the
    process has no pool: a connection of its own is kept, as Django keeps it)."""
    if connection.connection is not None and not connection.in_atomic_block and pooled():
        connection.close()

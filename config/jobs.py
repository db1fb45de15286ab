"""Work kept in the database and sent once: the claim, the stale sweep and the hand-over that
every engine of it shares (publishing's delivery jobs, webhooks' deliveries).

A row of such work has a `state` column: pending until it is due, then claimed by one worker,
which settles it. The rows are the truth; a broker message only names a row, so a message
duplicated, redelivered or lost changes nothing that matters:

- `claim`: a worker takes a row by compare-and-set, one UPDATE whose WHERE names the row, the
  states it may be claimed from and its due time. One row written means this worker has it;
  none means another message got there first, or the row is not due: the worker stops. The
  worker's fixed statements (`publishing.statements`, `webhooks.statements`) write the same UPDATE,
  built by `claim_sql`, inside their claim-and-load statements.
- `stale` and `take_back`: a row still claimed past the longest a live worker can hold it
  was left by a lost worker. It goes back to pending, to be sent again, or fails once its
  tries are spent, so a task killed again and again ends rather than loops. An engine with
  rules of its own (a target whose attempt was left `sending` is read back, never re-sent:
  `publishing.delivery`) selects its lost rows with `stale` and settles each itself.
- `hand_over`: the messages naming written rows go to the broker once the rows are committed,
  grouped by queue, one round trip each (`config.broker.send`). Never inside a transaction: a
  worker could claim a row not yet visible, or one then rolled back.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any, NamedTuple, TypeVar

from celery import Task
from django.conf import settings
from django.db import models
from django.db.models import QuerySet

from config import broker

M = TypeVar("M", bound=models.Model)
States = str | Collection[str]  # one state, or the states a move may start from


# --- the claim --------------------------------------------------------------------------------


def claim(
    rows: QuerySet[M] | type[M],
    pk: object,
    *,
    from_state: States,
    to_state: str,
    due_field: str,
    now: dt.datetime,
    changes: Mapping[str, Any],
) -> bool:
    """Claim the row `pk` of `rows` (a model, or a queryset narrowing it further): move it from
    `from_state` to `to_state` and write `changes` with it, only while it is in `from_state`
    and due (`due_field` at or before `now`). One UPDATE, so of two claims racing for a row one
    writes it and the other finds it moved. True when this call claimed it."""
    queryset = rows if isinstance(rows, QuerySet) else rows._default_manager.all()
    due = {f"{due_field}__lte": now}
    return bool(queryset.filter(pk=pk, state__in=_states(from_state), **due).update(state=to_state, **changes))


def claim_sql(
    model: type[models.Model],
    *,
    from_state: States,
    to_state: str,
    due_field: str,
    changes: Mapping[str, str],
    returning: Sequence[str],
) -> str:
    """`claim` as one fixed statement, for a hot path's data-modifying CTE: the row's id is the
    `pk` parameter and the claim's moment `now`; `changes` maps columns to SQL expressions; the
    claimed row's `returning` columns come back (none when nothing was claimed). Built once, at
    import: the states are the models' choices, never a request's values."""
    field = model._meta.get_field(due_field)
    if not isinstance(field, models.Field):
        raise TypeError(f"{model.__name__}.{due_field} is not a column")
    due = field.column
    sets = ", ".join([f"state = {_literal(to_state)}", *(f"{column} = {sql}" for column, sql in changes.items())])
    allowed = ", ".join(_literal(state) for state in _states(from_state))
    return (
        f"UPDATE {model._meta.db_table} SET {sets} "  # noqa: S608 - names from the model's metadata, values bound
        f"WHERE id = %(pk)s AND state IN ({allowed}) AND {due} <= %(now)s RETURNING {', '.join(returning)}"
    )


def _states(states: States) -> list[str]:
    return [states] if isinstance(states, str) else sorted(states)


def _literal(state: str) -> str:
    # A state is written into the statement as a literal: only a plain name may be.
    value = str(getattr(state, "value", state))
    if not value.replace("_", "").isalnum():
        raise ValueError(f"{value!r} is not a state name")
    return f"'{value}'"


# --- the stale sweep --------------------------------------------------------------------------


def stale(
    rows: QuerySet[M], *, state: str, older_than: dt.timedelta, now: dt.datetime, since_field: str = "claimed_at"
) -> QuerySet[M]:
    """The rows of `rows` still in `state` (claimed, sending) since before `now - older_than`:
    past the longest a live worker can hold one (its task's hard time limit and more), so the
    worker that held it was lost."""
    return rows.filter(state=state, **{f"{since_field}__lt": now - older_than})


class Swept(NamedTuple):
    back: int  # rows pending again
    given_up: int  # rows whose tries were spent


def take_back(
    rows: QuerySet[M],
    *,
    running: str,
    pending: str,
    failed: str,
    tries_field: str,
    max_tries: int,
    older_than: dt.timedelta,
    now: dt.datetime,
    back: Mapping[str, Any],
    given_up: Mapping[str, Any],
) -> Swept:
    """Take back the claims lost workers left among `rows` (`stale` in `running`), in two
    UPDATEs: a row with tries left is `pending` again, with `back`'s values (make it due, and
    the engine's sweep or relay sends it); one whose `tries_field` reached `max_tries` is
    `failed`, with `given_up`'s values. Each UPDATE keeps only rows still in `running`, so one
    a worker settled meanwhile is left alone."""
    lost = stale(rows, state=running, older_than=older_than, now=now)
    returned = lost.filter(**{f"{tries_field}__lt": max_tries}).update(state=pending, **back)
    spent = lost.filter(**{f"{tries_field}__gte": max_tries}).update(state=failed, **given_up)
    return Swept(returned, spent)


# --- the hand-over ----------------------------------------------------------------------------


class Message(NamedTuple):
    """One task message: its task id (for tracing; the broker does not deduplicate by it), its
    positional arguments, and its queue (None: the one the task's route names)."""

    task_id: str
    args: tuple[Any, ...]
    queue: str | None = None


def hand_over(task: Task[Any, Any], messages: Iterable[Message]) -> None:
    """Send one message of `task` per item of `messages`, each queue's in one round trip to the
    broker (`config.broker.send`, within CELERY_BROKER_CONNECTION_TIMEOUT). Raises what the
    broker raised: any message may then have been taken or not, and the caller leaves the rows
    they name for its sweep or relay. In eager mode (tests, tools) each task runs here, in
    order, instead."""
    if task.app.conf.task_always_eager:
        for message in messages:  # no queue here: an eager task runs where it is sent
            task.apply_async(args=message.args, task_id=message.task_id)
        return
    by_queue: dict[str | None, list[broker.Call]] = defaultdict(list)
    for message in messages:
        by_queue[message.queue].append((message.task_id, message.args))
    for queue, calls in by_queue.items():
        broker.send(task.app, task, calls, timeout=settings.CELERY_BROKER_CONNECTION_TIMEOUT, queue=queue)

"""Model building blocks shared by every app."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, TypeVar

from django.conf import settings
from django.db import connection, models
from psycopg import pq

from config.ids import new_id

M = TypeVar("M", bound=models.Model)


class BaseModel(models.Model):
    id = models.UUIDField(primary_key=True, default=new_id, editable=False)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True


def fixed_statements() -> bool:
    """Whether the hot paths run their fixed statements (PostgreSQL, unless
    DB_FIXED_STATEMENTS is off) rather than the ORM twins every database has. Each fixed
    statement writes the rows its twin writes; the tests run the worker's path both ways."""
    return settings.DB_FIXED_STATEMENTS and connection.vendor == "postgresql"


def loaded(model: type[M], names: Sequence[str], values: Sequence[Any]) -> M:
    """An instance from a raw row, as the ORM loads one: each field's from_db_value applied
    (secrets decrypted, JSON parsed); fields not given are deferred, so reading one loads it."""
    by_name = {_concrete_field(model, name).attname: value for name, value in zip(names, values, strict=True)}
    fields = [field for field in model._meta.concrete_fields if field.attname in by_name]  # from_db wants this order
    converted = [
        field.from_db_value(by_name[field.attname], None, connection)
        if hasattr(field, "from_db_value")
        else by_name[field.attname]
        for field in fields
    ]
    return model.from_db(connection.alias, [field.attname for field in fields], converted)


def run(sql: str, params: dict[str, Any]) -> list[tuple[Any, ...]]:
    """Execute one raw statement with bound parameters on the default connection (PostgreSQL);
    its rows (none for a statement that returns none). Whether it returned rows is read from
    the result's status: `cursor.description` would build a column object per column, which
    for the hot path's wide rows costs more than the rows themselves."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        result = cursor.cursor.pgresult
        returned_rows = result is not None and result.status == pq.ExecStatus.TUPLES_OK
        return cursor.fetchall() if returned_rows else []


def insert(*groups: Sequence[models.Model]) -> None:
    """Insert the instances of `groups` (one model per group) in one statement on PostgreSQL:
    a data-modifying CTE per group, every value bound. Each field's pre_save runs first, as in
    save(), so the auto_now timestamps are set on the instances, which end up as saved ones.
    No signal is sent, as with bulk_create. A group may refer to rows of an earlier one: the
    foreign keys Django creates are checked at commit. Other databases save each group with
    bulk_create, which gives the same rows (so does PostgreSQL without fixed statements)."""
    groups = tuple(group for group in groups if group)
    if not fixed_statements():
        for group in groups:
            type(group[0])._default_manager.bulk_create(group)
        return
    statements: list[str] = []
    params: list[Any] = []
    for group in groups:
        model = type(group[0])
        fields = model._meta.concrete_fields
        row = "(" + ", ".join(["%s"] * len(fields)) + ")"
        for instance in group:
            params.extend(field.get_db_prep_save(field.pre_save(instance, True), connection) for field in fields)
        names = ", ".join(f'"{field.column}"' for field in fields)
        values = ", ".join([row] * len(group))
        table = model._meta.db_table
        statements.append(f'INSERT INTO "{table}" ({names}) VALUES {values}')  # noqa: S608 - names from the models' metadata
    if not statements:
        return
    *first, last = statements
    ctes = ", ".join(f"w{n} AS ({sql})" for n, sql in enumerate(first))
    with connection.cursor() as cursor:
        cursor.execute(f"WITH {ctes} {last}" if ctes else last, params)
    for group in groups:
        for instance in group:
            instance._state.adding, instance._state.db = False, connection.alias


def columns(model: type[models.Model], alias: str, *, without: Sequence[str] = ()) -> tuple[tuple[str, ...], str]:
    """(the model's concrete field names but `without`, `alias.column, ...` selecting them in
    that order)."""
    fields = [field for field in model._meta.concrete_fields if field.name not in without]
    return tuple(field.name for field in fields), ", ".join(f'{alias}."{field.column}"' for field in fields)


def _concrete_field(model: type[models.Model], name: str) -> models.Field[Any, Any]:
    field = model._meta.get_field(name)
    if not isinstance(field, models.Field):
        raise TypeError(f"{model.__name__}.{name} is not a column")
    return field


PURGE_BATCH = 5000


def purge(rows: models.QuerySet[Any], *, deadline: float) -> int:
    """Delete `rows` batch by batch (ids first, then by id, so each statement is bounded) until
    none is left or time.monotonic() passes `deadline`; the rows of `rows`' model deleted."""
    model, deleted = rows.model, 0
    while time.monotonic() < deadline:
        ids = list(rows.values_list("pk", flat=True)[:PURGE_BATCH])
        if not ids:
            break
        deleted += model.objects.filter(pk__in=ids).delete()[1].get(model._meta.label, 0)
    return deleted

"""A create whose database connection dies mid-transaction answers 503 and leaves its
Idempotency-Key free: the client's repeat (as the 503 invites) creates the publish at once,
instead of meeting "still being processed" until the key is taken over as abandoned."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.db import connection

from publishing.models import IdempotencyKey, Publish

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]

# A trigger that ends the inserting session, as pg_terminate_backend from outside would.
KILL_ON_INSERT = """
CREATE FUNCTION test_kill_session() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN PERFORM pg_terminate_backend(pg_backend_pid()); RETURN NEW; END $$;
CREATE TRIGGER test_kill_session BEFORE INSERT ON {table} FOR EACH ROW EXECUTE FUNCTION test_kill_session();
"""
DROP = "DROP TRIGGER IF EXISTS test_kill_session ON {table}; DROP FUNCTION IF EXISTS test_kill_session();"


@pytest.fixture
def publish_insert_kills_the_session() -> Iterator[None]:
    table = Publish._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(KILL_ON_INSERT.format(table=table))
    try:
        yield
    finally:
        connection.ensure_connection()
        with connection.cursor() as cursor:
            cursor.execute(DROP.format(table=table))


def test_a_create_cut_off_from_its_database_frees_its_key(api, owner, accounts, publish_insert_kills_the_session):
    body = {"content": "Cut off", "targets": [{"account_id": str(accounts.x.pk)}]}
    headers = {"HTTP_IDEMPOTENCY_KEY": "cut-off-1"}

    cut = api.as_(owner.key).post("/api/v1/publishes", body, format="json", **headers)

    assert cut.status_code == 503, cut.content
    assert cut.json()["error"]["type"] == "service_unavailable"
    assert not IdempotencyKey.objects.filter(key="cut-off-1").exists()
    with connection.cursor() as cursor:
        cursor.execute(DROP.format(table=Publish._meta.db_table))
    again = api.as_(owner.key).post("/api/v1/publishes", body, format="json", **headers)
    assert again.status_code == 201, again.json()
    assert Publish.objects.filter(content="Cut off").count() == 1

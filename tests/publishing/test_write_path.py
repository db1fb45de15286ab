"""The create's write path: each row is written once, and the answer is shaped from what was
written, so it must be exactly what a read of the publish answers afterwards."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

pytestmark = pytest.mark.django_db

URL = "/api/v1/publishes"


@pytest.fixture
def _eager() -> None:
    """Jobs stay with the broker (no worker): the publish is read back as the create left it."""


def _body(accounts, mode):
    body = {
        "content": "Hello",
        "targets": [
            {"account_id": str(accounts.x.pk)},
            {"account_id": str(accounts.bluesky.pk), "content": "Hello, Bluesky"},
            {"account_id": str(accounts.threads.pk)},
        ],
        "publish_mode": mode,
    }
    if mode == "scheduled":
        body["scheduled_at"] = (timezone.now() + dt.timedelta(hours=1)).isoformat()
    return body


@pytest.mark.parametrize("mode", ["immediate", "scheduled", "draft"])
def test_a_create_answers_the_publish_as_stored(api, owner, accounts, mode):
    created = api.as_(owner.key).post(URL, _body(accounts, mode), format="json")
    assert created.status_code == 201, created.json()

    stored = api.as_(owner.key).get(f"{URL}/{created.json()['data']['id']}")

    assert created.json()["data"] == stored.json()["data"]


@pytest.mark.parametrize("mode", ["immediate", "scheduled"])
def test_a_gated_create_answers_the_publish_as_stored(api, member, accounts, mode):
    member.team.approval_required = True
    member.team.save()
    created = api.as_(member.key).post(URL, _body(accounts, mode), format="json")
    assert created.json()["data"]["approval_status"] == "pending_approval"

    stored = api.as_(member.key).get(f"{URL}/{created.json()['data']['id']}")

    assert created.json()["data"] == stored.json()["data"]


@pytest.mark.postgres  # one statement is PostgreSQL's (config.db.insert); elsewhere one per table
def test_a_create_writes_each_row_once(api, owner, accounts):
    body = _body(accounts, "immediate")
    with CaptureQueriesContext(connection) as queries:
        response = api.as_(owner.key).post(URL, body, format="json")
    assert response.status_code == 201
    sqls = [q["sql"] for q in queries.captured_queries]
    inserts = [sql for sql in sqls if "INSERT INTO" in sql and "teams_monthlyusage" not in sql]

    # The publish, its three targets and their three jobs, in one statement.
    assert len(inserts) == 1, inserts
    (insert,) = inserts
    for table in ("publishing_publish", "publishing_target", "publishing_deliveryjob"):
        assert insert.count(f'INSERT INTO "{table}"') == 1, table
    assert insert.count("), (") == 2 + 2  # three target rows and three job rows
    # Nothing written twice: the jobs go in already marked enqueued, the broker took them.
    tables = ('"publishing_publish"', '"publishing_target"', '"publishing_deliveryjob"')
    assert not [sql for sql in sqls if sql.startswith("UPDATE") and any(t in sql.split(" SET ")[0] for t in tables)]

"""The create's write path: each row is written once, and the answer is shaped from what was
written, so it must be exactly what a read of the publish answers afterwards."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from publishing.models import DeliveryJob, Target

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("hot_path")]  # the fixed statements and the ORM

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


def test_a_create_writes_each_row_once(api, owner, accounts, hot_path):
    body = _body(accounts, "immediate")
    with CaptureQueriesContext(connection) as queries:
        response = api.as_(owner.key).post(URL, body, format="json")
    assert response.status_code == 201
    sqls = [q["sql"] for q in queries.captured_queries]
    inserts = [sql for sql in sqls if "INSERT INTO" in sql and "teams_monthlyusage" not in sql]

    # The publish, its three targets and their three jobs: one statement (config.db.insert's
    # fixed one), or one per table through the ORM.
    assert len(inserts) == (1 if hot_path == "fixed" else 3), inserts
    tables = ("publishing_publish", "publishing_target", "publishing_deliveryjob")
    for table in tables:
        assert sum(insert.count(f'INSERT INTO "{table}"') for insert in inserts) == 1, table
    publish_id = response.json()["data"]["id"]
    assert Target.objects.filter(publish_id=publish_id).count() == 3
    assert DeliveryJob.objects.filter(target__publish_id=publish_id).count() == 3
    # Nothing written twice: the jobs go in already marked enqueued, the broker took them.
    quoted = [f'"{table}"' for table in tables]
    assert not [sql for sql in sqls if sql.startswith("UPDATE") and any(t in sql.split(" SET ")[0] for t in quoted)]

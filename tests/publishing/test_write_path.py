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


def test_a_create_writes_each_row_once(api, owner, accounts):
    with CaptureQueriesContext(connection) as queries:
        response = api.as_(owner.key).post(URL, _body(accounts, "immediate"), format="json")
    assert response.status_code == 201
    statements = [" ".join(q["sql"].split()[:3]) for q in queries.captured_queries]

    assert statements.count('INSERT INTO "publishing_publish"') == 1
    assert statements.count('INSERT INTO "publishing_target"') == 1  # the three in one statement
    assert statements.count('INSERT INTO "publishing_deliveryjob"') == 1
    assert not [s for s in statements if s.startswith(('UPDATE "publishing_publish"', 'UPDATE "publishing_target"'))]
    # The jobs are marked enqueued together, once the broker took them.
    assert statements.count('UPDATE "publishing_deliveryjob" SET') == 1

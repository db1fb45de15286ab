"""`config.db.insert`: rows of several models (in one statement on PostgreSQL, a bulk_create per
model through the ORM), read back exactly as the ORM's bulk_create writes them, whatever their
values (text of any script, JSON of any shape, empty and null columns)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.db import connection
from django.db.models import Model
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from config import db
from demo.seed import sandbox_account
from publishing.models import DeliveryJob, Publish, PublishMode, ScheduledRelease, Target, TargetState

pytestmark = pytest.mark.django_db

CONTENT = "Naïve café ☕ — 日本語 \"quoted\" 'single' back\\slash %s %(name)s 🎉\nsecond line\ttab"
SETTINGS: dict[str, Any] = {"privacy": "PUBLIC", "nested": {"list": [1, 2.5, None, True, "x"]}, "empty": {}}


def _rows(
    team: Any, accounts: list[Any], content: str
) -> tuple[list[Publish], list[Target], list[DeliveryJob], list[ScheduledRelease]]:
    now = timezone.now()
    publish = Publish(
        team=team,
        content=content,
        media_ids=["m1", "m2"],
        publish_mode=PublishMode.SCHEDULED,
        scheduled_at=now + dt.timedelta(hours=1),
        confirmed=True,
    )
    targets = [
        Target(
            publish=publish,
            account=account,
            platform=account.platform,
            content=content if n else "",
            media_ids=[],
            platform_settings=SETTINGS if n else {},
            state=TargetState.QUEUED,
            attempt_count=1,
        )
        for n, account in enumerate(accounts)
    ]
    jobs = [
        DeliveryJob(target=t, number=1, dispatch_id=f"deliver:{t.pk}:1", not_before=now, enqueued_at=None if n else now)
        for n, t in enumerate(targets)
    ]
    release = [ScheduledRelease(publish=publish, due_at=now + dt.timedelta(hours=1))]
    return [publish], targets, jobs, release


def _read(model: type[Model], pks: list[Any]) -> list[dict[str, Any]]:
    """The rows as stored, without what differs by design (ids, links to them, times)."""
    differ = {"id", "created_at", "updated_at", "publish", "target", "account", "dispatch_id", "not_before"}
    differ |= {"enqueued_at", "scheduled_at", "due_at"}
    rows = model._default_manager.filter(pk__in=pks).order_by("created_at").values()
    return [{k: v for k, v in row.items() if k not in differ and k.removesuffix("_id") not in differ} for row in rows]


def test_the_inserted_rows_read_back_as_bulk_create_writes_them(team, hot_path):
    accounts = [sandbox_account(team, "x"), sandbox_account(team, "linkedin")]
    ours = _rows(team, accounts, CONTENT)
    theirs = _rows(team, accounts, CONTENT)

    with CaptureQueriesContext(connection) as queries:
        db.insert(*ours)
    for group in theirs:
        type(group[0])._default_manager.bulk_create(group)

    assert len(queries.captured_queries) == (1 if hot_path == "fixed" else len(ours))  # or one per model
    for mine, orm in zip(ours, theirs, strict=True):
        model = type(mine[0])
        assert _read(model, [m.pk for m in mine]) == _read(model, [o.pk for o in orm]), model.__name__
    stored = Target.objects.get(pk=ours[1][1].pk)
    assert (stored.content, stored.platform_settings) == (CONTENT, SETTINGS)
    assert Publish.objects.get(pk=ours[0][0].pk).content == CONTENT
    # The instances are saved ones, with the timestamps their rows have.
    publish = ours[0][0]
    assert not publish._state.adding
    assert Publish.objects.get(pk=publish.pk).created_at == publish.created_at
    assert DeliveryJob.objects.get(pk=ours[2][0].pk).enqueued_at == ours[2][0].enqueued_at
    assert DeliveryJob.objects.get(pk=ours[2][1].pk).enqueued_at is None


def test_nothing_to_insert_runs_no_statement(team):
    with CaptureQueriesContext(connection) as queries:
        db.insert([], [])
    assert queries.captured_queries == []


@pytest.mark.django_db(transaction=True)  # as a caller outside a transaction sees it
def test_a_value_with_no_json_form_is_refused_before_anything_is_written(team, hot_path):
    publish = Publish(team=team, content="x")
    publish.media_ids = {"a set": {1, 2}}  # not JSON

    with pytest.raises(TypeError):
        db.insert([publish])
    assert not Publish.objects.filter(pk=publish.pk).exists()

"""What a transition locks: the publish's row only. The team and plan it reads along stay free
for the key checks of other transactions' inserts (every create of the team takes a KEY SHARE
lock on the team row when it commits), so a confirm and a create of one team cannot deadlock."""

from __future__ import annotations

import psycopg
import pytest
from django.db import connection, transaction

from publishing import inputs, lifecycle
from publishing.models import PublishMode
from publishing.status import locked

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


def _other_connection() -> psycopg.Connection:
    params = connection.get_connection_params()
    return psycopg.connect(**{k: v for k, v in params.items() if k not in ("cursor_factory", "context")})


def test_locking_a_publish_leaves_its_team_and_plan_free_for_key_checks(owner, accounts):
    publish = lifecycle.publish_create(
        team=owner.team,
        caller=inputs.Caller(user=owner.user, can_approve=True),
        content="A draft",
        media_ids=[],
        targets=[inputs.TargetInput(account_id=str(accounts.x.pk))],
        publish_mode=PublishMode.DRAFT,
        scheduled_at=None,
    )
    with transaction.atomic(), _other_connection() as other:
        locked(owner.team, publish.pk)
        # What a committing insert's foreign-key check asks; NOWAIT fails at once if it would wait.
        team = other.execute("SELECT 1 FROM teams_team WHERE id = %s FOR KEY SHARE NOWAIT", [owner.team.pk])
        plan = other.execute("SELECT 1 FROM teams_plan WHERE id = %s FOR KEY SHARE NOWAIT", [owner.team.plan_id])
        assert (team.fetchall(), plan.fetchall()) == ([(1,)], [(1,)])
        with pytest.raises(psycopg.errors.LockNotAvailable):  # while the publish itself is held
            other.execute("SELECT 1 FROM publishing_publish WHERE id = %s FOR UPDATE NOWAIT", [publish.pk])

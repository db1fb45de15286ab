"""The statements of sending a target, on PostgreSQL: claim-and-load (of any job: a target's
post or a reply of its thread), start, and record the answer; and the read of the accounts a
create or an edit names.

Every delivery claims its job and loads what it sends, records `sending` before the call and
records the answer after it. Through the ORM that is about twenty round trips plus query
compilation, which at a hundred deliveries a second per worker costs more than the call to
the platform. Here each step is one statement with data-modifying CTEs (the answer is three,
inside the transaction that holds the publish lock), every value a bound parameter. The rules
stay in `delivery` (which state follows which answer, the status of the publish, the event);
this module only reads and writes rows, and only along the moves `transitions` declares: each
statement's state guard is built from its tables at import. A reply's start and answer take
the ORM path on every database (a thread's replies are few next to posts). Other databases (SQLite in
development), and PostgreSQL with DB_FIXED_STATEMENTS off, take the ORM path in `sending`,
`delivery` and `validation`; the worker's tests run both paths, and check that they leave the
same rows.

A create reads its targets' accounts with one fixed statement too: through the ORM, compiling
that query for three rows cost twice what running it did.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from django.db import connection

from accounts.models import SocialAccount
from config import jobs
from config.db import columns, fixed_statements, loaded, run
from publishing.models import (
    AttemptState,
    DeliveryAttempt,
    DeliveryJob,
    JobState,
    Publish,
    Target,
    TargetState,
    ThreadItem,
)
from publishing.transitions import JOB_SOURCES, TARGET_SOURCES, sql_may_move, sql_states
from teams.models import Team


def enabled() -> bool:
    """Whether the statements here apply (PostgreSQL, unless DB_FIXED_STATEMENTS is off);
    otherwise the ORM path runs."""
    return fixed_statements()


_TARGET_FIELDS, _TARGET_COLUMNS = columns(Target, "t")
_ACCOUNT_FIELDS, _ACCOUNT_COLUMNS = columns(SocialAccount, "a")
_PUBLISH_FIELDS, _PUBLISH_COLUMNS = columns(Publish, "p")
_ATTEMPT_FIELDS, _ATTEMPT_COLUMNS = columns(DeliveryAttempt, "publishing_deliveryattempt")
_SIBLING_FIELDS, _SIBLING_COLUMNS = columns(Target, "s")
_ITEM_FIELDS, _ITEM_COLUMNS = columns(ThreadItem, "i")
# Validation needs no token, and reading one costs a decryption.
_TEAM_ACCOUNT_FIELDS, _TEAM_ACCOUNT_COLUMNS = columns(SocialAccount, "a", without=("access_token", "refresh_token"))

_TEAM_ACCOUNTS_SQL = f"""
SELECT {_TEAM_ACCOUNT_COLUMNS} FROM accounts_socialaccount a WHERE a.team_id = %(team_id)s AND a.id = ANY(%(ids)s)
"""  # noqa: S608 - names from the models' metadata, values bound

# The claim is `config.jobs.claim` written out (its ORM twin is `sending._claim`'s).
_CLAIMED = jobs.claim_sql(
    DeliveryJob,
    from_state=JOB_SOURCES[JobState.RUNNING],
    to_state=JobState.RUNNING,
    due_field="not_before",
    changes={"claimed_at": "%(now)s", "runs": "runs + 1"},
    returning=("id", "target_id", "item_id", "number", "dispatch_id", "runs", "created_at"),
)
_CLAIM_SQL = f"""
WITH claimed AS ({_CLAIMED})
SELECT claimed.id, claimed.number, claimed.dispatch_id, claimed.runs, claimed.created_at, {_TARGET_COLUMNS},
    {_ACCOUNT_COLUMNS}, {_PUBLISH_COLUMNS}, {_ITEM_COLUMNS},
    EXISTS (SELECT 1 FROM {ThreadItem._meta.db_table} ti WHERE ti.target_id = t.id) AS has_thread
FROM claimed
JOIN publishing_target t ON t.id = claimed.target_id
JOIN accounts_socialaccount a ON a.id = t.account_id
JOIN publishing_publish p ON p.id = t.publish_id
LEFT JOIN {ThreadItem._meta.db_table} i ON i.id = claimed.item_id
"""  # noqa: S608 - names from the models' metadata, values bound

# The target moves from queued to sending by a compare-and-set on its attempt number, under
# the publish lock (the join makes the update wait for it; a target changed meanwhile is
# re-checked on its newest version). The attempt is created, or counted once more when it
# exists (a not-sent answer put the job back): ON CONFLICT on (target, number).
_START_SQL = f"""
WITH locked AS (
    SELECT id FROM publishing_publish WHERE id = %(publish_id)s FOR UPDATE
), moved AS (
    UPDATE publishing_target t
    SET state = '{TargetState.SENDING.value}', updated_at = %(now)s
    FROM locked
    WHERE t.id = %(target_id)s AND t.publish_id = locked.id
        AND t.state IN ({sql_states(TARGET_SOURCES[TargetState.SENDING])}) AND t.attempt_count = %(number)s
    RETURNING t.id
)
INSERT INTO publishing_deliveryattempt
    (id, created_at, updated_at, target_id, number, state, tries, request, response, ref, error_code,
     error_message, http_status, started_at, finished_at)
SELECT %(attempt_id)s, %(now)s, %(now)s, moved.id, %(number)s, '{AttemptState.SENDING.value}', 1, '{{}}', '{{}}',
    '{{}}', '', '', NULL, %(now)s, NULL
FROM moved
ON CONFLICT (target_id, number) WHERE item_id IS NULL DO UPDATE
SET state = EXCLUDED.state, tries = publishing_deliveryattempt.tries + 1, started_at = EXCLUDED.started_at,
    updated_at = EXCLUDED.updated_at
RETURNING {_ATTEMPT_COLUMNS}
"""  # noqa: S608 - names from the models' metadata, values bound

_LOCK_SQL = (
    "SELECT status, approval_status, completed_at, published_at FROM publishing_publish"
    " WHERE id = %(publish_id)s FOR UPDATE"
)

# Only while the attempt and its target are both still `sending` (the reconciler may have
# settled a lost one meanwhile) and the target's new state is one the table lets it move
# into: the attempt, the target and the job take their new values; the job only from a state
# that leads to its new one. The other targets are read in the same statement, after the
# publish lock was taken.
_ANSWER_SQL = f"""
WITH answered AS (
    UPDATE publishing_deliveryattempt att
    SET state = %(a_state)s, request = %(a_request)s, response = %(a_response)s, ref = %(a_ref)s,
        error_code = %(a_error_code)s, error_message = %(a_error_message)s, http_status = %(a_http_status)s,
        finished_at = %(a_finished_at)s, updated_at = %(now)s
    FROM publishing_target tt
    WHERE att.id = %(attempt_id)s AND att.state = %(sending_attempt)s AND tt.id = att.target_id
        AND tt.state = %(sending_target)s AND {sql_may_move("tt.state", "t_state", TARGET_SOURCES)}
    RETURNING att.id
), target AS (
    UPDATE publishing_target
    SET state = %(t_state)s, platform_post_id = %(t_platform_post_id)s, platform_post_url = %(t_platform_post_url)s,
        error_code = %(t_error_code)s, error_message = %(t_error_message)s, published_at = %(t_published_at)s,
        next_check_at = %(t_next_check_at)s, checks = %(t_checks)s, updated_at = %(now)s
    WHERE id = %(target_id)s AND EXISTS (SELECT 1 FROM answered)
), job AS (
    UPDATE publishing_deliveryjob
    SET state = %(j_state)s, not_before = COALESCE(%(j_not_before)s, not_before),
        enqueued_at = CASE WHEN %(j_requeue)s THEN NULL ELSE enqueued_at END, updated_at = %(now)s
    WHERE target_id = %(target_id)s AND item_id IS NULL AND number = %(number)s AND EXISTS (SELECT 1 FROM answered)
        AND {sql_may_move("state", "j_state", JOB_SOURCES)}
)
SELECT (SELECT count(*) FROM answered), {_SIBLING_COLUMNS}
FROM (SELECT 1) AS one
LEFT JOIN publishing_target s ON s.publish_id = %(publish_id)s AND s.id <> %(target_id)s
"""  # noqa: S608 - names from the models' metadata, values bound

_STATUS_SQL = """
UPDATE publishing_publish
SET status = %(status)s, completed_at = %(completed_at)s, published_at = %(published_at)s, updated_at = %(now)s
WHERE id = %(publish_id)s
"""


def team_accounts(team_id: Any, account_ids: Sequence[str]) -> dict[str, SocialAccount]:
    """The team's accounts among `account_ids` (an id that is no UUID matches none), by id,
    their tokens deferred."""
    ids = []
    for account_id in account_ids:
        try:
            ids.append(uuid.UUID(str(account_id)))
        except ValueError:
            continue
    rows = run(_TEAM_ACCOUNTS_SQL, {"team_id": team_id, "ids": ids}) if ids else []
    accounts = (loaded(SocialAccount, _TEAM_ACCOUNT_FIELDS, row) for row in rows)
    return {str(account.pk): account for account in accounts}


def claim(job_id: str, now: dt.datetime) -> tuple[DeliveryJob, bool] | None:
    """Claim the job if it is pending and due (compare-and-set: a second message for it finds
    nothing) and return it with its target, the target's account and publish (the publish's
    team deferred but for its id) and when it was written (a fit failed since then fails it),
    its thread item for a reply's job, and whether its target has thread items (read in the
    same statement, so a target without one costs no lookup once published); None when it is
    not claimable."""
    found = run(_CLAIM_SQL, {"pk": job_id, "now": now})
    if not found:
        return None
    row, at = found[0], 5
    target = loaded(Target, _TARGET_FIELDS, row[at : (at := at + len(_TARGET_FIELDS))])
    account = loaded(SocialAccount, _ACCOUNT_FIELDS, row[at : (at := at + len(_ACCOUNT_FIELDS))])
    publish = loaded(Publish, _PUBLISH_FIELDS, row[at : (at := at + len(_PUBLISH_FIELDS))])
    item_row = row[at : at + len(_ITEM_FIELDS)]
    publish.team = loaded(Team, ("id",), (publish.team_id,))
    target.account, target.publish = account, publish
    item = loaded(ThreadItem, _ITEM_FIELDS, item_row) if item_row[0] is not None else None
    job = loaded(
        DeliveryJob,
        ("id", "target", "item", "number", "dispatch_id", "runs", "created_at", "state", "claimed_at"),
        (row[0], target.pk, item and item.pk, row[1], row[2], row[3], row[4], JobState.RUNNING.value, now),
    )
    job.target, job.item = target, item
    if item is not None:
        item.target = target
    return job, bool(row[-1])


def start(job: DeliveryJob, attempt_id: Any, now: dt.datetime) -> DeliveryAttempt | None:
    """Move the claimed job's target from queued to sending and create its attempt (or count
    a try more on the existing one); autocommitted, one statement. None when the target moved
    on (the job is stale)."""
    target = job.target
    params = {
        "publish_id": target.publish_id,
        "target_id": target.pk,
        "number": job.number,
        "attempt_id": attempt_id,
        "now": now,
    }
    found = run(_START_SQL, params)
    if not found:
        return None
    attempt = loaded(DeliveryAttempt, _ATTEMPT_FIELDS, found[0])
    target.state, target.attempt_count, target.updated_at = TargetState.SENDING, job.number, now
    attempt.target = target
    return attempt


def lock_publish(publish: Publish) -> None:
    """Lock the publish row (inside the caller's transaction) and refresh the fields that
    change while its targets are sent."""
    [(publish.status, publish.approval_status, publish.completed_at, publish.published_at)] = run(
        _LOCK_SQL, {"publish_id": publish.pk}
    )


def record_answer(
    attempt: DeliveryAttempt, job_state: JobState, job_changes: Mapping[str, Any], now: dt.datetime
) -> list[Target] | None:
    """Write the answer as `attempt` and its target now hold it, and the job's new state and
    changes, only if both are still sending; return the publish's other targets (read under
    the lock the caller holds), or None when nothing was written."""
    target = attempt.target
    params: dict[str, Any] = {
        "now": now,
        "attempt_id": attempt.pk,
        "target_id": target.pk,
        "publish_id": target.publish_id,
        "number": attempt.number,
        "sending_attempt": AttemptState.SENDING.value,
        "sending_target": TargetState.SENDING.value,
        "j_state": job_state,
        "j_not_before": job_changes.get("not_before"),
        "j_requeue": job_state == JobState.PENDING,
    }
    params |= _values("a_", attempt, _ANSWERED_ATTEMPT)
    params |= _values("t_", target, _ANSWERED_TARGET)
    rows = run(_ANSWER_SQL, params)
    if not rows[0][0]:
        return None
    return [loaded(Target, _SIBLING_FIELDS, row[1:]) for row in rows if row[1] is not None]


def set_status(publish: Publish, now: dt.datetime) -> None:
    """Write the publish's status, completion and first publication times as it holds them now."""
    params: dict[str, Any] = {
        "publish_id": publish.pk,
        "status": publish.status,
        "completed_at": publish.completed_at,
        "published_at": publish.published_at,
        "now": now,
    }
    run(_STATUS_SQL, params)
    publish.updated_at = now


_ANSWERED_ATTEMPT = (
    "state",
    "request",
    "response",
    "ref",
    "error_code",
    "error_message",
    "http_status",
    "finished_at",
)
# What an answer writes of a target besides its state (the ORM path writes the same).
ANSWER_TARGET_FIELDS = (
    "platform_post_id",
    "platform_post_url",
    "error_code",
    "error_message",
    "published_at",
    "next_check_at",
    "checks",
)
_ANSWERED_TARGET = ("state", *ANSWER_TARGET_FIELDS)


def _values(prefix: str, instance: Any, names: Sequence[str]) -> dict[str, Any]:
    """Bound parameters for the named fields, prepared as the ORM prepares them (JSON)."""
    meta = type(instance)._meta
    return {
        prefix + name: meta.get_field(name).get_db_prep_value(getattr(instance, name), connection) for name in names
    }

"""The worker's path on PostgreSQL (`publishing.statements`, a statement per step) and through the
ORM (the path other databases take, and PostgreSQL with DB_FIXED_STATEMENTS off) leave the
same rows: the same answers from the sandbox, delivered both ways, give the same targets,
attempts, jobs, publish status and events."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from analytics.models import PostTotals
from publishing import sending, statements
from publishing.models import DeliveryAttempt, DeliveryJob, JobState, Publish, PublishStatus, Target, TargetState
from webhooks.models import Event

pytestmark = [pytest.mark.django_db, pytest.mark.redis]

PLATFORMS = ("x", "bluesky", "linkedin")


def _publish(owner: Any, accounts: Any, content: str = "Same rows") -> Publish:
    """A publish of three queued targets with a pending job each, as a confirm leaves them."""
    publish = Publish.objects.create(team=owner.team, content=content, confirmed=True, status=PublishStatus.PUBLISHING)
    for platform in PLATFORMS:
        account = getattr(accounts, platform)
        target = Target.objects.create(
            publish=publish, account=account, platform=platform, state=TargetState.QUEUED, attempt_count=1
        )
        DeliveryJob.objects.create(
            target=target, number=1, dispatch_id=f"deliver:{target.pk}:1", not_before=timezone.now()
        )
    return publish


def _run(publish: Publish) -> None:
    for job in DeliveryJob.objects.filter(target__publish=publish, state=JobState.PENDING):
        sending.job_run(job_id=str(job.pk))


def _rows(publish: Publish) -> dict[str, Any]:
    """What a reader of the rows sees, without ids, times and the platform's own post ids."""
    publish.refresh_from_db()
    names = {str(t.pk): t.platform for t in publish.targets.all()}
    targets = {
        t.platform: (
            t.state,
            t.attempt_count,
            t.error_code,
            t.error_message,
            bool(t.platform_post_id),
            bool(t.platform_post_url),
            t.published_at is not None,
            t.next_check_at is not None,
            t.checks,
        )
        for t in publish.targets.all()
    }
    attempts = sorted(
        (
            a.target.platform,
            a.number,
            a.state,
            a.tries,
            a.error_code,
            a.http_status,
            json.dumps(a.request, sort_keys=True).replace(publish.content, "<content>"),
            sorted(a.response),
            sorted(a.ref),
            a.started_at is not None,
            a.finished_at is not None,
        )
        for a in DeliveryAttempt.objects.filter(target__publish=publish).select_related("target")
    )
    jobs = sorted(
        (j.target.platform, j.number, j.state, j.runs, j.enqueued_at is None, j.not_before > timezone.now())
        for j in DeliveryJob.objects.filter(target__publish=publish).select_related("target")
    )
    events = [
        (
            e.type,
            e.data["status"],
            sorted(
                (names[t["id"]], t["status"], t["error_code"], bool(t["platform_post_id"])) for t in e.data["targets"]
            ),
        )
        for e in Event.objects.filter(team=publish.team, data__publish_id=str(publish.pk)).order_by("created_at")
    ]
    first = min((t.published_at for t in publish.targets.all() if t.published_at), default=None)
    return {
        "status": publish.status,
        "completed": publish.completed_at is not None,
        "published_at": "none"
        if publish.published_at is None
        else "first"
        if publish.published_at == first
        else "other",
        "targets": targets,
        "attempts": attempts,
        "jobs": jobs,
        "events": events,
        "totals": sorted(
            (t.platform, t.first_published_at == first, t.views, t.likes, t.last_sync_at)
            for t in PostTotals.objects.filter(publish=publish)
        ),
    }


def _deliver(owner: Any, accounts: Any, sandbox: Any, content: str) -> dict[str, Any]:
    """One target published, one failed, one not sent (rate limited) and then sent on its
    second try: the rows after the first round and after the second."""
    publish = _publish(owner, accounts, content)
    sandbox.outcomes("bluesky", "error")
    sandbox.outcomes("linkedin", "rate_limited")
    _run(publish)
    first = _rows(publish)
    DeliveryJob.objects.filter(target__publish=publish, state=JobState.PENDING).update(
        not_before=timezone.now() - dt.timedelta(seconds=1)
    )
    _run(publish)
    return {"first": first, "second": _rows(publish)}


@pytest.mark.postgres  # the statements are PostgreSQL's
def test_the_statement_path_and_the_orm_path_leave_the_same_rows(owner, accounts, sandbox, settings):
    assert statements.enabled()  # PostgreSQL, as in production
    fast = _deliver(owner, accounts, sandbox, "Sent by statements")
    settings.DB_FIXED_STATEMENTS = False
    assert not statements.enabled()
    orm = _deliver(owner, accounts, sandbox, "Sent through the ORM")  # not a duplicate

    assert fast == orm
    # And they are the rows the rules call for.
    assert fast["first"]["status"] == PublishStatus.PUBLISHING
    assert fast["first"]["published_at"] == "first"  # X's, the calendar's and analytics' moment
    assert fast["first"]["totals"] == [("", True, 0, 0, None), ("x", True, 0, 0, None)]  # listed in analytics
    assert [t[0] for t in fast["second"]["totals"]] == ["", "linkedin", "x"]
    assert fast["first"]["targets"]["linkedin"][0] == TargetState.QUEUED
    assert ("linkedin", 1, JobState.PENDING, 1, True, True) in fast["first"]["jobs"]
    second = fast["second"]
    assert (second["status"], second["completed"]) == (PublishStatus.PARTIAL, True)
    assert {p: t[0] for p, t in second["targets"].items()} == {
        "x": TargetState.PUBLISHED,
        "bluesky": TargetState.FAILED,
        "linkedin": TargetState.PUBLISHED,
    }
    linkedin = [a for a in second["attempts"] if a[0] == "linkedin"]
    assert [(a[1], a[3]) for a in linkedin] == [(1, 2)]  # one attempt, tried twice
    assert [e[:2] for e in second["events"]] == [("post.published", PublishStatus.PARTIAL)]
    assert len(sandbox.posts("x")) == len(sandbox.posts("linkedin")) == 2  # one a run


@pytest.mark.postgres
def test_delivering_a_target_on_postgresql_takes_four_statements_and_the_commit(owner, accounts, sandbox):
    publish = _publish(owner, accounts)
    job = DeliveryJob.objects.get(target__publish=publish, target__platform="x")

    with CaptureQueriesContext(connection) as queries:
        sending.job_run(job_id=str(job.pk))

    # claim, start, then under the publish lock: the answer, the post's totals and the status
    verbs = [q["sql"].split(None, 1)[0].upper() for q in queries.captured_queries]
    assert verbs.count("WITH") == 4  # the last one the totals: the post's, and its team's per platform
    assert len(verbs) <= 9, verbs
    assert Target.objects.get(pk=job.target_id).state == TargetState.PUBLISHED
    assert PostTotals.objects.filter(publish=publish).count() == 2  # over every platform, and X


def _account_view(found: dict[str, Any]) -> dict[str, tuple[Any, ...]]:
    """What validation reads of each account, and which fields were left unloaded."""
    return {
        account_id: (
            a.team_id,
            a.platform,
            a.handle,
            a.status,
            a.sandbox,
            a.metadata,
            a.granted_scopes,
            a.token_expires_at,
            a.created_at,
            sorted(a.get_deferred_fields()),
        )
        for account_id, a in found.items()
    }


@pytest.mark.postgres
def test_a_creates_accounts_read_by_one_statement_are_those_the_orm_reads(owner, outsider, accounts, settings):
    from accounts.models import SocialAccount
    from demo.seed import sandbox_account
    from publishing import validation

    theirs = sandbox_account(outsider.team, "x")
    ours = [accounts.x, accounts.bluesky, accounts.linkedin]
    SocialAccount.objects.filter(pk=accounts.bluesky.pk).update(metadata={"kept": [1, "two"]})
    wanted = [str(a.pk) for a in ours] + [str(theirs.pk), "not-a-uuid", "01a213bd-6f2a-70af-b079-a9c0c21a8cab"]

    with CaptureQueriesContext(connection) as queries:
        fast = validation._team_accounts(owner.team, wanted)
    settings.DB_FIXED_STATEMENTS = False
    orm = validation._team_accounts(owner.team, [str(a.pk) for a in ours] + [str(theirs.pk)])

    assert len(queries.captured_queries) == 1
    assert set(fast) == {str(a.pk) for a in ours}  # not another team's, not an unknown id
    assert _account_view(fast) == _account_view(orm)
    assert _account_view(fast)[str(accounts.x.pk)][-1] == ["access_token", "refresh_token"]
    assert fast[str(accounts.bluesky.pk)].metadata == {"kept": [1, "two"]}
    assert fast[str(accounts.x.pk)].access_token  # a deferred token still loads when read

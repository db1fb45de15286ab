"""The publishing safety rules (DESIGN §4): a post is sent once, failures are real, nothing is
lost. The platform is the sandbox over real HTTP; `sandbox.posts(platform)` is the ground truth
for "sent once". Concurrency, killed workers and broker outages are made real (threads, an OS
process killed with SIGKILL, a broker URL nothing listens on), never simulated in our code."""

from __future__ import annotations

import datetime as dt
import signal
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from django.db import connection, transaction
from django.utils import timezone
from rest_framework.test import APIClient

from config.errors import Unprocessable
from publishing import delivery, inputs, lifecycle
from publishing.models import DeliveryAttempt, DeliveryJob, JobState, Publish, Target
from publishing.readback import reconcile
from publishing.release import RELAY_AFTER, relay
from publishing.sending import job_run
from publishing.tasks import deliver
from tests.media import files
from tests.publishing.safety_support import (
    PUBLISHES,
    broker_down,
    create,
    error_of,
    fetch,
    not_eager,
    queued_publish,
    start_worker,
    target_of,
    wait_until,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("hot_path")]  # the fixed statements and the ORM


def _later(**delta: float) -> dt.datetime:
    return timezone.now() + dt.timedelta(**delta)


def _one_post(sandbox, platform: str) -> dict:
    posts = sandbox.posts(platform)
    assert len(posts) == 1, posts
    return posts[0]


def _retry(api, key: str, publish_id):
    return api.as_(key).post(f"{PUBLISHES}/{publish_id}/retry", {}, format="json")


def _job_of(publish_id, platform: str = "x") -> DeliveryJob:
    return DeliveryJob.objects.get(target__publish_id=publish_id, target__platform=platform)


# --- Idempotency-Key under concurrency ---------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.redis
def test_twenty_concurrent_creates_with_one_key_make_one_publish(live_server, owner, accounts, sandbox):
    body = {"content": "Twenty at once", "targets": [{"account_id": str(accounts.x.pk)}]}
    # Connection: close ends each server thread, and its database connection, with its answer.
    headers = {"Authorization": f"Bearer {owner.key}", "Idempotency-Key": "launch-42", "Connection": "close"}
    start = threading.Barrier(20)

    def post(_: int) -> requests.Response:
        start.wait(timeout=30)
        return requests.post(f"{live_server.url}{PUBLISHES}", json=body, headers=headers, timeout=60)

    with ThreadPoolExecutor(max_workers=20) as pool:
        answers = list(pool.map(post, range(20)))

    statuses = sorted(a.status_code for a in answers)
    assert set(statuses) <= {201, 409}, [(a.status_code, a.text[:300]) for a in answers]
    created = [a.json()["data"]["id"] for a in answers if a.status_code == 201]
    assert created, statuses
    assert len(set(created)) == 1
    conflicts = {a.json()["error"]["code"] for a in answers if a.status_code == 409}
    assert conflicts <= {"IDEMPOTENCY_KEY_IN_USE"}
    assert [str(p) for p in Publish.objects.filter(team=owner.team).values_list("pk", flat=True)] == created[:1]
    assert DeliveryJob.objects.filter(target__publish_id=created[0]).count() == 1
    assert DeliveryAttempt.objects.filter(target__publish_id=created[0]).count() == 1
    post = _one_post(sandbox, "x")
    assert Target.objects.get(publish_id=created[0]).platform_post_id == post["id"]


# --- broker outages ------------------------------------------------------------------------------


def test_a_broker_outage_on_create_is_a_503_and_the_same_key_publishes_it_once(api, owner, accounts, sandbox):
    body = {"content": "Through the outage", "targets": [{"account_id": str(accounts.x.pk)}]}
    with broker_down():
        refused = create(api, owner.key, body, idempotency_key="outage-1")
    assert refused.status_code == 503, refused.json()
    error = error_of(refused)
    assert error["code"] == "PUBLISH_DISPATCH_UNCERTAIN"
    publish_id = error["details"]["publish_id"]
    job = _job_of(publish_id)
    assert (job.state, job.enqueued_at) == (JobState.PENDING, None)
    assert sandbox.posts("x") == []

    again = create(api, owner.key, body, idempotency_key="outage-1")

    assert again.status_code == 201, again.json()
    assert again.json()["data"]["id"] == publish_id
    assert Publish.objects.filter(team=owner.team).count() == 1
    assert DeliveryJob.objects.filter(target__publish_id=publish_id).count() == 1
    post = _one_post(sandbox, "x")
    published = fetch(api, owner.key, publish_id)
    assert published["status"] == "published"
    assert target_of(published, "x")["platform_post_id"] == post["id"]
    # Once finished, the key replays the answer and sends nothing.
    replay = create(api, owner.key, body, idempotency_key="outage-1")
    assert (replay.status_code, replay.json()["data"]["id"]) == (201, publish_id)
    _one_post(sandbox, "x")


def test_the_relay_sends_jobs_the_broker_refused_exactly_once(api, owner, accounts, sandbox):
    body = {
        "content": "Relayed",
        "targets": [{"account_id": str(accounts.x.pk)}, {"account_id": str(accounts.bluesky.pk)}],
    }
    with broker_down():
        refused = create(api, owner.key, body)
        assert refused.status_code == 503, refused.json()
        assert relay() == 0  # still down: the jobs stay pending for the next tick
    publish_id = error_of(refused)["details"]["publish_id"]
    assert DeliveryJob.objects.filter(target__publish_id=publish_id, state=JobState.PENDING).count() == 2

    assert relay() == 2
    assert relay() == 0
    assert relay(now=_later(hours=1)) == 0

    _one_post(sandbox, "x")
    _one_post(sandbox, "bluesky")
    assert fetch(api, owner.key, publish_id)["status"] == "published"
    assert DeliveryAttempt.objects.filter(target__publish_id=publish_id).count() == 2


def test_a_confirm_during_an_outage_is_a_503_and_repeating_it_sends_the_same_jobs(api, owner, accounts, sandbox):
    body = {"content": "Draft first", "publish_mode": "draft", "targets": [{"account_id": str(accounts.x.pk)}]}
    draft = create(api, owner.key, body)
    assert draft.status_code == 201, draft.json()
    publish_id = draft.json()["data"]["id"]
    confirm = f"{PUBLISHES}/{publish_id}/confirm"

    with broker_down():
        refused = api.as_(owner.key).post(confirm, {}, format="json")
    assert refused.status_code == 503, refused.json()
    assert error_of(refused)["code"] == "PUBLISH_DISPATCH_UNCERTAIN"
    assert error_of(refused)["details"]["publish_id"] == publish_id
    jobs = list(DeliveryJob.objects.filter(target__publish_id=publish_id).values_list("pk", flat=True))
    assert len(jobs) == 1
    assert sandbox.posts("x") == []

    again = api.as_(owner.key).post(confirm, {}, format="json")

    assert again.status_code == 200, again.json()
    assert list(DeliveryJob.objects.filter(target__publish_id=publish_id).values_list("pk", flat=True)) == jobs
    assert Publish.objects.filter(team=owner.team).count() == 1
    post = _one_post(sandbox, "x")
    published = fetch(api, owner.key, publish_id)
    assert published["status"] == "published"
    assert target_of(published, "x")["platform_post_id"] == post["id"]
    assert target_of(published, "x")["attempt_count"] == 1


def test_a_second_confirm_before_any_hand_over_failed_is_a_422(owner, accounts, sandbox):
    draft = lifecycle.publish_create(
        team=owner.team,
        caller=inputs.Caller(user=owner.user),
        content="Confirmed once",
        media_ids=[],
        targets=[inputs.TargetInput(account_id=str(accounts.x.pk))],
        publish_mode="draft",
        scheduled_at=None,
    )
    caller = inputs.Caller(user=owner.user, can_approve=True)
    with not_eager():
        lifecycle.publish_confirm(team=owner.team, publish_id=draft.pk, caller=caller)

    # The first confirm's jobs are on their way, unclaimed, and none was refused: the second
    # confirm is too late.
    with pytest.raises(Unprocessable) as refused:
        lifecycle.publish_confirm(team=owner.team, publish_id=draft.pk, caller=caller)

    assert refused.value.code == "NOT_A_DRAFT"
    assert DeliveryJob.objects.filter(target__publish=draft).count() == 1


def test_a_confirm_after_the_jobs_were_handed_over_is_a_422(api, owner, accounts, sandbox):
    body = {"content": "Handed over", "publish_mode": "draft", "targets": [{"account_id": str(accounts.x.pk)}]}
    publish_id = create(api, owner.key, body).json()["data"]["id"]
    confirm = f"{PUBLISHES}/{publish_id}/confirm"
    with broker_down():
        assert api.as_(owner.key).post(confirm, {}, format="json").status_code == 503
    assert api.as_(owner.key).post(confirm, {}, format="json").status_code == 200

    again = api.as_(owner.key).post(confirm, {}, format="json")

    assert again.status_code == 422, again.json()
    assert error_of(again)["code"] == "NOT_A_DRAFT"
    _one_post(sandbox, "x")


@pytest.mark.postgres
def test_ten_concurrent_confirms_of_one_draft_answer_one_200_and_nine_422(live_server, owner, accounts, sandbox):
    body = {"content": "Ten confirms", "publish_mode": "draft", "targets": [{"account_id": str(accounts.x.pk)}]}
    draft = requests.post(
        f"{live_server.url}{PUBLISHES}", json=body, headers={"Authorization": f"Bearer {owner.key}"}, timeout=30
    )
    assert draft.status_code == 201, draft.text
    confirm = f"{live_server.url}{PUBLISHES}/{draft.json()['data']['id']}/confirm"
    headers = {"Authorization": f"Bearer {owner.key}", "Connection": "close"}
    start = threading.Barrier(10)

    def post(_: int) -> requests.Response:
        start.wait(timeout=30)
        return requests.post(confirm, json={}, headers=headers, timeout=60)

    with ThreadPoolExecutor(max_workers=10) as pool:
        answers = list(pool.map(post, range(10)))

    statuses = sorted(a.status_code for a in answers)
    assert statuses == [200] + [422] * 9, [(a.status_code, a.text[:200]) for a in answers]
    assert {a.json()["error"]["code"] for a in answers if a.status_code == 422} == {"NOT_A_DRAFT"}
    assert DeliveryJob.objects.filter(target__publish_id=draft.json()["data"]["id"]).count() == 1
    _one_post(sandbox, "x")


# --- a worker killed mid-call --------------------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_call_leaves_the_target_unknown_until_reconciled(api, owner, accounts, sandbox, settings):
    # A short stale time: the first reconcile finds the lost attempt while its first read-back
    # (policy.TARGET.first_check later) is not due yet, so the unknown state can be observed.
    settings.DISPATCH_STALE_SECONDS = 1
    publish = queued_publish(owner, accounts.x, content="Killed mid-call")
    job = _job_of(publish.pk)
    sandbox.outcomes("x", "timeout")  # the post is created, then the answer is held
    worker = start_worker(job_id=str(job.pk), sandbox_url=sandbox.url, platform_timeout=120)
    try:

        def sending_and_posted() -> bool:
            assert worker.poll() is None, worker.communicate()
            sending = DeliveryAttempt.objects.filter(target__publish=publish, state="sending").exists()
            return sending and len(sandbox.posts("x")) == 1

        wait_until(sending_and_posted, what="the worker to be inside its call to the platform")
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.communicate(timeout=30)
    assert worker.returncode == -signal.SIGKILL
    post = _one_post(sandbox, "x")

    lost = fetch(api, owner.key, str(publish.pk))
    assert lost["status"] == "publishing"
    assert (target_of(lost, "x")["status"], target_of(lost, "x")["outcome"]) == ("publishing", "sending")

    # A redelivered message, a duplicate and the relay all find the job taken: nothing is sent.
    job_run(job_id=str(job.pk))
    deliver.delay(str(job.pk))
    assert relay(now=_later(hours=1)) == 0
    _one_post(sandbox, "x")

    reconcile(now=_later(seconds=settings.DISPATCH_STALE_SECONDS + 1))

    unknown = fetch(api, owner.key, str(publish.pk))
    target = target_of(unknown, "x")
    assert unknown["status"] == "processing"
    assert (target["status"], target["outcome"]) == ("processing", "unknown")
    assert target["attempts"][0]["state"] == "unknown"
    retry = api.as_(owner.key).post(f"{PUBLISHES}/{publish.pk}/retry", {}, format="json")
    assert retry.status_code == 400, retry.json()
    job_run(job_id=str(job.pk))
    _one_post(sandbox, "x")

    assert reconcile(now=_later(hours=1)) == 1

    settled = fetch(api, owner.key, str(publish.pk))
    assert settled["status"] == "published"
    assert target_of(settled, "x")["platform_post_id"] == post["id"]
    assert target_of(settled, "x")["attempt_count"] == 1
    assert reconcile(now=_later(hours=2)) == 0
    _one_post(sandbox, "x")


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_after_its_claim_and_before_sending_loses_nothing(api, owner, accounts, sandbox):
    """The claim commits on its own; `sending` is recorded in a later transaction. A worker lost
    between the two has sent nothing, so the target must still go out: once."""
    publish = queued_publish(owner, accounts.x, content="Claimed, then lost")
    job = _job_of(publish.pk)
    with transaction.atomic():
        # Holding the publish row keeps the worker's attempt_start waiting, right after its claim.
        Publish.objects.select_for_update().get(pk=publish.pk)
        worker = start_worker(job_id=str(job.pk), sandbox_url=sandbox.url, platform_timeout=120)
        try:

            def claimed_and_waiting() -> bool:
                assert worker.poll() is None, worker.communicate()
                running = DeliveryJob.objects.filter(pk=job.pk, state=JobState.RUNNING).exists()
                return running and bool(_sessions_waiting_for_a_lock())

            wait_until(claimed_and_waiting, what="the worker to claim the job and wait to record it")
        finally:
            worker.send_signal(signal.SIGKILL)
            worker.communicate(timeout=30)
            # PostgreSQL notices a dead client only when it next talks to it: a statement of the
            # worker's still waiting for the lock would run, and commit, once the lock is let go.
            # A lost worker's session ends with it, as it does when its machine goes down.
            _end_sessions_waiting_for_a_lock()
    assert worker.returncode == -signal.SIGKILL
    assert not DeliveryAttempt.objects.filter(target__publish=publish).exists()
    assert sandbox.posts("x") == []
    deliver.delay(str(job.pk))  # the late-acked message comes back: the claim is taken

    # The beat's safety nets run, long after any live worker would have finished.
    for hours in (1, 2, 3):
        relay(now=_later(hours=hours))
        reconcile(now=_later(hours=hours))

    settled = fetch(api, owner.key, str(publish.pk))
    assert settled["status"] == "published", target_of(settled, "x")
    assert target_of(settled, "x")["platform_post_id"] == _one_post(sandbox, "x")["id"]


_WAITING_FOR_A_LOCK = (
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() "
    "AND wait_event_type = 'Lock'"
)


def _sessions_waiting_for_a_lock() -> list[int]:
    with connection.cursor() as cursor:
        cursor.execute(_WAITING_FOR_A_LOCK)
        return [pid for (pid,) in cursor.fetchall()]


def _end_sessions_waiting_for_a_lock() -> None:
    """End every other session of the test database waiting for a lock, and wait until they are gone."""
    for pid in _sessions_waiting_for_a_lock():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    wait_until(lambda: not _sessions_waiting_for_a_lock(), what="the lost worker's session to end")


def test_a_worker_lost_before_its_request_left_is_failed_only_once_surely_absent(
    api, owner, accounts, sandbox, settings
):
    """`sending` was recorded and the worker died before the request went out: the post does
    not exist, but that is only believed once it has had time to appear; then it is failed
    with that evidence and a retry sends it, once."""
    settings.DISPATCH_STALE_SECONDS = 1
    publish = queued_publish(owner, accounts.x, content="Never left")
    job = _job_of(publish.pk)
    DeliveryJob.objects.filter(pk=job.pk).update(state=JobState.RUNNING, claimed_at=timezone.now(), runs=1)
    delivery.attempt_start(job=DeliveryJob.objects.get(pk=job.pk))  # then the worker is gone

    reconcile(now=_later(seconds=5))
    reconcile(now=_later(minutes=2))
    early = target_of(fetch(api, owner.key, str(publish.pk)), "x")
    assert (early["status"], early["outcome"]) == ("processing", "unknown")
    assert _retry(api, owner.key, publish.pk).status_code == 400

    reconcile(now=_later(hours=1))
    absent = target_of(fetch(api, owner.key, str(publish.pk)), "x")
    assert (absent["status"], absent["error"]["code"]) == ("failed", "NOT_FOUND")
    assert sandbox.posts("x") == []

    assert _retry(api, owner.key, publish.pk).status_code == 200
    assert target_of(fetch(api, owner.key, str(publish.pk)), "x")["platform_post_id"] == _one_post(sandbox, "x")["id"]


# --- platform outcomes ---------------------------------------------------------------------------


def test_a_timeout_is_unknown_and_reconciled_without_a_second_post(api, owner, accounts, sandbox):
    sandbox.outcomes("x", "timeout")
    body = {"content": "Slow answer", "targets": [{"account_id": str(accounts.x.pk)}]}
    created = create(api, owner.key, body)
    assert created.status_code == 201, created.json()
    publish_id = created.json()["data"]["id"]

    unknown = fetch(api, owner.key, publish_id)
    target = target_of(unknown, "x")
    assert unknown["status"] == "processing"
    assert (target["status"], target["outcome"]) == ("processing", "unknown")
    assert target["attempts"][0]["state"] == "unknown"
    post = _one_post(sandbox, "x")
    # Unknown is never failed: no retry, and no message or relay sends it again.
    assert api.as_(owner.key).post(f"{PUBLISHES}/{publish_id}/retry", {}, format="json").status_code == 400
    deliver.delay(str(_job_of(publish_id).pk))
    assert relay(now=_later(hours=1)) == 0

    assert reconcile(now=_later(minutes=1)) == 1

    settled = fetch(api, owner.key, publish_id)
    assert settled["status"] == "published"
    assert target_of(settled, "x")["platform_post_id"] == post["id"]
    _one_post(sandbox, "x")


def test_an_unknown_target_is_not_resent_when_its_failed_sibling_is_retried(api, owner, accounts, sandbox):
    sandbox.outcomes("x", "timeout")
    sandbox.outcomes("bluesky", "error")
    body = {
        "content": "Half known",
        "targets": [{"account_id": str(accounts.x.pk)}, {"account_id": str(accounts.bluesky.pk)}],
    }
    publish_id = create(api, owner.key, body).json()["data"]["id"]
    mixed = fetch(api, owner.key, publish_id)
    assert target_of(mixed, "x")["outcome"] == "unknown"
    assert target_of(mixed, "bluesky")["status"] == "failed"
    assert mixed["status"] == "failed"  # the unknown target is not counted as failed, nor published

    retried = api.as_(owner.key).post(f"{PUBLISHES}/{publish_id}/retry", {}, format="json")

    assert retried.status_code == 200, retried.json()
    after = fetch(api, owner.key, publish_id)
    assert target_of(after, "bluesky")["status"] == "published"
    assert (target_of(after, "x")["outcome"], target_of(after, "x")["attempt_count"]) == ("unknown", 1)
    assert after["status"] == "processing"
    x_post = _one_post(sandbox, "x")
    _one_post(sandbox, "bluesky")
    reconcile(now=_later(minutes=1))
    settled = fetch(api, owner.key, publish_id)
    assert settled["status"] == "published"
    assert target_of(settled, "x")["platform_post_id"] == x_post["id"]
    _one_post(sandbox, "x")


def test_an_error_fails_with_evidence_and_retry_sends_it_again(api, owner, accounts, sandbox):
    sandbox.outcomes("x", "error")
    body = {"content": "Refused once", "targets": [{"account_id": str(accounts.x.pk)}]}
    publish_id = create(api, owner.key, body).json()["data"]["id"]

    failed = fetch(api, owner.key, publish_id)
    target = target_of(failed, "x")
    assert (failed["status"], target["status"]) == ("failed", "failed")
    assert target["error"]["code"]
    assert target["error"]["message"]
    assert 400 <= target["attempts"][0]["http_status"] < 500
    assert sandbox.posts("x") == []

    retried = api.as_(owner.key).post(f"{PUBLISHES}/{publish_id}/retry", {}, format="json")

    assert retried.status_code == 200, retried.json()
    published = fetch(api, owner.key, publish_id)
    assert published["status"] == "published"
    assert target_of(published, "x")["attempt_count"] == 2
    assert target_of(published, "x")["error"] is None
    assert target_of(published, "x")["platform_post_id"] == _one_post(sandbox, "x")["id"]


def test_one_ok_and_one_error_is_partial_and_retry_resends_only_the_failed_target(api, owner, accounts, sandbox):
    sandbox.outcomes("bluesky", "error")
    body = {
        "content": "Half there",
        "targets": [{"account_id": str(accounts.x.pk)}, {"account_id": str(accounts.bluesky.pk)}],
    }
    publish_id = create(api, owner.key, body).json()["data"]["id"]

    partial = fetch(api, owner.key, publish_id)
    failed = target_of(partial, "bluesky")
    assert partial["status"] == "partial"
    assert target_of(partial, "x")["status"] == "published"
    assert failed["status"] == "failed"
    assert failed["error"]["code"]
    assert failed["error"]["message"]
    assert 400 <= failed["attempts"][0]["http_status"] < 500
    _one_post(sandbox, "x")
    assert sandbox.posts("bluesky") == []

    retried = api.as_(owner.key).post(f"{PUBLISHES}/{publish_id}/retry", {}, format="json")

    assert retried.status_code == 200, retried.json()
    published = fetch(api, owner.key, publish_id)
    assert published["status"] == "published"
    assert target_of(published, "x")["attempt_count"] == 1
    assert target_of(published, "bluesky")["attempt_count"] == 2
    _one_post(sandbox, "x")
    assert target_of(published, "bluesky")["platform_post_id"] == _one_post(sandbox, "bluesky")["id"]


def test_a_rate_limit_is_retried_within_the_same_attempt(api, owner, accounts, sandbox):
    sandbox.outcomes("x", "rate_limited")
    body = {"content": "Try again later", "targets": [{"account_id": str(accounts.x.pk)}]}
    publish_id = create(api, owner.key, body).json()["data"]["id"]

    waiting = fetch(api, owner.key, publish_id)
    target = target_of(waiting, "x")
    assert (waiting["status"], target["outcome"]) == ("publishing", "queued")
    assert (target["attempts"][0]["state"], target["attempts"][0]["http_status"]) == ("not_sent", 429)
    job = _job_of(publish_id)
    assert job.state == JobState.PENDING
    assert job.not_before > _later(seconds=60)  # X's x-rate-limit-reset is 15 minutes away
    assert relay(now=_later(minutes=5)) == 0  # not before its pause
    assert sandbox.posts("x") == []

    # The pause has passed: let the clock reach not_before (the worker's claim reads the real
    # clock), then let relay ticks come, each later than the last.
    DeliveryJob.objects.filter(pk=job.pk).update(not_before=timezone.now())
    for minutes in range(1, 30, 2):
        relay(now=_later(minutes=minutes))
        if Target.objects.get(publish_id=publish_id).state == "published":
            break
    assert relay(now=_later(hours=1)) == 0

    published = fetch(api, owner.key, publish_id)
    target = target_of(published, "x")
    assert published["status"] == "published"
    assert target["attempt_count"] == 1
    assert len(target["attempts"]) == 1
    assert target["attempts"][0]["tries"] > 1
    assert target["platform_post_id"] == _one_post(sandbox, "x")["id"]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_double_clicked_retry_resends_once(api, owner, accounts, sandbox):
    sandbox.outcomes("x", "error")
    body = {"content": "Clicked twice", "targets": [{"account_id": str(accounts.x.pk)}]}
    publish_id = create(api, owner.key, body).json()["data"]["id"]
    assert Publish.objects.get(pk=publish_id).status == "failed"
    start = threading.Barrier(2)

    def click(_: int) -> int:
        try:
            start.wait(timeout=30)
            client = APIClient(HTTP_AUTHORIZATION=f"Bearer {owner.key}")
            return client.post(f"{PUBLISHES}/{publish_id}/retry", {}, format="json").status_code
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=2) as pool:
        answers = sorted(pool.map(click, range(2)))

    assert answers == [200, 400]
    target = Target.objects.get(publish_id=publish_id)
    assert (target.state, target.attempt_count) == ("published", 2)
    assert target.platform_post_id == _one_post(sandbox, "x")["id"]


# --- duplicate messages ------------------------------------------------------------------------


def test_a_duplicate_deliver_message_sends_once(api, owner, accounts, sandbox):
    publish = queued_publish(owner, accounts.x, content="Said twice")
    job = _job_of(publish.pk)

    deliver.delay(str(job.pk))
    deliver.delay(str(job.pk))
    job_run(job_id=str(job.pk))

    job.refresh_from_db()
    assert (job.state, job.runs) == (JobState.DONE, 1)
    assert DeliveryAttempt.objects.get(target__publish=publish).tries == 1
    assert fetch(api, owner.key, str(publish.pk))["status"] == "published"
    _one_post(sandbox, "x")


def test_two_relays_send_a_pending_job_once(api, owner, accounts, sandbox):
    """The create's process died between its commit and its hand-over: the relay sends the
    job once its mark is old, and once only."""
    publish = queued_publish(owner, accounts.x, content="Relayed twice")

    assert relay() == 0  # marked when written: it may be on its way
    due = _later(seconds=RELAY_AFTER.total_seconds() + 1)
    assert relay(now=due) == 1
    assert relay(now=due) == 0
    assert relay(now=_later(hours=1)) == 0

    assert fetch(api, owner.key, str(publish.pk))["status"] == "published"
    _one_post(sandbox, "x")


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_duplicate_messages_and_relays_send_once(owner, accounts, sandbox):
    publish = queued_publish(owner, accounts.x, accounts.bluesky, content="All at once")
    jobs = [str(j) for j in DeliveryJob.objects.filter(target__publish=publish).values_list("pk", flat=True)]
    start = threading.Barrier(8)
    relayed = _later(seconds=RELAY_AFTER.total_seconds() + 1)  # as if the create's hand-over was lost

    def worker(index: int) -> None:
        try:
            start.wait(timeout=30)
            if index % 4 == 3:
                relay(now=relayed)
            else:
                deliver.apply(args=(jobs[index % 2],))
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(worker, range(8)))

    assert set(Target.objects.filter(publish=publish).values_list("state", flat=True)) == {"published"}
    assert sorted(DeliveryJob.objects.filter(target__publish=publish).values_list("runs", flat=True)) == [1, 1]
    _one_post(sandbox, "x")
    _one_post(sandbox, "bluesky")


# --- a platform that processes -----------------------------------------------------------------


def _ready_image(api, key: str) -> str:
    """A confirmed JPEG upload, PUT over HTTP to this service as a client would."""
    data = files.image("JPEG")
    created = api.as_(key).post(
        "/api/v1/media/uploads",
        {"filename": "photo.jpg", "content_type": "image/jpeg", "size_bytes": len(data)},
        format="json",
    )
    assert created.status_code == 201, created.json()
    upload = created.json()["data"]
    assert requests.put(upload["upload_url"], data=data, headers=upload["headers"], timeout=10).status_code == 200
    confirmed = api.as_(key).post(f"/api/v1/media/uploads/{upload['media_id']}/confirm", format="json")
    assert confirmed.status_code == 200, confirmed.json()
    return str(upload["media_id"])


def test_processing_keeps_the_container_and_reconciles_to_one_post(
    api, owner, accounts, sandbox, live_server, settings
):
    settings.PUBLIC_BASE_URL = live_server.url  # Instagram pulls the image from this service
    media_id = _ready_image(api, owner.key)
    sandbox.outcomes("instagram", "processing")
    body = {
        "content": "Still cooking",
        "media_ids": [media_id],
        "targets": [{"account_id": str(accounts.instagram.pk)}],
    }
    created = create(api, owner.key, body)
    assert created.status_code == 201, created.json()
    publish_id = created.json()["data"]["id"]

    processing = fetch(api, owner.key, publish_id)
    assert processing["status"] == "processing"
    assert target_of(processing, "instagram")["outcome"] == "processing"
    attempt = DeliveryAttempt.objects.get(target__publish_id=publish_id)
    container = attempt.ref.get("container_id")
    assert container, attempt.ref  # saved before media_publish, which has not happened yet
    assert sandbox.posts("instagram") == []

    for hours in range(1, 6):
        reconcile(now=_later(hours=hours))
        if Target.objects.get(publish_id=publish_id).state == "published":
            break

    published = fetch(api, owner.key, publish_id)
    assert published["status"] == "published"
    post = _one_post(sandbox, "instagram")
    assert target_of(published, "instagram")["platform_post_id"] == post["id"]
    attempt.refresh_from_db()
    assert attempt.ref["container_id"] == container
    assert reconcile(now=_later(hours=12)) == 0
    _one_post(sandbox, "instagram")

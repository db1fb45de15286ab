"""Pacing: an account posts no faster than its platform documents (accounts.pacing). A turn
past the allowance is refused with the wait until one is free; the sender then gives its claim
back and the post waits in the outbox, nothing sent and no try counted."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from django.utils import timezone

from accounts import pacing
from accounts.platforms.limits import POSTING_RATES
from publishing import sending
from publishing.models import DeliveryAttempt, DeliveryJob, JobState, TargetState
from tests.publishing.safety_support import queued_publish


def _turns(platform: str, n: int, account_id: object) -> list[float]:
    return [pacing.turn(account_id=account_id, platform=platform) for _ in range(n)]


@pytest.fixture(params=["redis", "in-process"])
def log(request, settings):
    """Each test runs on Redis's log (where REDIS_URL is set) and on the in-process one."""
    if request.param == "redis" and not settings.REDIS_URL:
        pytest.skip("no Redis: the in-process log is the one in use")
    if request.param == "in-process":
        settings.REDIS_URL = ""
    return request.param


def test_an_account_gets_its_allowance_then_waits_for_the_oldest_turn_to_leave_the_window(log):
    account = uuid.uuid4()
    allowance = pacing.allowance(POSTING_RATES["tiktok"][0])  # 6 a minute, paced at 5
    assert allowance == 5
    assert _turns("tiktok", allowance, account) == [0.0] * allowance
    (wait,) = _turns("tiktok", 1, account)
    assert 55 < wait <= 60
    # Another account of the same platform has turns of its own.
    assert _turns("tiktok", 1, uuid.uuid4()) == [0.0]


def test_every_window_of_a_platform_counts(log):
    account = uuid.uuid4()
    # TikTok's daily cap (15, paced at 13) is reached over several minutes of 5 each: once
    # the minute's window is full, the wait is the minute's.
    assert pacing.allowance(POSTING_RATES["tiktok"][1]) == 13
    assert 0 < _turns("tiktok", 6, account)[-1] <= 60


def test_a_platform_without_a_documented_count_is_not_paced(log):
    assert _turns("facebook", 500, uuid.uuid4()) == [0.0] * 500


def test_pacing_can_be_turned_off(log, settings):
    settings.PACE_ACCOUNTS = False
    assert _turns("tiktok", 50, uuid.uuid4()) == [0.0] * 50


@pytest.mark.django_db
def test_a_post_past_its_accounts_allowance_waits_in_the_outbox_unsent(log, owner, accounts, sandbox):
    allowance = pacing.allowance(POSTING_RATES["x"][0])
    _turns("x", allowance, accounts.x.pk)  # the account's posts of the last 15 minutes
    publish = queued_publish(owner, accounts.x, content="One too many")
    job = DeliveryJob.objects.get(target__publish=publish)
    sending.job_run(job_id=str(job.pk))
    job.refresh_from_db()
    target = job.target
    assert (job.state, job.runs, target.state) == (JobState.PENDING, 0, TargetState.QUEUED)
    assert job.enqueued_at is None  # the relay sends it once its time has come
    assert timezone.now() + dt.timedelta(minutes=14) < job.not_before <= timezone.now() + dt.timedelta(minutes=15)
    assert not DeliveryAttempt.objects.filter(target=target).exists()
    assert sandbox.posts("x") == []
    # Another account of the team posts at once.
    other = DeliveryJob.objects.get(target__publish=queued_publish(owner, accounts.bluesky, content="Not paced"))
    sending.job_run(job_id=str(other.pk))
    assert [p["text"] for p in sandbox.posts("bluesky")] == ["Not paced"]

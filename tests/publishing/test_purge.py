"""Delivery jobs are the outbox: once done and older than DONE_JOB_RETENTION_SECONDS they are
purged, while every attempt (what was sent, and the answer) stays; a job not done stays however
old, and a late duplicate message for a purged job sends nothing."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from publishing import sending, tasks
from publishing.models import DeliveryAttempt, DeliveryJob, JobState

pytestmark = pytest.mark.django_db


def _publish(api, owner, accounts, **body):
    body = {"content": "Outbox", "targets": [{"account_id": str(accounts.x.pk)}], **body}
    response = api.as_(owner.key).post("/api/v1/publishes", body, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["data"]["id"]


def test_done_jobs_past_retention_go_and_their_attempts_stay(api, owner, accounts, sandbox):
    publish_id = _publish(api, owner, accounts)
    job = DeliveryJob.objects.get(target__publish_id=publish_id)
    assert job.state == JobState.DONE
    DeliveryJob.objects.filter(pk=job.pk).update(created_at=timezone.now() - dt.timedelta(days=2))

    assert tasks.purge_done_jobs() == 1

    assert not DeliveryJob.objects.filter(pk=job.pk).exists()
    assert DeliveryAttempt.objects.get(target__publish_id=publish_id).state == "published"
    sending.job_run(job_id=str(job.pk))  # a late duplicate message: nothing to claim
    assert len(sandbox.posts("x")) == 1
    assert api.get(f"/api/v1/publishes/{publish_id}").json()["data"]["status"] == "published"


def test_recent_and_unfinished_jobs_stay(api, owner, accounts, sandbox, settings):
    done = DeliveryJob.objects.get(target__publish_id=_publish(api, owner, accounts))
    sandbox.outcomes("x", "rate_limited")
    waiting = DeliveryJob.objects.get(target__publish_id=_publish(api, owner, accounts, content="Later"))
    assert waiting.state == JobState.PENDING  # a 429 before any write: it waits out the pause
    DeliveryJob.objects.filter(pk=waiting.pk).update(created_at=timezone.now() - dt.timedelta(days=3))

    assert tasks.purge_done_jobs() == 0

    assert DeliveryJob.objects.filter(pk__in=[done.pk, waiting.pk]).count() == 2

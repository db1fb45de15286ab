"""Each delivery job goes on its lane: a post with a video on `uploads`, every other post on
`dispatch`, so that a text post never queues behind a long upload; read-backs of processing
and unknown targets go on `uploads` too. The lane is written with the job when it is released
(at create or by the scheduler), and the hand-over sends each job's message on its lane."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator

import pytest
import redis
from django.utils import timezone

from config.celery import app as celery_app
from publishing import inputs, lifecycle, outbox, readback, release
from publishing.models import DeliveryJob, Target, TargetState, ThreadItem, ThreadItemState
from tests.media import files

LANES = ("dispatch", "uploads")


@pytest.fixture
def upload(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")

    def make(team, *, kind):
        data, content_type, name = {
            "image": (files.image(), "image/png", "photo.png"),
            "video": (files.video(), "video/mp4", "clip.mp4"),
        }[kind]
        return files.stored_upload(team, data, content_type, name, confirmed=True)

    return make


@pytest.fixture
def broker_lists() -> Iterator[redis.Redis]:
    """Tasks go to the real broker instead of running here; the lanes' lists start and end empty."""
    conf = celery_app.conf
    saved = conf.task_always_eager
    conf.task_always_eager = False
    client = redis.Redis.from_url(conf.broker_write_url or conf.broker_url)
    client.delete(*LANES)
    try:
        yield client
    finally:
        conf.task_always_eager = saved
        client.delete(*LANES)
        client.close()


def _queued_on(client: redis.Redis, lane: str) -> list[str]:
    """The job ids of the deliver messages waiting on `lane`."""
    return sorted(json.loads(raw)["headers"]["argsrepr"].strip("(',)") for raw in client.lrange(lane, 0, -1))


def _create(owner, accounts, *, media_ids=(), own_media=None, scheduled_at=None):
    targets = [inputs.TargetInput(account_id=str(a.pk)) for a in accounts]
    if own_media is not None:
        targets[0] = inputs.TargetInput(account_id=str(accounts[0].pk), media_ids=own_media)
    return lifecycle.publish_create(
        team=owner.team,
        caller=inputs.Caller(user=owner.user),
        content="A post",
        media_ids=list(media_ids),
        targets=targets,
        publish_mode="scheduled" if scheduled_at else "immediate",
        scheduled_at=scheduled_at,
    )


def _lanes(publish) -> dict[str, str]:
    jobs = DeliveryJob.objects.filter(target__publish=publish).select_related("target")
    return {job.target.platform: job.lane for job in jobs}


@pytest.mark.django_db
def test_a_post_with_a_video_is_on_uploads_and_any_other_on_dispatch(owner, upload):
    video, image = upload(owner.team, kind="video"), upload(owner.team, kind="image")
    lanes = outbox.lanes(
        [
            ("text", None, []),
            ("image", None, [image]),
            ("video", None, [video]),
            ("own video", [video], [image]),
            ("own image", [image], [video]),
            ("own text", [], [video]),
        ]
    )
    assert lanes == {
        "text": "dispatch",
        "image": "dispatch",
        "video": "uploads",
        "own video": "uploads",
        "own image": "dispatch",
        "own text": "dispatch",
    }


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_the_scheduler_sends_each_job_on_its_lane(owner, accounts, upload, broker_lists):
    video = upload(owner.team, kind="video")
    soon = timezone.now() + dt.timedelta(minutes=5)
    text = _create(owner, [accounts.x, accounts.bluesky], scheduled_at=soon)
    with_video = _create(owner, [accounts.x, accounts.bluesky], scheduled_at=soon, own_media=[video])
    assert release.release_due(now=soon + dt.timedelta(seconds=1)) == 2
    assert _lanes(text) == {"x": "dispatch", "bluesky": "dispatch"}
    assert _lanes(with_video) == {"x": "uploads", "bluesky": "dispatch"}
    jobs = {job.target_id: str(job.pk) for job in DeliveryJob.objects.all()}
    video_target = Target.objects.get(publish=with_video, platform="x")
    assert _queued_on(broker_lists, "uploads") == [jobs[video_target.pk]]
    assert _queued_on(broker_lists, "dispatch") == sorted(v for k, v in jobs.items() if k != video_target.pk)


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_reconciliation_hands_each_read_back_to_the_uploads_lane(owner, accounts, broker_lists):
    publish = _create(owner, [accounts.x, accounts.bluesky])
    now = timezone.now()
    Target.objects.filter(publish=publish).update(state=TargetState.PROCESSING, next_check_at=now)
    broker_lists.delete(*LANES)  # the deliveries the create sent
    readback.reconcile(now=now + dt.timedelta(seconds=1))
    checks = [json.loads(raw)["headers"] for raw in broker_lists.lrange("uploads", 0, -1)]
    assert sorted(h["task"] for h in checks) == ["publishing.check", "publishing.check"]
    targets = sorted(str(pk) for pk in Target.objects.filter(publish=publish).values_list("pk", flat=True))
    assert sorted(h["argsrepr"].strip("(',)") for h in checks) == targets
    assert broker_lists.llen("dispatch") == 0


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_an_unknown_reply_is_read_back_on_the_uploads_lane_by_its_own_ids(owner, accounts, broker_lists):
    publish = _create(owner, [accounts.x])
    target = Target.objects.get(publish=publish)
    now = timezone.now()
    item = ThreadItem.objects.create(target=target, position=1, content="Lost", state=ThreadItemState.UNKNOWN)
    ThreadItem.objects.filter(pk=item.pk).update(next_check_at=now)
    broker_lists.delete(*LANES)  # the delivery the create sent
    readback.reconcile(now=now + dt.timedelta(seconds=1))
    [check] = [json.loads(raw)["headers"] for raw in broker_lists.lrange("uploads", 0, -1)]
    assert check["task"] == "publishing.check"
    assert check["argsrepr"] == repr((str(target.pk), str(item.pk)))
    assert broker_lists.llen("dispatch") == 0

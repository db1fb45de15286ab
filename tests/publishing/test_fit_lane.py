"""Fitting in the media lane: a delivery (or thread item) whose media need a rendition not made
yet hands its making to `media.fit` and stays queued; the fit sends it again once made, or
failed (then the target fails with MEDIA_FIT_FAILED once, nothing sent). A fit over the budget
is a 400 at create, naming the item. Platform calls go to the sandbox over real HTTP."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import stat
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from celery.signals import before_task_publish, task_prerun
from django.conf import settings as django_settings
from django.db import connection
from django.utils import timezone

from config.celery import app as celery_app
from demo.seed import sandbox_account
from media.models import MediaRendition
from publishing import readback, release
from publishing.models import DeliveryAttempt, DeliveryJob, Target, ThreadItem
from publishing.tasks import deliver
from tests.media import files

URL = "/api/v1/publishes"
UNREADABLE = "The file could not be read as an image or a video."


def _publish(api, key, accounts, media_id, **extra):
    targets = [{"account_id": str(account.pk)} for account in accounts]
    body = {"content": "Fitted", "media_ids": [media_id], "targets": targets, **extra}
    return api.as_(key).post(URL, body, format="json")


def _target(api, key, publish_id, index=0):
    return api.as_(key).get(f"{URL}/{publish_id}").json()["data"]["targets"][index]


@contextlib.contextmanager
def _ran() -> Iterator[list[str]]:
    """The names of the tasks run meanwhile, in order."""
    names: list[str] = []

    def record(sender: Any = None, **_: Any) -> None:
        names.append(sender.name)

    task_prerun.connect(record, weak=False)
    try:
        yield names
    finally:
        task_prerun.disconnect(record)


@contextlib.contextmanager
def _to_the_broker() -> Iterator[list[dict[str, Any]]]:
    """Tasks sent meanwhile go to the broker instead of running here; the messages sent
    through apply_async, as {"task", "queue", "args", "id"}. Those left in a Redis broker
    (and the deliveries of the publishes made meanwhile) are removed at the end."""
    sent: list[dict[str, Any]] = []

    def record(sender: Any = None, body: Any = None, routing_key: str = "", headers: Any = None, **_: Any) -> None:
        sent.append({"task": sender, "queue": routing_key, "args": list(body[0]), "id": headers["id"]})

    conf = celery_app.conf
    before_task_publish.connect(record, weak=False)
    conf.task_always_eager = False
    jobs = set(DeliveryJob.objects.values_list("dispatch_id", flat=True))
    try:
        yield sent
    finally:
        conf.task_always_eager = True
        before_task_publish.disconnect(record)
        ours = {m["id"] for m in sent} | set(DeliveryJob.objects.values_list("dispatch_id", flat=True)) - jobs
        _remove_from_redis(ours)


def _remove_from_redis(ids: set[str]) -> None:
    if not django_settings.REDIS_URL:
        return  # the folder broker of the tests is a scratch folder
    import redis

    client = redis.Redis.from_url(celery_app.conf.broker_url)
    try:
        for queue in ("dispatch", "media"):
            for raw in client.lrange(queue, 0, -1):
                if json.loads(raw)["headers"]["id"] in ids:
                    client.lrem(queue, 0, raw)
    finally:
        client.close()


# --- at create ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_an_image_that_would_need_a_fit_over_the_budget_is_a_400_naming_it(
    api, owner, accounts, sandbox, pulled, settings
):
    settings.MEDIA_FIT_BUDGET_MEGAPIXELS = 1
    media_id = files.stored_upload(owner.team, files.image("PNG", (1800, 1000)), "image/png", "wide.png")

    response = _publish(api, owner.key, [accounts.instagram], media_id)

    assert response.status_code == 400, response.json()
    error = response.json()["error"]
    assert error["code"] == "MEDIA_FIT_OVER_BUDGET"
    [problem] = error["details"]["targets"][0]["problems"]
    assert problem["field"] == "media[0]"
    assert "would decode 2 megapixels, over this service's limit of 1" in problem["message"]
    assert not MediaRendition.objects.exists()


@pytest.mark.django_db
def test_a_video_that_would_need_a_fit_over_the_budget_is_a_400_naming_it(
    api, owner, accounts, sandbox, pulled, settings
):
    settings.MEDIA_FIT_BUDGET_MEGAPIXELS = 3  # 320 x 240 x 25 frames a second x 2 s is 3.84
    mpeg4 = files.encoded(codec="mpeg4", seconds=2, size="320x240")
    media_id = files.stored_upload(owner.team, mpeg4, "video/mp4", "clip.mp4")  # probed at confirm
    jpeg_id = files.stored_upload(owner.team, files.image("JPEG"), "image/jpeg", "photo.jpg")

    response = api.as_(owner.key).post(
        URL,
        {
            "content": "Fitted",
            "targets": [
                {"account_id": str(accounts.instagram.pk), "media_ids": [jpeg_id]},
                {"account_id": str(accounts.threads.pk), "media_ids": [media_id]},
            ],
        },
        format="json",
    )

    assert response.status_code == 400, response.json()
    [refused] = response.json()["error"]["details"]["targets"]
    assert refused["index"] == 1
    assert refused["problems"][0]["code"] == "MEDIA_FIT_OVER_BUDGET"
    assert refused["problems"][0]["field"] == "media[0]"
    assert "not mpeg4" in refused["problems"][0]["message"]


# --- deliveries --------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_delivery_needing_a_fit_hands_it_to_the_media_lane_and_stays_queued(api, owner, accounts, sandbox, pulled):
    media_id = files.stored_upload(owner.team, files.image("PNG", (100, 100)), "image/png", "photo.png")
    with _to_the_broker() as sent:
        publish_id = _publish(api, owner.key, [accounts.instagram], media_id).json()["data"]["id"]
        job = DeliveryJob.objects.get(target__publish_id=publish_id)

        deliver.apply(args=(str(job.pk),))  # what a dispatch worker runs

    job.refresh_from_db()
    assert job.state == "pending"
    assert Target.objects.get(pk=job.target_id).state == "queued"
    assert not DeliveryAttempt.objects.exists()
    assert not MediaRendition.objects.exists()
    assert not sandbox.state.requests
    [asked] = [message for message in sent if message["task"] == "media.fit"]
    assert asked["queue"] == "media"
    pairs, then, _ = asked["args"]
    assert pairs == [[media_id, "jpeg"]]
    assert then == {"task": "publishing.deliver", "args": [str(job.pk)]}

    celery_app.tasks["media.fit"].apply(args=asked["args"])  # what a media worker runs; it sends the delivery again

    target = _target(api, owner.key, publish_id)
    assert target["status"] == "published", target
    assert target["media_sent"][0]["rendition"] == "jpeg"
    assert len(sandbox.state.posts) == 1
    assert DeliveryAttempt.objects.get().number == 1


@pytest.mark.django_db
def test_a_failed_fit_fails_the_target_once_with_a_fixed_text_and_nothing_loops(
    api, owner, accounts, sandbox, pulled, settings
):
    settings.FFPROBE_BINARY = "/nonexistent/ffprobe"  # unprobed, the broken PNG passes the create
    media_id = files.stored_upload(owner.team, files.png_header(64, 64), "image/png", "broken.png")

    with _ran() as ran:
        response = _publish(api, owner.key, [accounts.instagram], media_id)
        target = _target(api, owner.key, response.json()["data"]["id"])
        release.relay(now=timezone.now() + dt.timedelta(hours=1))
        readback.reconcile(now=timezone.now() + dt.timedelta(hours=1))

    assert target["status"] == "failed"
    assert target["error"]["code"] == "MEDIA_FIT_FAILED"
    assert target["error"]["message"] == f"media {media_id}: the jpeg rendition could not be made. {UNREADABLE}"
    assert ran.count("media.fit") == 1
    assert ran.count("publishing.deliver") == 2  # handed to the fit, then failed with it
    assert DeliveryAttempt.objects.get().error_code == "MEDIA_FIT_FAILED"
    assert not sandbox.state.requests


@pytest.mark.django_db
def test_a_retry_after_a_failed_fit_asks_for_the_fit_again(api, owner, accounts, sandbox, pulled, settings):
    settings.FFPROBE_BINARY = "/nonexistent/ffprobe"
    media_id = files.stored_upload(owner.team, files.png_header(64, 64), "image/png", "broken.png")
    publish_id = _publish(api, owner.key, [accounts.instagram], media_id).json()["data"]["id"]

    with _ran() as ran:
        api.as_(owner.key).post(f"{URL}/{publish_id}/retry", format="json")

    assert ran.count("media.fit") == 1  # an old failure does not fail a new attempt unasked
    assert _target(api, owner.key, publish_id)["error"]["code"] == "MEDIA_FIT_FAILED"
    assert DeliveryAttempt.objects.filter(target__publish_id=publish_id).count() == 2


# --- one transcode, however many ask ------------------------------------------------------------


def _gated_ffmpeg(tmp_path) -> tuple[str, Any, Any]:
    """An ffmpeg that notes each start, then waits for the gate file before running the real one."""
    starts, gate = tmp_path / "starts", tmp_path / "gate"
    script = tmp_path / "ffmpeg"
    script.write_text(
        f'#!/bin/sh\necho start >> {starts}\nwhile [ ! -e {gate} ]; do sleep 0.05; done\nexec ffmpeg "$@"\n'
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script), starts, gate


def _wait_for(condition: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


@pytest.mark.django_db(transaction=True)
def test_two_deliveries_and_the_relay_share_one_transcode(api, owner, accounts, sandbox, pulled, settings, tmp_path):
    second = sandbox_account(owner.team, "instagram", suffix="_2")
    mpeg4 = files.encoded(codec="mpeg4", seconds=3.2)  # a reel is 3 s at least
    media_id = files.stored_upload(owner.team, mpeg4, "video/mp4", "clip.mp4")
    settings.FFMPEG_BINARY, starts, gate = _gated_ffmpeg(tmp_path)
    settings.MEDIA_FIT_TIMEOUT_SECONDS = 60.0  # should the gate never open
    # The relay's fits reach the rendition's lease rather than the team's share of the media
    # lane (tests/media/test_media_lane_share.py): with tasks run eagerly, a fit handed back
    # for later would run again at once, over and over, while the first one holds the share.
    settings.LANE_TEAM_SHARES = {**settings.LANE_TEAM_SHARES, "media": 2}
    answers: list[Any] = []

    def create() -> None:
        try:
            answers.append(_publish(api, owner.key, [accounts.instagram, second], media_id))
        finally:
            connection.close()

    creating = threading.Thread(target=create)
    creating.start()
    try:
        # The first delivery's fit holds the lease, inside its transcode.
        _wait_for(lambda: starts.exists() or not creating.is_alive())
        assert not answers, answers[0].json()
        relayed = release.relay(now=timezone.now() + dt.timedelta(hours=1))  # both jobs, again
        assert relayed == 2
        assert starts.read_text().count("start") == 1  # they wait for it
        assert sandbox.state.posts == []
    finally:
        gate.touch()
        creating.join(timeout=60)

    publish_id = answers[0].json()["data"]["id"]
    statuses = [_target(api, owner.key, publish_id, index)["status"] for index in (0, 1)]
    assert statuses == ["published", "published"]
    assert starts.read_text().count("start") == 1
    assert MediaRendition.objects.filter(upload_id=media_id).count() == 1
    assert len(sandbox.state.posts) == 2


# --- thread items ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_thread_item_needing_a_fit_waits_for_the_media_lane_unclaimed(api, owner, accounts, sandbox, pulled):
    media_id = files.stored_upload(owner.team, files.encoded(codec="mpeg4"), "video/mp4", "clip.mp4")
    target = {"account_id": str(accounts.threads.pk), "thread": [{"content": "The clip", "media_ids": [media_id]}]}
    seen: list[tuple[str, int]] = []

    def when_the_fit_starts(sender: Any = None, **_: Any) -> None:
        if sender.name == "media.fit":
            seen.append((ThreadItem.objects.get().state, MediaRendition.objects.count()))

    task_prerun.connect(when_the_fit_starts, weak=False)
    try:
        with _ran() as ran:
            response = api.as_(owner.key).post(URL, {"content": "A thread", "targets": [target]}, format="json")
    finally:
        task_prerun.disconnect(when_the_fit_starts)

    assert response.status_code == 201, response.json()
    assert seen == [("pending", 0)]  # not claimed while its rendition is made
    # the target's post, its reply (waiting: not claimed), the fit, the reply again
    assert ran == ["publishing.deliver", "publishing.deliver", "media.fit", "publishing.deliver"]
    [item] = _target(api, owner.key, response.json()["data"]["id"])["thread"]
    assert item["status"] == "published", item
    assert MediaRendition.objects.get(upload_id=media_id).profile == "h264-aac-mp4"

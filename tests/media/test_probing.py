"""Probing at confirm with Debian's ffprobe, in the (eager) worker: what it finds is shown on
the upload and in the listing; hostile files (broken, impossibly large, a hanging ffprobe)
end as a failed probe with a clear code, at bounded cost, and a publish using one is a 400."""

from __future__ import annotations

import os
import stat
import time

import pytest
import requests

from media.models import MediaUpload
from tests.media import files

pytestmark = pytest.mark.django_db(transaction=True)  # the probe is enqueued after the confirm commits


@pytest.fixture
def served(live_server, settings, tmp_path, eager_tasks):
    """Upload URLs point at a real HTTP server running this service; tasks run eagerly."""
    settings.PUBLIC_BASE_URL = live_server.url
    settings.MEDIA_ROOT = str(tmp_path / "media")
    return live_server


def _upload(api, key, data: bytes, content_type: str, filename: str) -> dict:
    body = {"filename": filename, "content_type": content_type, "size_bytes": len(data)}
    created = api.as_(key).post("/api/v1/media/uploads", body, format="json").json()["data"]
    assert requests.put(created["upload_url"], data=data, headers=created["headers"], timeout=10).status_code == 200
    confirmed = api.as_(key).post(f"/api/v1/media/uploads/{created['media_id']}/confirm", format="json")
    assert confirmed.status_code == 200, confirmed.json()
    return api.as_(key).get(f"/api/v1/media/uploads/{created['media_id']}").json()["data"]


def _publish(api, key, media_id, account):
    body = {"content": "Hi", "media_ids": [media_id], "targets": [{"account_id": str(account.pk)}]}
    return api.as_(key).post("/api/v1/publishes", body, format="json")


def _fake_ffprobe(tmp_path, script: str) -> str:
    path = tmp_path / "ffprobe"
    path.write_text(f"#!/bin/sh\n{script}\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def test_confirm_probes_a_video_and_shows_its_codecs_frame_rate_and_aspect(api, owner, served):
    data = files.encoded(codec="libx264", seconds=1, size="96x64")

    upload = _upload(api, owner.key, data, "video/mp4", "clip.mp4")

    probe = upload["probe"]
    assert probe["status"] == "done"
    assert probe["error"] is None
    assert (probe["video_codec"], probe["audio_codec"]) == ("h264", "aac")
    assert "mp4" in probe["container"]
    assert probe["frame_rate"] == 25.0
    assert probe["aspect_ratio"] == 1.5
    assert probe["bit_rate"] > 0
    assert probe["probed_at"]
    assert (upload["width"], upload["height"]) == (96, 64)
    assert upload["duration_seconds"] == pytest.approx(1.0, abs=0.1)
    listed = api.as_(owner.key).get("/api/v1/media").json()["data"][0]
    assert listed["probe"]["video_codec"] == "h264"


def test_confirm_probes_an_image(api, owner, served):
    upload = _upload(api, owner.key, files.image("PNG", (120, 80)), "image/png", "photo.png")

    assert upload["probe"]["status"] == "done"
    assert upload["probe"]["video_codec"] == "png"
    assert upload["probe"]["frame_rate"] is None
    assert (upload["width"], upload["height"]) == (120, 80)


def test_a_broken_image_fails_its_probe_and_a_publish_with_it_is_a_400(api, owner, served, accounts_x):
    upload = _upload(api, owner.key, files.png_header(64, 64), "image/png", "broken.png")

    assert upload["probe"]["status"] == "failed"
    assert upload["probe"]["error"]["code"] == "MEDIA_UNREADABLE"
    response = _publish(api, owner.key, upload["media_id"], accounts_x)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "MEDIA_UNREADABLE"
    assert error["details"]["targets"][0]["problems"][0]["field"] == "media[0]"


def test_a_probe_error_shows_a_fixed_text_never_the_tools_words(api, owner, served, accounts_x):
    upload = _upload(api, owner.key, files.png_header(64, 64), "image/png", "broken.png")

    error = upload["probe"]["error"]
    assert error == {"code": "MEDIA_UNREADABLE", "message": "The file could not be read as an image or a video."}
    message = _publish(api, owner.key, upload["media_id"], accounts_x).json()["error"]["message"]
    assert error["message"] in message
    for said in (error["message"], message):
        assert "/" not in said
        assert "0x" not in said
        assert "ffprobe" not in said


def test_a_probe_error_stored_with_the_tools_words_is_shown_as_the_fixed_text(api, owner, served):
    upload = _upload(api, owner.key, files.png_header(64, 64), "image/png", "broken.png")
    leaked = "ffprobe: [png @ 0x55d0c0ffee00] /srv/app/var/media/teams/x/broken.png: Invalid data"
    MediaUpload.objects.filter(pk=upload["media_id"]).update(probe_error=leaked)

    shown = api.as_(owner.key).get(f"/api/v1/media/uploads/{upload['media_id']}").json()["data"]["probe"]["error"]

    assert shown["message"] == "The file could not be read as an image or a video."


def test_an_image_claiming_100000_px_a_side_is_refused_whatever_the_probe_says(api, owner, served, accounts_x):
    started = time.monotonic()
    upload = _upload(api, owner.key, files.png_header(100_000, 100_000), "image/png", "bomb.png")

    assert time.monotonic() - started < 10  # nothing decoded 10 gigapixels
    assert upload["probe"]["status"] == "failed"
    response = _publish(api, owner.key, upload["media_id"], accounts_x)
    assert response.status_code == 400
    assert response.json()["error"]["code"] in ("MEDIA_UNREADABLE", "MEDIA_DIMENSIONS_TOO_LARGE")


def test_a_video_longer_than_the_cap_is_refused(api, owner, served, settings, accounts_x):
    settings.MEDIA_MAX_DURATION_SECONDS = 0.5
    upload = _upload(api, owner.key, files.encoded(seconds=1), "video/mp4", "long.mp4")

    assert upload["probe"]["status"] == "failed"
    assert upload["probe"]["error"]["code"] == "MEDIA_DURATION_TOO_LONG"
    response = _publish(api, owner.key, upload["media_id"], accounts_x)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "MEDIA_DURATION_TOO_LONG"


def test_a_hanging_ffprobe_is_killed_at_the_timeout(api, owner, served, settings, tmp_path):
    settings.FFPROBE_BINARY = _fake_ffprobe(tmp_path, "sleep 30")
    settings.MEDIA_PROBE_TIMEOUT_SECONDS = 0.5
    started = time.monotonic()

    upload = _upload(api, owner.key, files.image("PNG"), "image/png", "photo.png")

    assert time.monotonic() - started < 10
    assert upload["probe"]["status"] == "failed"
    assert upload["probe"]["error"]["code"] == "MEDIA_PROCESSING_TIMEOUT"


def test_without_ffprobe_the_probe_is_skipped_and_publishing_uses_the_sniff(api, owner, served, settings, sandbox):
    settings.FFPROBE_BINARY = "/nonexistent/ffprobe"
    upload = _upload(api, owner.key, files.image("JPEG"), "image/jpeg", "photo.jpg")

    assert upload["probe"]["status"] == "skipped"
    assert (upload["width"], upload["height"]) == (64, 48)  # what the sniff read


def test_a_publish_while_the_probe_is_pending_is_judged_by_the_sniff(api, owner, settings, tmp_path, accounts_x):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    media_id = files.stored_upload(owner.team, files.image("PNG"), "image/png", "photo.png")  # no worker ran
    assert MediaUpload.objects.get(pk=media_id).probe_status == "pending"

    response = api.as_(owner.key).post(
        "/api/v1/publishes",
        {
            "content": "Hi",
            "publish_mode": "draft",
            "media_ids": [media_id],
            "targets": [{"account_id": str(accounts_x.pk)}],
        },
        format="json",
    )

    assert response.status_code == 201, response.json()


def test_the_probe_limits_memory(settings, tmp_path):
    """The address-space limit reaches the child: a process asking for more is refused."""
    from media import processing

    settings.MEDIA_PROCESS_MEMORY_BYTES = 256 * 1024 * 1024
    script = tmp_path / "grab.py"
    script.write_text("x = bytearray(1024 * 1024 * 1024)\n")
    with pytest.raises(processing.ProcessingError) as refused:
        processing.run([os.environ.get("PYTHON", "python3"), str(script)], timeout=10)
    assert refused.value.code == "MEDIA_UNREADABLE"
    assert "MemoryError" in refused.value.detail  # for the log; the user is told a fixed text


@pytest.fixture
def accounts_x(team):
    from demo.seed import sandbox_account

    return sandbox_account(team, "x")

"""Fitted renditions end to end: a publish whose media a platform refuses as it is (a PNG for
Instagram, an MPEG-4 Part 2 video for a reel) goes out as a rendition the worker makes (JPEG,
H.264/AAC MP4), which the Instagram sandbox pulls over real HTTP and checks as Instagram does;
the upload itself is kept; the target shows what went out. `fit_media: false` keeps today's
400."""

from __future__ import annotations

import pytest
import requests

from media import services, storage
from media.models import MediaRendition, MediaUpload
from publishing.models import DeliveryAttempt
from sandbox import media as sandbox_media
from tests.media import files

pytestmark = pytest.mark.django_db

URL = "/api/v1/publishes"


def _publish(api, key, account, media_id, **platform_settings):
    target = {"account_id": str(account.pk), "platform_settings": platform_settings}
    return api.as_(key).post(URL, {"content": "Fitted", "media_ids": [media_id], "targets": [target]}, format="json")


def _target(api, key, publish_id):
    return api.as_(key).get(f"{URL}/{publish_id}").json()["data"]["targets"][0]


def _bytes_at(url: str) -> bytes:
    response = requests.get(url, timeout=10)
    assert response.status_code == 200
    return response.content


def test_a_png_goes_to_instagram_as_a_jpeg_rendition_and_the_png_is_kept(api, owner, accounts, sandbox, pulled):
    png = files.image("PNG", (100, 100))
    media_id = files.stored_upload(owner.team, png, "image/png", "photo.png")

    response = _publish(api, owner.key, accounts.instagram, media_id)

    assert response.status_code == 201, response.json()
    target = _target(api, owner.key, response.json()["data"]["id"])
    assert target["status"] == "published", target
    rendition = MediaRendition.objects.get(upload_id=media_id)
    assert rendition.profile == "jpeg"
    assert target["media_sent"] == [
        {"media_id": media_id, "rendition": "jpeg", "content_type": "image/jpeg", "size_bytes": rendition.size_bytes}
    ]
    [post] = sandbox.state.posts
    pulled_bytes = _bytes_at(post.extra["request"]["image_url"])  # what the sandbox fetched
    assert sandbox_media.image_type(pulled_bytes) == "image/jpeg"
    upload = MediaUpload.objects.get(pk=media_id)
    with storage.open_stream(upload.content_key) as kept:
        assert kept.read() == png


def test_with_fit_media_false_a_png_for_instagram_is_a_400_as_before(api, owner, accounts, sandbox, pulled):
    media_id = files.stored_upload(owner.team, files.image("PNG"), "image/png", "photo.png")

    response = _publish(api, owner.key, accounts.instagram, media_id, fit_media=False)

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "UNSUPPORTED_MEDIA_TYPE"
    assert error["details"]["targets"][0]["problems"][0]["field"] == "media[0]"
    assert sandbox.state.posts == []
    assert not MediaRendition.objects.exists()


def test_fit_media_must_be_a_boolean(api, owner, accounts, sandbox, pulled):
    media_id = files.stored_upload(owner.team, files.image("JPEG"), "image/jpeg", "photo.jpg")

    response = _publish(api, owner.key, accounts.instagram, media_id, fit_media="no")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "INVALID_SETTING"


def test_a_jpeg_goes_as_it_is_and_the_target_says_so(api, owner, accounts, sandbox, pulled):
    media_id = files.stored_upload(owner.team, files.image("JPEG"), "image/jpeg", "photo.jpg")

    response = _publish(api, owner.key, accounts.instagram, media_id)

    target = _target(api, owner.key, response.json()["data"]["id"])
    assert target["status"] == "published"
    assert target["media_sent"][0]["rendition"] is None
    assert target["media_sent"][0]["content_type"] == "image/jpeg"
    assert not MediaRendition.objects.exists()
    assert "fit_media" not in str(list(sandbox.state.requests))  # never sent to the platform


def test_one_rendition_serves_every_later_publish(api, owner, accounts, sandbox, pulled):
    media_id = files.stored_upload(owner.team, files.image("PNG"), "image/png", "photo.png")

    first = _publish(api, owner.key, accounts.instagram, media_id)
    second = _publish(api, owner.key, accounts.instagram, media_id)

    assert first.status_code == second.status_code == 201
    assert MediaRendition.objects.filter(upload_id=media_id).count() == 1
    assert len(sandbox.state.posts) == 2


def test_a_video_in_a_codec_instagram_refuses_goes_as_h264(api, owner, accounts, sandbox, pulled):
    mpeg4 = files.encoded(codec="mpeg4", seconds=3.2, size="64x64")
    media_id = files.stored_upload(owner.team, mpeg4, "video/mp4", "clip.mp4")
    assert MediaUpload.objects.get(pk=media_id).video_codec == "mpeg4"  # the worker probed it at confirm

    response = _publish(api, owner.key, accounts.instagram, media_id)

    assert response.status_code == 201, response.json()
    target = _target(api, owner.key, response.json()["data"]["id"])
    assert target["status"] == "published", target
    assert target["media_sent"][0]["rendition"] == "h264-aac-mp4"
    [post] = sandbox.state.posts
    sent = _bytes_at(post.extra["request"]["video_url"])
    assert sandbox_media.video_codec(sent) == "avc1"
    with storage.open_stream(MediaUpload.objects.get(pk=media_id).content_key) as kept:
        assert kept.read() == mpeg4


def test_with_fit_media_false_a_probed_codec_is_named_at_create(api, owner, accounts, sandbox, pulled):
    media_id = files.stored_upload(owner.team, files.encoded(codec="mpeg4", seconds=3.2), "video/mp4", "clip.mp4")

    response = _publish(api, owner.key, accounts.instagram, media_id, fit_media=False)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "UNSUPPORTED_VIDEO_CODEC"
    assert "mpeg4" in response.json()["error"]["message"]


def test_the_instagram_sandbox_refuses_a_video_in_another_codec(api, owner, accounts, sandbox, pulled, settings):
    settings.FFPROBE_BINARY = "/nonexistent/ffprobe"  # no probe: the codec is unknown, nothing is fitted
    mpeg4 = files.encoded(codec="mpeg4", seconds=3.2, size="64x64")
    media_id = files.stored_upload(owner.team, mpeg4, "video/mp4", "clip.mp4")

    response = _publish(api, owner.key, accounts.instagram, media_id)

    target = _target(api, owner.key, response.json()["data"]["id"])
    assert target["status"] == "failed"
    assert "codec" in target["error"]["message"]
    assert sandbox.state.posts == []


def test_a_rendition_that_cannot_be_made_fails_the_target_and_sends_nothing(
    api, owner, accounts, sandbox, pulled, settings
):
    settings.FFPROBE_BINARY = "/nonexistent/ffprobe"  # unprobed, the broken PNG passes the create
    media_id = files.stored_upload(owner.team, files.png_header(64, 64), "image/png", "broken.png")

    response = _publish(api, owner.key, accounts.instagram, media_id)

    assert response.status_code == 201, response.json()
    target = _target(api, owner.key, response.json()["data"]["id"])
    assert target["status"] == "failed"
    assert target["error"]["code"] == "MEDIA_FIT_FAILED"
    assert media_id in target["error"]["message"]
    assert sandbox.state.posts == []
    assert not [r for r in sandbox.state.requests if r["path"].startswith("/graph.instagram.com/")]
    attempt = DeliveryAttempt.objects.get(target__publish_id=response.json()["data"]["id"])
    assert attempt.error_code == "MEDIA_FIT_FAILED"


def test_deleting_an_upload_deletes_its_renditions_and_their_files(api, owner, accounts, sandbox, pulled):
    media_id = files.stored_upload(owner.team, files.image("PNG"), "image/png", "photo.png")
    _publish(api, owner.key, accounts.instagram, media_id)
    rendition = MediaRendition.objects.get(upload_id=media_id)
    assert storage.exists(rendition.content_key)

    services.media_delete(upload=MediaUpload.objects.get(pk=media_id))

    assert not MediaRendition.objects.exists()
    assert not storage.exists(rendition.content_key)


def test_the_dashboards_publish_page_shows_the_rendition_that_went_out(api, owner, accounts, sandbox, pulled, client):
    media_id = files.stored_upload(owner.team, files.image("PNG"), "image/png", "photo.png")
    publish_id = _publish(api, owner.key, accounts.instagram, media_id).json()["data"]["id"]
    client.force_login(owner.user)

    page = client.get(f"/dashboard/publishes/{publish_id}/").content.decode()

    assert '<span class="media-sent">jpeg rendition (image/jpeg,' in page


@pytest.mark.parametrize("platform", ["x", "bluesky", "threads", "linkedin", "facebook"])
def test_fit_media_is_never_sent_to_a_platform(api, owner, accounts, sandbox, pulled, platform):
    media_id = files.stored_upload(owner.team, files.image("PNG"), "image/png", "photo.png")

    response = _publish(api, owner.key, getattr(accounts, platform), media_id, fit_media=True)

    assert response.status_code == 201, response.json()
    assert _target(api, owner.key, response.json()["data"]["id"])["status"] == "published"
    assert sandbox.state.requests
    assert "fit_media" not in str(list(sandbox.state.requests))


def test_threads_gets_an_h264_rendition_of_an_mpeg4_video(api, owner, accounts, sandbox, pulled, monkeypatch):
    from accounts.platforms.threads import Client as ThreadsClient

    monkeypatch.setattr(ThreadsClient, "poll_seconds", 0.0)
    media_id = files.stored_upload(owner.team, files.encoded(codec="mpeg4"), "video/mp4", "clip.mp4")

    response = _publish(api, owner.key, accounts.threads, media_id)

    target = _target(api, owner.key, response.json()["data"]["id"])
    assert target["status"] == "published", target  # the Threads sandbox fails other codecs
    assert target["media_sent"][0]["rendition"] == "h264-aac-mp4"
    rendition = MediaRendition.objects.get(upload_id=media_id)
    with storage.open_stream(rendition.content_key) as sent:
        assert sandbox_media.video_codec(sent.read()) == "avc1"


def test_the_threads_sandbox_fails_a_video_in_another_codec(
    api, owner, accounts, sandbox, pulled, settings, monkeypatch
):
    from accounts.platforms.threads import Client as ThreadsClient

    monkeypatch.setattr(ThreadsClient, "poll_seconds", 0.0)
    settings.FFPROBE_BINARY = "/nonexistent/ffprobe"  # no probe: the codec is unknown, nothing is fitted
    media_id = files.stored_upload(owner.team, files.encoded(codec="mpeg4"), "video/mp4", "clip.mp4")

    response = _publish(api, owner.key, accounts.threads, media_id)

    target = _target(api, owner.key, response.json()["data"]["id"])
    assert target["status"] == "failed", target
    assert "FAILED_PROCESSING_VIDEO" in target["error"]["message"] + target["error"]["code"]
    assert sandbox.posts("threads") == []


def test_a_thread_items_video_goes_to_threads_as_an_h264_rendition(api, owner, accounts, sandbox, pulled, monkeypatch):
    from accounts.platforms.threads import Client as ThreadsClient

    monkeypatch.setattr(ThreadsClient, "poll_seconds", 0.0)
    media_id = files.stored_upload(owner.team, files.encoded(codec="mpeg4"), "video/mp4", "clip.mp4")
    target = {"account_id": str(accounts.threads.pk), "thread": [{"content": "The clip", "media_ids": [media_id]}]}

    response = api.as_(owner.key).post(URL, {"content": "A thread", "targets": [target]}, format="json")

    assert response.status_code == 201, response.json()
    [item] = _target(api, owner.key, response.json()["data"]["id"])["thread"]
    assert item["status"] == "published", item  # the Threads sandbox fails other codecs
    rendition = MediaRendition.objects.get(upload_id=media_id)
    assert rendition.profile == "h264-aac-mp4"
    with storage.open_stream(rendition.content_key) as sent:
        assert sandbox_media.video_codec(sent.read()) == "avc1"

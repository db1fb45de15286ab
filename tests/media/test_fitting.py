"""Making one fitted rendition (media.fitting): its cost is checked against the budget before
the file is read or a tool started, and Pillow runs in a bounded subprocess, so a decoder
bomb costs that child its memory, never this process."""

from __future__ import annotations

import io
import resource
import stat
import warnings

import pytest
from PIL import Image

from accounts.platforms import formats
from media import fitting, probing, storage
from media.models import MediaRendition, MediaUpload
from publishing.validation import as_media
from tests.media import files

pytestmark = pytest.mark.django_db

MB = 1024 * 1024


@pytest.fixture(autouse=True)
def _media_root(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")


def _upload(team, data: bytes, content_type: str, name: str) -> MediaUpload:
    return MediaUpload.objects.get(pk=files.stored_upload(team, data, content_type, name))


def _bomb(team) -> MediaUpload:
    """A 12000x8000 RGBA PNG of 373 KB (384 MB decoded), confirmed. Pillow warns of its size
    when the confirm reads its header (a warning the test settings make an error)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        return _upload(team, files.png_bomb(12_000, 8_000), "image/png", "bomb.png")


def _peak_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux


def test_an_image_fit_over_the_budget_is_refused_before_the_file_is_read(owner, settings):
    settings.MEDIA_FIT_BUDGET_MEGAPIXELS = 1
    upload = _upload(owner.team, files.image("PNG", (2000, 1000)), "image/png", "wide.png")
    storage.delete(upload.content_key)  # reading it now would be a storage error, not a refusal

    with pytest.raises(fitting.FitFailed) as refused:
        fitting.rendition_for(upload=upload, profile="jpeg")

    assert refused.value.code == "MEDIA_FIT_OVER_BUDGET"
    assert "2 megapixels, over this service's limit of 1" in refused.value.message
    assert not MediaRendition.objects.exists()


def test_a_video_fit_over_the_budget_never_starts_ffmpeg(owner, settings, tmp_path):
    upload = _upload(owner.team, files.encoded(codec="mpeg4", seconds=2, size="320x240"), "video/mp4", "clip.mp4")
    probing.media_probe(upload_id=str(upload.pk))
    upload.refresh_from_db()
    started = tmp_path / "started"
    fake = tmp_path / "ffmpeg"
    fake.write_text(f"#!/bin/sh\necho started >> {started}\nexit 1\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    settings.FFMPEG_BINARY = str(fake)
    settings.MEDIA_FIT_BUDGET_MEGAPIXELS = 1  # 320 x 240 x 25 frames a second x 2 s is 3.84

    with pytest.raises(fitting.FitFailed) as refused:
        fitting.rendition_for(upload=upload, profile="h264-aac-mp4")

    assert refused.value.code == "MEDIA_FIT_OVER_BUDGET"
    assert not started.exists()


def test_an_instagram_fit_of_a_png_bomb_runs_outside_this_process(owner, settings):
    settings.MEDIA_PROCESS_MEMORY_BYTES = 2 * 1024 * MB
    upload = _bomb(owner.team)
    profile = formats.profile_for("instagram", as_media(upload))
    assert profile == "jpeg"
    before = _peak_rss()

    rendition = fitting.rendition_for(upload=upload, profile=profile)

    assert _peak_rss() - before < 100 * MB
    assert (rendition.content_type, rendition.width, rendition.height) == ("image/jpeg", 12_000, 8_000)
    with storage.open_stream(rendition.content_key) as made:
        assert made.read(3) == b"\xff\xd8\xff"


def test_a_png_bomb_over_the_memory_limit_fails_cleanly_with_a_fixed_text(owner, settings):
    settings.MEDIA_PROCESS_MEMORY_BYTES = 256 * MB
    upload = _bomb(owner.team)
    before = _peak_rss()

    with pytest.raises(fitting.FitFailed) as refused:
        fitting.rendition_for(upload=upload, profile="jpeg")

    assert _peak_rss() - before < 100 * MB
    assert refused.value.code == "MEDIA_OUT_OF_MEMORY"
    assert refused.value.message == "Processing the file needed more memory than this service allows."
    assert not MediaRendition.objects.exists()


def test_a_file_pillow_cannot_read_fails_with_a_fixed_text(owner, settings):
    settings.FFPROBE_BINARY = "/nonexistent/ffprobe"
    upload = _upload(owner.team, files.png_header(64, 64), "image/png", "broken.png")

    with pytest.raises(fitting.FitFailed) as refused:
        fitting.rendition_for(upload=upload, profile="jpeg")

    assert refused.value.code == "MEDIA_UNREADABLE"
    assert refused.value.message == "The file could not be read as an image or a video."
    assert upload.content_key not in refused.value.message


def test_a_downscale_keeps_the_aspect_and_flattens_transparency_on_white(owner):
    clear = io.BytesIO()
    Image.new("RGBA", (400, 200), (0, 0, 0, 0)).save(clear, format="PNG")
    upload = _upload(owner.team, clear.getvalue(), "image/png", "clear.png")

    rendition = fitting.rendition_for(upload=upload, profile="jpeg-fit-100x100")

    assert (rendition.width, rendition.height) == (100, 50)
    with storage.open_stream(rendition.content_key) as made, Image.open(made) as image:
        assert (image.format, image.mode, image.size) == ("JPEG", "RGB", (100, 50))
        assert min(image.getpixel((50, 25))) > 250  # white, not the black of the hidden colour

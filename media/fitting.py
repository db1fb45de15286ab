"""Fitted renditions: a copy of an upload a platform takes when it refuses the file as it is
(a JPEG of a PNG, a downscale, an H.264/AAC MP4 of another video). Made in the deliver task,
before the platform is called, once per (upload, profile) and reused by every later target
and publish; the upload's own bytes are never touched.

Profiles are the names `accounts.platforms.formats` gives: "jpeg" and "jpeg-fit-WxH" are made
with Pillow (its decompression-bomb guard set to the service's pixel cap), the "h264-aac-mp4"
ones by ffmpeg as a bounded subprocess (`media.processing.run`). Two workers making the same
rendition at once each write their own key; the unique (upload, profile) row decides which one
stays, and the other's file is deleted.
"""

from __future__ import annotations

import os
import secrets
import tempfile

from django.conf import settings
from django.db import IntegrityError, transaction
from PIL import Image, ImageOps

from accounts.platforms.formats import box_of
from media import processing, storage
from media.models import MediaRendition, MediaUpload

JPEG_QUALITY = 85


class FitFailed(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def rendition_for(*, upload: MediaUpload, profile: str) -> MediaRendition:
    """The upload's rendition for `profile`, made now unless it exists. FitFailed when it
    cannot be made (the file does not decode, a bound was hit, the tools are missing)."""
    existing = MediaRendition.objects.filter(upload=upload, profile=profile).first()
    if existing is not None:
        return existing
    with tempfile.TemporaryDirectory(prefix="fit-") as folder:
        made = os.path.join(folder, "out.mp4" if profile.startswith("h264") else "out.jpg")
        with storage.local_path(upload.content_key) as source:
            facts = _make(profile, source, made)
        return _store(upload, profile, made, facts)


def _make(profile: str, source: str, made: str) -> tuple[str, int | None, int | None, float | None]:
    """Write the rendition to `made`; (content type, width, height, duration)."""
    try:
        if profile.startswith("jpeg"):
            return _jpeg(source, made, box_of(profile))
        if profile.startswith("h264-aac-mp4"):
            return _h264(source, made, box_of(profile))
    except processing.ProcessingError as exc:
        raise FitFailed(exc.message) from exc
    raise FitFailed(f"no such rendition profile: {profile}")


def _jpeg(source: str, made: str, box: tuple[int, int] | None) -> tuple[str, int | None, int | None, float | None]:
    Image.MAX_IMAGE_PIXELS = settings.MEDIA_MAX_PIXELS  # past twice this, Pillow refuses to decode
    try:
        with Image.open(source) as image:
            image.seek(0)  # the first frame of an animation
            picture = ImageOps.exif_transpose(image)
            if picture.mode in ("RGBA", "LA", "P"):
                picture = picture.convert("RGBA")
                flat = Image.new("RGB", picture.size, (255, 255, 255))
                flat.paste(picture, mask=picture.getchannel("A"))
                picture = flat
            picture = picture.convert("RGB")
            if box:
                picture.thumbnail(box, Image.Resampling.LANCZOS)
            picture.save(made, "JPEG", quality=JPEG_QUALITY, optimize=True)
            return "image/jpeg", picture.width, picture.height, None
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        raise FitFailed(f"the image could not be converted to JPEG: {exc}") from exc


def _h264(source: str, made: str, box: tuple[int, int] | None) -> tuple[str, int | None, int | None, float | None]:
    if not processing.available(settings.FFMPEG_BINARY):
        raise FitFailed("ffmpeg is not installed on this machine")
    # Within the box (when given), keeping the aspect ratio; H.264 in 4:2:0 needs even sides.
    scale = f"scale='min(iw,{box[0]})':'min(ih,{box[1]})':force_original_aspect_ratio=decrease," if box else ""
    args = [
        settings.FFMPEG_BINARY, "-nostdin", "-v", "error", "-y", "-i", source,
        "-map", "0:v:0", "-map", "0:a:0?", "-sn", "-dn", "-map_metadata", "-1",
        "-vf", f"{scale}scale=trunc(iw/2)*2:trunc(ih/2)*2", "-fpsmax", "60",
        "-c:v", "libx264", "-preset", "veryfast", "-profile:v", "high", "-pix_fmt", "yuv420p",
        "-c:a", "aac", "-b:a", "128k", "-ar", "48000", "-ac", "2",
        "-movflags", "+faststart", "-f", "mp4", made,
    ]  # fmt: skip
    processing.run(args, timeout=settings.MEDIA_FIT_TIMEOUT_SECONDS)  # its warnings are no failure
    found = processing.probe(made)
    return "video/mp4", found.width, found.height, found.duration_seconds


def _store(
    upload: MediaUpload, profile: str, made: str, facts: tuple[str, int | None, int | None, float | None]
) -> MediaRendition:
    content_type, width, height, duration = facts
    key = f"{upload.storage_key}.{profile}-{secrets.token_hex(4)}"
    size = storage.write_file(key, made)
    try:
        with transaction.atomic():
            return MediaRendition.objects.create(
                upload=upload,
                profile=profile,
                content_key=key,
                content_type=content_type,
                size_bytes=size,
                width=width,
                height=height,
                duration_seconds=duration,
            )
    except IntegrityError:  # another worker made it first: keep theirs
        storage.delete(key)
        return MediaRendition.objects.get(upload=upload, profile=profile)

"""Running Debian's ffprobe and ffmpeg on stored media, in a worker, never in a web thread.

Every run is a subprocess with three bounds: a wall clock (`subprocess.run(timeout=...)` kills
the child when it passes), CPU seconds and address space, set before the tool starts by
util-linux's `prlimit` wrapping it (no Python code runs between fork and exec, which matters in
the dispatch worker's threads), or by `resource.setrlimit` in the child where `prlimit` is
missing. A hostile file (a decoder bomb, a header claiming 100000x100000 pixels, a
truncated box that makes a demuxer spin) can therefore cost at most those, and ends as a
`ProcessingError`. What it tells a user is a fixed text for its code (`MESSAGES`): the tool's
own words name server paths and heap addresses ("[gif @ 0x55d0...]"), so they go to the log
only.

`probe()` reads what ffprobe finds (`-show_format -show_streams`) into a `Probed`; the caps
of `refusal()` (dimensions, pixels, duration) apply to those facts whatever the platform.
"""

from __future__ import annotations

import json
import logging
import math
import os
import resource
import shutil
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from django.conf import settings

logger = logging.getLogger(__name__)

# What a user is told of a file a tool could not handle, by code.
MESSAGES = {
    "MEDIA_UNREADABLE": "The file could not be read as an image or a video.",
    "MEDIA_PROCESSING_TIMEOUT": "Processing the file took longer than this service allows.",
    "MEDIA_OUT_OF_MEMORY": "Processing the file needed more memory than this service allows.",
    "MEDIA_TOOLS_MISSING": "This server cannot process media files: its media tools are not installed.",
}


class ProcessingError(Exception):
    """A tool failed, was killed at a bound, or is not installed. `code` is stable; `message`
    is fit to show (the fixed text of the code unless given); `detail` is what the tool said,
    for the log."""

    def __init__(self, code: str, message: str = "", *, detail: str = "") -> None:
        self.code = code
        self.message = message or MESSAGES.get(code) or MESSAGES["MEDIA_UNREADABLE"]
        self.detail = detail or self.message
        super().__init__(self.message)


def public_message(code: str, message: str) -> str:
    """The text a user is shown for a stored error: the fixed one of its code when it has one
    (a row written before messages were fixed may hold a tool's own words)."""
    return MESSAGES.get(code, message)


@dataclass(frozen=True)
class Probed:
    container: str  # ffprobe's format_name, e.g. "mov,mp4,m4a,3gp,3g2,mj2" or "png_pipe"
    video_codec: str  # the picture's codec: "h264", "hevc", "mpeg4", "png", "mjpeg"...
    audio_codec: str
    width: int | None
    height: int | None
    duration_seconds: float | None
    frame_rate: float | None
    bit_rate: int | None
    aspect_ratio: float | None  # displayed width / height


def available(binary: str) -> bool:
    return shutil.which(binary) is not None


def _limits(cpu_seconds: int, memory_bytes: int) -> Callable[[], None]:
    def apply() -> None:  # in the child, before exec
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply


def run(args: Sequence[str], *, timeout: float, exit_codes: Mapping[int, str] | None = None) -> tuple[bytes, str]:
    """Run `args` within the bounds; its stdout and the errors it wrote, or ProcessingError
    naming what went wrong when it failed (`exit_codes`: the code of each exit status the
    program gives a meaning; any other failure is MEDIA_UNREADABLE)."""
    cpu = max(1, math.ceil(timeout * (os.cpu_count() or 1)))  # ffmpeg's threads share the budget
    memory = settings.MEDIA_PROCESS_MEMORY_BYTES
    if not available(args[0]):  # said plainly here, not as the wrapper's failure to start it
        raise _failed("MEDIA_TOOLS_MISSING", f"{args[0]} cannot run: it is not installed")
    wrapper = shutil.which("prlimit")
    command = list(args)
    if wrapper is not None:
        command = [wrapper, f"--cpu={cpu}:{cpu + 1}", f"--as={memory}:{memory}", "--core=0:0", "--", *command]
    try:
        done = subprocess.run(  # noqa: S603 (fixed binaries, arguments never pass through a shell)
            command,
            capture_output=True,
            timeout=timeout,
            check=False,
            stdin=subprocess.DEVNULL,
            preexec_fn=None if wrapper is not None else _limits(cpu, memory),
        )
    except subprocess.TimeoutExpired as exc:
        raise _failed("MEDIA_PROCESSING_TIMEOUT", f"{args[0]} did not finish within {timeout:g} s") from exc
    except OSError as exc:
        raise _failed("MEDIA_TOOLS_MISSING", f"{args[0]} cannot run: {exc}") from exc
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        reason = lines[-1] if lines else f"killed by signal {-done.returncode}" if done.returncode < 0 else "failed"
        code = (exit_codes or {}).get(done.returncode, "MEDIA_UNREADABLE")
        raise _failed(code, f"{args[0]}: {reason[:300]}")
    return done.stdout, done.stderr.decode("utf-8", "replace").strip()


def _failed(code: str, detail: str) -> ProcessingError:
    logger.warning("Media processing failed (%s): %s", code, detail)
    return ProcessingError(code, detail=detail)


def probe(path: str) -> Probed:
    """What ffprobe finds in the file at `path`. ProcessingError when it cannot read it."""
    args = [settings.FFPROBE_BINARY, "-v", "error", "-print_format", "json", "-show_format", "-show_streams", path]
    output, errors = run(args, timeout=settings.MEDIA_PROBE_TIMEOUT_SECONDS)
    try:
        found = parse(json.loads(output))
    except ValueError as exc:
        raise _failed("MEDIA_UNREADABLE", "ffprobe gave no readable answer") from exc
    # A picture ffprobe could not decode (a broken chunk, an impossible size) still exits 0;
    # its errors, and a picture without dimensions, say the file is not usable.
    if errors and (found.duration_seconds is None or not found.width):
        raise _failed("MEDIA_UNREADABLE", f"ffprobe: {errors.splitlines()[-1][:300]}")
    if found.video_codec and not (found.width and found.height):
        raise _failed("MEDIA_UNREADABLE", "ffprobe found a picture without dimensions")
    return found


def parse(found: Mapping[str, Any]) -> Probed:
    streams = [s for s in found.get("streams") or [] if isinstance(s, dict)]
    fmt = found.get("format") or {}
    picture = next((s for s in streams if s.get("codec_type") == "video"), None)
    sound = next((s for s in streams if s.get("codec_type") == "audio"), None)
    if picture is None and sound is None:
        raise _failed("MEDIA_UNREADABLE", "ffprobe found no picture or sound in the file")
    width, height = _int((picture or {}).get("width")), _int((picture or {}).get("height"))
    still = picture is not None and str(fmt.get("format_name", "")).endswith(("_pipe", "image2"))
    return Probed(
        container=str(fmt.get("format_name", ""))[:60],
        video_codec=str((picture or {}).get("codec_name", ""))[:30],
        audio_codec=str((sound or {}).get("codec_name", ""))[:30],
        width=width,
        height=height,
        duration_seconds=None if still else _float(fmt.get("duration") or (picture or {}).get("duration")),
        frame_rate=None if still else _rate((picture or {}).get("avg_frame_rate")),
        bit_rate=_int(fmt.get("bit_rate")),
        aspect_ratio=_aspect(picture, width, height),
    )


def refusal(probed: Probed) -> ProcessingError | None:
    """Why the file is refused whatever the platform: too many pixels or too long to handle."""
    return caps_refusal(probed.width, probed.height, probed.duration_seconds)


def caps_refusal(width: int | None, height: int | None, duration: float | None) -> ProcessingError | None:
    side, pixels = settings.MEDIA_MAX_DIMENSION, settings.MEDIA_MAX_PIXELS
    if width and height and (max(width, height) > side or width * height > pixels):
        message = f"{width}x{height} is over the limit of {side} px a side and {pixels // 1_000_000} megapixels"
        return ProcessingError("MEDIA_DIMENSIONS_TOO_LARGE", message)
    if duration is not None and duration > settings.MEDIA_MAX_DURATION_SECONDS:
        limit = settings.MEDIA_MAX_DURATION_SECONDS
        return ProcessingError("MEDIA_DURATION_TOO_LONG", f"{duration:g} s is over the limit of {limit:g} s")
    return None


def _int(value: object) -> int | None:
    try:
        number = int(str(value))
    except ValueError:
        return None
    return number if number > 0 else None


def _float(value: object) -> float | None:
    try:
        number = float(str(value))
    except ValueError:
        return None
    return round(number, 3) if math.isfinite(number) and number > 0 else None


def _rate(value: object) -> float | None:
    try:
        rate = Fraction(str(value))
    except (ValueError, ZeroDivisionError):
        return None
    return round(float(rate), 3) if rate > 0 else None


def _aspect(picture: Mapping[str, Any] | None, width: int | None, height: int | None) -> float | None:
    if not width or not height:
        return None
    try:
        sample = Fraction(str((picture or {}).get("sample_aspect_ratio", "1:1")).replace(":", "/"))
    except (ValueError, ZeroDivisionError):
        sample = Fraction(1)
    return round(float(width * (sample or 1) / height), 4)

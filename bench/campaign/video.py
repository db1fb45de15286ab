"""Text posts beside video uploads (issue 33): the text posts' create -> published p99.

VIDEOS publishes of one VIDEO_BYTES video each (a real clip padded to size, made once under
var/bench/) go to X, whose video limit (512 MB) takes them, while
the sandbox reads every upload at 10 MB/s and answers every call 1 s late. The videos are
uploaded and confirmed through the API first; then their publishes are created, and at once
text publishes (Bluesky and LinkedIn) arrive through the API at TEXT_RATE a second for
TEXT_SECONDS (an open model: a slow answer does not slow the arrivals). Not X: its 100 posts
per 15 minutes per account would have the service pace the 20 videos and 120 texts of one X
account (accounts.pacing), which is right, but not what this figure measures. The service runs as `make run`
starts it (web, every Celery worker of the Procfile, beat). The figure is the p99 from a text
create's scheduled arrival to its last target's `published_at`; a text publish not published
VIDEO_CAP seconds after the last create counts with its wait so far (the p99 is then a floor).
"""

from __future__ import annotations

import math
import secrets
import shutil
import struct
import subprocess
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import requests

from bench.campaign.stack import MB, QUICK, Run, Sizes, open_run, start_service
from bench.common import ROOT, Figure, Stack
from bench.publish_throughput import CREATES_PER_KEY, _create, _pct
from bench.workers.rate import _open_model
from bench.workers.stack import quit_now

LATENCY_SECONDS = 1
UPLOAD_BYTES_PER_SECOND = 10 * MB
VIDEO_SECONDS = 60  # what the file's `mvhd` says: within X's 140 s
UPLOADS_AT_ONCE = 2
# Before issue 33's work (commit a44d996, 2 cores), the full sizes: p50 385.8 s, all 120 published.
BEFORE_P99_S: float | None = 386.3


def _box(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I4s", 8 + len(payload), kind) + payload


def _clip() -> bytes:
    """A real H.264/AAC MP4 of VIDEO_SECONDS with its `moov` first, from ffmpeg's test sources;
    without ffmpeg (then without ffprobe to probe it too) a bare head that passes the sniff."""
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        mvhd = _box(b"mvhd", b"\x00" * 12 + struct.pack(">II", 1000, VIDEO_SECONDS * 1000) + b"\x00" * 80)
        picture = _box(b"trak", _box(b"tkhd", b"\x00" * 76 + struct.pack(">II", 1280 << 16, 720 << 16)))
        return _box(b"ftyp", b"isom\x00\x00\x02\x00isommp41") + _box(b"moov", mvhd + picture)
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "clip.mp4"
        sources = [f"testsrc=size=640x360:rate=10:duration={VIDEO_SECONDS}", f"sine=duration={VIDEO_SECONDS}"]
        subprocess.run(  # noqa: S603 - ffmpeg on our own arguments
            [ffmpeg, "-v", "error", *[a for s in sources for a in ("-f", "lavfi", "-i", s)], "-c:v", "libx264",
             "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-movflags", "+faststart", str(out)],
            check=True,
        )  # fmt: skip
        return out.read_bytes()


def video_file(size: int) -> Path:
    """An MP4 of exactly `size` bytes: a VIDEO_SECONDS clip padded by a `free` box (a hole on
    disk), made once and kept under var/bench/."""
    path = ROOT / "var" / "bench" / f"video-{size}{'' if shutil.which('ffmpeg') else '-bare'}.mp4"
    if path.exists() and path.stat().st_size == size:
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    clip = _clip()
    with path.open("wb") as out:
        out.write(clip + struct.pack(">I4s", size - len(clip), b"free"))
        out.truncate(size)
    return path


def _api(run: Run, key: str, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
    answer = requests.request(
        method,
        f"http://127.0.0.1:{run.web_port}/api/v1/{path}",
        headers={"Authorization": f"Bearer {key}"},
        timeout=120,
        **kwargs,
    )
    if answer.status_code not in (200, 201):
        raise RuntimeError(f"{method} /api/v1/{path} answered {answer.status_code}: {answer.text[:500]}")
    data: dict[str, Any] = answer.json()["data"]
    return data


def _upload(run: Run, key: str, path: Path) -> str:
    """A ready media id: created, PUT, confirmed through the API."""
    size = path.stat().st_size
    made = _api(
        run, key, "POST", "media/uploads", json={"filename": path.name, "content_type": "video/mp4", "size_bytes": size}
    )
    with path.open("rb") as body:
        put = requests.put(made["upload_url"], data=body, headers=made["headers"], timeout=600)
    if put.status_code != 200:
        raise RuntimeError(f"PUT of the video answered {put.status_code}: {put.text[:500]}")
    return str(_api(run, key, "POST", f"media/uploads/{made['id']}/confirm")["id"])


def figures(sizes: Sizes) -> list[Figure]:
    with open_run("video") as run:
        tag = f"video {secrets.token_hex(3)}"
        key, accounts = run.seed["keys"]["acme_owner"], run.seed["accounts"]["acme"]
        count = int(sizes.text_rate * sizes.text_seconds)
        keys = run.helper("make_keys", team=run.team, n=math.ceil(count / CREATES_PER_KEY))
        stack = Stack(logs=run.logs, env=run.env)
        try:
            start_service(run, stack, web=True)
            file = video_file(sizes.video_bytes)
            with ThreadPoolExecutor(UPLOADS_AT_ONCE) as pool:
                media = list(pool.map(lambda _: _upload(run, key, file), range(sizes.videos)))
            run.sandbox("latency", {"seconds": LATENCY_SECONDS, "upload_bytes_per_second": UPLOAD_BYTES_PER_SECOND})
            videos = [_create(run.web_port, key, _video_payload(tag, n, m, accounts["x"])) for n, m in enumerate(media)]
            if refused := [v for v in videos if v.status != 201]:
                raise RuntimeError(f"{len(refused)} video creates refused: {refused[0].body[:300]!r}")
            arrivals = _open_model(
                run.web_port, keys, [accounts["bluesky"], accounts["linkedin"]], f"{tag} text", sizes.text_rate, count
            )
            if refused := [c for c in arrivals.creates if c.status != 201]:
                raise RuntimeError(f"{len(refused)} text creates refused: {refused[0].body[:300]!r}")
            deadline = time.time() + sizes.video_cap
            rows = run.helper("watch", ids=[c.publish_id for c in arrivals.creates], wait=sizes.video_cap)
            watched = run.helper("watch", ids=[v.publish_id for v in videos], wait=0)
            quit_now(stack)  # what still uploads changes nothing the figure reads
        finally:
            stack.stop()
            run.helper("drop_media", team=run.team)
        posts = _check_posts(run, f"{tag} text", rows)
    latencies = [
        (max(t["published_at"] for t in row["targets"]) if row["status"] == "published" else deadline) - c.sent
        for c in arrivals.creates
        for row in [rows[str(c.publish_id)]]
    ]
    published = sum(r["status"] == "published" for r in rows.values())
    p99 = _pct(latencies, 99)
    return [
        Figure(
            name=(
                f"text create -> published beside {sizes.videos} videos of {sizes.video_bytes // MB} MB "
                f"(uploads read at {UPLOAD_BYTES_PER_SECOND // MB} MB/s, 1 s latency)"
            ),
            value=round(p99, 2),
            unit="s",
            goal="p99 <= 3 s",
            met=p99 <= 3 and published == len(rows),
            extra={
                "text_publishes": len(rows),
                "text_published": published,
                "p99_is_a_floor": published < len(rows),
                "p50_s": round(_pct(latencies, 50), 2),
                "max_s": round(max(latencies), 2),
                "text_rate_per_s": sizes.text_rate,
                "arrival_seconds": round(arrivals.seconds, 1),
                "videos_published_by_then": sum(r["status"] == "published" for r in watched.values()),
                "video_states": dict(Counter(r["status"] for r in watched.values())),
                "sandbox_posts": posts,
                "before": BEFORE_P99_S,
                "quick": sizes is QUICK,
            },
        )
    ]


def _video_payload(tag: str, n: int, media_id: str, account: str) -> dict[str, Any]:
    return {
        "content": f"Bench {tag} video: {n}",
        "media_ids": [media_id],
        "targets": [{"account_id": account}],
        "publish_mode": "immediate",
    }


def _check_posts(run: Run, tag: str, rows: dict[str, Any]) -> int:
    """One sandbox post per published text target; a target still sending may have one too."""
    posts = [p for p in run.sandbox("posts")["posts"] if p["text"].startswith(f"Bench {tag}: ")]
    copies = Counter((p["platform"], p["text"]) for p in posts)
    states = Counter(t["state"] for r in rows.values() for t in r["targets"])
    published, in_flight = states["published"], states["sending"] + states["unknown"]
    if max(copies.values(), default=1) > 1 or not published <= len(posts) <= published + in_flight:
        raise RuntimeError(f"the sandbox holds {len(posts)} posts ({len(copies)} distinct) for {published} published")
    if any(t["attempts"] > 1 for r in rows.values() for t in r["targets"]):
        raise RuntimeError("a text target was attempted more than once")
    return len(posts)

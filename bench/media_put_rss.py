"""Peak memory of the web process while it receives a large local upload.

Starts the real web server (gunicorn, as `make run` does) on a scratch SQLite database, creates
an upload of SIZE_MB, PUTs the bytes to its upload_url, and reads the serving worker's peak
resident set (VmHWM) from /proc before and after. A file that streams to disk leaves the peak
about where it was; one buffered in memory would raise it by at least its size.

The limit (100 MB) applies to what the PUT adds to the worker's peak. The worker's resident
set before any upload (about 100 MB with the development dependencies installed: Django,
DRF with Pygments, drf-spectacular, Celery) is printed beside it but is the cost of the
imports, not of uploads.

    .venv/bin/python bench/media_put_rss.py [SIZE_MB]     # default 200
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
LIMIT_MB = 100


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM")


def _worker_pid(master: int) -> int:
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    return int(children[0])


def _wait_for_health(port: int) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if requests.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code == 200:
                return
        except requests.ConnectionError:
            pass
        time.sleep(0.1)
    raise RuntimeError("the server did not start")


def _setup(env: dict[str, str]) -> tuple[str, dict[str, str]]:
    """Migrate the scratch database and create an upload; returns its URL and headers."""
    script = (
        "import json, os\n"
        "from django.contrib.auth.models import User\n"
        "from media import services\n"
        "from teams.services import team_create\n"
        "team = team_create(name='bench', owner=User.objects.create(username='bench'))\n"
        "upload = services.media_create(team=team, user=None, filename='big.mp4', content_type='video/mp4',"
        " size_bytes=int(os.environ['BENCH_SIZE']))\n"
        "url, headers = services.upload_url(upload)\n"
        "print(json.dumps({'url': url, 'headers': headers}))\n"
    )
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "-v0"], cwd=ROOT, env=env, check=True)  # noqa: S603
    out = subprocess.run(  # noqa: S603
        [*manage, "shell", "-c", script], cwd=ROOT, env=env, check=True, capture_output=True, text=True
    ).stdout
    import json

    data = json.loads(out.strip().splitlines()[-1])
    return data["url"], data["headers"]


def main(size_mb: int) -> int:
    size = size_mb * 1024 * 1024
    port = _free_port()
    with tempfile.TemporaryDirectory() as scratch:
        env = {
            **os.environ,
            "DATABASE_URL": f"sqlite:///{scratch}/bench.sqlite3",
            "PUBLIC_BASE_URL": f"http://127.0.0.1:{port}",
            "BENCH_SIZE": str(size),
        }
        env.pop("REDIS_URL", None)
        env.pop("AWS_STORAGE_BUCKET_NAME", None)
        url, headers = _setup(env)
        body = Path(scratch) / "body.bin"
        with body.open("wb") as handle:  # sparse: costs no disk until written
            handle.truncate(size)
        server = subprocess.Popen(  # noqa: S603
            [
                str(ROOT / ".venv/bin/gunicorn"),
                "config.wsgi",
                "--bind",
                f"127.0.0.1:{port}",
                "--workers",
                "1",
                "--threads",
                "4",
                "--timeout",
                "300",
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            _wait_for_health(port)
            worker = _worker_pid(server.pid)
            before = _peak_rss_mb(worker)
            started = time.monotonic()
            with body.open("rb") as handle:
                response = requests.put(url, data=handle, headers=headers, timeout=600)
            elapsed = time.monotonic() - started
            after = _peak_rss_mb(worker)
        finally:
            server.terminate()
            server.wait(timeout=30)
    print(f"PUT {size_mb} MB: HTTP {response.status_code} in {elapsed:.1f} s ({size_mb / elapsed:.0f} MB/s)")
    added = after - before
    print(f"web worker peak RSS: {before:.1f} MB before the PUT, {after:.1f} MB after: the PUT added {added:.1f} MB")
    ok = response.status_code == 200 and added < LIMIT_MB
    print("OK" if ok else f"FAIL: the PUT must succeed and add less than {LIMIT_MB} MB to the peak")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 200))

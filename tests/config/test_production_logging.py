"""Query strings (signed media URLs, OAuth codes) stay out of the logs: the web server's access
log format of both Procfiles, run for real by gunicorn, and Django's own request log."""

from __future__ import annotations

import logging
import re
import selectors
import shlex
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from django.conf import settings

BASE_DIR = Path(settings.BASE_DIR)
PROCFILES = ("Procfile", "Procfile.production")


def _web_args(procfile: str) -> list[str]:
    line = next(line for line in (BASE_DIR / procfile).read_text().splitlines() if line.startswith("web:"))
    return shlex.split(line.removeprefix("web:"))


def _access_log_format(procfile: str) -> str:
    args = _web_args(procfile)
    return args[args.index("--access-logformat") + 1]


def _processes(procfile: str) -> set[str]:
    lines = (BASE_DIR / procfile).read_text().splitlines()
    return {line.split(":", 1)[0] for line in lines if line.strip() and not line.startswith("#")}


@pytest.mark.parametrize("procfile", PROCFILES)
def test_the_access_log_format_has_the_path_but_no_query_and_no_referrer(procfile):
    log_format = _access_log_format(procfile)

    assert "%(U)s" in log_format
    for atom in ("%(r)s", "%(q)s", "%(f)s", "{referer}i"):
        assert atom not in log_format


def test_production_starts_no_sandbox_and_development_does():
    assert _processes("Procfile") == _processes("Procfile.production") | {"sandbox", "welcome"}  # make run
    assert "sandbox" not in _processes("Procfile.production")
    assert _access_log_format("Procfile") == _access_log_format("Procfile.production")


APP = """
def application(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain"), ("X-Request-ID", "req_logged")])
    return [b"ok"]
"""


def _wait_for_listening(process: subprocess.Popen[bytes], deadline: float) -> int:
    """The port gunicorn bound, read from its error log as it starts (no fixed wait)."""
    assert process.stderr is not None
    seen = b""
    with selectors.DefaultSelector() as selector:
        selector.register(process.stderr, selectors.EVENT_READ)
        while time.monotonic() < deadline:
            if not selector.select(timeout=deadline - time.monotonic()):
                break
            chunk = process.stderr.read1(4096)
            if not chunk:
                break
            seen += chunk
            if found := re.search(rb"Listening at: http://127\.0\.0\.1:(\d+)", seen):
                return int(found.group(1))
    raise AssertionError(f"gunicorn did not start: {seen.decode(errors='replace')}")


def test_gunicorn_logs_requests_without_their_query_string(tmp_path):
    (tmp_path / "probe_app.py").write_text(APP)
    log = tmp_path / "access.log"
    gunicorn = str(Path(sys.executable).with_name("gunicorn"))
    command = [gunicorn, "--chdir", str(tmp_path), "--bind", "127.0.0.1:0", "--no-control-socket", "--workers", "1"]
    command += ["--access-logfile", str(log), "--access-logformat", _access_log_format("Procfile.production")]
    process = subprocess.Popen([*command, "probe_app:application"], stderr=subprocess.PIPE)  # noqa: S603
    try:
        port = _wait_for_listening(process, time.monotonic() + 60)
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/dashboard/accounts/callback/x/?code=oauth-code-secret&state=s",
            headers={"Referer": "http://127.0.0.1/media/files/1?signature=referer-secret"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
            assert response.status == 200
    finally:
        # A graceful stop lets the worker finish (and log) the request it served.
        process.terminate()
        process.wait(timeout=60)

    lines = [line for line in log.read_text().splitlines() if "/dashboard/accounts/callback/x/" in line]
    assert len(lines) == 1
    assert '"GET /dashboard/accounts/callback/x/ HTTP/1.1" 200' in lines[0]
    assert "req_logged" in lines[0]
    assert "secret" not in lines[0]
    assert "?" not in lines[0]


@pytest.mark.django_db
def test_djangos_request_log_names_the_path_without_the_query(client, caplog):
    with caplog.at_level(logging.INFO):
        response = client.get("/dashboard/nowhere/?code=oauth-code-secret")

    assert response.status_code == 404
    assert "/dashboard/nowhere/" in caplog.text
    assert "secret" not in caplog.text

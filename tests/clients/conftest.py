"""The stack `make run` starts (tests/long/stack.py: web, workers, beat and the sandbox on a
scratch PostgreSQL database and a private redis-server), started once for the client's tests,
and a way to run the installed `socialpub` command against it as a user would."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.long.stack import LiveStack, _scratch_server_url, live_stack

SOCIALPUB = Path(sys.executable).parent / "socialpub"
# The command runs this checkout's package, whichever checkout the environment installed.
SOURCE = Path(__file__).resolve().parents[2] / "clients" / "python" / "src"


@dataclass
class Ran:
    code: int
    out: str
    err: str


Socialpub = Callable[..., Ran]


def _postgres_answers() -> bool:
    server = urlsplit(_scratch_server_url())
    try:
        socket.create_connection((server.hostname or "127.0.0.1", server.port or 5432), timeout=2).close()
    except OSError:
        return False
    return True


@pytest.fixture(scope="session")
def stack() -> Iterator[LiveStack]:
    # In CI (CI set) a missing piece fails the run instead of skipping the client's tests.
    missing = pytest.fail if os.environ.get("CI") else pytest.skip
    if not SOCIALPUB.exists():
        missing("the socialpub command is not installed: run `make install`")
    if shutil.which("redis-server") is None or not _postgres_answers():
        missing("the live stack needs PostgreSQL (DATABASE_URL's server) and redis-server")
    with live_stack() as running:
        yield running
        running.keep_logs = False


def run_socialpub(*args: str, url: str, key: str | None, timeout: float = 60, stdin: str = "") -> Ran:
    """`socialpub ARGS` in a subprocess, configured through the environment as a user would."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("SOCIALPUB_")}
    env["SOCIALPUB_URL"] = url
    env["PYTHONPATH"] = str(SOURCE)
    if key:
        env["SOCIALPUB_API_KEY"] = key
    done = subprocess.run(  # noqa: S603
        [str(SOCIALPUB), *args], env=env, input=stdin, capture_output=True, text=True, timeout=timeout, check=False
    )
    return Ran(done.returncode, done.stdout, done.stderr)


@pytest.fixture(scope="session")
def socialpub(stack: LiveStack) -> Socialpub:
    """`socialpub(*args, key=...)` against the stack, with the acme owner's key unless given."""

    def run(*args: str, key: str | None = None, timeout: float = 60) -> Ran:
        return run_socialpub(*args, url=stack.url, key=key or stack.seed["keys"]["acme_owner"], timeout=timeout)

    return run

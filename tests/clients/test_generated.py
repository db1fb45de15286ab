"""The committed client (clients/python: openapi.json and socialpub/_generated) is what
`make client` makes from the API as it is now: change the API, then run `make client`."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

GENERATE = Path(__file__).resolve().parents[2] / "clients" / "python" / "generate.py"


def test_committed_client_matches_the_current_api() -> None:
    if shutil.which("openapi-python-client", path=str(Path(sys.executable).parent)) is None:
        pytest.skip("openapi-python-client is not installed: run `make install`")
    done = subprocess.run(  # noqa: S603
        [sys.executable, str(GENERATE), "--check"], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]

"""Fixtures the platform clients' tests share."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture
def patient(sandbox: Any, settings: Any) -> None:
    """A platform read timeout of 10 s instead of the sandbox fixture's 1 s, for tests that send
    dozens of requests in a row and are not about timeouts: on a loaded machine one request of
    them may take over a second, which would make it a timed-out (unknown) publish."""
    settings.PLATFORM_TIMEOUT_SECONDS = 10.0

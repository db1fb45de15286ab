"""The live stack every long suite runs against (tests/long/stack.py), started once per module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.long.stack import LiveStack, live_stack


@pytest.fixture(scope="module")
def stack() -> Iterator[LiveStack]:
    with live_stack() as running:
        yield running

"""Mixed load on the whole stack: locust (tests/long/locustfile.py) drives creates of every
mode, reads, lists, media uploads, retries and approvals through several keys of three teams for
LONG_LOAD_SECONDS (90 by default) while the sandbox answers ok, error, rate_limited, timeout
and processing, and a local receiver takes every webhook. Once the queues have drained, the
checker (tests/long/checker.py) finds nothing lost and nothing sent twice, and no request got a
5xx. The figures are printed at the end (`make test-long` shows them).

The soak (README, Reliability) is this suite run for an hour: LONG_LOAD_SECONDS=3600, with
LONG_SOAK_REPORT naming a file that gets the processes' memory and the bounded tables' sizes
every minute (tests/long/soak.py)."""

from __future__ import annotations

import os

import pytest

from tests.long.load import USERS, assert_held, figures, run_load
from tests.long.soak import soak_watch
from tests.long.stack import LiveStack

pytestmark = pytest.mark.long

LOAD_SECONDS = int(os.environ.get("LONG_LOAD_SECONDS", "90"))


def test_mixed_load_loses_nothing_sends_nothing_twice_and_never_answers_5xx(stack: LiveStack) -> None:
    with soak_watch(stack, os.environ.get("LONG_SOAK_REPORT")):
        run = run_load(stack, LOAD_SECONDS)
    print(f"\nMixed load, {USERS} clients for {LOAD_SECONDS} s:\n{figures(run)}")

    assert_held(stack, run)
    # The platforms' bad answers reached the workers: refusals, and answers that never came.
    assert run.report.counts["attempts failed"] > 0
    assert run.report.counts["attempts seen unknown"] > 0, "no attempt was ever unknown: no sandbox timeout happened"
    stack.keep_logs = False

"""Plan usage counted by the apps above teams.

GET /api/v1/usage shows counters that other apps keep (connected accounts, media storage).
Each app registers a counter under the name the usage answer gives it, in its
`AppConfig.ready()`; `count` asks them all. A counter nobody registered is missing from the
result, and `usage_for` fails rather than report it as zero.
"""

from __future__ import annotations

from typing import Protocol

from config.registry import Registry
from teams.models import Team


class UsageCounter(Protocol):
    def __call__(self, *, team: Team) -> int: ...


counters: Registry[tuple[str, UsageCounter]] = Registry()


def register(name: str, counter: UsageCounter) -> None:
    counters.register((name, counter))


def count(*, team: Team) -> dict[str, int]:
    return {name: counter(team=team) for name, counter in counters}

"""How deleting a team reaches the rows of the apps above teams.

`team_delete` moves a team's content to another team in one transaction, but the content
belongs to other apps. Each of them owns a `move_to_team(*, source, target)` service and
registers it here in its `AppConfig.ready()`; `move_to_team` below runs them all inside the
caller's transaction, after the caller has locked both team rows.

A mover returns what it did as named counts (`moved_accounts`, `removed_webhooks`...), which
`team_delete` reports; a count nobody returned fails the deletion, and so rolls it back, rather
than letting an unregistered app's rows go with the deleted team. Movers run in ascending
`order`: accounts (10) first, as merging an account into the target's twin re-points the
publishing targets that use it; then publishing (20), media (30) and webhooks (40).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from config.registry import Registry
from teams.models import Team


class TeamMover(Protocol):
    def __call__(self, *, source: Team, target: Team) -> Mapping[str, int]: ...


movers: Registry[TeamMover] = Registry()


def register(mover: TeamMover, *, order: int) -> None:
    movers.register(mover, order=order)


def move_to_team(*, source: Team, target: Team) -> dict[str, int]:
    """Ask every registered app to move its rows of `source` to `target`; their counts, merged."""
    counts: dict[str, int] = {}
    for mover in movers:
        counts.update(mover(source=source, target=target))
    return counts

"""Functions told when targets were published, inside the transaction that publishes them:
the apps above publishing register here in their `AppConfig.ready()` (analytics rewrites the
publishes' totals). Both of the engine's paths call `published`: the ORM's through
`transitions.move_targets`, the fixed statements' after the answer is written."""

from __future__ import annotations

from collections.abc import Set
from typing import Protocol

from config.registry import Registry
from publishing.models import Id


class PublishedListener(Protocol):
    def __call__(self, publish_ids: Set[Id]) -> None: ...


listeners: Registry[PublishedListener] = Registry()


def register(listener: PublishedListener) -> None:
    listeners.register(listener)


def published(publish_ids: Set[Id]) -> None:
    """Tell every listener that a target of each of these publishes was just published."""
    for listener in listeners:
        listener(publish_ids)

"""Ordered lists of functions that apps register into an app below them.

Apps import downward only (teams < accounts < media < publishing < webhooks, analytics). When a
lower app needs the apps above it to act (deleting a team moves their rows, the usage page
counts them), it keeps a `Registry` and the apps above add their functions to it in their
`AppConfig.ready()`. The lower app calls whatever is registered and never imports them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Generic, TypeVar

T = TypeVar("T")


class Registry(Generic[T]):
    def __init__(self) -> None:
        self._entries: list[tuple[int, T]] = []

    def register(self, entry: T, *, order: int = 0) -> None:
        """Add `entry`, to be run in ascending `order`, ties in the order registered. Adding one
        already there changes nothing, so an app that is set up twice is not run twice."""
        if entry in self:
            return
        self._entries.append((order, entry))
        self._entries.sort(key=lambda pair: pair[0])  # stable: ties keep their order

    def __iter__(self) -> Iterator[T]:
        return iter([entry for _, entry in self._entries])

    def __contains__(self, entry: object) -> bool:
        return any(known == entry for _, known in self._entries)

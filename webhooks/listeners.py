"""Functions told of every event `services.emit` records, inside the transaction that records
it. The apps above webhooks register here in their `AppConfig.ready()` (notifications mails
people about some events); a listener that acts outside the database does so after commit,
so a rolled-back change tells no one. Every publish event passes here: a listener returns at
once for the events it does not want."""

from __future__ import annotations

from typing import Protocol

from config.registry import Registry
from webhooks.models import Event


class EventListener(Protocol):
    def __call__(self, event: Event) -> None: ...


listeners: Registry[EventListener] = Registry()


def register(listener: EventListener) -> None:
    listeners.register(listener)


def recorded(event: Event) -> None:
    for listener in listeners:
        listener(event)

"""Functions told when an account expires (the platform refused its token: it must be
re-authorized), inside the transaction of that change when there is one. The apps above
accounts register here in their `AppConfig.ready()` (notifications mails the team's owner);
a listener that acts outside the database does so after commit."""

from __future__ import annotations

import datetime as dt
from typing import Protocol

from accounts.models import SocialAccount
from config.registry import Registry


class ExpiryListener(Protocol):
    def __call__(self, account: SocialAccount, *, expired_at: dt.datetime) -> None: ...


listeners: Registry[ExpiryListener] = Registry()


def register(listener: ExpiryListener) -> None:
    listeners.register(listener)


def expired(account: SocialAccount, *, expired_at: dt.datetime) -> None:
    for listener in listeners:
        listener(account, expired_at=expired_at)

"""Functions told of an account's life, inside the transaction of the change they describe:
it was connected (or re-authorized), disconnected, expired (the platform refused its token: it
must be re-authorized), or its token expires soon and cannot be renewed. The apps above
accounts register here in their `AppConfig.ready()` (notifications mails the team's owner when
an account expires, webhooks records the account events); a listener that acts outside the
database does so after commit, so a rolled-back change tells no one. One registry per kind of
change: a listener registers for the ones it wants."""

from __future__ import annotations

import datetime as dt
from typing import Protocol

from accounts.models import SocialAccount
from config.registry import Registry


class ConnectedListener(Protocol):
    def __call__(self, account: SocialAccount, *, reauthorized: bool, connect_link_id: str | None) -> None: ...


class DisconnectedListener(Protocol):
    def __call__(self, account: SocialAccount) -> None: ...


class ExpiredListener(Protocol):
    def __call__(self, account: SocialAccount, *, expired_at: dt.datetime) -> None: ...


class ExpiringListener(Protocol):
    def __call__(self, account: SocialAccount, *, expires_at: dt.datetime) -> None: ...


connected_listeners: Registry[ConnectedListener] = Registry()
disconnected_listeners: Registry[DisconnectedListener] = Registry()
expired_listeners: Registry[ExpiredListener] = Registry()
expiring_listeners: Registry[ExpiringListener] = Registry()


def register(
    *,
    connected: ConnectedListener | None = None,
    disconnected: DisconnectedListener | None = None,
    expired: ExpiredListener | None = None,
    expiring: ExpiringListener | None = None,
) -> None:
    """Register a listener for each kind of change named."""
    if connected is not None:
        connected_listeners.register(connected)
    if disconnected is not None:
        disconnected_listeners.register(disconnected)
    if expired is not None:
        expired_listeners.register(expired)
    if expiring is not None:
        expiring_listeners.register(expiring)


def connected(account: SocialAccount, *, reauthorized: bool, connect_link_id: str | None) -> None:
    """The account was connected; `reauthorized` when it existed already (a re-authorization,
    or a new connect of the same platform identity), `connect_link_id` when a connect link
    brought it."""
    for listener in connected_listeners:
        listener(account, reauthorized=reauthorized, connect_link_id=connect_link_id)


def disconnected(account: SocialAccount) -> None:
    for listener in disconnected_listeners:
        listener(account)


def expired(account: SocialAccount, *, expired_at: dt.datetime) -> None:
    for listener in expired_listeners:
        listener(account, expired_at=expired_at)


def expiring(account: SocialAccount, *, expires_at: dt.datetime) -> None:
    """The account's token, which cannot be renewed, expires at `expires_at` (soon)."""
    for listener in expiring_listeners:
        listener(account, expires_at=expires_at)

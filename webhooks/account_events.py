"""The account events: `account.connected`, `account.disconnected`, `account.expired` and
`account.expiring`, recorded by `services.emit` from the `accounts.listeners` this app registers
in its `AppConfig.ready()`. Each listener runs inside the transaction of the account's change,
so the event exists if and only if the change committed.

Their `data` is `{"account": {...}}` (`account_data`: who the account is and its state, never a
token) with, for `account.connected`, `reauthorized` and `connect_link_id`; for
`account.expired`, `expired_at`; for `account.expiring`, `expires_at`."""

from __future__ import annotations

import datetime as dt

from accounts.models import SocialAccount
from webhooks import services
from webhooks.models import EventType


def _timestamp(moment: dt.datetime | None) -> str | None:
    """ISO 8601 in UTC with a `Z`, as the API and the envelope write times."""
    if moment is None:
        return None
    return moment.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")


def account_data(account: SocialAccount) -> dict[str, object]:
    return {
        "account": {
            "id": str(account.pk),
            "platform": account.platform,
            "handle": account.handle,
            "display_name": account.display_name,
            "status": account.status,
            "status_reason": account.status_reason,
            "token_expires_at": _timestamp(account.token_expires_at),
            "sandbox": account.sandbox,
        }
    }


def _emit(account: SocialAccount, event_type: EventType, **extra: object) -> None:
    services.emit(team=account.team, event_type=event_type.value, data={**account_data(account), **extra})


def connected(account: SocialAccount, *, reauthorized: bool, connect_link_id: str | None) -> None:
    _emit(account, EventType.ACCOUNT_CONNECTED, reauthorized=reauthorized, connect_link_id=connect_link_id)


def disconnected(account: SocialAccount) -> None:
    _emit(account, EventType.ACCOUNT_DISCONNECTED)


def expired(account: SocialAccount, *, expired_at: dt.datetime) -> None:
    _emit(account, EventType.ACCOUNT_EXPIRED, expired_at=_timestamp(expired_at))


def expiring(account: SocialAccount, *, expires_at: dt.datetime) -> None:
    _emit(account, EventType.ACCOUNT_EXPIRING, expires_at=_timestamp(expires_at))

"""An account's capabilities: the JSON Schema of its platform_settings, its platform's media
limits, and the live options its platform offers it now (GET /api/v1/accounts/{id}/capabilities
and the compose page read this one function).

Live options are read through `platform_call`, as publishing calls a platform: the account's
connection, tokens a client renewed kept, a refused token expiring the account. They are cached
per account for CAPABILITIES_CACHE_SECONDS, since a form asks on every pick and TikTok allows 20
creator_info reads a minute per token. A failed read is never cached and never fails the
answer: the static schema comes back with `live.available` false and why.

`refresh` (the API's `?refresh=true`, the compose page's reload button) reads the platform
again at most once per account every CAPABILITIES_REFRESH_SECONDS, whoever asks: a refresh
within that window answers from the cache (`live.cached` true), so a script asking in a loop
cannot spend the account's platform quota. The window is claimed with an atomic cache add, so
concurrent refreshes make one read.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.conf import settings
from django.core.cache import cache

from accounts.models import AccountStatus, SocialAccount
from accounts.platforms import formats
from accounts.platforms.base import Outcome, OutcomeKind, PlatformError
from accounts.platforms.interface import COMMENT, REPLY, PlatformClient
from accounts.platforms.limits import limits_for
from accounts.platforms.registry import client_for
from accounts.platforms.settings_schema import live_schema
from accounts.services import platform_call
from config.errors import ApplicationError

NOT_ACTIVE = {
    AccountStatus.EXPIRED: ("ACCOUNT_EXPIRED", "The account must be re-authorized in the dashboard first."),
    AccountStatus.DISABLED: ("ACCOUNT_DISABLED", "The account is disabled."),
    AccountStatus.DISCONNECTED: ("ACCOUNT_DISCONNECTED", "The account is disconnected: connect it again first."),
}


class LiveUnavailable(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code, self.message = code, message


def cache_key(account: SocialAccount) -> str:
    return f"capabilities:live:{account.pk}"


def _refresh_allowed(account: SocialAccount) -> bool:
    """Whether a refresh may read the platform now: the first in its window does."""
    return bool(cache.add(f"capabilities:refreshed:{account.pk}", 1, settings.CAPABILITIES_REFRESH_SECONDS))


def account_capabilities(*, account: SocialAccount, refresh: bool = False) -> dict[str, Any]:
    """The account's capabilities; `refresh` reads the live options again, cache or not."""
    client = client_for(account.platform)
    live: dict[str, Any] = {"supported": client.has_options, "available": False, "cached": False}
    live.update(fetched_at=None, error=None)
    options: dict[str, Any] = {}
    if client.has_options:
        try:
            options, fetched_at, live["cached"] = _options(account, refresh=refresh)
        except LiveUnavailable as exc:
            live["error"] = {"code": exc.code, "message": exc.message}
        else:
            live.update(available=True, fetched_at=fetched_at, **options)
    return {
        "account_id": account.pk,
        "platform": account.platform,
        "platform_settings_schema": live_schema(account.platform, options),
        "limits": limits_for(account.platform).capabilities(),
        "formats": formats.FORMATS[account.platform].capabilities(),
        "live": live,
        "first_comment": _first_comment(client),
        "unpublish": {"supported": not client.no_delete_reason, "message": client.no_delete_reason or None},
    }


def _first_comment(client: PlatformClient) -> dict[str, Any]:
    """How a first comment goes out here: a reply is held to the platform's text limit, a
    comment to the comment's own."""
    limit = {None: None, REPLY: client.limits.text.max_length, COMMENT: client.comment_max_length}
    return {
        "supported": client.first_comment is not None,
        "posted_as": client.first_comment,
        "max_length": limit[client.first_comment],
    }


def _options(account: SocialAccount, *, refresh: bool) -> tuple[dict[str, Any], str, bool]:
    """The options, when they were read, and whether they came from the cache."""
    if account.status in NOT_ACTIVE:
        raise LiveUnavailable(*NOT_ACTIVE[AccountStatus(account.status)])
    cached = None if refresh and _refresh_allowed(account) else cache.get(cache_key(account))
    if cached is not None:
        return cached["options"], cached["fetched_at"], True
    options = _read(account)
    fetched_at = dt.datetime.now(dt.UTC).isoformat().replace("+00:00", "Z")
    cache.set(cache_key(account), {"options": options, "fetched_at": fetched_at}, settings.CAPABILITIES_CACHE_SECONDS)
    return options, fetched_at, False


def _read(account: SocialAccount) -> dict[str, Any]:
    try:
        return dict(platform_call(account=account, call=lambda client, conn: client.options(conn)))
    except PlatformError as exc:
        raise _unavailable(account.platform, exc.outcome) from exc
    except ApplicationError as exc:  # a sandbox account outside development
        raise LiveUnavailable(exc.code, exc.message) from exc


def _unavailable(platform: str, outcome: Outcome) -> LiveUnavailable:
    said = f"{outcome.error_code}: {outcome.error_message}".strip(": ")
    if outcome.auth_failed:
        return LiveUnavailable("ACCOUNT_EXPIRED", f"{platform} refused the account's token ({said}); re-authorize it.")
    if outcome.kind is OutcomeKind.NOT_SENT and outcome.retry_after is not None:
        return LiveUnavailable("PLATFORM_RATE_LIMITED", f"{platform} asks to wait before reading again ({said}).")
    return LiveUnavailable("PLATFORM_UNAVAILABLE", f"{platform} did not give the account's options ({said}).")

"""Writes for connected accounts: connect, re-authorize, disconnect, refresh, expire; and
`platform_call`, the one way anything calls a platform for an account."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from accounts import listeners, merges
from accounts.errors import SandboxUnavailable
from accounts.models import AccountStatus, Platform, PostingSchedule, SocialAccount
from accounts.platforms.base import Connection, Credentials, Outcome, OutcomeKind, PlatformClient, PlatformError, Post
from accounts.platforms.registry import NoClient, client_for
from accounts.schedules import MAX_SLOTS, normalized_slots
from config import dbpool
from config.errors import Conflict, InvalidRequest
from teams.models import Team
from teams.time_zones import names as time_zone_names

logger = logging.getLogger(__name__)

# Refresh tokens this long before they expire, so a publish never meets an expired one.
REFRESH_AHEAD = dt.timedelta(minutes=30)
# Warn (`listeners.expiring`: the account.expiring event) this long before a token that cannot
# be renewed expires.
EXPIRY_WARNING_AHEAD = dt.timedelta(days=7)

Answer = TypeVar("Answer")


def _apply(account: SocialAccount, credentials: Credentials) -> None:
    account.access_token = credentials.access_token
    account.refresh_token = credentials.refresh_token or account.refresh_token
    account.token_expires_at = credentials.expires_at
    account.handle = credentials.handle or account.handle
    account.display_name = credentials.display_name or account.display_name
    account.metadata = {**account.metadata, **credentials.metadata}
    account.status, account.status_reason = AccountStatus.ACTIVE, ""


def account_sandbox_check(*, sandbox: bool) -> None:
    """Sandbox accounts exist only in development: production neither creates nor uses one
    (`Connection.url()` refuses their calls too)."""
    if sandbox and not settings.DEVELOPMENT:
        raise SandboxUnavailable()


@transaction.atomic
def account_connect(
    *,
    team: Team,
    platform: str,
    credentials: Credentials,
    sandbox: bool,
    reauthorize: SocialAccount | None = None,
    connect_link_id: str | None = None,
) -> SocialAccount:
    """Store a newly authorized account, or renew the tokens of one already connected (same
    platform identity), keeping its id so publishes and analytics stay attached to it. The
    `listeners` are told either way (`reauthorized` when the account existed), with the id of
    the connect link that brought it, if one did."""
    account_sandbox_check(sandbox=sandbox)
    if not credentials.external_id:
        raise InvalidRequest("The platform did not say which account was authorized.", code="NO_ACCOUNT_IDENTITY")
    if reauthorize is not None and reauthorize.external_id != credentials.external_id:
        raise Conflict("A different account was authorized than the one being re-authorized.", code="ACCOUNT_MISMATCH")
    account = (
        reauthorize
        or SocialAccount.objects.filter(team=team, platform=platform, external_id=credentials.external_id).first()
    )
    reauthorized = account is not None
    if account is None:
        account = SocialAccount(team=team, platform=platform, external_id=credentials.external_id, sandbox=sandbox)
    _apply(account, credentials)
    account.save()
    listeners.connected(account, reauthorized=reauthorized, connect_link_id=connect_link_id)
    return account


@dataclass(frozen=True)
class Disconnection:
    account: SocialAccount
    changed: bool  # False when the account was disconnected already
    token_revoked: bool | None  # at the platform; None when there was no token to revoke


def account_disconnect(*, account: SocialAccount, reason: str = "Disconnected by the team.") -> Disconnection:
    """Disconnect the account: its tokens are forgotten, it leaves listings, scheduled posts to
    it fail at release (`ACCOUNT_DISCONNECTED`) and new ones are refused; its published history
    stays. After commit the token is revoked at the platform where the platform has a call for
    it (`PlatformClient.revoke`); a refusal there is logged, not raised: the account is
    disconnected here either way. The `listeners` are told in the change's transaction;
    disconnecting it again changes nothing and tells no one."""
    with transaction.atomic():
        locked = SocialAccount.objects.select_for_update().filter(pk=account.pk).first()
        if locked is None or locked.status == AccountStatus.DISCONNECTED:
            return Disconnection(account=locked or account, changed=False, token_revoked=None)
        held = connection_for(locked)  # the tokens, to revoke once they are forgotten here
        locked.status, locked.status_reason = AccountStatus.DISCONNECTED, reason[:500]
        locked.access_token, locked.refresh_token, locked.token_expires_at = "", "", None
        locked.save(
            update_fields=["status", "status_reason", "access_token", "refresh_token", "token_expires_at", "updated_at"]
        )
        listeners.disconnected(locked)
    has_token = bool(held.credentials.access_token or held.credentials.refresh_token)
    revoked = _revoke_at_platform(locked, held) if has_token else None
    return Disconnection(account=locked, changed=True, token_revoked=revoked)


def _revoke_at_platform(account: SocialAccount, held: Connection) -> bool:
    """Ask the platform to revoke the tokens `held`; True when it confirmed. Not through
    `platform_call`: nothing it renews or says may be written back to a disconnected account."""
    try:
        client = client_for(account.platform)
    except NoClient:
        return False
    dbpool.release()
    try:
        return client.revoke(held)
    except PlatformError as exc:
        logger.warning(
            "Revoking the token of disconnected account %s at %s failed: %s",
            account.pk,
            account.platform,
            exc.outcome.error_code,
        )
        return False


@transaction.atomic
def account_mark_expired(*, account: SocialAccount, reason: str) -> None:
    """The platform refused the account's token: it must be re-authorized before publishing.
    Only the call that moves it from active tells the `listeners` (in the transaction of the
    move), so each expiry is told once."""
    now = timezone.now()
    moved = SocialAccount.objects.filter(pk=account.pk, status=AccountStatus.ACTIVE).update(
        status=AccountStatus.EXPIRED, status_reason=reason[:500], updated_at=now
    )
    if moved:
        account.status, account.status_reason, account.updated_at = AccountStatus.EXPIRED, reason[:500], now
        listeners.expired(account, expired_at=now)


def account_note_outcome(*, account: SocialAccount, outcome: Outcome) -> None:
    """Act on what a platform said during a call: a refused token expires the account, which
    must then be re-authorized before anything else is sent."""
    if outcome.auth_failed:
        reason = outcome.error_message or "The platform refused the account's token"
        account_mark_expired(account=account, reason=f"{reason}. Re-authorize it in the dashboard.")


def account_store_renewed(*, account: SocialAccount, conn: Connection) -> None:
    """Keep tokens a client renewed during a call (Bluesky refreshes its session mid-publish),
    on the row and on `account`: the next connection made from it must not present the old
    ones (Bluesky's refresh tokens are good for one use)."""
    renewed = conn.credentials
    if renewed.access_token == account.access_token and renewed.refresh_token == account.refresh_token:
        return
    account.access_token = renewed.access_token
    account.refresh_token = renewed.refresh_token or account.refresh_token
    account.token_expires_at = renewed.expires_at
    SocialAccount.objects.filter(pk=account.pk).update(
        access_token=account.access_token,
        refresh_token=account.refresh_token,
        token_expires_at=account.token_expires_at,
        updated_at=timezone.now(),
    )


def posting_schedule_set(*, account: SocialAccount, time_zone: str, slots: list[dict[str, str]]) -> PostingSchedule:
    """Replace the account's posting schedule; an empty `slots` clears it. Each slot's day and
    time are the caller's to check (`accounts.schedules.DAYS`, `TIME_PATTERN`); an unknown zone
    or more than MAX_SLOTS slots is refused here."""
    if time_zone not in time_zone_names():
        raise InvalidRequest(
            f"“{time_zone}” is not a time zone name. Pick one from the list, such as Europe/Paris or America/New_York."
            if time_zone
            else "Pick a time zone.",
            code="INVALID_TIME_ZONE",
            details={"field": "time_zone"},
        )
    normalized = normalized_slots(slots)
    if len(normalized) > MAX_SLOTS:
        raise InvalidRequest(
            f"A schedule has at most {MAX_SLOTS} slots, one an hour; this one has {len(normalized)}.",
            code="TOO_MANY_SLOTS",
            details={"field": "slots"},
        )
    schedule, _ = PostingSchedule.objects.update_or_create(
        account=account, defaults={"time_zone": time_zone, "slots": normalized}
    )
    return schedule


def platform_call(
    *,
    account: SocialAccount,
    call: Callable[[PlatformClient, Connection], Answer],
    save_ref: Callable[[Mapping[str, str]], None] | None = None,
) -> Answer:
    """Run `call` with the account's client and connection: the one way anything calls a
    platform for an account. Tokens the client renewed during the call are kept, whatever
    happens; what the platform answered (a returned Outcome, or a raised PlatformError's) is
    noted on the account, so a refused token expires it. `save_ref` keeps an intermediate id
    before the call that could create a post. In a worker whose threads share a pool of
    database connections (config.dbpool), the thread gives its connection back before the call.
    NoClient for a platform without a client."""
    client = client_for(account.platform)
    conn = connection_for(account)
    if save_ref is not None:
        conn.save_ref = save_ref
    dbpool.release()  # no database connection is held while the platform answers
    try:
        answer = call(client, conn)
    except PlatformError as exc:
        account_note_outcome(account=account, outcome=exc.outcome)
        raise
    finally:
        account_store_renewed(account=account, conn=conn)
    if isinstance(answer, Outcome):
        account_note_outcome(account=account, outcome=answer)
    return answer


def account_publish(*, account: SocialAccount, post: Post, save_ref: Callable[[Mapping[str, str]], None]) -> Outcome:
    """Send `post` through the account's platform client (`platform_call`)."""
    return platform_call(account=account, call=lambda client, conn: client.publish(conn, post), save_ref=save_ref)


def connection_for(account: SocialAccount) -> Connection:
    credentials = Credentials(
        access_token=account.access_token,
        refresh_token=account.refresh_token,
        expires_at=account.token_expires_at,
        external_id=account.external_id,
        handle=account.handle,
        display_name=account.display_name,
        metadata=account.metadata,
    )
    return Connection(credentials=credentials, sandbox=account.sandbox)


def _refused(outcome: Outcome) -> bool:
    """A definitive no from the platform (a 4xx, or an outcome that failed), as opposed to
    a transport error or a 5xx, after which the token may well still be renewable."""
    return outcome.auth_failed or outcome.kind == OutcomeKind.FAILED


def account_refresh(*, account: SocialAccount) -> bool:
    """Renew the account's tokens; a refusal marks it expired. True when renewed."""
    try:
        credentials = client_for(account.platform).refresh(connection_for(account))
    except NoClient:
        return False
    except PlatformError as exc:  # the refresh did not succeed
        if not _refused(exc.outcome):
            logger.warning("Token refresh of account %s failed for now: %s", account.pk, exc.outcome.error_code)
            return False  # a network or platform hiccup: the next run tries again
        logger.info("Token refresh of account %s refused: %s", account.pk, exc.outcome.error_code)
        account_mark_expired(account=account, reason="The platform refused to renew the token; re-authorize it.")
        return False
    account.refresh_from_db()
    _apply(account, credentials)
    account.save()
    return True


def _renews_with_access_token(platform: str) -> bool:
    try:
        return client_for(platform).renews_with_access_token
    except NoClient:
        return False


def _renewable() -> Q:
    """The accounts whose token `refresh()` can renew: those with a refresh token, and those of
    a platform that renews the access token with itself (Instagram, Threads: they have no
    refresh token). The others (LinkedIn without a refresh token, for one) must be
    re-authorized before their token expires."""
    by_access_token = [platform for platform in Platform.values if _renews_with_access_token(platform)]
    return ~Q(refresh_token="") | Q(platform__in=by_access_token)


def account_renewable(account: SocialAccount) -> bool:
    """Whether `account_refresh` can renew the account's token: `_renewable`'s rule, for one row."""
    return bool(account.refresh_token) or _renews_with_access_token(account.platform)


def accounts_refresh_due(*, now: dt.datetime | None = None) -> int:
    """Refresh every active account whose token expires soon. Returns how many were renewed."""
    horizon = (now or timezone.now()) + REFRESH_AHEAD
    due = SocialAccount.objects.filter(_renewable(), status=AccountStatus.ACTIVE, token_expires_at__lte=horizon)
    return sum(account_refresh(account=account) for account in due.iterator())


def accounts_warn_expiring(*, now: dt.datetime | None = None) -> int:
    """Tell the `listeners` of every active account whose token cannot be renewed and expires
    within EXPIRY_WARNING_AHEAD, once per expiry: the row keeps the expiry it was warned about
    (`expiry_warned_for`), and only the conditional update that writes it tells, so two runs at
    once warn once. A renewed or re-authorized token (another expiry) is warned about again when
    its time comes. Returns how many were warned."""
    now = now or timezone.now()
    soon = (
        SocialAccount.objects.filter(
            status=AccountStatus.ACTIVE, token_expires_at__gt=now, token_expires_at__lte=now + EXPIRY_WARNING_AHEAD
        )
        .exclude(_renewable())
        .exclude(expiry_warned_for=F("token_expires_at"))
    )
    return sum(_warn_expiring(account) for account in soon.iterator())


@transaction.atomic
def _warn_expiring(account: SocialAccount) -> bool:
    expires_at = account.token_expires_at
    if expires_at is None:
        return False
    warned = (
        SocialAccount.objects.filter(pk=account.pk, status=AccountStatus.ACTIVE, token_expires_at=expires_at)
        .exclude(expiry_warned_for=expires_at)
        .update(expiry_warned_for=expires_at)
    )
    if warned:
        account.expiry_warned_for = expires_at
        listeners.expiring(account, expires_at=expires_at)
    return bool(warned)


def move_to_team(*, source: Team, target: Team) -> dict[str, int]:
    """Move the source team's accounts to `target`, inside the transaction of a team deletion
    (`teams.moves`). One the target already has (same platform identity, which the unique
    constraint allows once per team) is merged into the target's row: what points at it is
    re-pointed there (`merges`) and the duplicate row goes. The target's tokens and status win."""
    now, merged = timezone.now(), 0
    for account in SocialAccount.objects.select_for_update().filter(team=source):
        twin = SocialAccount.objects.filter(
            team=target, platform=account.platform, external_id=account.external_id
        ).first()
        if twin is None:
            continue
        merges.repoint(duplicate=account, twin=twin)
        account.delete()
        merged += 1
    moved = SocialAccount.objects.filter(team=source).update(team=target, updated_at=now)
    return {"moved_accounts": moved, "merged_accounts": merged}

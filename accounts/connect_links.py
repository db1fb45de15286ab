"""Connect links: a page on this service, reachable without a login, where someone outside the
team (a customer of the SaaS that owns the team) connects their own accounts into the team.

The API makes a link (`link_create`) with where to send the browser afterwards and what the
page offers; the page's address carries the link's id signed with the service's secret
(`page_token`), so an id alone opens nothing. Each "Connect" runs the platform's authorization
with a `state` that is the link's id and a one-time nonce, signed (`state_for`): the callback
takes the team from the link the signature vouches for, and only in the browser session that
started it (the nonce keys the attempt kept there, taken once), so a leaked or replayed
callback lands nothing anywhere. After each connection, or a cancel, the browser goes to the
link's `redirect_url` with `connect_link`, `status` and `accounts` added (`return_url`).
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import logging
import re
import uuid
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from django.conf import settings
from django.core import signing
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from accounts.models import ConnectLink, Platform, SocialAccount
from accounts.platforms.registry import NoClient, client_for
from config import outbound
from config.errors import InvalidRequest, NotFound
from teams.models import Team

logger = logging.getLogger(__name__)

LIFETIME_MIN_SECONDS = 60
LIFETIME_MAX_SECONDS = 7 * 24 * 3600
LIFETIME_DEFAULT_SECONDS = 3600
# How long a started authorization may take before its callback is refused.
ATTEMPT_LIFETIME_SECONDS = 600
LOGO_MAX_BYTES = 256 * 1024
LOGO_DEADLINE_SECONDS = 5.0
ACCENT_COLOR = re.compile(r"^#[0-9A-Fa-f]{6}$")
# Platforms connected with a handle and an app password on the page, not an authorization.
PASSWORD_PLATFORMS = frozenset({Platform.BLUESKY.value})
_PAGE_SALT = "accounts.connect-link.page"
_STATE_SALT = "accounts.connect-link.state"
_LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
# The image types a logo may be, by their first bytes (never SVG: it can carry script).
_IMAGE_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


class Status:
    PENDING = "pending"
    CONNECTED = "connected"
    CANCELLED = "cancelled"
    EXPIRED = "expired"
    REVOKED = "revoked"


STATUSES = (Status.PENDING, Status.CONNECTED, Status.CANCELLED, Status.EXPIRED, Status.REVOKED)


# --- which platforms a page can offer -------------------------------------------------------


def has_client(platform: str) -> bool:
    try:
        client_for(platform)
    except NoClient:
        return False
    return True


def app_configured(platform: str) -> bool:
    return bool(getattr(settings, f"{platform.upper()}_CLIENT_ID", ""))


def connect_problem(platform: str) -> str:
    """Why the platform cannot be connected on this deployment, or "" when it can."""
    if not has_client(platform):
        return "Not available yet."
    if not settings.DEVELOPMENT and platform not in PASSWORD_PLATFORMS and not app_configured(platform):
        name = platform.upper()
        return f"Its app credentials are not configured ({name}_CLIENT_ID, {name}_CLIENT_SECRET)."
    return ""


def connectable_platforms() -> list[str]:
    return [platform.value for platform in Platform if not connect_problem(platform.value)]


def uses_sandbox(platform: str) -> bool:
    """A link connects to the sandbox in development unless the platform's app is configured;
    in production, never."""
    return bool(settings.DEVELOPMENT) and (platform in PASSWORD_PLATFORMS or not app_configured(platform))


# --- checks of what the API is given --------------------------------------------------------


def redirect_problem(url: str) -> str:
    """Why `url` cannot be a link's redirect, or "". https only, to a host by name or address,
    with no credentials in it; plain http only to this machine, in development."""
    if any(ch.isspace() or ord(ch) < 32 or ch == "\\" for ch in url):
        return "redirect_url must not contain spaces, control characters or backslashes."
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "redirect_url is not a valid URL."
    del port  # read only to refuse a malformed one
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "redirect_url must be an absolute http(s) URL."
    if parts.username is not None or parts.password is not None:
        return "redirect_url must not carry credentials."
    if parts.scheme == "http" and not (settings.DEVELOPMENT and _local(parts.hostname)):
        return (
            "redirect_url must be https (plain http only to localhost, in development)."
            if settings.DEVELOPMENT
            else "redirect_url must be https."
        )
    return ""


def _local(host: str) -> bool:
    if host in _LOCAL_HOSTS or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def platforms_problem(platforms: Sequence[str]) -> str:
    unavailable = [p for p in platforms if connect_problem(p)]
    if unavailable:
        return f"These platforms cannot be connected on this service now: {', '.join(unavailable)}."
    return ""


# --- writes ---------------------------------------------------------------------------------


def link_create(
    *,
    team: Team,
    redirect_url: str,
    platforms: Sequence[str] | None = None,
    expires_in: int = LIFETIME_DEFAULT_SECONDS,
    branding: Mapping[str, str] | None = None,
) -> ConnectLink:
    """A new link of `team`. The API's serializer has checked each field's shape; the rules
    that depend on this deployment are checked here. The logo, if any, is fetched now through
    the SSRF-safe client and kept: the page never makes a request on a visitor's behalf."""
    if problem := redirect_problem(redirect_url):
        raise InvalidRequest(problem, code="INVALID_REDIRECT_URL", details={"field": "redirect_url"})
    chosen = list(dict.fromkeys(platforms)) if platforms else connectable_platforms()
    if problem := platforms_problem(chosen):
        raise InvalidRequest(problem, code="PLATFORM_UNAVAILABLE", details={"field": "platforms"})
    if not LIFETIME_MIN_SECONDS <= expires_in <= LIFETIME_MAX_SECONDS:
        raise InvalidRequest(
            f"expires_in must be between {LIFETIME_MIN_SECONDS} and {LIFETIME_MAX_SECONDS} seconds.",
            code="INVALID_EXPIRY",
            details={"field": "expires_in"},
        )
    branding = branding or {}
    logo_url = branding.get("logo_url", "")
    logo = fetch_logo(logo_url) if logo_url else None
    return ConnectLink.objects.create(
        team=team,
        redirect_url=redirect_url,
        platforms=chosen,
        expires_at=timezone.now() + dt.timedelta(seconds=expires_in),
        branding_name=branding.get("name", ""),
        branding_logo_url=logo_url,
        branding_accent_color=branding.get("accent_color", ""),
        logo=logo[0] if logo else None,
        logo_content_type=logo[1] if logo else "",
    )


def fetch_logo(url: str) -> tuple[bytes, str] | None:
    """The image at `url` and its type, through the one hardened client (`config.outbound`);
    None when it cannot be fetched, is too large or is not a PNG, JPEG or GIF."""
    try:
        response = outbound.request(
            url,
            method="GET",
            headers={"Accept": "image/png, image/jpeg, image/gif"},
            max_bytes=LOGO_MAX_BYTES,
            deadline_seconds=LOGO_DEADLINE_SECONDS,
            max_redirects=3,
        )
    except outbound.OutboundError as exc:
        logger.info("The logo of a connect link could not be fetched: %s", type(exc).__name__)
        return None
    if response.status_code != 200:
        return None
    kind = next((kind for magic, kind in _IMAGE_MAGIC if response.content.startswith(magic)), None)
    return (response.content, kind) if kind else None


def link_revoke(*, link: ConnectLink) -> ConnectLink:
    """Revoke the link: its page answers 410 from now on. Revoking it again changes nothing."""
    ConnectLink.objects.filter(pk=link.pk, revoked_at__isnull=True).update(
        revoked_at=timezone.now(), updated_at=timezone.now()
    )
    link.refresh_from_db()
    return link


def link_record_connected(*, link: ConnectLink, account: SocialAccount) -> None:
    with transaction.atomic():
        link.accounts.add(account)
        ConnectLink.objects.filter(pk=link.pk).update(outcome=Status.CONNECTED, updated_at=timezone.now())


def link_record_cancelled(*, link: ConnectLink) -> None:
    """A visit ended without a connection; a link that connected one before stays connected."""
    ConnectLink.objects.filter(pk=link.pk).exclude(outcome=Status.CONNECTED).update(
        outcome=Status.CANCELLED, updated_at=timezone.now()
    )


# --- reads ----------------------------------------------------------------------------------


def link_status(link: ConnectLink, now: dt.datetime | None = None) -> str:
    if link.revoked_at is not None:
        return Status.REVOKED
    if link.expires_at <= (now or timezone.now()):
        return Status.EXPIRED
    return link.outcome or Status.PENDING


def usable(link: ConnectLink) -> bool:
    return link_status(link) not in (Status.EXPIRED, Status.REVOKED)


def link_of_team(*, team: Team, link_id: str) -> ConnectLink:
    link = ConnectLink.objects.filter(team=team, pk=link_id).prefetch_related("accounts").first()
    if link is None:
        raise NotFound("No such connect link in this team.", code="CONNECT_LINK_NOT_FOUND")
    return link


def links_of_team(*, team: Team) -> Any:
    return ConnectLink.objects.filter(team=team).prefetch_related("accounts").order_by("-created_at", "-id")


# --- the page's address, the authorization's state, the way back ----------------------------


def page_token(link: ConnectLink) -> str:
    return signing.Signer(salt=_PAGE_SALT).sign(str(link.pk))


def page_url(link: ConnectLink) -> str:
    path = reverse("connect-link-page", args=[page_token(link)])
    return f"{str(settings.PUBLIC_BASE_URL).rstrip('/')}{path}"


def link_of_token(token: str) -> ConnectLink | None:
    """The link a page token names, or None when the token is not one this service signed."""
    try:
        link_id = uuid.UUID(signing.Signer(salt=_PAGE_SALT).unsign(token))
    except (signing.BadSignature, ValueError):
        return None
    return ConnectLink.objects.select_related("team").filter(pk=link_id).first()


def state_for(link: ConnectLink, nonce: str) -> str:
    return signing.dumps({"link": str(link.pk), "nonce": nonce}, salt=_STATE_SALT, compress=True)


def read_state(state: str) -> tuple[str, str] | None:
    """(link id, nonce) of a state this service signed less than ATTEMPT_LIFETIME_SECONDS ago."""
    try:
        found = signing.loads(state, salt=_STATE_SALT, max_age=ATTEMPT_LIFETIME_SECONDS)
    except signing.BadSignature:
        return None
    if not isinstance(found, dict) or not isinstance(found.get("link"), str) or not isinstance(found.get("nonce"), str):
        return None
    return found["link"], found["nonce"]


def is_link_state(state: str) -> bool:
    """Whether an authorization's `state` was made for a connect link (signed, any age): the
    dashboard's own states are random strings that never carry this service's signature."""
    try:
        signing.loads(state, salt=_STATE_SALT)
    except signing.BadSignature:
        return False
    return True


def return_url(link: ConnectLink, status: str, accounts: Sequence[SocialAccount] = ()) -> str:
    """The link's redirect_url with `connect_link`, `status` and `accounts` (comma-separated ids)
    added to the query it already has (any of those names in it are replaced)."""
    parts = urlsplit(link.redirect_url)
    ours = {"connect_link": str(link.pk), "status": status, "accounts": ",".join(str(a.pk) for a in accounts)}
    kept = [(name, value) for name, value in parse_qsl(parts.query, keep_blank_values=True) if name not in ours]
    return urlunsplit(parts._replace(query=urlencode([*kept, *ours.items()])))

"""Where a user-supplied URL may go: parse it, resolve its host, check every address and the port.

1. Parse the URL once (`_parse`): http/https only, a host, no `user:pass@`, no control
   characters, no ambiguous numeric hosts (`2130706433`, `0x7f000001`, `127.1`).
2. Resolve the host once (`socket.getaddrinfo`, waited for no longer than the caller's
   deadline allows) and check EVERY address (`_check_address`): it must be public
   (`is_global`, not multicast/reserved/CGNAT/6to4/..., IPv4 embedded in IPv4-mapped or NAT64
   IPv6 judged as IPv4) and the port must be 80 or 443 - unless `settings.SSRF_ALLOW_PRIVATE`
   is on, or the address is inside `settings.SSRF_ALLOWED_NETWORKS`; both of those also lift
   the port rule. A URL under one of `settings.SSRF_ALLOWED_URL_PREFIXES` (the same scheme,
   host and port, a path below the prefix's with no dot segments or escapes) skips the
   address rules: it opens one path of one origin, not the host.

`checked_target` does both and returns the addresses a connection may use; it runs again for
every redirect hop.
"""

from __future__ import annotations

import ipaddress
import re
import socket
import threading
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import SplitResult, urlsplit

import idna
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from requests.utils import requote_uri

from .errors import BlockedDestination, OutboundConnectionError, OutboundTimeout

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

_DEFAULT_PORTS: Final = {"http": 80, "https": 443}
_PUBLIC_PORTS: Final = frozenset({80, 443})

_UNSAFE_URL_CHARS: Final = re.compile(r"[\x00-\x20\x7f]")
_DNS_NAME: Final = re.compile(r"(?:[a-z0-9_-]+\.)*[a-z0-9_-]+\.?")
# A last label like this makes resolvers read the whole name as an IPv4 number (inet_aton).
_NUMERIC_LABEL: Final = re.compile(r"0x[0-9a-f]*|[0-9]+")

_NAT64: Final = ipaddress.IPv6Network("64:ff9b::/96")
# Not global in practice, but Python 3.11's is_global/is_reserved let them through.
_NOT_PUBLIC: Final[tuple[IPNetwork, ...]] = tuple(
    ipaddress.ip_network(cidr)
    for cidr in (
        "192.0.0.0/24",  # IETF protocol assignments (3.11 knows only parts of it)
        "192.88.99.0/24",  # 6to4 relay anycast
        "2002::/16",  # 6to4: reaches arbitrary IPv4 through relays
        "64:ff9b:1::/48",  # local-use NAT64
        "2001:20::/28",  # ORCHIDv2
        "5f00::/16",  # SRv6 segment identifiers
        "3fff::/20",  # documentation
        "fec0::/10",  # deprecated site-local
    )
)


def _invalid(message: str) -> BlockedDestination:
    return BlockedDestination(message, code="INVALID_URL")


# --- URL parsing --------------------------------------------------------------------------


@dataclass(frozen=True)
class Location:
    url: str
    scheme: str
    host: str  # ASCII name or IP literal without brackets: used for DNS, Host and SNI
    port: int
    host_header: str
    target: str  # the request-target: path and query

    @property
    def origin(self) -> tuple[str, str, int]:
        return (self.scheme, self.host, self.port)


def _parse(url: str) -> Location:
    if _UNSAFE_URL_CHARS.search(url):
        raise _invalid("The URL contains spaces or control characters.")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise _invalid("The URL is malformed.") from exc
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS:
        raise BlockedDestination("Only http and https URLs are allowed.", code="BLOCKED_SCHEME")
    if "@" in parts.netloc:
        raise BlockedDestination("URLs with credentials (user@host) are not allowed.", code="BLOCKED_USERINFO")
    host = _host(parts)
    port = _DEFAULT_PORTS[scheme] if port is None else port
    if port == 0:
        raise _invalid("The URL has an invalid port.")
    return Location(url, scheme, host, port, _host_header(scheme, host, port), _request_target(parts))


def _host(parts: SplitResult) -> str:
    host = parts.hostname or ""
    if not host or "%" in host:  # "%" would be an IPv6 zone or an escape: neither names a public host
        raise _invalid("The URL has no valid host.")
    if ":" in host:  # urlsplit only yields colons from a bracketed IPv6 literal
        return _ipv6_literal(host)
    ascii_host = _ascii_host(host)
    if _NUMERIC_LABEL.fullmatch(ascii_host.rstrip(".").rsplit(".", 1)[-1]) and not _is_dotted_quad(ascii_host):
        raise _invalid("The URL's host is a numeric address in an ambiguous form.")
    return ascii_host


def _ipv6_literal(host: str) -> str:
    try:
        return str(ipaddress.IPv6Address(host))
    except ValueError as exc:
        raise _invalid("The URL has an invalid IPv6 address.") from exc


def _ascii_host(host: str) -> str:
    try:
        ascii_host = host if host.isascii() else idna.encode(host, uts46=True).decode("ascii")
    except UnicodeError as exc:  # idna.IDNAError is a UnicodeError
        raise _invalid("The URL's host is not a valid domain name.") from exc
    if not _DNS_NAME.fullmatch(ascii_host):
        raise _invalid("The URL's host is not a valid domain name.")
    return ascii_host


def _is_dotted_quad(host: str) -> bool:
    try:
        ipaddress.IPv4Address(host)
    except ValueError:
        return False
    return True


def _host_header(scheme: str, host: str, port: int) -> str:
    name = f"[{host}]" if ":" in host else host
    return name if port == _DEFAULT_PORTS[scheme] else f"{name}:{port}"


def _request_target(parts: SplitResult) -> str:
    path = parts.path or "/"
    # requote_uri percent-encodes what may not go on the wire and keeps what is already escaped.
    return requote_uri(f"{path}?{parts.query}" if parts.query else path)


# --- Address policy -----------------------------------------------------------------------


@dataclass(frozen=True)
class _Policy:
    allow_private: bool
    networks: tuple[IPNetwork, ...]
    prefixes: tuple[Location, ...]


def _policy() -> _Policy:
    # Read on every call: settings are overridden per test and may be reloaded.
    cidrs = getattr(settings, "SSRF_ALLOWED_NETWORKS", [])
    try:
        networks = tuple(ipaddress.ip_network(cidr.strip(), strict=False) for cidr in cidrs)
    except ValueError as exc:
        raise ImproperlyConfigured(f"SSRF_ALLOWED_NETWORKS holds an invalid CIDR: {exc}") from exc
    prefixes = tuple(_prefix(url.strip()) for url in getattr(settings, "SSRF_ALLOWED_URL_PREFIXES", []) if url.strip())
    return _Policy(bool(getattr(settings, "SSRF_ALLOW_PRIVATE", False)), networks, prefixes)


# A path under an allowed prefix: plain characters only (no escapes that a server might decode
# into "/" or "..", no backslash, no query confusion).
_PLAIN_PATH: Final = re.compile(r"/[A-Za-z0-9._~!$&'()*+,;=:@/-]*")


def _prefix(url: str) -> Location:
    try:
        prefix = _parse(url)
    except BlockedDestination as exc:
        raise ImproperlyConfigured(f"SSRF_ALLOWED_URL_PREFIXES holds an invalid URL {url!r}: {exc}") from exc
    if not prefix.target.endswith("/") or "?" in prefix.target or not _PLAIN_PATH.fullmatch(prefix.target):
        raise ImproperlyConfigured(f"SSRF_ALLOWED_URL_PREFIXES: {url!r} must end its path with '/' and have no query.")
    return prefix


def _under_prefix(location: Location, prefixes: tuple[Location, ...]) -> bool:
    path = location.target.partition("?")[0]
    if not _PLAIN_PATH.fullmatch(path) or any(part in (".", "..") for part in path.split("/")):
        return False
    return any(location.origin == p.origin and path.startswith(p.target) for p in prefixes)


def allow_listed(url: str) -> bool:
    """Whether `url` lies under one of SSRF_ALLOWED_URL_PREFIXES (False for a malformed URL)."""
    try:
        return _under_prefix(_parse(url), _policy().prefixes)
    except BlockedDestination:
        return False


def _embedded_ipv4(ip: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address a connection to `ip` really reaches, for ::ffff:a.b.c.d and NAT64."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return ip.ipv4_mapped
        if ip in _NAT64:
            return ipaddress.IPv4Address(int(ip) & 0xFFFF_FFFF)
    return None


def _is_public(ip: IPAddress) -> bool:
    embedded = _embedded_ipv4(ip)
    if embedded is not None:
        return _is_public(embedded)
    # is_reserved also covers ::/8, so IPv4-compatible ::a.b.c.d is refused whatever a.b.c.d is.
    if not ip.is_global or ip.is_multicast or ip.is_reserved:
        return False
    return not any(ip in network for network in _NOT_PUBLIC)


def _is_allow_listed(ip: IPAddress, networks: tuple[IPNetwork, ...]) -> bool:
    candidates = [ip, _embedded_ipv4(ip)] if isinstance(ip, ipaddress.IPv6Address) else [ip]
    return any(c is not None and c in network for c in candidates for network in networks)


def _check_address(ip: IPAddress, port: int, policy: _Policy) -> None:
    if policy.allow_private or _is_allow_listed(ip, policy.networks):
        return
    if not _is_public(ip):
        raise BlockedDestination("The URL's host resolves to a non-public address.", code="BLOCKED_ADDRESS")
    if port not in _PUBLIC_PORTS:
        raise BlockedDestination("Only ports 80 and 443 are allowed.", code="BLOCKED_PORT")


def _getaddrinfo(host: str, port: int, timeout: float) -> list[Any]:
    """`socket.getaddrinfo`, waited for at most `timeout` seconds. The call itself cannot be
    interrupted, so it runs on a daemon thread of its own that the caller stops waiting for: a
    lookup left behind ends by the system resolver's own timeouts. A thread per lookup rather
    than a shared pool, so names whose servers hang cannot take every thread and stall lookups
    for everyone else."""
    if _is_address(host):  # nothing to look up: answered at once, without a thread
        return socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_NUMERICHOST)
    answer: list[Any] = []
    failure: list[Exception] = []
    done = threading.Event()

    def lookup() -> None:
        try:
            answer.extend(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM))
        except (OSError, UnicodeError) as exc:  # handed to the caller, who raises it
            failure.append(exc)
        finally:
            done.set()

    threading.Thread(target=lookup, name="outbound-dns", daemon=True).start()
    if not done.wait(timeout):
        raise OutboundTimeout("Resolving the host name ran past the deadline.", code="TIMEOUT")
    if failure:
        raise failure[0]
    return answer


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def _resolve(host: str, port: int, timeout: float) -> tuple[str, ...]:
    try:
        infos = _getaddrinfo(host, port, timeout)
    except UnicodeError as exc:  # a label longer than 63 characters
        raise _invalid("The URL's host is not a valid domain name.") from exc
    except OSError as exc:
        raise OutboundConnectionError("The host name could not be resolved.", code="DNS_FAILED") from exc
    families = (socket.AF_INET, socket.AF_INET6)
    addresses = tuple(dict.fromkeys(str(info[4][0]) for info in infos if info[0] in families))
    if not addresses:
        raise OutboundConnectionError("The host name could not be resolved.", code="DNS_FAILED")
    return addresses


@dataclass(frozen=True)
class Target:
    location: Location
    addresses: tuple[str, ...]  # every one checked; connections go only to these


def checked_target(url: str, *, timeout: float) -> Target:
    """Parse `url`, resolve its host within `timeout` seconds and check every address; raises
    BlockedDestination, OutboundConnectionError (code DNS_FAILED) when the host does not
    resolve, or OutboundTimeout when resolving takes longer."""
    location = _parse(url)
    addresses = _resolve(location.host, location.port, timeout)
    policy = _policy()
    if _under_prefix(location, policy.prefixes):
        return Target(location, addresses)
    for address in addresses:
        _check_address(ipaddress.ip_address(address), location.port, policy)
    return Target(location, addresses)

"""The one HTTP client for user-supplied URLs (media `source_url` fetches, webhook deliveries).

Every request goes through the same steps, on the first hop and on every redirect hop:

1. Parse the URL once, resolve the host once and check EVERY address and the port (`policy`):
   public addresses on ports 80/443 only, unless `settings.SSRF_ALLOW_PRIVATE` is on or the
   address is inside `settings.SSRF_ALLOWED_NETWORKS`.
2. Connect to a checked IP address, never to the name (pinning); `Host`, SNI and the
   certificate check use the original name (`transport`). With `keep_alive`, an idle
   connection is reused only under the key of an address that step 1 just returned, for the
   same scheme, name and port (`pool`).
3. Redirects are never followed by a library: `stream()` follows GET redirects itself and
   repeats steps 1-2 for each hop (`redirects`).
4. A byte cap (declared Content-Length and running total, `response`) and a total deadline
   whose watchdog shuts the socket down, which also wakes a read blocked on a server trickling
   one byte at a time (`transport`). The deadline starts before the host is resolved: a lookup
   is waited for only as long as it has left (`policy`). Optionally the deadline also asks for
   a minimum throughput after a grace period, and expires early when the body falls behind it.

Why not requests-hardened (1.3.0, read from its source)? Its pinning itself is sound - it swaps
the pool key's host for the resolved IP and sets `server_hostname`/`assert_hostname` to the
name - but its policy does not fit these rules and cannot be configured to: it checks only
the first `getaddrinfo` answer; it tests `is_private` rather than `is_global`, so
IPv4-compatible `::127.0.0.1` and site-local `fec0::/10` pass; it has no CIDR allow-list
(only "allow loopback"), no port rule, no byte cap and no total deadline (requests' timeouts
are per socket operation); and as a `requests.Session` it honours `HTTP(S)_PROXY` from the
environment, where the proxy resolves the name again. Using it would mean overriding its one
checking function and adding everything else around it, so this package pins with urllib3
connections directly (about the size of its adapter) and keeps all policy in one place.

Limits worth knowing: getaddrinfo cannot be interrupted, so a lookup the deadline stopped
waiting for ends on its own thread, by the system resolver's timeouts. Bodies are returned as
sent on the wire (`Accept-Encoding: identity` is requested, nothing is decompressed), and
`max_bytes` counts wire bytes. Response headers are a requests `CaseInsensitiveDict` (typed
`Mapping`); repeated headers are joined with ", ". Error messages never name the body or a
resolved address (`errors`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from .errors import (
    BlockedDestination,
    OutboundConnectionError,
    OutboundError,
    OutboundTimeout,
    ResponseTooLarge,
)
from .policy import allow_listed, checked_target
from .pool import POOL
from .redirects import follow
from .response import OutboundResponse, OutboundStream, refuse_declared_oversize
from .transport import USER_AGENT, Deadline, Request, caller_headers

__all__ = [
    "USER_AGENT",
    "BlockedDestination",
    "OutboundConnectionError",
    "OutboundError",
    "OutboundResponse",
    "OutboundStream",
    "OutboundTimeout",
    "ResponseTooLarge",
    "allow_listed",
    "check_url",
    "close_idle_connections",
    "request",
    "stream",
]


def check_url(url: str, *, deadline_seconds: float = 10.0) -> None:
    """Validate a URL for later use (e.g. when a webhook is created): syntax, scheme, port, and
    that its host resolves only to allowed addresses. Raises BlockedDestination,
    OutboundConnectionError (code DNS_FAILED) when the host does not resolve, or OutboundTimeout
    when resolving takes longer than `deadline_seconds`."""
    checked_target(url, timeout=deadline_seconds)


def close_idle_connections() -> None:
    """Close the keep-alive connections this process holds (tests, shutdown)."""
    POOL.clear()


@contextmanager
def stream(
    url: str,
    *,
    method: str = "GET",
    headers: Mapping[str, str] | None = None,
    body: bytes | None = None,
    connect_timeout: float = 5.0,
    read_timeout: float = 10.0,
    deadline_seconds: float = 60.0,
    max_bytes: int,
    max_redirects: int = 3,
    keep_alive: bool = False,
    min_bytes_per_second: float = 0.0,
    min_rate_after_seconds: float = 10.0,
) -> Iterator[OutboundStream]:
    """Send one request and yield the response with its body unread. GET follows up to
    `max_redirects` redirects (more is TOO_MANY_REDIRECTS; 0 returns the 3xx); other methods
    never follow. `deadline_seconds` covers resolving, connecting, every hop and reading the
    body inside the `with` block. With `min_bytes_per_second`, the body must also arrive at
    that average rate once `min_rate_after_seconds` have passed (counted from the start, so
    they also cover resolving and connecting): a server that falls behind, or stops sending,
    is cut off with OutboundTimeout code TOO_SLOW. Caller headers are sent as given, except Host, Content-Length,
    Transfer-Encoding and Connection, which this client sets; User-Agent defaults to USER_AGENT.
    With `keep_alive`, an idle connection to the same checked address is reused and the
    connection is kept after the `with` block when the response ended (see `transport`)."""
    if max_bytes < 0 or max_redirects < 0:
        raise ValueError("max_bytes and max_redirects must not be negative")
    request = Request(method.upper(), caller_headers(headers), body, connect_timeout, read_timeout, keep_alive)
    with Deadline(deadline_seconds, min_rate=min_bytes_per_second, grace=min_rate_after_seconds) as deadline:
        hop = follow(url, request, deadline, max_redirects)
        try:
            if request.method != "HEAD":
                refuse_declared_oversize(hop.response, max_bytes)
            yield OutboundStream(hop, max_bytes, deadline)
        except BaseException:
            hop.close()
            raise
        hop.release()


def request(
    url: str,
    *,
    method: str = "POST",
    headers: Mapping[str, str] | None = None,
    body: bytes | None = None,
    connect_timeout: float = 5.0,
    read_timeout: float = 10.0,
    deadline_seconds: float = 10.0,
    max_bytes: int = 1024 * 1024,
    max_redirects: int = 0,
    keep_alive: bool = False,
    min_bytes_per_second: float = 0.0,
    min_rate_after_seconds: float = 10.0,
) -> OutboundResponse:
    """Send one request and read its (capped) body. With max_redirects=0 a 3xx is returned."""
    with stream(
        url,
        method=method,
        headers=headers,
        body=body,
        connect_timeout=connect_timeout,
        read_timeout=read_timeout,
        deadline_seconds=deadline_seconds,
        max_bytes=max_bytes,
        max_redirects=max_redirects,
        keep_alive=keep_alive,
        min_bytes_per_second=min_bytes_per_second,
        min_rate_after_seconds=min_rate_after_seconds,
    ) as response:
        content = b"".join(response.iter_bytes())
    return OutboundResponse(response.status_code, response.headers, response.url, content)

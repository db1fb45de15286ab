"""Redirects are never followed by a library: `follow` follows GET redirects itself and repeats
every check (parse, resolve, address and port policy, pinning) for each hop."""

from __future__ import annotations

from dataclasses import replace
from typing import Final
from urllib.parse import urljoin

from requests.structures import CaseInsensitiveDict

from .errors import BlockedDestination, OutboundError
from .policy import Location, checked_target
from .transport import Deadline, Hop, Request, send

_REDIRECT_STATUSES: Final = frozenset({301, 302, 303, 307, 308})
# Dropped when a redirect leaves the origin, as browsers and requests do.
_CREDENTIAL_HEADERS: Final = ("authorization", "cookie", "proxy-authorization")


def _redirect_location(hop: Hop, method: str) -> str | None:
    if method != "GET" or hop.response.status not in _REDIRECT_STATUSES:
        return None
    return hop.response.headers.get("Location") or None


def _for_redirect(request: Request, previous: Location, following: Location) -> Request:
    headers = CaseInsensitiveDict(request.headers)
    if previous.origin != following.origin:
        for name in _CREDENTIAL_HEADERS:
            headers.pop(name, None)
    return replace(request, headers=headers, body=None)


def _redirect(hop: Hop, location: str, request: Request, deadline: Deadline) -> tuple[Hop, Request]:
    try:
        # Every check again, for this hop.
        target = checked_target(urljoin(hop.location.url, location), timeout=deadline.remaining())
        request = _for_redirect(request, hop.location, target.location)
        return send(target, request, deadline), request
    except OutboundError as exc:
        exc.sent = True  # the request that answered with the redirect did reach a server
        raise


def follow(url: str, request: Request, deadline: Deadline, max_redirects: int) -> Hop:
    hop = send(checked_target(url, timeout=deadline.remaining()), request, deadline)
    for _ in range(max_redirects):
        location = _redirect_location(hop, request.method)
        if location is None:
            return hop
        hop.release()
        hop, request = _redirect(hop, location, request, deadline)
    if max_redirects and _redirect_location(hop, request.method) is not None:
        hop.release()
        raise BlockedDestination("The URL redirected too many times.", code="TOO_MANY_REDIRECTS", sent=True)
    return hop

"""The client's address, as the proxies in front of the service saw it.

Behind a proxy REMOTE_ADDR is the proxy's own address, the same for every client. Each proxy
appends the address it received the request from to `X-Forwarded-For`, so with
TRUSTED_PROXY_COUNT proxies in front (a load balancer is one; a CDN and a load balancer two)
the client is the entry that many places from the right. Entries further left are whatever
the client sent and are never read: trusting them would let anyone pick their address. With
no trusted proxy (the default) the header is ignored and REMOTE_ADDR is the client.
"""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.http import HttpRequest


def client_address(request: HttpRequest) -> str:
    remote: str = request.META.get("REMOTE_ADDR", "")
    hops: int = settings.TRUSTED_PROXY_COUNT
    if hops <= 0:
        return remote
    forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if part.strip()]
    if not forwarded:
        return remote
    # Fewer entries than proxies: the request skipped the outer ones, and the first entry was
    # appended by one we trust.
    candidate = forwarded[-hops] if len(forwarded) >= hops else forwarded[0]
    try:
        return str(ipaddress.ip_address(candidate))
    except ValueError:  # not an address: a proxy that does not set the header as documented
        return remote

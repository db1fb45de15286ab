"""What a request to a user-supplied URL can fail with. Messages name the reason only: never the
body, and never a resolved address (that would map a private network for whoever supplies URLs).
"""

from __future__ import annotations


class OutboundError(Exception):
    """A request to a user-supplied URL failed. `code` is a stable upper-case reason; `sent`
    says whether the request may have reached a server (webhook retries need that)."""

    code: str = "OUTBOUND_ERROR"
    sent: bool

    def __init__(self, message: str, *, code: str | None = None, sent: bool = False) -> None:
        super().__init__(message)
        self.code = code or self.code
        self.sent = sent


class BlockedDestination(OutboundError):
    """Refused before connecting: URL syntax, scheme, userinfo, address, port, redirect hops."""

    code = "BLOCKED_ADDRESS"


class ResponseTooLarge(OutboundError):
    code = "TOO_LARGE"


class OutboundTimeout(OutboundError):
    code = "TIMEOUT"


class OutboundConnectionError(OutboundError):
    code = "CONNECTION_FAILED"

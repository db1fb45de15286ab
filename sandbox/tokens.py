"""Access tokens the sandbox accepts: `sbx.<platform>.<account id, base64url>.<expiry>.<random>`.

The sandbox's own OAuth endpoints issue them and `seed_demo` mints them for demo accounts. A
token names its account and expiry, so the stand-in can refuse an expired or revoked token
exactly where the real platform would (401), without sharing a database with the service.
"""

from __future__ import annotations

import base64
import re
import secrets
import time
from dataclasses import dataclass

DEFAULT_LIFETIME_SECONDS = 2 * 3600
_BASE64URL = re.compile(r"[A-Za-z0-9_-]+")


@dataclass(frozen=True)
class TokenInfo:
    platform: str
    account: str
    expires_at: int

    @property
    def expired(self) -> bool:
        return self.expires_at <= time.time()


def issue(platform: str, account: str, *, lifetime_seconds: int = DEFAULT_LIFETIME_SECONDS, kind: str = "sbx") -> str:
    encoded = base64.urlsafe_b64encode(account.encode()).decode().rstrip("=")
    return f"{kind}.{platform}.{encoded}.{int(time.time()) + lifetime_seconds}.{secrets.token_urlsafe(12)}"


def parse(token: str, *, kind: str = "sbx") -> TokenInfo | None:
    parts = token.split(".")
    if len(parts) != 5 or parts[0] != kind or not parts[3].isdigit() or not _BASE64URL.fullmatch(parts[2]):
        return None
    try:
        account = base64.urlsafe_b64decode(parts[2] + "=" * (-len(parts[2]) % 4)).decode()
    except ValueError:
        return None
    return TokenInfo(platform=parts[1], account=account, expires_at=int(parts[3]))

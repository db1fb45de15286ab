"""Webhook secrets, bodies and signatures.

Every delivery carries two kinds of signature made with the subscription's secret:

- `X-Service-Signature: sha256=<hex>`: HMAC-SHA256 of the raw body, keyed with the secret
  string exactly as shown at creation (UTF-8). Simple to check, but a captured request can be
  replayed, since nothing in it expires.
- The Standard Webhooks headers (https://www.standardwebhooks.com): `webhook-id` (the event
  id, the same on every retry, for de-duplication), `webhook-timestamp` (seconds, per
  attempt) and `webhook-signature: v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`,
  keyed with the base64-decoded part of the secret after `whsec_`. Any Standard Webhooks
  library verifies them and refuses stale timestamps, which defeats replays.

During a secret rotation (`services.subscription_rotate_secret`) the replaced secret keeps
signing for WEBHOOK_SECRET_OVERLAP_SECONDS beside the new one: `webhook-signature` lists both
(`v1,<new> v1,<old>`, space-separated, as Standard Webhooks allows; its libraries accept a
delivery when any one matches), `X-Service-Signature` is made with the new secret and
`X-Service-Signature-Previous` with the old one, so a receiver still holding the old secret
keeps verifying until it switches.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
from typing import Any

SECRET_PREFIX = "whsec_"  # noqa: S105 - the Standard Webhooks prefix, not a secret
SECRET_BYTES = 32


def new_secret() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def secret_is_valid(secret: str) -> bool:
    """A caller-supplied secret must be `whsec_` and base64 of 24 to 64 random bytes."""
    if not secret.startswith(SECRET_PREFIX):
        return False
    try:
        key = base64.b64decode(secret.removeprefix(SECRET_PREFIX), validate=True)
    except (binascii.Error, ValueError):
        return False
    return 24 <= len(key) <= 64


def body(envelope: dict[str, Any]) -> bytes:
    """The exact bytes sent: compact JSON with sorted keys, identical on every retry."""
    return json.dumps(envelope, separators=(",", ":"), sort_keys=True, default=str).encode()


def service_signature(secret: str, raw_body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), raw_body, hashlib.sha256).hexdigest()


def standard_signature(secret: str, message_id: str, timestamp: int, raw_body: bytes) -> str:
    key = base64.b64decode(secret.removeprefix(SECRET_PREFIX))
    signed = f"{message_id}.{timestamp}.".encode() + raw_body
    return "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()


def headers(signing_secrets: list[str], message_id: str, timestamp: int, raw_body: bytes) -> dict[str, str]:
    """The signed headers of one attempt. `signing_secrets` is the current secret, then the replaced
    one while a rotation's overlap lasts."""
    current, *previous = signing_secrets
    signed = {
        "Content-Type": "application/json",
        "X-Service-Signature": service_signature(current, raw_body),
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": " ".join(standard_signature(s, message_id, timestamp, raw_body) for s in signing_secrets),
    }
    if previous:
        signed["X-Service-Signature-Previous"] = service_signature(previous[0], raw_body)
    return signed

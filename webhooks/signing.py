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

A secret a caller chooses must carry at least MIN_SECRET_BITS of entropy (`secret_is_weak`).
Entropy cannot be measured from one sample, only estimated, and a plain Shannon estimate over
the bytes of a 24-byte key cannot exceed log2(24) bits a byte, so it would refuse every random
key. The estimate is the least of three readings, each of which a random key of 24 bytes or
more passes with tens of bits to spare: the alphabet its bytes come from times its length before
it repeats (all-same bytes, `abab...`, hex or decimal text), and a Shannon estimate over its 4-bit
halves, of the key itself (a skewed spread of values) and of the steps between its bytes
(counting sequences).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import math
import secrets
import string
from collections import Counter
from itertools import pairwise
from typing import Any

SECRET_PREFIX = "whsec_"  # noqa: S105 - the Standard Webhooks prefix, not a secret
SECRET_BYTES = 32
MIN_SECRET_BITS = 128
# The smallest alphabet a key's bytes all fall in sets its bits a byte (anything else: 8).
_ALPHABETS = [
    frozenset(string.digits.encode()),
    frozenset(string.hexdigits.encode()),  # either case counts as 16 symbols below
    frozenset((string.ascii_letters + string.digits).encode()),
    frozenset(string.printable.encode()),
]
_ALPHABET_SIZES = [10, 16, 62, 95]


def new_secret() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def secret_key(secret: str) -> bytes | None:
    """The key of a `whsec_` secret (the bytes its base64 decodes to); None when malformed."""
    if not secret.startswith(SECRET_PREFIX):
        return None
    try:
        return base64.b64decode(secret.removeprefix(SECRET_PREFIX), validate=True)
    except (binascii.Error, ValueError):
        return None


def secret_is_valid(secret: str) -> bool:
    """A caller-supplied secret must be `whsec_` and base64 of 24 to 64 bytes."""
    key = secret_key(secret)
    return key is not None and 24 <= len(key) <= 64


def secret_is_weak(secret: str) -> bool:
    """True when the key of a valid secret carries fewer than MIN_SECRET_BITS by the estimate."""
    key = secret_key(secret) or b""
    return estimated_bits(key) < MIN_SECRET_BITS


def estimated_bits(key: bytes) -> float:
    """A conservative estimate of the entropy of `key`, in bits (see the module docstring)."""
    steps = bytes((after - before) % 256 for before, after in pairwise(key))
    return min(_alphabet_bits(key), _nibble_bits(key), _nibble_bits(steps) * len(key) / max(1, len(steps)))


def _alphabet_bits(key: bytes) -> float:
    size = next((n for n, chars in zip(_ALPHABET_SIZES, _ALPHABETS, strict=True) if set(key) <= chars), 256)
    return _period(key) * math.log2(size)


def _period(key: bytes) -> int:
    """The length of the shortest block the key repeats (at least twice), else its length."""
    for length in range(1, len(key) // 2 + 1):
        if all(key[i] == key[i - length] for i in range(length, len(key))):
            return length
    return len(key)


def _nibble_bits(data: bytes) -> float:
    """Shannon entropy over the 4-bit halves of `data`, with the Miller-Madow correction for the
    sample's size, times their number: 48 samples of 16 symbols estimate well where 24 of 256
    cannot."""
    nibbles = [b >> 4 for b in data] + [b & 0x0F for b in data]
    if not nibbles:
        return 0.0
    total, counts = len(nibbles), Counter(nibbles).values()
    shannon = -sum(c / total * math.log2(c / total) for c in counts)
    corrected = shannon + (len(counts) - 1) / (2 * total * math.log(2))
    return min(4.0, corrected) * total


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

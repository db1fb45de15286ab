"""The API key format: `sk_<prefix>_<secret><checksum>`.

- `prefix`: 12 base62 characters, public, the lookup id stored in clear.
- `secret`: 43 base62 characters from 32 random bytes (256 bits).
- `checksum`: 6 base62 characters of the CRC32 of everything before it, as GitHub's tokens
  carry, so a mistyped or truncated key is refused without a database query.

Only the SHA-256 of the whole key is stored. Keys are long and random, so a slow password hash
would add latency and no safety.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import zlib
from dataclasses import dataclass

_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
PREFIX_LENGTH = 12
SECRET_LENGTH = 43
CHECKSUM_LENGTH = 6
_FORMAT = re.compile(
    rf"^sk_(?P<prefix>[0-9A-Za-z]{{{PREFIX_LENGTH}}})_(?P<secret>[0-9A-Za-z]{{{SECRET_LENGTH}}})"
    rf"(?P<checksum>[0-9A-Za-z]{{{CHECKSUM_LENGTH}}})$"
)


def _base62(number: int, length: int) -> str:
    digits = []
    for _ in range(length):
        number, remainder = divmod(number, 62)
        digits.append(_ALPHABET[remainder])
    return "".join(reversed(digits))


def _checksum(body: str) -> str:
    return _base62(zlib.crc32(body.encode()), CHECKSUM_LENGTH)


@dataclass(frozen=True)
class GeneratedKey:
    plaintext: str
    prefix: str
    secret_hash: str


def generate() -> GeneratedKey:
    prefix = _base62(secrets.randbits(72), PREFIX_LENGTH)
    secret = _base62(int.from_bytes(secrets.token_bytes(32)), SECRET_LENGTH)
    body = f"sk_{prefix}_{secret}"
    plaintext = body + _checksum(body)
    return GeneratedKey(plaintext=plaintext, prefix=prefix, secret_hash=hash_key(plaintext))


def hash_key(plaintext: str) -> str:
    return hashlib.sha256(plaintext.encode()).hexdigest()


def parse_prefix(plaintext: str) -> str | None:
    """The key's lookup prefix, or None when the key is malformed or its checksum is wrong."""
    match = _FORMAT.match(plaintext)
    if match is None:
        return None
    body = plaintext[:-CHECKSUM_LENGTH]
    if not hmac.compare_digest(_checksum(body), match["checksum"]):
        return None
    return match["prefix"]


def matches(plaintext: str, secret_hash: str) -> bool:
    return hmac.compare_digest(hash_key(plaintext), secret_hash)

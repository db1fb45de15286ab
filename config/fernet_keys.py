"""The Fernet keys of FIELD_ENCRYPTION_KEYS, checked where they are read.

Settings call `fernets()` while they load, so a production process (web, worker, beat,
manage.py) with a missing or malformed key stops at start instead of at the first token it
reads; `config.crypto` calls it again to build its MultiFernet. This module imports no Django
models, so settings can use it. Errors name the variable and a key's position, never a key.
"""

from __future__ import annotations

from collections.abc import Sequence

from cryptography.fernet import Fernet
from django.core.exceptions import ImproperlyConfigured

SETTING = "FIELD_ENCRYPTION_KEYS"
GENERATE = "python -c 'from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())'"


def fernets(keys: Sequence[str]) -> list[Fernet]:
    """One Fernet per key, newest first; ImproperlyConfigured when there is none or one is not
    a Fernet key (32 url-safe base64-encoded bytes)."""
    if not keys:
        raise ImproperlyConfigured(f"{SETTING} is required with APP_ENV=production; generate a key with {GENERATE}")
    found = []
    for position, key in enumerate(keys, start=1):
        try:
            found.append(Fernet(key.encode()))
        except ValueError:  # binascii.Error is one too
            # `from None`: the cause's traceback is no place for a secret, even a malformed one.
            raise ImproperlyConfigured(
                f"{SETTING}: key {position} of {len(keys)} is not a Fernet key (32 url-safe base64-encoded "
                f"bytes); generate one with {GENERATE}"
            ) from None
    return found

"""Encryption of secrets at rest (OAuth tokens, webhook secrets) with Fernet.

`FIELD_ENCRYPTION_KEYS` lists keys newest first: the first encrypts, all decrypt, so keys can
be rotated without downtime (MultiFernet). Development derives a key from SECRET_KEY.
"""

from __future__ import annotations

import base64
import functools
import hashlib
from typing import Any

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import models


@functools.cache
def _fernet() -> MultiFernet:
    keys: list[str] = list(settings.FIELD_ENCRYPTION_KEYS)
    if not keys:
        if not settings.DEVELOPMENT:
            raise ImproperlyConfigured("FIELD_ENCRYPTION_KEYS is required in production")
        digest = hashlib.sha256(b"field-encryption:" + settings.SECRET_KEY.encode()).digest()
        keys = [base64.urlsafe_b64encode(digest).decode()]
    return MultiFernet([Fernet(key.encode()) for key in keys])


def encrypt(plaintext: str) -> str:
    return _fernet().encrypt(plaintext.encode()).decode()


def decrypt(token: str) -> str:
    try:
        return _fernet().decrypt(token.encode()).decode()
    except InvalidToken as exc:
        raise ImproperlyConfigured("A stored secret cannot be decrypted with FIELD_ENCRYPTION_KEYS") from exc


class EncryptedTextField(models.TextField):  # type: ignore[type-arg]
    """A text column stored as a Fernet token; reads give back the plaintext.

    Empty strings are stored as empty strings, so "no token" needs no encryption.
    """

    def get_prep_value(self, value: Any) -> Any:
        value = super().get_prep_value(value)
        return encrypt(value) if value else value

    def from_db_value(self, value: str | None, expression: Any, connection: Any) -> str | None:
        return decrypt(value) if value else value

"""Django's messages, kept in the server-side session encrypted with the field keys.

A message can carry a secret shown once (the admin's new API key), and the session is a
database row (or a Redis entry) that outlives the request: encrypted, a copied session store
holds no secret in plaintext, and the message leaves the session when a page shows it, as
`config.shown_once` does for the dashboard's secrets.
"""

from __future__ import annotations

from typing import Any

from django.contrib.messages.storage.session import SessionStorage
from django.core.exceptions import ImproperlyConfigured

from config.crypto import decrypt, encrypt


class EncryptedSessionStorage(SessionStorage):
    def serialize_messages(self, messages: Any) -> str:
        return encrypt(super().serialize_messages(messages))

    def deserialize_messages(self, data: Any) -> Any:
        if not data or not isinstance(data, str):
            return data
        try:
            return super().deserialize_messages(decrypt(data))
        except ImproperlyConfigured:  # the keys changed since: the messages are lost, not shown
            return []

"""Encryption of secrets at rest (OAuth tokens, webhook secrets) with Fernet.

`FIELD_ENCRYPTION_KEYS` lists keys newest first: the first encrypts, all decrypt, so keys can
be rotated without downtime (MultiFernet). Development derives a key from SECRET_KEY.
Rotation: list the new key first, restart every process, then `rotate_encrypted_fields()`
(`manage.py rotate_field_keys`) re-encrypts every stored value with it; the old key can go
once a run finds nothing left to re-encrypt.
"""

from __future__ import annotations

import base64
import functools
import hashlib
from dataclasses import dataclass
from typing import Any

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.apps import apps
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.signals import setting_changed
from django.db import models, transaction
from django.db.models.functions import Cast
from django.dispatch import receiver

from config.fernet_keys import fernets


@functools.cache
def _keys() -> tuple[Fernet, ...]:
    keys: list[str] = list(settings.FIELD_ENCRYPTION_KEYS)
    if not keys and settings.DEVELOPMENT:
        digest = hashlib.sha256(b"field-encryption:" + settings.SECRET_KEY.encode()).digest()
        keys = [base64.urlsafe_b64encode(digest).decode()]
    return tuple(fernets(keys))


def _fernet() -> MultiFernet:
    return MultiFernet(_keys())


def reset_keys() -> None:
    """Forget the cached keys (after the settings changed, as tests do)."""
    _keys.cache_clear()


@receiver(setting_changed)
def _keys_changed(*, setting: str, **kwargs: Any) -> None:
    if setting in {"FIELD_ENCRYPTION_KEYS", "SECRET_KEY", "DEVELOPMENT"}:
        reset_keys()


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


# --- rotation -------------------------------------------------------------------------------


@dataclass
class Rotation:
    """What one run did to one column; counts only, never a value."""

    column: str
    rotated: int = 0  # re-encrypted with the newest key
    current: int = 0  # already encrypted with it
    changed: int = 0  # written by another process meanwhile; run again to be sure
    unreadable: int = 0  # no listed key decrypts it


def encrypted_columns() -> list[tuple[type[models.Model], EncryptedTextField]]:
    """Every EncryptedTextField of every installed model, so a new one is never forgotten."""
    return [
        (model, field)
        for model in apps.get_models()
        if not model._meta.proxy and model._meta.managed
        for field in model._meta.concrete_fields
        if isinstance(field, EncryptedTextField)
    ]


def rotate_encrypted_fields(*, batch_size: int = 500) -> list[Rotation]:
    """Re-encrypt every stored secret with the newest key (MultiFernet.rotate). Idempotent: a
    second run finds every value current."""
    return [_rotate_column(model, field, batch_size) for model, field in encrypted_columns()]


def _rotate_column(model: type[models.Model], field: EncryptedTextField, batch_size: int) -> Rotation:
    # The raw token is read through a plain-text Cast and written as a plain-text Value, so the
    # field's own encrypt/decrypt never runs; the update is conditional on the token read, so a
    # value another process wrote meanwhile is left as it is.
    name = field.attname
    rows = (
        model._base_manager.exclude(**{f"{name}__isnull": True})
        .exclude(**{name: ""})
        .annotate(raw_token=Cast(name, models.TextField()))
        .order_by("pk")
    )
    rotation = Rotation(column=f"{model._meta.label}.{name}")
    after: Any = None
    while True:
        page = rows if after is None else rows.filter(pk__gt=after)
        with transaction.atomic():
            batch = list(page.values_list("pk", "raw_token")[:batch_size])
            for pk, token in batch:
                _rotate_one(model, name, pk, token, rotation)
        if len(batch) < batch_size:
            return rotation
        after = batch[-1][0]


def _rotate_one(model: type[models.Model], name: str, pk: Any, token: str, rotation: Rotation) -> None:
    try:
        _keys()[0].extract_timestamp(token.encode())  # checks the signature of the newest key only
        rotation.current += 1
        return
    except InvalidToken:
        pass
    try:
        rotated = _fernet().rotate(token.encode()).decode()
    except InvalidToken:
        rotation.unreadable += 1
        return
    written = model._base_manager.filter(pk=pk, **{name: _raw(token)}).update(**{name: _raw(rotated)})
    if written:
        rotation.rotated += 1
    else:
        rotation.changed += 1


def _raw(token: str) -> models.Value:
    return models.Value(token, output_field=models.TextField())

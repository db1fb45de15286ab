"""Secrets the dashboard shows once (a new API key, a webhook's secret, a rotated one).

The POST that makes one redirects to the page that shows it, so a reload repeats nothing (a
second rotation would end the old secret's day of overlap at once). The secret crosses that
redirect in the session, which is a database row (or a Redis entry) that outlives the request:
so it goes in encrypted with the field keys (`config.crypto`), and leaves the session when the
page reads it. A session copied from the store never holds a secret in plaintext, and once the
page was shown it holds none at all.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib.sessions.backends.base import SessionBase
from django.core.exceptions import ImproperlyConfigured

from config.crypto import decrypt, encrypt


def keep(session: SessionBase, key: str, shown: dict[str, str]) -> None:
    """Keep `shown` (what the next page displays, secret included) for one reading."""
    session[key] = encrypt(json.dumps(shown))


def take(session: SessionBase, key: str) -> dict[str, Any] | None:
    """What `keep` put under `key`, removed from the session as it is read; None when nothing
    is there (or it no longer decrypts: the keys changed since)."""
    token = session.pop(key, None)
    if not isinstance(token, str):
        return None
    try:
        shown = json.loads(decrypt(token))
    except ImproperlyConfigured:
        return None
    return shown if isinstance(shown, dict) else None

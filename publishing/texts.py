"""A post's text as duplicate checks compare it: trimmed, each run of whitespace (spaces, tabs,
line breaks) one space, and the key a target stores of it (`Target.text_key`), so finding an
account's earlier posts of the same text is one indexed lookup."""

from __future__ import annotations

import hashlib
import re

_WHITESPACE = re.compile("[ \t\n\r\f\v]+")


def normalized(text: str) -> str:
    return _WHITESPACE.sub(" ", text).strip(" ")


def text_key(text: str | None) -> str:
    """The stored key of a text: the SHA-256 of its normalized form; "" for no text (a post of
    media only is never a duplicate)."""
    found = normalized(text or "")
    return hashlib.sha256(found.encode()).hexdigest() if found else ""

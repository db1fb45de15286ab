"""AT Protocol data formats the Bluesky client writes and reads: grapheme counts, record keys
(TIDs), rich-text facets with UTF-8 byte offsets, and what a session's tokens and DID document say.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import re
import secrets
import threading
import time
from collections.abc import Mapping
from typing import Any

import regex

FACET = "app.bsky.richtext.facet"


# --- graphemes ---------------------------------------------------------------------------------


_GRAPHEME = regex.compile(r"\X")


def graphemes(text: str) -> list[str]:
    """Extended grapheme clusters: what Bluesky counts against its 300-character limit."""
    return list(_GRAPHEME.findall(text))


def grapheme_count(text: str) -> int:
    return len(graphemes(text))


# --- record keys -------------------------------------------------------------------------------

_B32_SORTABLE = "234567abcdefghijklmnopqrstuvwxyz"
_tid_lock = threading.Lock()
_last_micros = 0


def new_tid() -> str:
    """A TID (atproto spec): 53 bits of microseconds since the epoch and a random 10-bit clock
    id, written as 13 base32-sortable characters; strictly increasing within this process."""
    global _last_micros
    with _tid_lock:
        _last_micros = max(time.time_ns() // 1000, _last_micros + 1)
        value = (_last_micros << 10) | secrets.randbelow(1024)
    return "".join(_B32_SORTABLE[(value >> shift) & 31] for shift in range(60, -1, -5))


def now_iso() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


# --- facets ------------------------------------------------------------------------------------

_URL = re.compile(r"https?://[^\s<>\"]+")
_MENTION = re.compile(
    r"(?:^|(?<=\s)|(?<=\())@((?:[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)"
)
_TAG = re.compile(r"(?:^|(?<=\s))[#\uff03](\w*[^\W\d]\w*)")  # '#' or the full-width number sign
_TRAILING = ".,;:!?'\")]}"


def _byte_slice(text: str, start: int, end: int) -> dict[str, int]:
    byte_start = len(text[:start].encode())
    return {"byteStart": byte_start, "byteEnd": byte_start + len(text[start:end].encode())}


def facet(text: str, span: tuple[int, int], feature: dict[str, str]) -> dict[str, Any]:
    return {"index": _byte_slice(text, *span), "features": [feature]}


def link_facets(text: str) -> list[dict[str, Any]]:
    facets = []
    for match in _URL.finditer(text):
        url = match.group().rstrip(_TRAILING)
        span = (match.start(), match.start() + len(url))
        facets.append(facet(text, span, {"$type": f"{FACET}#link", "uri": url}))
    return facets


def tag_facets(text: str) -> list[dict[str, Any]]:
    facets = []
    for match in _TAG.finditer(text):
        tag = match.group(1)
        if grapheme_count(tag) <= 64 and len(tag.encode()) <= 640:
            facets.append(facet(text, match.span(), {"$type": f"{FACET}#tag", "tag": tag}))
    return facets


def mention_spans(text: str) -> list[tuple[tuple[int, int], str]]:
    """((start, end) of '@handle' in characters, handle) for each mention-looking word."""
    return [(match.span(), match.group(1).lower()) for match in _MENTION.finditer(text)]


# --- sessions ------------------------------------------------------------------------------------


def jwt_expiry(token: str) -> dt.datetime | None:
    """The `exp` of a JWT access token; None for tokens that are not JWTs (the sandbox's)."""
    parts = token.split(".")
    if len(parts) != 3:
        return None
    try:
        claims = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
        return dt.datetime.fromtimestamp(int(claims["exp"]), dt.UTC)
    except (ValueError, KeyError, TypeError):
        return None


def pds_of(did_doc: Any) -> str:
    services = did_doc.get("service", []) if isinstance(did_doc, Mapping) else []
    return next((str(s.get("serviceEndpoint")) for s in services if str(s.get("id", "")).endswith("#atproto_pds")), "")

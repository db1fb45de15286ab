"""The link card the compose page's preview shows under a post: the linked page's title and
description, read from its Open Graph tags (`og:title`, `og:description`) or its <title> and
meta description.

The URL is the user's, so the page is fetched only through `config.outbound` (every hop's
addresses checked, a byte cap and a total deadline), and only its first bytes are read: the
head of a page holds its tags. A card, or the reason there is none, is cached per URL, so
typing the same link again asks nothing; fetches per user are limited to a few a minute, for
this is a way to make the service send requests.
"""

from __future__ import annotations

import hashlib
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urlsplit

from django.core.cache import cache

from config import outbound
from config.errors import ApplicationError, Unprocessable

MAX_BYTES = 256 * 1024
DEADLINE_SECONDS = 5.0
CACHE_SECONDS = 24 * 3600
FAILURE_CACHE_SECONDS = 300  # a page that is down now may be up when the post goes out
FETCHES_PER_MINUTE = 10
TEXT_MAX = 300


class TooManyFetches(ApplicationError):
    status_code = 429
    type = "rate_limited"
    code = "RATE_LIMITED"
    message = "Too many link previews in a minute; the card fills in shortly."


class _Tags(HTMLParser):
    """The first title and description a page's head offers, Open Graph's first."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: dict[str, str] = {}
        self._in_title = False
        self._title = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        if tag == "title":
            self._in_title = True
        elif tag == "meta":
            name = (values.get("property") or values.get("name") or "").lower()
            if name in ("og:title", "og:description", "description") and name not in self.found:
                self.found[name] = values.get("content", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self._title += data

    def card(self) -> dict[str, str]:
        title = self.found.get("og:title") or self._title
        description = self.found.get("og:description") or self.found.get("description", "")
        return {"title": _tidy(title), "description": _tidy(description)}


def _tidy(text: str) -> str:
    return " ".join(text.split())[:TEXT_MAX]


def link_card(*, url: str, user_id: int) -> dict[str, Any]:
    """The card of `url`: its domain and path always, its title and description when the page
    could be read (`error` says why not). Raises Unprocessable for what is no web address and
    TooManyFetches past the user's fetches a minute."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise Unprocessable("A link card needs a web address starting with http:// or https://.")
    key = "linkcard:" + hashlib.sha256(url.encode()).hexdigest()
    cached = cache.get(key)
    if cached is None:
        _count_fetch(user_id)
        cached, seconds = _fetched(url)
        cache.set(key, cached, seconds)
    return {"url": url, "domain": parts.hostname, "path": parts.path if parts.path != "/" else "", **cached}


def _count_fetch(user_id: int) -> None:
    # A window opens at the user's first fetch and closes a minute later (incr keeps its expiry).
    window = f"linkcard:user:{user_id}"
    cache.add(window, 0, 60)
    if cache.incr(window) > FETCHES_PER_MINUTE:
        raise TooManyFetches()


def _fetched(url: str) -> tuple[dict[str, str], int]:
    try:
        with outbound.stream(
            url, headers={"Accept": "text/html"}, deadline_seconds=DEADLINE_SECONDS, max_bytes=MAX_BYTES
        ) as response:
            if response.status_code != 200:
                return _failure(f"The page answered HTTP {response.status_code}."), FAILURE_CACHE_SECONDS
            head = _first_bytes(response)
    except outbound.OutboundError as exc:
        return _failure(str(exc)), FAILURE_CACHE_SECONDS
    tags = _Tags()
    tags.feed(head.decode("utf-8", errors="replace"))
    return {**tags.card(), "error": ""}, CACHE_SECONDS


def _first_bytes(response: outbound.OutboundStream) -> bytes:
    # Reading stops at the cap; a longer page keeps its head, which is all a card needs.
    read = b""
    try:
        for chunk in response.iter_bytes():
            read += chunk
    except outbound.ResponseTooLarge:
        pass
    return read


def _failure(reason: str) -> dict[str, str]:
    return {"title": "", "description": "", "error": reason}

"""The compose preview's link cards, read from real pages on a loopback HTTP server through the
outbound client for user-supplied URLs: what a card shows, that it is cached, rate-limited and
refused for private addresses like any user-supplied URL."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.core.cache import cache

from publishing import link_cards

pytestmark = pytest.mark.django_db

CARD = "/dashboard/compose/link-card/"
PAGE = b"""<!doctype html><html><head><title>Plain title</title>
<meta property="og:title" content="Launch notes &amp; more">
<meta property="og:description" content="  What shipped
 today.  ">
</head><body>...</body></html>"""


class _Handler(BaseHTTPRequestHandler):
    routes: dict[str, bytes] = {}
    hits: list[str] = []

    def do_GET(self) -> None:
        self.hits.append(self.path)
        body = self.routes.get(self.path)
        self.send_response(200 if body is not None else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body or b"")))
        self.end_headers()
        self.wfile.write(body or b"")

    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def serve(routes: dict[str, bytes]) -> Iterator[tuple[type[_Handler], str]]:
    """Pages on 127.0.0.1 as `routes` gives them; yields the handler (its `hits`) and the origin."""
    handler = type("Handler", (_Handler,), {"routes": routes, "hits": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield handler, f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def pages(settings):
    """Private addresses allowed, as in development (the server is on loopback)."""
    settings.SSRF_ALLOW_PRIVATE = True
    routes = {
        "/launch/notes": PAGE,
        "/plain": b"<html><head><title> Just a title </title><meta name=description content=Described></head>",
    }
    with serve(routes) as served:
        yield served


def _card(client, persona, url):
    client.force_login(persona.user)
    return client.get(CARD, {"team": str(persona.team.pk), "url": url})


def test_a_card_shows_the_pages_open_graph_title_and_description(client, owner, pages):
    _, origin = pages

    response = _card(client, owner, f"{origin}/launch/notes")

    assert response.status_code == 200
    assert response.json()["data"] == {
        "url": f"{origin}/launch/notes",
        "domain": "127.0.0.1",
        "path": "/launch/notes",
        "title": "Launch notes & more",
        "description": "What shipped today.",
        "error": "",
    }


def test_without_open_graph_the_title_and_meta_description_are_used(client, owner, pages):
    _, origin = pages

    card = _card(client, owner, f"{origin}/plain").json()["data"]

    assert (card["title"], card["description"]) == ("Just a title", "Described")


def test_a_card_is_fetched_once_and_then_served_from_the_cache(client, owner, member, pages):
    handler, origin = pages

    _card(client, owner, f"{origin}/launch/notes")
    again = _card(client, member, f"{origin}/launch/notes")

    assert again.json()["data"]["title"] == "Launch notes & more"
    assert handler.hits == ["/launch/notes"]


def test_a_page_that_is_not_there_gives_a_card_without_a_title_and_says_why(client, owner, pages):
    _, origin = pages

    card = _card(client, owner, f"{origin}/gone").json()["data"]

    assert card["title"] == ""
    assert card["error"] == "The page answered HTTP 404."
    assert card["path"] == "/gone"


def test_fetches_past_the_limit_a_minute_are_refused_in_words(client, owner, pages):
    handler, origin = pages
    for number in range(link_cards.FETCHES_PER_MINUTE):
        assert _card(client, owner, f"{origin}/page-{number}").status_code == 200

    refused = _card(client, owner, f"{origin}/one-more")

    assert refused.status_code == 429
    assert refused.json()["error"]["message"] == "Too many link previews in a minute; the card fills in shortly."
    assert len(handler.hits) == link_cards.FETCHES_PER_MINUTE
    # A card already read is still served: it asks nothing.
    assert _card(client, owner, f"{origin}/page-0").status_code == 200


def test_a_private_address_is_never_fetched(client, owner, settings):
    with serve({"/": PAGE}) as (handler, origin):
        settings.SSRF_ALLOW_PRIVATE = False

        card = _card(client, owner, f"{origin}/").json()["data"]

    assert card["title"] == ""
    assert card["error"]
    assert handler.hits == []


def test_what_is_no_web_address_is_refused(client, owner):
    response = _card(client, owner, "javascript:alert(1)")

    assert response.status_code == 422
    assert response.json()["error"]["message"] == "A link card needs a web address starting with http:// or https://."


def test_the_card_needs_a_login_and_the_callers_team(client, owner, outsider):
    assert client.get(CARD, {"team": str(owner.team.pk), "url": "https://example.com/"}).status_code == 302

    client.force_login(outsider.user)
    assert client.get(CARD, {"team": str(owner.team.pk), "url": "https://example.com/"}).status_code == 404

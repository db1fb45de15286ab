"""Connect links: made over the API, opened without a login, connecting accounts into the link's
team through the sandbox's real authorize pages, and sending the browser back to the link's
redirect only."""

from __future__ import annotations

import datetime as dt
import html
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from django.test import Client
from django.utils import timezone

from accounts import connect_links
from accounts.models import AccountStatus, ConnectLink, SocialAccount

pytestmark = pytest.mark.django_db

APPROVE = re.compile(r'id="approve" href="([^"]+)"')
DENY = re.compile(r'id="deny" href="([^"]+)"')
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
REDIRECT = "http://localhost:9999/socials/done?customer=42"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


def _create(api: Any, key: str, **fields: Any) -> Any:
    body = {"redirect_url": REDIRECT, **fields}
    return api.as_(key).post("/api/v1/connect-links", body, format="json")


def _link(api: Any, persona: Any, **fields: Any) -> dict[str, Any]:
    response = _create(api, persona.key, **fields)
    assert response.status_code == 201, response.content
    return response.json()["data"]


@pytest.fixture
def visitor() -> Client:
    """A browser that never signed in, with CSRF checks on as a real browser meets them."""
    return Client(enforce_csrf_checks=True)


def _path(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}" if parts.query else parts.path


def _start(visitor: Client, link: dict[str, Any], platform: str, **fields: str) -> Any:
    """Open the page and press its Connect for `platform`, with the page's CSRF token."""
    page = visitor.get(_path(link["url"]))
    assert page.status_code == 200
    token = CSRF.search(page.content.decode()).group(1)
    action = f"{urlsplit(link['url']).path}{platform}/"
    return visitor.post(action, {"csrfmiddlewaretoken": token, **fields})


def _authorize(visitor: Client, link: dict[str, Any], platform: str = "x", *, choice: re.Pattern[str] = APPROVE) -> Any:
    """Connect through the sandbox's authorize page: approve (or cancel) there, come back."""
    start = _start(visitor, link, platform)
    assert start.status_code == 302
    consent = requests.get(start["Location"], timeout=10)
    assert consent.status_code == 200
    return visitor.get(_path(html.unescape(choice.search(consent.text).group(1))))


def _query(url: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(url).query, keep_blank_values=True)


# --- the API --------------------------------------------------------------------------------


def test_a_link_is_created_with_its_page_address_and_defaults(api, owner, sandbox):
    link = _link(api, owner, branding={"name": "Acme Studio", "accent_color": "#0a7cff"})

    assert link["status"] == "pending"
    assert link["redirect_url"] == REDIRECT
    assert link["url"].startswith("http")
    assert "/connect/" in link["url"]
    assert link["id"] in link["url"]  # the id, signed: the id alone opens nothing
    assert "x" in link["platforms"]
    assert "bluesky" in link["platforms"]
    expires = dt.datetime.fromisoformat(link["expires_at"].replace("Z", "+00:00"))
    assert dt.timedelta(minutes=59) < expires - timezone.now() <= dt.timedelta(hours=1)
    assert link["branding"] == {"name": "Acme Studio", "logo_url": "", "accent_color": "#0a7cff", "logo_shown": False}
    assert link["accounts"] == []


@pytest.mark.parametrize(
    ("redirect_url", "code"),
    [
        ("javascript:alert(1)", "INVALID_REDIRECT_URL"),
        ("//evil.example/steal", "INVALID_REDIRECT_URL"),
        ("ftp://files.example/", "INVALID_REDIRECT_URL"),
        ("http://evil.example/", "INVALID_REDIRECT_URL"),  # plain http only to localhost
        ("https://user:pass@app.example/", "INVALID_REDIRECT_URL"),
        ("https://app.example\\@evil.example/", "INVALID_REDIRECT_URL"),
        ("https://app.example/\r\nLocation: https://evil.example", "INVALID_REDIRECT_URL"),
        ("", "VALIDATION_ERROR"),
    ],
)
def test_a_redirect_that_is_not_https_or_to_localhost_is_refused(api, owner, redirect_url, code):
    response = _create(api, owner.key, redirect_url=redirect_url)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == code
    assert not ConnectLink.objects.exists()


def test_plain_http_is_refused_even_to_localhost_in_production(api, owner, settings):
    settings.DEVELOPMENT = False

    response = _create(api, owner.key, redirect_url="http://localhost:3000/done", platforms=["bluesky"])

    assert response.status_code == 400
    assert response.json()["error"]["message"] == "redirect_url must be https."


@pytest.mark.parametrize(
    "fields",
    [{"platforms": ["myspace"]}, {"platforms": []}, {"expires_in": 59}, {"expires_in": 604801}, {"expires_in": "soon"}],
)
def test_unknown_platforms_and_expiries_out_of_range_are_refused(api, owner, fields):
    response = _create(api, owner.key, **fields)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"


def test_a_platform_without_app_credentials_is_refused_in_production(api, owner, settings):
    settings.DEVELOPMENT = False
    settings.X_CLIENT_ID = ""

    response = _create(api, owner.key, redirect_url="https://app.example/done", platforms=["x"])

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "PLATFORM_UNAVAILABLE"


def test_making_a_link_needs_accounts_write(api, owner):
    response = _create(api, owner.key_with("accounts:read"))

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "MISSING_SCOPE"


def test_another_teams_link_is_not_found(api, owner, outsider):
    link = _link(api, owner)

    for method in ("get", "delete"):
        response = getattr(api.as_(outsider.key), method)(f"/api/v1/connect-links/{link['id']}")
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "CONNECT_LINK_NOT_FOUND"
    assert api.as_(outsider.key).get("/api/v1/connect-links").json()["data"] == []
    assert ConnectLink.objects.get(pk=link["id"]).revoked_at is None


def test_links_are_listed_newest_first(api, owner):
    first, second = _link(api, owner), _link(api, owner)

    body = api.as_(owner.key).get("/api/v1/connect-links").json()

    assert [item["id"] for item in body["data"]] == [second["id"], first["id"]]
    assert body["pagination"]["total_count"] == 2


# --- the page -------------------------------------------------------------------------------


def test_the_page_needs_no_login_shows_the_branding_and_cannot_be_framed(api, owner, visitor):
    link = _link(api, owner, platforms=["x", "bluesky"], branding={"name": "Acme Studio", "accent_color": "#0a7cff"})

    page = visitor.get(_path(link["url"]))

    assert page.status_code == 200
    text = page.content.decode()
    assert "Connect your accounts to Acme Studio" in text
    assert "Connect X" in text
    assert "Connect Bluesky" in text
    assert "Connect TikTok" not in text
    assert page["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in page["Content-Security-Policy"]
    assert "script-src 'self'" in page["Content-Security-Policy"]
    style = visitor.get(f"{urlsplit(link['url']).path}style.css")
    assert style["Content-Type"].startswith("text/css")
    assert "--accent: #0a7cff" in style.content.decode()


def test_an_id_alone_or_a_forged_token_opens_nothing(api, owner, visitor):
    link = _link(api, owner)
    token = urlsplit(link["url"]).path.split("/")[2]

    assert visitor.get(f"/connect/{link['id']}/").status_code == 404
    assert visitor.get(f"/connect/{token[:-2]}xx/").status_code == 404


def test_a_revoked_link_answers_410_and_shows_nothing_of_the_team(api, owner, visitor):
    link = _link(api, owner, branding={"name": "Acme Studio"})

    revoked = api.as_(owner.key).delete(f"/api/v1/connect-links/{link['id']}")

    assert revoked.status_code == 200
    assert revoked.json()["data"]["status"] == "revoked"
    page = visitor.get(_path(link["url"]))
    assert page.status_code == 410
    assert "Acme" not in page.content.decode()
    assert api.as_(owner.key).get(f"/api/v1/connect-links/{link['id']}").json()["data"]["status"] == "revoked"


def test_an_expired_link_answers_410(api, owner, visitor):
    link = _link(api, owner, expires_in=60, branding={"name": "Acme Studio"})
    ConnectLink.objects.filter(pk=link["id"]).update(expires_at=timezone.now() - dt.timedelta(seconds=1))

    page = visitor.get(_path(link["url"]))

    assert page.status_code == 410
    assert "Acme" not in page.content.decode()
    assert api.as_(owner.key).get(f"/api/v1/connect-links/{link['id']}").json()["data"]["status"] == "expired"


def test_a_form_without_the_csrf_token_is_refused(api, owner, visitor):
    link = _link(api, owner)
    visitor.get(_path(link["url"]))

    response = visitor.post(f"{urlsplit(link['url']).path}x/")

    assert response.status_code == 403


# --- connecting through it ------------------------------------------------------------------


def test_connecting_x_lands_the_account_in_the_links_team_and_goes_back(api, owner, visitor, sandbox):
    link = _link(api, owner, platforms=["x"])

    back = _authorize(visitor, link)

    assert back.status_code == 302
    account = SocialAccount.objects.get(platform="x")
    assert (account.team, account.status, account.sandbox) == (owner.team, AccountStatus.ACTIVE, True)
    assert back["Location"].startswith("http://localhost:9999/socials/done?")
    assert _query(back["Location"]) == {
        "customer": ["42"],
        "connect_link": [link["id"]],
        "status": ["connected"],
        "accounts": [str(account.pk)],
    }
    shown = api.as_(owner.key).get(f"/api/v1/connect-links/{link['id']}").json()["data"]
    assert shown["status"] == "connected"
    assert [a["id"] for a in shown["accounts"]] == [str(account.pk)]


def test_the_authorization_carries_a_signed_state_naming_the_link(api, owner, visitor, sandbox):
    link = _link(api, owner, platforms=["x"])

    start = _start(visitor, link, "x")

    state = parse_qs(urlsplit(start["Location"]).query)["state"][0]
    assert connect_links.read_state(state)[0] == link["id"]
    assert start["Location"].startswith(f"{sandbox.url}/")


def test_connecting_bluesky_with_an_app_password_on_the_page(api, owner, visitor, sandbox):
    link = _link(api, owner, platforms=["bluesky"])

    back = _start(visitor, link, "bluesky", identifier="customer.bsky.social", app_password="abcd-efgh-ijkl-mnop")

    assert back.status_code == 302
    account = SocialAccount.objects.get(platform="bluesky")
    assert account.team == owner.team
    assert _query(back["Location"])["accounts"] == [str(account.pk)]


def test_declining_at_the_platform_goes_back_cancelled(api, owner, visitor, sandbox):
    link = _link(api, owner, platforms=["x"])

    back = _authorize(visitor, link, choice=DENY)

    assert back.status_code == 302
    assert _query(back["Location"])["status"] == ["cancelled"]
    assert _query(back["Location"])["accounts"] == [""]
    assert not SocialAccount.objects.exists()
    assert api.as_(owner.key).get(f"/api/v1/connect-links/{link['id']}").json()["data"]["status"] == "cancelled"


def test_cancel_on_the_page_goes_back_cancelled(api, owner, visitor):
    link = _link(api, owner)
    page = visitor.get(_path(link["url"]))
    token = CSRF.search(page.content.decode()).group(1)

    back = visitor.post(f"{urlsplit(link['url']).path}cancel/", {"csrfmiddlewaretoken": token})

    assert back.status_code == 302
    assert _query(back["Location"])["status"] == ["cancelled"]


def test_a_replayed_callback_connects_nothing_more(api, owner, visitor, sandbox):
    link = _link(api, owner, platforms=["x"])
    start = _start(visitor, link, "x")
    consent = requests.get(start["Location"], timeout=10)
    callback = _path(html.unescape(APPROVE.search(consent.text).group(1)))

    assert visitor.get(callback).status_code == 302
    replayed = visitor.get(callback)

    assert replayed.status_code == 400
    assert SocialAccount.objects.count() == 1


def test_a_leaked_callback_opened_in_another_browser_connects_nothing(api, owner, visitor, sandbox):
    link = _link(api, owner, platforms=["x"])
    start = _start(visitor, link, "x")
    consent = requests.get(start["Location"], timeout=10)
    callback = _path(html.unescape(APPROVE.search(consent.text).group(1)))

    stolen = Client().get(callback)

    assert stolen.status_code == 400
    assert not SocialAccount.objects.exists()


def test_a_state_moved_to_another_teams_link_is_refused(api, owner, outsider, visitor, sandbox):
    mine, theirs = _link(api, owner, platforms=["x"]), _link(api, outsider, platforms=["x"])
    start = _start(visitor, mine, "x")
    consent = requests.get(start["Location"], timeout=10)
    callback = urlsplit(html.unescape(APPROVE.search(consent.text).group(1)))
    query = parse_qs(callback.query)
    nonce = connect_links.read_state(query["state"][0])[1]
    forged = connect_links.state_for(ConnectLink(pk=theirs["id"]), nonce)[:-3] + "abc"  # no secret, no signature

    response = visitor.get(callback.path, {"code": query["code"][0], "state": forged})

    assert response.status_code in (302, 400)
    assert not SocialAccount.objects.filter(team=outsider.team).exists()


def test_a_link_revoked_during_the_authorization_connects_nothing(api, owner, visitor, sandbox):
    link = _link(api, owner, platforms=["x"])
    start = _start(visitor, link, "x")
    consent = requests.get(start["Location"], timeout=10)
    api.as_(owner.key).delete(f"/api/v1/connect-links/{link['id']}")

    back = visitor.get(_path(html.unescape(APPROVE.search(consent.text).group(1))))

    assert back.status_code == 410
    assert not SocialAccount.objects.exists()


def test_what_a_visitor_adds_to_the_address_never_changes_where_the_browser_goes(api, owner, visitor, sandbox):
    link = _link(api, owner, platforms=["x"])
    start = _start(visitor, link, "x")
    consent = requests.get(start["Location"], timeout=10)
    callback = _path(html.unescape(APPROVE.search(consent.text).group(1)))

    back = visitor.get(f"{callback}&redirect_url=https://evil.example/&next=https://evil.example/")

    assert back["Location"].startswith("http://localhost:9999/socials/done?")


def test_a_platform_the_link_does_not_offer_cannot_be_started(api, owner, visitor):
    link = _link(api, owner, platforms=["bluesky"])

    assert _start(visitor, link, "x").status_code == 404


def test_the_dashboards_own_callback_still_needs_a_login(client, sandbox):
    response = client.get("/dashboard/accounts/callback/x/?state=abc&code=def")

    assert response.status_code == 302
    assert response["Location"].startswith("/login/")


# --- the logo -------------------------------------------------------------------------------


class _Logo(BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_GET(self) -> None:
        type(self).hits.append(self.path)
        body = PNG if self.path == "/logo.png" else b"<svg onload=alert(1)>"
        self.send_response(200)
        self.send_header("Content-Type", "image/png" if self.path == "/logo.png" else "image/svg+xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def logo_server() -> Iterator[str]:
    _Logo.hits = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Logo)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()


def test_the_logo_is_fetched_once_and_served_from_this_service(api, owner, visitor, logo_server, settings):
    settings.SSRF_ALLOW_PRIVATE = True  # the logo's server is on loopback, as in demos
    link = _link(api, owner, branding={"name": "Acme", "logo_url": f"{logo_server}/logo.png"})

    assert link["branding"]["logo_shown"] is True
    page = visitor.get(_path(link["url"])).content.decode()
    assert 'class="logo"' in page
    assert logo_server not in page
    logo = visitor.get(f"{urlsplit(link['url']).path}logo")
    assert (logo.status_code, logo["Content-Type"], logo.content) == (200, "image/png", PNG)
    assert _Logo.hits == ["/logo.png"]


def test_a_logo_on_a_private_address_is_never_requested(api, owner, logo_server):
    link = _link(api, owner, branding={"name": "Acme", "logo_url": f"{logo_server}/logo.png"})

    assert link["branding"]["logo_shown"] is False
    assert _Logo.hits == []


def test_a_logo_that_is_not_a_png_jpeg_or_gif_is_left_out(api, owner, logo_server, settings):
    settings.SSRF_ALLOW_PRIVATE = True

    link = _link(api, owner, branding={"name": "Acme", "logo_url": f"{logo_server}/logo.svg"})

    assert link["branding"]["logo_shown"] is False


def test_guessing_app_passwords_on_the_page_slows_down(api, owner, visitor, sandbox, settings):
    settings.LOGIN_FAILURE_LIMIT = 2
    link = _link(api, owner, platforms=["bluesky"])

    answers = [
        _start(visitor, link, "bluesky", identifier="customer.bsky.social", app_password="not-an-app-password")
        for _ in range(3)
    ]

    assert [a.status_code for a in answers] == [400, 400, 429]
    assert "Try again in" in answers[-1].content.decode()
    assert not SocialAccount.objects.exists()


def test_a_session_keeps_only_its_latest_started_authorizations(api, owner, visitor, sandbox):
    link = _link(api, owner, platforms=["x"])
    first = _start(visitor, link, "x")
    for _ in range(5):
        _start(visitor, link, "x")
    consent = requests.get(first["Location"], timeout=10)

    dropped = visitor.get(_path(html.unescape(APPROVE.search(consent.text).group(1))))

    assert dropped.status_code == 400
    stored = list(visitor.session.keys())
    assert sum(key.startswith("connect-link:") for key in stored) == 5

"""The hosted page of a connect link (`accounts.connect_links`): no login, one "Connect" per
platform the link offers, the link's branding, and the authorization's callback for the link.

Every answer about a link that expired or was revoked is the same 410 page, which names
nothing of the team. Forms post with Django's CSRF token; the page may not be framed
(X-Frame-Options and the CSP's frame-ancestors) and its forms may go only here, to the
platforms' authorize pages and to the link's own redirect. The browser is only ever sent to
the redirect_url stored with the link: nothing a visitor adds to a URL changes where it goes.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import secrets
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from accounts import connect_links, login_throttle, services
from accounts.connect_links import Status
from accounts.models import ConnectLink, Platform, SocialAccount
from accounts.platforms.base import PlatformError
from accounts.platforms.registry import client_for
from config.errors import ApplicationError
from config.middleware import content_security_policy
from config.proxies import client_address

GONE_TEMPLATE = "accounts/connect_link_gone.html"
PAGE_TEMPLATE = "accounts/connect_link.html"
_ATTEMPT = "connect-link:{nonce}"  # session key of a started authorization
MAX_OPEN_ATTEMPTS = 5  # started authorizations one browser session keeps


def _gone(request: HttpRequest) -> HttpResponse:
    return render(request, GONE_TEMPLATE, status=410)


LinkView = Callable[..., HttpResponse]


def _link_view(view: LinkView) -> LinkView:
    """The view of a link's page, given the link a usable token names: 404 for a token this
    service did not sign, the 410 page for a link expired or revoked."""

    @functools.wraps(view)
    def wrapper(request: HttpRequest, token: str, **kwargs: Any) -> HttpResponse:
        link = connect_links.link_of_token(token)
        if link is None:
            raise Http404("No such page.")
        if not connect_links.usable(link):
            return _gone(request)
        return view(request, link, token, **kwargs)

    return wrapper


def _page(request: HttpRequest, link: ConnectLink, token: str, *, problem: str = "", status: int = 200) -> HttpResponse:
    platforms = [
        (value, Platform(value).label, value in connect_links.PASSWORD_PLATFORMS)
        for value in link.platforms
        if value in Platform.values
    ]
    context = {
        "link": link,
        "token": token,
        "name": link.branding_name,
        "platforms": platforms,
        "problem": problem,
        "sandbox": settings.DEVELOPMENT,
    }
    response = render(request, PAGE_TEMPLATE, context, status=status)
    response["Content-Security-Policy"] = _page_policy(request, link)
    return response


def _page_policy(request: HttpRequest, link: ConnectLink) -> str:
    """The site's policy, with forms also allowed to end at the platforms' authorize pages and
    at the link's redirect (the browser holds a form's redirects to form-action too)."""
    parts = urlsplit(link.redirect_url)
    allowed = ["'self'", "https:", f"{parts.scheme}://{parts.netloc}"]
    if settings.DEVELOPMENT:
        sandbox = urlsplit(str(settings.SANDBOX_URL))
        allowed.append(f"{sandbox.scheme}://{sandbox.netloc}")
    policy = content_security_policy(request.path_info)
    kept = [d for d in policy.split("; ") if not d.startswith("form-action")]
    return "; ".join([*kept, "form-action " + " ".join(dict.fromkeys(allowed))])


@never_cache
@require_GET
@_link_view
def page(request: HttpRequest, link: ConnectLink, token: str) -> HttpResponse:
    return _page(request, link, token)


@require_GET
@_link_view
def logo(_request: HttpRequest, link: ConnectLink, _token: str) -> HttpResponse:
    if not link.logo:
        raise Http404("This link has no logo.")
    response = HttpResponse(bytes(link.logo), content_type=link.logo_content_type)
    response["Content-Security-Policy"] = "default-src 'none'; sandbox"
    response["Cache-Control"] = "private, max-age=600"
    return response


@require_GET
@_link_view
def style(_request: HttpRequest, link: ConnectLink, _token: str) -> HttpResponse:
    """The link's accent color as a style sheet: the site's CSP runs no inline style."""
    color = link.branding_accent_color if connect_links.ACCENT_COLOR.match(link.branding_accent_color) else ""
    body = f"body.connect-link {{ --accent: {color}; }}\n" if color else ""
    response = HttpResponse(body, content_type="text/css; charset=utf-8")
    response["Cache-Control"] = "private, max-age=600"
    return response


@require_POST
@_link_view
def cancel(_request: HttpRequest, link: ConnectLink, _token: str) -> HttpResponse:
    connect_links.link_record_cancelled(link=link)
    return HttpResponseRedirect(connect_links.return_url(link, Status.CANCELLED))


@require_POST
@_link_view
def start(request: HttpRequest, link: ConnectLink, token: str, platform: str) -> HttpResponse:
    """A "Connect" of the page: the authorization (a handle and app password for Bluesky)."""
    if platform not in link.platforms:
        raise Http404("This link does not offer that platform.")
    if platform in connect_links.PASSWORD_PLATFORMS:
        return _connect_with_password(request, link, token, platform)
    verifier, challenge = pkce()
    nonce = secrets.token_urlsafe(16)
    sandbox = connect_links.uses_sandbox(platform)
    _keep_attempt(
        request,
        nonce,
        {"link": str(link.pk), "platform": platform, "verifier": verifier, "sandbox": sandbox, "started": time.time()},
    )
    url = client_for(platform).authorize_url(
        state=connect_links.state_for(link, nonce),
        code_challenge=challenge,
        redirect_uri=redirect_uri(platform),
        sandbox=sandbox,
    )
    return HttpResponseRedirect(url)


def _keep_attempt(request: HttpRequest, nonce: str, attempt: dict[str, Any]) -> None:
    """Keep a started authorization in the browser's session, beside at most
    MAX_OPEN_ATTEMPTS - 1 older ones (a page pressed again and again drops the oldest)."""
    session = request.session
    stored = list(session.keys())  # a session is not iterable itself
    open_attempts = sorted(
        (key for key in stored if key.startswith(_ATTEMPT.format(nonce=""))),
        key=lambda key: float(session[key].get("started", 0)) if isinstance(session[key], dict) else 0.0,
    )
    for key in open_attempts[: max(0, len(open_attempts) - MAX_OPEN_ATTEMPTS + 1)]:
        del session[key]
    session[_ATTEMPT.format(nonce=nonce)] = attempt


def pkce() -> tuple[str, str]:
    """A PKCE verifier and its S256 challenge (RFC 7636), for every authorization started here
    and on the dashboard."""
    verifier = secrets.token_urlsafe(64)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    return verifier, challenge


def redirect_uri(platform: str) -> str:
    """The one callback every authorization comes back to, the dashboard's and the links' alike,
    so a platform's app registers a single redirect URI."""
    return f"{str(settings.PUBLIC_BASE_URL).rstrip('/')}{reverse('connect-callback', args=[platform])}"


def _connect_with_password(request: HttpRequest, link: ConnectLink, token: str, platform: str) -> HttpResponse:
    identifier = request.POST.get("identifier", "").strip()
    app_password = request.POST.get("app_password", "").strip()
    if not identifier or not app_password:
        return _page(request, link, token, problem="Enter the handle and an app password.", status=400)
    # The page needs no login, so it must not become a way to guess app passwords at the
    # platform: failures slow down per address and handle, as the dashboard's logins do.
    address, guessed = client_address(request), f"{platform}:{identifier}"
    if wait := login_throttle.wait_seconds(address=address, username=guessed):
        problem = f"Too many failed attempts. Try again in {wait} seconds."
        return _page(request, link, token, problem=problem, status=429)
    sandbox = connect_links.uses_sandbox(platform)
    label = Platform(platform).label
    try:
        credentials = client_for(platform).login(identifier=identifier, app_password=app_password, sandbox=sandbox)
        account = services.account_connect(
            team=link.team, platform=platform, credentials=credentials, sandbox=sandbox, connect_link_id=str(link.pk)
        )
    except ApplicationError as exc:
        return _page(request, link, token, problem=exc.message, status=400)
    except PlatformError:
        login_throttle.record_failure(address=address, username=guessed)
        return _page(request, link, token, problem=f"{label} refused that handle and app password.", status=400)
    login_throttle.record_success(address=address, username=guessed)
    return _connected(link, account)


def _connected(link: ConnectLink, account: SocialAccount) -> HttpResponse:
    connect_links.link_record_connected(link=link, account=account)
    return HttpResponseRedirect(connect_links.return_url(link, Status.CONNECTED, [account]))


def _refused(request: HttpRequest, message: str, status: int = 400) -> HttpResponse:
    return render(request, GONE_TEMPLATE, {"message": message}, status=status)


@never_cache
def callback(request: HttpRequest, platform: str) -> HttpResponse:
    """The authorization's way back, for a `state` made by `start` (`accounts.views.callback`
    hands it over). The attempt is taken from this browser's session once: a callback replayed,
    opened in another browser, or for a state this service did not sign connects nothing."""
    found = connect_links.read_state(request.GET.get("state", ""))
    unknown = "That authorization is unknown, used or too old. Open the link you were sent and start again."
    if found is None:
        return _refused(request, unknown)
    link_id, nonce = found
    attempt = request.session.pop(_ATTEMPT.format(nonce=nonce), None)
    if (
        not isinstance(attempt, dict)
        or attempt.get("link") != link_id
        or attempt.get("platform") != platform
        or time.time() - float(attempt.get("started", 0)) > connect_links.ATTEMPT_LIFETIME_SECONDS
    ):
        return _refused(request, unknown)
    link = ConnectLink.objects.select_related("team").filter(pk=link_id).first()
    if link is None or not connect_links.usable(link):
        return _gone(request)
    if "code" not in request.GET:  # the person declined, or the platform refused to ask them
        connect_links.link_record_cancelled(link=link)
        return HttpResponseRedirect(connect_links.return_url(link, Status.CANCELLED))
    label = Platform(platform).label
    try:
        credentials = client_for(platform).exchange_code(
            code=request.GET["code"],
            code_verifier=attempt["verifier"],
            redirect_uri=redirect_uri(platform),
            sandbox=bool(attempt["sandbox"]),
        )
        account = services.account_connect(
            team=link.team,
            platform=platform,
            credentials=credentials,
            sandbox=bool(attempt["sandbox"]),
            connect_link_id=str(link.pk),
        )
    except ApplicationError as exc:
        return _page(request, link, connect_links.page_token(link), problem=exc.message, status=400)
    except PlatformError:
        problem = f"{label} refused the authorization. Try again."
        return _page(request, link, connect_links.page_token(link), problem=problem, status=502)
    return _connected(link, account)

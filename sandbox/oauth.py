"""OAuth 2.0 as the stand-ins play it: the authorize page, single-use codes, PKCE and the grants.

Every stand-in that signs a user in runs the same steps. Its authorize page checks the request's
arguments and hands out a code bound to the client, the redirect URI and the PKCE challenge; its
token endpoint redeems that code once, before it expires, or a refresh token (good for one use
where the platform rotates them), and mints tokens through sandbox/tokens.py.

What differs per platform is data: a `Provider` names the arguments its page requires, how it
words a refusal, which PKCE methods it takes and what the page shows; `Grants` names how the
client authenticates, the token body (`issue`) and whether refresh tokens rotate. A refusal is
named by its reason ("unknown", "redirect_uri", "client_id", "verifier", "refresh", ...), which
each stand-in words in its own error body, so one flow answers in every platform's dialect. Meta's
token endpoints (Facebook, Instagram, Threads) are shaped their own way and call `redeem` alone.

Revoking (`presented`, `revoke`): a revoke endpoint names the token it was given; revoking ends
that token, or the whole grant (every token of the account) where the platform says so.
"""

from __future__ import annotations

import base64
import hashlib
import html
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from werkzeug.wrappers import Request, Response

from sandbox import tokens
from sandbox.http import Context, Endpoint, json_response, token_problem

FORM = "application/x-www-form-urlencoded"


@dataclass(frozen=True)
class Page:
    """What the authorize page shows: its title, its heading (`{client}` is the app) and the
    heading of its error page. `scopes` splits the scope into a list (" " on white space);
    None shows it as written."""

    title: str
    heading: str
    refusal: str
    scopes: str | None = None


@dataclass(frozen=True)
class Wording:
    """How an authorize page words a refusal: `{names}` lists what is missing (`nothing` when the
    message is shared with the response_type refusal), `{first}` names the first of them."""

    missing: str = "Missing {names}."
    response_type: str = "response_type must be code."
    method: str = "code_challenge_method must be S256."
    nothing: str = "none"


@dataclass(frozen=True)
class Provider:
    """A platform's authorization server, as data."""

    platform: str
    page: Page
    new_account: Callable[[], str]
    required: tuple[str, ...] = ("client_id", "redirect_uri", "scope")
    client_param: str = "client_id"
    wording: Wording = field(default_factory=Wording)
    response_type: str = ""  # assumed when the request names none (Facebook's dialog: code)
    scope_problem: Callable[[str], str] | None = None  # the platform's own scope rules
    default_scope: str = ""
    pkce: tuple[str, ...] = ()  # the code_challenge_method values taken; () when there is no PKCE
    pkce_default: str = ""  # the method assumed when the request names none (Google: plain)
    hex_challenge: bool = False  # TikTok's desktop guide: the hex SHA-256 of the verifier also matches
    binds: tuple[str, ...] = ("redirect_uri", "client_id")  # what the token request must repeat, in check order
    code_lifetime: int = 600
    code_prefix: str = ""  # Google's "4/"
    code_bytes: int = 24
    redirect: tuple[str, ...] = ("code", "state")  # the redirect's parameters, in order ("scope(s)": the scope)


@dataclass(frozen=True)
class Code:
    """An authorization code as issued: what redeeming it must match, and whom it signs in."""

    client_id: str
    redirect_uri: str
    account: str
    scope: str
    challenge: str
    method: str
    expires: float
    args: Mapping[str, str]  # the authorize request, for what one platform alone reads


def numeric_account(digits: int) -> str:
    """A random user id of `digits` digits, as the numeric-id platforms give them."""
    return str(10 ** (digits - 1) + secrets.randbelow(9 * 10 ** (digits - 1)))


# --- the authorize page ----------------------------------------------------------------------


def authorize_endpoint(provider: Provider) -> Endpoint:
    def authorize(ctx: Context, request: Request, **values: Any) -> Response:
        args = request.args
        reason = authorize_problem(provider, args)
        if reason:
            body = f"<h1>{provider.page.refusal}</h1><p>{html.escape(reason)}</p>"
            return Response(body, status=400, content_type="text/html")
        target = _redirect(provider, args, issue_code(ctx, provider, args))
        return Response(_consent(provider, args, target, _denied(args)), content_type="text/html")

    return authorize


def authorize_problem(provider: Provider, args: Mapping[str, str]) -> str:
    """Why the page refuses the request, or ""."""
    words = provider.wording
    missing = [name for name in provider.required if not args.get(name)]
    if missing:
        return words.missing.format(names=", ".join(missing), first=missing[0])
    if args.get("response_type", provider.response_type) != "code":
        return words.response_type.format(names=words.nothing)
    scope_problem = provider.scope_problem(args["scope"]) if provider.scope_problem else ""
    if scope_problem:
        return scope_problem
    method = args.get("code_challenge_method", provider.pkce_default)
    return words.method if provider.pkce and args.get("code_challenge") and method not in provider.pkce else ""


def issue_code(ctx: Context, provider: Provider, args: Mapping[str, str]) -> str:
    code = provider.code_prefix + secrets.token_urlsafe(provider.code_bytes)
    issued = Code(
        client_id=args[provider.client_param],
        redirect_uri=args["redirect_uri"],
        account=provider.new_account(),
        scope=args.get("scope", provider.default_scope),
        challenge=args.get("code_challenge", "") if provider.pkce else "",
        method=args.get("code_challenge_method", provider.pkce_default),
        expires=time.time() + provider.code_lifetime,
        args=dict(args),
    )
    with ctx.state.lock:
        _codes(ctx, provider.platform)[code] = issued
    return code


def _redirect(provider: Provider, args: Mapping[str, str], code: str) -> str:
    """Where the page's Approve link goes: the redirect URI with the code, the state and, where the
    platform repeats it, the scope."""
    given = {"code": code, "state": args.get("state", "")}
    query = {name: given[name] if name in given else args["scope"] for name in provider.redirect}
    return f"{args['redirect_uri']}?{urlencode(query)}"


def _denied(args: Mapping[str, str]) -> str:
    """Where the page's Cancel link goes: the redirect URI with RFC 6749's `access_denied` and the
    state, as each platform sends someone back who declines."""
    query = {
        "error": "access_denied",
        "error_description": "The user denied the request.",
        "state": args.get("state", ""),
    }
    return f"{args['redirect_uri']}?{urlencode(query)}"


def _consent(provider: Provider, args: Mapping[str, str], target: str, denied: str) -> str:
    page, scope = provider.page, args.get("scope", "")
    if page.scopes is None:
        scopes = f"<p>{html.escape(scope)}</p>"
    else:
        scopes = "<ul>" + "".join(f"<li>{html.escape(s)}</li>" for s in scope.split(page.scopes.strip() or None))
        scopes += "</ul>"
    heading = page.heading.format(client=html.escape(args[provider.client_param]))
    return (
        f"<!doctype html><title>{page.title}</title><h1>{heading}</h1>{scopes}"
        f'<a id="approve" href="{html.escape(target)}">Approve</a> '
        f'<a id="deny" href="{html.escape(denied)}">Cancel</a>'
    )


def _codes(ctx: Context, platform: str) -> dict[str, Code]:
    codes: dict[str, Code] = ctx.state.store(platform, "codes")
    return codes


# --- redeeming -------------------------------------------------------------------------------


def redeem(ctx: Context, provider: Provider, params: Mapping[str, str], *, client: str) -> Code | str:
    """The code `params` names, taken once, or why it is refused: "unknown" (never issued, used or
    expired), "redirect_uri" or "client_id" (not the ones it was issued to), or "verifier"."""
    with ctx.state.lock:
        code = _codes(ctx, provider.platform).pop(params.get("code", ""), None)
    if code is None or code.expires < time.time():
        return "unknown"
    given = {"redirect_uri": params.get("redirect_uri"), "client_id": client}
    mismatch = next((name for name in provider.binds if getattr(code, name) != given[name]), "")
    if mismatch:
        return mismatch
    if code.challenge and not _verifier_matches(provider, code, params.get("code_verifier", "")):
        return "verifier"
    return code


def challenge_of(verifier: str, method: str = "S256") -> str:
    """RFC 7636: the challenge a verifier stands for (S256 is base64url, unpadded)."""
    if method == "plain":
        return verifier
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")


def _verifier_matches(provider: Provider, code: Code, verifier: str) -> bool:
    matches = {challenge_of(verifier, code.method)}
    if provider.hex_challenge:
        matches.add(hashlib.sha256(verifier.encode()).hexdigest())
    return code.challenge in matches


def refresh_problem(ctx: Context, platform: str, token: str, *, rotate: bool) -> tokens.TokenInfo | str:
    """The refresh token's info, or why it is refused (as `token_problem` says it); `rotate` makes
    this its one use, as where the platform rotates refresh tokens."""
    with ctx.state.lock:
        info = token_problem(ctx, token, platform, kind="sbr")
        if rotate and isinstance(info, tokens.TokenInfo):
            ctx.state.revoked.add(token)
    return info


# --- the token endpoint ----------------------------------------------------------------------

Refusals = Mapping[str, tuple[str, str]]  # reason -> (error, error_description)
# A reason a platform does not word apart is worded as the next one: most platforms answer a code
# issued to another client, or for another redirect URI, as if it were unknown.
FALLBACK = {"client_id": "redirect_uri", "redirect_uri": "unknown"}


@dataclass(frozen=True)
class Grant:
    """A token request granted: whom it signs in with what scope, and what it presented (the
    code it redeemed, or the refresh token and that token's info)."""

    account: str
    scope: str
    code: Code | None = None
    refresh_token: str = ""
    refreshed: tokens.TokenInfo | None = None


@dataclass(frozen=True)
class Grants:
    """A token endpoint taking form-encoded `authorization_code` and `refresh_token` grants.

    `client` names the authenticated client (None: it did not authenticate); `issue` answers a
    grant with the platform's token body; a refusal ("form", "client", "grant_type", "refresh" or
    one of `redeem`'s reasons) is answered from `refusals`, or by `refuse` in another dialect.
    """

    provider: Provider
    client: Callable[[Request], str | None]
    issue: Callable[[Grant], Response]
    refusals: Refusals = field(default_factory=dict)
    refuse: Callable[[str, Mapping[str, str]], Response] | None = None
    refresh_scope: str = ""  # the scope a refreshed token is given
    rotate: bool = False  # a refresh token is good for one refresh

    def refused(self, reason: str, form: Mapping[str, str]) -> Response:
        return self.refuse(reason, form) if self.refuse else refusal(self.refusals, reason, form)


def token_endpoint(grants: Grants) -> Endpoint:
    def token(ctx: Context, request: Request, **values: Any) -> Response:
        form = request.form
        if request.mimetype != FORM:
            return grants.refused("form", form)
        client = grants.client(request)
        if client is None:
            return grants.refused("client", form)
        if form.get("grant_type") == "authorization_code":
            return _code_grant(ctx, grants, form, client)
        if form.get("grant_type") == "refresh_token":
            return _refresh_grant(ctx, grants, form)
        return grants.refused("grant_type", form)

    return token


def _code_grant(ctx: Context, grants: Grants, form: Mapping[str, str], client: str) -> Response:
    code = redeem(ctx, grants.provider, form, client=client)
    return grants.issue(Grant(code.account, code.scope, code)) if isinstance(code, Code) else grants.refused(code, form)


def _refresh_grant(ctx: Context, grants: Grants, form: Mapping[str, str]) -> Response:
    old = form.get("refresh_token", "")
    info = refresh_problem(ctx, grants.provider.platform, old, rotate=grants.rotate)
    if not isinstance(info, tokens.TokenInfo):
        return grants.refused("refresh", form)
    return grants.issue(Grant(info.account, grants.refresh_scope, refresh_token=old, refreshed=info))


def refusal(table: Refusals, reason: str, form: Mapping[str, str], **extra: Any) -> Response:
    """RFC 6749 §5.2's error answer for `reason` (a description may name the `{grant_type}` asked
    for); an unauthenticated client is a 401, as every platform answers it."""
    while reason not in table:
        reason = FALLBACK[reason]
    error, description = table[reason]
    body = {"error": error, "error_description": description.format(grant_type=form.get("grant_type")), **extra}
    return json_response(body, status=401 if error == "invalid_client" else 400)


def form_client(request: Request, name: str = "client_id", *, secret: bool = True) -> str | None:
    """The client named in the form, with its secret when `secret`; None when it is not."""
    client = request.form.get(name)
    return client if client and (request.form.get("client_secret") or not secret) else None


def basic_client(request: Request) -> str | None:
    """The client of HTTP Basic authentication, or None."""
    auth = request.authorization
    return auth.username or None if auth is not None and auth.type == "basic" else None


def token_pair(platform: str, account: str, *, access: int, refresh: int) -> tuple[str, str]:
    """A new access token and refresh token (kind "sbr"), living `access` and `refresh` seconds."""
    return (
        tokens.issue(platform, account, lifetime_seconds=access),
        tokens.issue(platform, account, kind="sbr", lifetime_seconds=refresh),
    )


def bearer(access_token: str, lifetime: int) -> Response:
    """The plain bearer answer of Meta's token endpoints."""
    return json_response({"access_token": access_token, "token_type": "bearer", "expires_in": lifetime})


# --- revoking --------------------------------------------------------------------------------


def presented(ctx: Context, token: str, platform: str) -> tokens.TokenInfo | str:
    """The info of a token handed to a revoke endpoint, an access token or a refresh token
    (kind "sbr"), or why it is refused (as `token_problem` says it)."""
    info = token_problem(ctx, token, platform)
    return token_problem(ctx, token, platform, kind="sbr") if info == "invalid" else info


def revoke(ctx: Context, token: str, info: tokens.TokenInfo, *, grant: bool) -> None:
    """Refuse `token` from now on; with `grant`, every token of its account too (the user's
    authorization of the app is gone, as Google, TikTok and Facebook Login end it)."""
    with ctx.state.lock:
        ctx.state.revoked.add(token)
        if grant:
            ctx.state.deauthorized.add((info.platform, info.account))

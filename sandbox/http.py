"""What every stand-in does alike: JSON answers and bodies, routes, tokens, the queued outcome.

A stand-in declares each endpoint with `@route(method, full path)` and, where a token must open
it, `@signed_in(account_of)`: the token is checked before anything else, as the platforms do, and
the endpoint is handed the account. A publishing call answers under one queued control outcome
(`publish_outcome`, CONTRACT.md): the platform's refusal, or the post made (and the answer held
for `timeout`).
"""

from __future__ import annotations

import functools
import json
import os
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from werkzeug.routing import Rule
from werkzeug.wrappers import Request, Response

from sandbox import tokens
from sandbox.state import State

Endpoint = Callable[..., Response]


@dataclass
class Context:
    state: State
    # How long the `timeout` outcome holds an answer: the clients' read timeout plus 5 s.
    hold_seconds: float = field(default_factory=lambda: float(os.environ.get("PLATFORM_TIMEOUT_SECONDS", "30")) + 5)

    def hold(self) -> None:
        time.sleep(self.hold_seconds)


def json_response(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(json.dumps(data), status=status, headers=headers, content_type="application/json")


def json_body(request: Request) -> Any:
    """The parsed JSON body, or None when it is missing or not JSON (the caller answers 400)."""
    if not (request.mimetype or "").endswith("json"):
        return None
    try:
        return json.loads(request.get_data(cache=True) or b"null")
    except ValueError:
        return None


def bearer_token(request: Request) -> str:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def token_problem(ctx: Context, token: str, platform: str, kind: str = "sbx") -> tokens.TokenInfo | str:
    """The token's info, or why it is refused: 'missing', 'invalid', 'revoked' or 'expired'
    (`kind` "sbr": a refresh token, or the user token of a Facebook Login)."""
    if not token:
        return "missing"
    info = tokens.parse(token, kind=kind)
    if info is None or info.platform != platform:
        return "invalid"
    if token in ctx.state.revoked or (info.platform, info.account) in ctx.state.deauthorized:
        return "revoked"
    if info.expired:
        return "expired"
    return info


def routes() -> tuple[list[Rule], Callable[[str, str], Callable[[Endpoint], Endpoint]]]:
    """A stand-in's route table and its decorator: with `RULES, route = routes()`,
    `@route("POST", "/api.x.com/2/tweets")` serves the endpoint at that path (the real host, then
    the real path: CONTRACT.md "Sandbox addressing") and lists it in RULES."""
    rules: list[Rule] = []

    def route(method: str, path: str) -> Callable[[Endpoint], Endpoint]:
        def register(endpoint: Endpoint) -> Endpoint:
            rules.append(Rule(path, endpoint=endpoint, methods=[method]))
            return endpoint

        return register

    return rules, route


def bearer_account(platform: str, refusal: Callable[[str], Response]) -> Callable[..., str | Response]:
    """An `account_of` for `signed_in`: the account of the request's bearer token, or the
    platform's `refusal(why)` (why as `token_problem` says it)."""

    def account_of(ctx: Context, request: Request, **values: Any) -> str | Response:
        info = token_problem(ctx, bearer_token(request), platform)
        return info.account if isinstance(info, tokens.TokenInfo) else refusal(info)

    return account_of


def signed_in(account_of: Callable[..., Any]) -> Callable[[Endpoint], Endpoint]:
    """A decorator for the endpoints a token must open: `account_of(ctx, request, **path values)`
    answers the account (handed to the endpoint after `request`) or the platform's refusal."""

    def decorate(view: Endpoint) -> Endpoint:
        @functools.wraps(view)
        def endpoint(ctx: Context, request: Request, **values: Any) -> Response:
            account = account_of(ctx, request, **values)
            return account if isinstance(account, Response) else view(ctx, request, account, **values)

        return endpoint

    return decorate


def fields_problem(
    body: Any, allowed: Collection[str], unknown: str, not_object: str = "The request body must be a JSON object."
) -> str:
    """Why `body` is not a JSON object of `allowed` fields, or "": `unknown` words the refusal of
    other fields (`{names}` lists them)."""
    if not isinstance(body, dict):
        return not_object
    names = sorted(set(body) - set(allowed))
    return unknown.format(names=", ".join(names)) if names else ""


def publish_outcome(
    ctx: Context, platform: str, refusals: Mapping[str, Callable[[], Response]], create: Callable[[str], Response]
) -> Response:
    """A publishing call under the next queued outcome (CONTRACT.md): `refusals` answer `error` and
    `rate_limited` in the platform's words; any other outcome has `create(outcome)` make the post
    (`processing` may leave it to later status checks), and `timeout` then holds the answer past
    the client's read timeout."""
    outcome = ctx.state.take_outcome(platform)
    if outcome in refusals:
        return refusals[outcome]()
    answer = create(outcome)
    if outcome == "timeout":
        ctx.hold()
    return answer

"""Meta's Graph API dialect, spoken alike by the Facebook, Instagram and Threads stand-ins.

An error is `{"error": {message, type, code, error_subcode, fbtrace_id}}`; a bad parameter is
code 100 worded "(#100) ..."; an object the token may not see is code 100, subcode 33; a token
is refused with code 190 and a subcode saying why (104 when there is none); timestamps read
`2026-11-22T01:02:03+0000`; `fields` lists names with nested options; insights are
`{name, period, values, title, description, id}`; an edge pages by cursor (`cursor_page`:
`paging.cursors.before/after` on every page that has items, `next`/`previous` links only where
there is such a page). What each API says its own way (the error
`type`, a subcode, the HTTP status of a refused token) is passed in by the stand-in.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import re
import secrets
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar
from urllib.parse import urlencode

from werkzeug.wrappers import Request, Response

from sandbox.http import bearer_token, json_response

Item = TypeVar("Item")
Refusals = Mapping[str, tuple[int, int | None, str]]
# why a token is refused (sandbox.http.token_problem) -> (code, subcode, message)
TOKEN_REFUSALS: Refusals = {
    "missing": (104, None, "An access token is required to request this resource."),
    "invalid": (190, None, "Invalid OAuth access token - Cannot parse access token"),
    "expired": (190, 463, "Error validating access token: Session has expired."),
    "revoked": (190, 458, "Error validating access token: The user has not authorized application."),
}


def error(
    status: int, code: int, message: str, *, kind: str = "OAuthException", subcode: int | None = None, **extra: Any
) -> Response:
    body: dict[str, Any] = {"message": message, "type": kind, "code": code}
    if subcode is not None:
        body["error_subcode"] = subcode
    body.update(extra, fbtrace_id="A" + secrets.token_urlsafe(16))
    return json_response({"error": body}, status=status)


def invalid(message: str, *, kind: str = "OAuthException", subcode: int | None = None) -> Response:
    return error(400, 100, f"(#100) {message}", kind=kind, subcode=subcode)


def no_object(object_id: str, *, verb: str = "get", kind: str = "OAuthException") -> Response:
    message = (
        f"Unsupported {verb} request. Object with ID '{object_id}' does not exist, cannot be loaded due to "
        "missing permissions, or does not support this operation."
    )
    return error(400, 100, message, kind=kind, subcode=33)


def token_refused(
    why: str, refusals: Mapping[str, tuple[int, int | None, str]] = TOKEN_REFUSALS, status: int = 400
) -> Response:
    """The refusal of a token for `why`; a missing token is always a 400 (Threads answers 401 otherwise)."""
    code, subcode, message = refusals[why]
    return error(400 if why == "missing" else status, code, message, subcode=subcode)


def token_of(request: Request, params: Mapping[str, str]) -> str:
    """The access token: the bearer header's, else the `access_token` parameter."""
    return bearer_token(request) or params.get("access_token", "")


def timestamp(iso: str) -> str:
    moment = dt.datetime.fromisoformat(iso.replace("Z", "+00:00"))
    return moment.strftime("%Y-%m-%dT%H:%M:%S+0000")


def field_names(raw: str) -> list[str]:
    """Top-level names of a `fields` list: `a,b.summary(x).limit(0),c{d,e}` -> a, b, c."""
    names, depth, current = [], 0, ""
    for char in raw + ",":
        depth += char in "({"
        depth -= char in ")}"
        if char == "," and depth == 0:
            names.append(re.split(r"[.{(]", current, maxsplit=1)[0].strip())
            current = ""
        else:
            current += char
    return [n for n in names if n]


def insight(object_id: str, name: str, value: Any, title: str, description: str) -> dict[str, Any]:
    """One lifetime metric of an insights answer."""
    return {
        "name": name, "period": "lifetime", "values": [{"value": value}], "title": title,
        "description": description, "id": f"{object_id}/insights/{name}/lifetime",
    }  # fmt: skip


def _cursor(key: str) -> str:
    # Opaque to clients, as Graph's are: the base64 of the item's id (Graph's look the same).
    return base64.b64encode(key.encode()).decode()


def _cursor_key(cursor: str) -> str | None:
    try:
        return base64.b64decode(cursor, validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        return None


def cursor_page(
    request: Request, items: Sequence[Item], key: Callable[[Item], str], limit: int
) -> tuple[list[Item], dict[str, Any]] | None:
    """One page of a cursor-paginated edge, as Graph pages (developers.facebook.com/docs/
    graph-api/results): `limit` items after the `after` cursor (or before the `before` one),
    and the `paging` object: `cursors` when the page has items, `next` and `previous` URLs only
    when there is such a page. None when a cursor names no item of the edge (Graph's cursors die
    with their item)."""
    keys = [key(item) for item in items]
    after, before = request.args.get("after"), request.args.get("before")
    start, end = 0, min(limit, len(items))
    for cursor, forward in ((after, True), (before, False)):
        if cursor is None:
            continue
        found = _cursor_key(cursor)
        if found is None or found not in keys:
            return None
        position = keys.index(found)
        if forward:
            start, end = position + 1, min(position + 1 + limit, len(items))
        else:
            start, end = max(0, position - limit), position
        break
    chosen = list(items[start:end])
    if not chosen:
        return [], {}
    cursors = {"before": _cursor(keys[start]), "after": _cursor(keys[end - 1])}
    paging: dict[str, Any] = {"cursors": cursors}
    if start > 0:
        paging["previous"] = _page_url(request, "before", cursors["before"])
    if end < len(items):
        paging["next"] = _page_url(request, "after", cursors["after"])
    return chosen, paging


def _page_url(request: Request, name: str, cursor: str) -> str:
    """Graph's absolute link to another page: the same query with the one cursor."""
    query = {k: v for k, v in request.args.items() if k not in ("after", "before")}
    return f"https:/{request.path}?{urlencode({**query, name: cursor})}"

"""A webhook inbox to develop against: `POST /_sandbox/inbox/<name>` takes any delivery and
answers 200; `GET /_sandbox/inbox/<name>` lists what arrived, newest first, as a page (each
delivery's headers, body and, given the subscription's secret in `?secret=`, whether its
signatures verify) or, with `?format=json`, as JSON.

The signatures are checked here as a receiver would check them, from the headers alone:
`X-Service-Signature` (HMAC-SHA256 of the body keyed with the secret string) and the Standard
Webhooks `webhook-signature` (HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}" keyed
with the base64 of the secret after `whsec_`). Development's settings let webhooks reach this
inbox (SSRF_ALLOWED_URL_PREFIXES) without opening any other private address.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import hashlib
import hmac
import html
import json
import re
from typing import Any

from werkzeug.wrappers import Request, Response

from sandbox.http import Context, json_response, routes
from sandbox.viewer import html_page

RULES, route = routes()

NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
KEPT_PER_INBOX = 100
MOST_INBOXES = 100
MOST_BODY_BYTES = 1024 * 1024
SIGNATURE_HEADERS = ("X-Service-Signature", "X-Service-Signature-Previous", "webhook-signature")


def _deliveries(ctx: Context, name: str) -> list[dict[str, Any]]:
    store = ctx.state.store("_inbox", "deliveries")
    with ctx.state.lock:
        return list(store.get(name, []))


def _keep(ctx: Context, name: str, delivery: dict[str, Any]) -> bool:
    store = ctx.state.store("_inbox", "deliveries")
    with ctx.state.lock:
        if name not in store and len(store) >= MOST_INBOXES:
            return False
        kept = store.setdefault(name, [])
        kept.insert(0, delivery)
        del kept[KEPT_PER_INBOX:]
    return True


@route("POST", "/_sandbox/inbox/<name>")
def receive(ctx: Context, request: Request, name: str) -> Response:
    if not NAME.fullmatch(name):
        return json_response({"error": "An inbox name is 1 to 64 letters, digits, '-' or '_'."}, status=400)
    if (request.content_length or 0) > MOST_BODY_BYTES:
        return json_response({"error": f"A delivery body is at most {MOST_BODY_BYTES} bytes."}, status=413)
    delivery = {
        "id": ctx.state.next_id(),
        "received_at": dt.datetime.now(dt.UTC).isoformat().replace("+00:00", "Z"),
        "headers": dict(request.headers),
        "body": request.get_data(as_text=True),
    }
    if not _keep(ctx, name, delivery):
        return json_response({"error": f"This sandbox keeps at most {MOST_INBOXES} inboxes: reset it."}, status=507)
    return json_response({"received": delivery["id"]})


def _header(headers: dict[str, str], name: str) -> str:
    return next((value for key, value in headers.items() if key.lower() == name.lower()), "")


def _service_signature_ok(secret: str, body: bytes, header: str) -> bool:
    expected = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return bool(header) and hmac.compare_digest(expected, header)


def _standard_signature_ok(secret: str, body: bytes, headers: dict[str, str]) -> bool:
    try:
        key = base64.b64decode(secret.removeprefix("whsec_"), validate=True)
    except (binascii.Error, ValueError):
        return False
    signed = f"{_header(headers, 'webhook-id')}.{_header(headers, 'webhook-timestamp')}.".encode() + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    offered = [part.removeprefix("v1,") for part in _header(headers, "webhook-signature").split()]
    return any(hmac.compare_digest(expected, sig) for sig in offered)


def verdict(secret: str, delivery: dict[str, Any]) -> dict[str, bool]:
    """Whether each signature of a delivery verifies with `secret` (the whole `whsec_...` string)."""
    body, headers = delivery["body"].encode(), delivery["headers"]
    return {
        "X-Service-Signature": _service_signature_ok(secret, body, _header(headers, "X-Service-Signature"))
        or _service_signature_ok(secret, body, _header(headers, "X-Service-Signature-Previous")),
        "webhook-signature": _standard_signature_ok(secret, body, headers),
    }


@route("GET", "/_sandbox/inbox/<name>")
def show(ctx: Context, request: Request, name: str) -> Response:
    if not NAME.fullmatch(name):
        return json_response({"error": "An inbox name is 1 to 64 letters, digits, '-' or '_'."}, status=400)
    secret = request.args.get("secret", "")
    deliveries = [{**d, "signatures": verdict(secret, d)} if secret else d for d in _deliveries(ctx, name)]
    if request.args.get("format") == "json":
        return json_response({"inbox": name, "deliveries": deliveries})
    return html_page(f"Inbox {name}", _inbox_html(name, secret, deliveries))


def _pretty(body: str) -> str:
    try:
        return json.dumps(json.loads(body), indent=2, sort_keys=True)
    except ValueError:
        return body


def _signatures_html(delivery: dict[str, Any]) -> str:
    if "signatures" not in delivery:
        return '<p class="muted">Enter the webhook\'s secret above to check its signatures.</p>'
    rows = "".join(
        f"<dt>{html.escape(header)}</dt><dd>{'verified' if ok else 'does not match this secret'}</dd>"
        for header, ok in delivery["signatures"].items()
    )
    return f'<dl class="signatures">{rows}</dl>'


def _delivery_html(delivery: dict[str, Any]) -> str:
    headers = "".join(
        f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>" for k, v in sorted(delivery["headers"].items())
    )
    event = _header(delivery["headers"], "webhook-id") or delivery["id"]
    return (
        f'<div class="card delivery"><h2>{html.escape(delivery["received_at"])} · {html.escape(event)}</h2>'
        f"{_signatures_html(delivery)}"
        f'<pre class="body">{html.escape(_pretty(delivery["body"]))}</pre>'
        f"<details><summary>Headers</summary><dl>{headers}</dl></details></div>"
    )


def _inbox_html(name: str, secret: str, deliveries: list[dict[str, Any]]) -> str:
    address = f"/_sandbox/inbox/{html.escape(name)}"
    form = (
        f'<form method="get" action="{address}"><label for="secret">Webhook secret</label> '
        f'<input id="secret" name="secret" type="password" autocomplete="off" value="{html.escape(secret)}"> '
        "<button>Check signatures</button></form>"
    )
    listed = "".join(_delivery_html(d) for d in deliveries) or (
        '<div class="card"><p>Nothing has arrived yet. Create a webhook with this inbox\'s address as its URL '
        "and send it a test event.</p></div>"
    )
    return (
        '<p class="muted">Sandbox · a webhook inbox</p>'
        f'<div class="card"><h1>Inbox {html.escape(name)}</h1>'
        f"<p>POST deliveries to <code>{address}</code> on this sandbox; the newest {KEPT_PER_INBOX} are kept.</p>"
        f"{form}</div>{listed}"
    )

"""The sandbox's post viewer: GET /_sandbox/posts/{platform}/{post_id} shows one post as the
stand-in stored it (its account, text, media, time, metrics, the replies and comments made to
it, and what the request that made it held), as an HTML page.

The dashboard links a sandbox account's published target here: the platform's own URL (x.com,
...) shows nothing for a post that exists only in the sandbox. Everything shown came from a
request, so everything is escaped.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from typing import Any

from werkzeug.wrappers import Request, Response

from sandbox.http import Context, routes
from sandbox.state import PLATFORMS, SandboxPost

RULES, route = routes()

# Where a stand-in keeps, in a post's `extra`, the id of the post it replies to (X's reply, a
# Bluesky first comment or reply, a Threads reply).
PARENT_PATHS: dict[str, tuple[str, ...]] = {
    "x": ("request", "reply", "in_reply_to_tweet_id"),
    "bluesky": ("record", "reply", "parent", "uri"),
    "threads": ("params", "reply_to_id"),
}


def _at(document: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        document = document.get(key) if isinstance(document, dict) else None
    return document


def _bluesky_kinds(ctx: Context, post: SandboxPost) -> list[str]:
    kind = str(_at(post.extra, ("record", "embed", "$type")) or "")
    return [kind.rsplit(".", 1)[-1].removesuffix("s")] * post.media_count


def _x_kinds(ctx: Context, post: SandboxPost) -> list[str]:
    uploads = ctx.state.store("x", "media")
    ids = _at(post.extra, ("request", "media", "media_ids")) or []
    return [str((uploads.get(i) or {}).get("media_type", "unknown")) for i in ids]


def _linkedin_kinds(ctx: Context, post: SandboxPost) -> list[str]:
    content = _at(post.extra, ("request", "content")) or {}
    urns = [_at(content, ("media", "id"))] + [item.get("id") for item in _at(content, ("multiImage", "images")) or []]
    return [str(urn).split(":")[2] for urn in urns if isinstance(urn, str) and urn.count(":") >= 3]


def _facebook_kinds(ctx: Context, post: SandboxPost) -> list[str]:
    kind = str(post.extra.get("kind", ""))
    return ["photo"] * post.media_count if kind == "post" else [kind]  # a post's media are attached photos


# How a stand-in records the kind of a post's media, where a single `extra` key does not say it.
KINDS: dict[str, Callable[[Context, SandboxPost], list[str]]] = {
    "bluesky": _bluesky_kinds,
    "facebook": _facebook_kinds,
    "x": _x_kinds,
    "linkedin": _linkedin_kinds,
    "youtube": lambda ctx, post: ["video"],
}


def _x_alts(ctx: Context, post: SandboxPost) -> list[str]:
    uploads = ctx.state.store("x", "media")
    ids = _at(post.extra, ("request", "media", "media_ids")) or []
    return [str(_at(uploads.get(i) or {}, ("metadata", "alt_text", "text")) or "") for i in ids]


def _bluesky_alts(ctx: Context, post: SandboxPost) -> list[str]:
    embed = _at(post.extra, ("record", "embed")) or {}
    images = embed.get("images")
    items: list[Any] = images if isinstance(images, list) else [embed] if "alt" in embed else []
    return [str(item.get("alt", "")) for item in items if isinstance(item, dict)]


def _linkedin_alts(ctx: Context, post: SandboxPost) -> list[str]:
    content = _at(post.extra, ("request", "content")) or {}
    items = _at(content, ("multiImage", "images")) or ([content["media"]] if "media" in content else [])
    return [str(item.get("altText", "")) for item in items if isinstance(item, dict)]


# Where each stand-in keeps the alt text of a post's media, in the order of the media.
ALT_TEXTS: dict[str, Callable[[Context, SandboxPost], list[str]]] = {
    "bluesky": _bluesky_alts,
    "x": _x_alts,
    "linkedin": _linkedin_alts,
}


def alt_texts(ctx: Context, post: SandboxPost) -> list[str]:
    """The description of each of the post's media the platform took ("" for one without);
    stand-ins that record it in `extra["alt_texts"]` (Facebook, Instagram, Threads) are read there."""
    if post.platform in ALT_TEXTS:
        return ALT_TEXTS[post.platform](ctx, post)
    return [str(alt) for alt in post.extra.get("alt_texts") or []]


def media_kinds(ctx: Context, post: SandboxPost) -> list[str]:
    """What the post's media are (image, video, carousel, ...), as far as the stand-in recorded it."""
    if not post.media_count:
        return []
    if post.platform in KINDS:
        return KINDS[post.platform](ctx, post)
    named = post.extra.get("media_type") or post.extra.get("kind") or _at(post.extra, ("params", "media_type"))
    return [str(named).lower()] if named else []


def replies_to(ctx: Context, post: SandboxPost) -> list[tuple[str, str, str]]:
    """(account, text, created_at) of each reply or comment made to the post, oldest first."""
    path = PARENT_PATHS.get(post.platform)
    found = [
        (reply.account, reply.text, reply.created_at)
        for reply in ctx.state.posts_of(post.platform)
        if path and _at(reply.extra, path) == post.id
    ]
    comments = ctx.state.comments_of(post.platform, post.id)  # where comments are not posts
    return found + [(comment.account, comment.text, comment.created_at) for comment in comments]


_STYLE = """
body { font: 15px/1.5 system-ui, sans-serif; color: #1d2330; background: #f6f7f9; margin: 0; }
main { max-width: 720px; margin: 24px auto; padding: 0 16px; }
h1 { font-size: 20px; margin: 0 0 12px; } h2 { font-size: 16px; margin: 0 0 8px; }
.card { background: #fff; border: 1px solid #d9dde5; border-radius: 8px; padding: 16px 20px; margin-bottom: 16px; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; font-size: 17px; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 0; }
dt { color: #545d6e; } dd { margin: 0; overflow-wrap: anywhere; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; font-size: 13px; background: #eef1f6; padding: 8px; }
.muted { color: #545d6e; font-size: 13px; }
"""


def html_page(title: str, body: str, status: int = 200) -> Response:
    document = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)} · Sandbox</title><style>{_STYLE}</style></head>"
        f"<body><main>{body}</main></body></html>"
    )
    return Response(document, status=status, content_type="text/html; charset=utf-8")


def _facts(rows: list[tuple[str, str]]) -> str:
    return "<dl>" + "".join(f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>" for k, v in rows) + "</dl>"


def _replies_html(replies: list[tuple[str, str, str]]) -> str:
    if not replies:
        return '<p class="muted">No replies or comments.</p>'
    items = "".join(
        f'<li><span class="muted">{html.escape(account)}{" · " + html.escape(when) if when else ""}</span>'
        f'<div class="text">{html.escape(text)}</div></li>'
        for account, text, when in replies
    )
    return f'<ol class="replies">{items}</ol>'


def _post_html(ctx: Context, post: SandboxPost) -> str:
    kinds, alts = media_kinds(ctx, post), alt_texts(ctx, post)
    metrics = ctx.state.metrics_of(post.platform, post.id)
    facts = [
        ("Platform", post.platform),
        ("Account", post.account),
        ("Post id", post.id),
        ("Created", post.created_at),
        ("Media", f"{post.media_count}" + (f" ({', '.join(kinds)})" if kinds else "")),
        *[(f"Alt text {n}", alt or "(none)") for n, alt in enumerate(alts, start=1) if any(alts)],
        *[(name.capitalize(), str(value)) for name, value in metrics.items()],
    ]
    stored = json.dumps(post.extra, indent=2, sort_keys=True, default=str)
    return (
        f'<p class="muted">Sandbox · a post as the {html.escape(post.platform)} stand-in stored it</p>'
        f'<div class="card"><h1>Post on {html.escape(post.platform)}</h1>'
        f'<div class="text" id="post-text">{html.escape(post.text) or "<em>(no text)</em>"}</div></div>'
        f'<div class="card">{_facts(facts)}</div>'
        f'<div class="card"><h2>Replies and comments</h2>{_replies_html(replies_to(ctx, post))}</div>'
        f'<div class="card"><details><summary>What the request held</summary><pre>{html.escape(stored)}</pre>'
        "</details></div>"
    )


@route("GET", "/_sandbox/posts/<platform>/<path:post_id>")
def view_post(ctx: Context, request: Request, platform: str, post_id: str) -> Response:
    post = ctx.state.find_post(platform, post_id) if platform in PLATFORMS else None
    if post is None:
        missing = f"No {platform} post {post_id} exists in this sandbox (it may have been reset)."
        return html_page("Not found", f'<div class="card"><h1>Not found</h1><p>{html.escape(missing)}</p></div>', 404)
    return html_page(f"{platform} post {post_id}", _post_html(ctx, post))

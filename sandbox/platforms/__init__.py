"""One module per platform, each serving the platform's endpoints at their full paths
(`/{real host}/{real path}`, declared with `@route`) and holding only what is its own: its
requests, its answers and its error codes, as data.

What the stand-ins do alike is shared: sandbox/http.py (JSON answers, tokens, routes, the
queued publish outcome), sandbox/oauth.py (the authorize page, codes, PKCE, the token grants),
sandbox/graph.py (Meta's Graph dialect, for facebook, instagram and threads) and
sandbox/media.py (pulled files, file types, processing that takes a few status checks).
"""

from __future__ import annotations

from werkzeug.routing import Rule

from sandbox.platforms import bluesky, facebook, instagram, linkedin, pinterest, threads, tiktok, x, youtube

RULES: list[Rule] = [
    rule
    for module in (x, instagram, tiktok, youtube, facebook, linkedin, pinterest, threads, bluesky)
    for rule in module.RULES
]

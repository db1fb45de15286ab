"""One module per platform, each listing its routes (full paths: `/{real host}/{real path}`)."""

from __future__ import annotations

from werkzeug.routing import Rule

from sandbox.platforms import bluesky, facebook, instagram, linkedin, pinterest, threads, tiktok, x, youtube

RULES: list[Rule] = [
    rule
    for module in (x, instagram, tiktok, youtube, facebook, linkedin, pinterest, threads, bluesky)
    for rule in module.RULES
]

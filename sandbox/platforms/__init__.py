"""One module per platform, each listing its routes (full paths: `/{real host}/{real path}`)."""

from __future__ import annotations

from werkzeug.routing import Rule

from sandbox.platforms import bluesky, x

RULES: list[Rule] = [*x.RULES, *bluesky.RULES]

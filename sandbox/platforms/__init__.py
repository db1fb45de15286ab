"""One module per platform, each listing its routes (full paths: `/{real host}/{real path}`)."""

from __future__ import annotations

from werkzeug.routing import Rule

RULES: list[Rule] = []

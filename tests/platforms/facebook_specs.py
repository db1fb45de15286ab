"""Meta's Graph object descriptions (specs/facebook/*.json) as something a test can ask: which
edge a logged request calls, whether its parameters are documented with fitting types, and
whether an answer's fields are fields of the node type.

The codegen format lists, per node type, `apis` (method, edge, return type, params with a type)
and `fields` (name, type). It has no enum values (`*_enum_param` types are checked as strings)
and no bodies of create answers.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

SPECS = Path(__file__).parent / "specs" / "facebook"
# Parameters every Graph call takes besides its documented ones.
GENERIC_PARAMS = frozenset({"fields", "limit", "access_token", "after", "before"})


@functools.cache
def node(name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((SPECS / f"{name}.json").read_text())
    return document


def api(node_type: str, method: str, edge: str | None) -> dict[str, Any] | None:
    return next((a for a in node(node_type)["apis"] if a["method"] == method and a.get("endpoint") == edge), None)


def field_types(node_type: str) -> dict[str, str]:
    return {f["name"]: f["type"] for f in node(node_type)["fields"]}


def base_name(param: str) -> str:
    """`attached_media[0]` is an item of the list parameter `attached_media`."""
    return re.sub(r"\[\d+\]$", "", param)


def value_errors(kind: str, raw: str) -> list[str]:
    """Why a form or query value does not fit a codegen parameter type."""
    if kind == "bool":
        return [] if raw in ("true", "false") else [f"{raw!r} is not a bool"]
    if kind in ("unsigned int", "int"):
        return [] if raw.lstrip("-").isdigit() and (kind == "int" or not raw.startswith("-")) else [f"{raw!r}: {kind}"]
    if kind == "Object":
        return _json_errors(raw, dict)
    if kind.startswith("list<"):
        # Graph takes a list as JSON or comma-separated (`metric=a,b`); an indexed item
        # (`attached_media[0]`) arrives here as one JSON object.
        if raw.startswith("{"):
            return _json_errors(raw, dict)
        return [] if raw.startswith("[") or re.fullmatch(r"[\w.,]+", raw) else [f"{raw!r} is not a list"]
    return []  # string, datetime, enum params: any text


def _json_errors(raw: str, expected: type) -> list[str]:
    try:
        value = json.loads(raw)
    except ValueError:
        return [f"{raw!r} is not JSON"]
    return [] if isinstance(value, expected) else [f"{raw!r} is not a JSON {expected.__name__}"]


def answer_errors(node_type: str, body: dict[str, Any]) -> list[str]:
    """Fields of `body` that `node_type` does not have; nested VideoStatus objects recurse."""
    types = field_types(node_type)
    errors = [f"{node_type}.{name} is not a documented field" for name in body if name not in types]
    for name, value in body.items():
        kind = types.get(name, "")
        if isinstance(value, dict) and (SPECS / f"{kind}.json").exists():
            errors += answer_errors(kind, value)
    return errors

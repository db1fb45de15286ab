"""Meta's Graph API object specs (specs/instagram/*.json) as something a test can ask: which
edge of which node a request is, and whether a parameter value or an answer field has the
documented type.

The codegen specs list, per node type, its `apis` (method, edge `endpoint` or none for the
node itself, params with a type such as `string`, `bool`, `unsigned int`, `list<string>`,
`map`) and its `fields` (name, type). Types of other node types (`User`, `IGMedia`) are objects.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

SPEC_DIR = Path(__file__).parent / "specs" / "instagram"
# Parameters every Graph call takes, outside any node's spec: field selection and paging.
GENERIC_PARAMS = {"fields": "list<string>", "limit": "unsigned int", "after": "string", "before": "string"}


@functools.cache
def node(name: str) -> dict[str, Any]:
    spec: dict[str, Any] = json.loads((SPEC_DIR / f"{name}.json").read_text())
    return spec


def api(node_name: str, method: str, edge: str | None) -> dict[str, Any] | None:
    for entry in node(node_name)["apis"]:
        if entry["method"] == method and entry.get("endpoint") == edge:
            return entry
    return None


def params(entry: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {p["name"]: p for p in entry.get("params", [])}


def fields(node_name: str) -> dict[str, str]:
    return {f["name"]: f["type"] for f in node(node_name)["fields"]}


def _scalar_fits(value: Any, kind: str) -> bool:
    if kind == "string" or kind.endswith("_enum_param") or kind.startswith("shadow"):
        return isinstance(value, str)
    if kind == "bool":
        return isinstance(value, bool) or value in ("true", "false")
    if kind in ("int", "unsigned int"):
        digits = isinstance(value, str) and value.lstrip("-").isdigit()
        return digits or (isinstance(value, int) and not isinstance(value, bool))
    if kind == "datetime":
        return isinstance(value, int) or (isinstance(value, str) and bool(re.match(r"^\d", value)))
    if kind in ("map", "Object"):
        return isinstance(value, dict)
    return isinstance(value, dict)  # another node type: an object


def fits(value: Any, kind: str) -> bool:
    """Whether a parameter value or a field has the spec's type; lists may be comma strings."""
    inner = re.fullmatch(r"list<(.+)>", kind)
    if inner is None:
        return _scalar_fits(value, kind)
    if isinstance(value, str):
        return all(_scalar_fits(part, inner.group(1)) for part in value.split(","))
    return isinstance(value, list) and all(_scalar_fits(item, inner.group(1)) for item in value)


def field_errors(answer: dict[str, Any], node_name: str) -> list[str]:
    documented = fields(node_name)
    return [
        f"{name}: {value!r} is not {documented.get(name, 'a documented field')}"
        for name, value in answer.items()
        if name not in documented or not fits(value, documented[name])
    ]

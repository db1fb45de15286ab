"""Meta's Threads Postman collection (specs/threads/threads-api.postman_collection.json) as
something a test can ask: which documented request a logged one is, which parameters it
names, and what its example answers look like.

The collection is a sample, not a schema: it has no types, so a value is checked against
what the collection does show (the enumerations kept in its variables, `true`/`false` flags,
numeric ids), and an answer against the keys and JSON types of the example responses.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SPEC_PATH = Path(__file__).parent / "specs" / "threads" / "threads-api.postman_collection.json"
HOSTS = {"{{api_host}}": "graph.threads.net", "{{authorization_host}}": "www.threads.net"}


@dataclass(frozen=True)
class Documented:
    name: str
    method: str
    host: str
    segments: tuple[str, ...]  # "*" for a {{variable}} or the `me` alias of a user id
    params: dict[str, str]  # documented query parameters with their example values (disabled ones too)
    examples: list[Any] = field(default_factory=list)


@functools.cache
def collection() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(SPEC_PATH.read_text())
    return document


@functools.cache
def variables() -> dict[str, str]:
    return {v["key"]: str(v.get("value") or "") for v in collection()["variable"]}


def _items(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found = []
    for item in items:
        found += _items(item["item"]) if "item" in item else [item]
    return found


def _example(body: str) -> Any:
    try:
        return json.loads(re.sub(r":\s*<[^>]+>", ': "placeholder"', body))
    except ValueError:
        return None


def _documented(item: dict[str, Any]) -> Documented:
    request, url = item["request"], item["request"]["url"]
    host = HOSTS.get(url["raw"].split("/", 1)[0], "")
    segments = tuple("*" if s.startswith("{{") or s == "me" else s for s in url.get("path", []) if s)
    params = {q["key"]: str(q.get("value") or "") for q in url.get("query", [])}
    examples = [e for e in (_example(r.get("body") or "") for r in item.get("response", [])) if e is not None]
    return Documented(item["name"], request["method"], host, segments, params, examples)


@functools.cache
def requests_documented() -> tuple[Documented, ...]:
    return tuple(_documented(item) for item in _items(collection()["item"]))


def matches(method: str, host: str, path: str) -> list[Documented]:
    """The documented requests a logged one can be, the most literal paths only (`/v1.0` is
    the version the developer docs put first)."""
    segments = [s for s in path.split("/") if s]
    if segments[:1] == ["v1.0"]:
        segments = segments[1:]
    found = [
        d
        for d in requests_documented()
        if d.method == method
        and d.host == host
        and len(d.segments) == len(segments)
        and all(want in ("*", got) for want, got in zip(d.segments, segments, strict=True))
    ]
    fewest = min((d.segments.count("*") for d in found), default=0)
    return [d for d in found if d.segments.count("*") == fewest]


def listed(value: str) -> set[str]:
    """The names of a comma list, without nested field lists such as poll_attachment{...}."""
    return {part.strip() for part in re.sub(r"\{[^}]*\}", "", value).split(",") if part.strip()}


def allowed_values(example: str) -> set[str] | None:
    """What a parameter may hold when the collection shows it: a {{variable}} list or a flag."""
    variable = re.fullmatch(r"\{\{(\w+)\}\}", example)
    if variable and variable.group(1) in {"media_type", "reply_control", "metrics_post", "scope"}:
        return listed(variables()[variable.group(1)])
    if variable and variable.group(1).startswith("fields_"):
        return listed(variables()[variable.group(1)])
    return {"true", "false"} if example in ("true", "false") else None


def shape_errors(answer: Any, example: Any, where: str = "") -> list[str]:
    """Keys and JSON types of `answer` that the example does not show."""
    if isinstance(example, dict) and isinstance(answer, dict):
        errors = [f"{where}/{key}: not in the example" for key in answer if key not in example]
        return errors + [e for key in answer if key in example for e in shape_errors(answer[key], example[key], key)]
    if isinstance(example, list) and isinstance(answer, list):
        return [e for item in answer for e in shape_errors(item, example[0], where)] if example else []
    if example == "placeholder" or example is None or answer is None:
        return []
    same = type(answer) is type(example) or (isinstance(answer, int | float) and isinstance(example, int | float))
    return [] if same else [f"{where}: {type(answer).__name__} where the example has {type(example).__name__}"]

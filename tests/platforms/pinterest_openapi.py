"""Pinterest's published OpenAPI description (specs/pinterest/openapi.json, v5.23) as something
a test can ask: which operation a logged request is, and whether a body, query or answer fits
its schemas.

OpenAPI 3.0 schemas are JSON Schema draft 4/7 plus `nullable`; `nullable: true` is rewritten
to a `null` type, `oneOf` is read as `anyOf` (Pinterest's metric enums overlap, so IMPRESSION
fits two branches; the discriminators select exactly one), and `$ref`s resolve inside the one
document through a `referencing` registry.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7

SPEC_PATH = Path(__file__).parent / "specs" / "pinterest" / "openapi.json"
BASE = "urn:pinterest-openapi"


def _nullable(node: Any) -> Any:
    if isinstance(node, dict):
        node = {key: _nullable(value) for key, value in node.items()}
        if node.pop("nullable", False) and "type" in node:
            node["type"] = [node["type"], "null"]
        if "oneOf" in node:
            node["anyOf"] = node.pop("oneOf")
        return node
    if isinstance(node, list):
        return [_nullable(item) for item in node]
    return node


@functools.cache
def spec() -> dict[str, Any]:
    document: dict[str, Any] = _nullable(json.loads(SPEC_PATH.read_text()))
    return document


@functools.cache
def _registry() -> Registry:
    return Registry().with_resource(BASE, Resource.from_contents(spec(), default_specification=DRAFT7))


def resolve(node: dict[str, Any]) -> dict[str, Any]:
    """A parameter or schema object with its top-level `$ref` followed."""
    while "$ref" in node:
        target: Any = spec()
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


def _absolute(node: Any) -> Any:
    """The same schema with document-local `$ref`s made absolute, so inline schemas resolve."""
    if isinstance(node, dict):
        return {k: BASE + v if k == "$ref" and v.startswith("#") else _absolute(v) for k, v in node.items()}
    return [_absolute(item) for item in node] if isinstance(node, list) else node


def errors(instance: Any, schema: dict[str, Any]) -> list[str]:
    """Why `instance` does not fit `schema` (a schema from the document); [] when it does."""
    validator = jsonschema.Draft7Validator(_absolute(schema), registry=_registry())
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(instance)]


def _template_regex(template: str) -> re.Pattern[str]:
    return re.compile("^" + re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(template)) + "$")


def operation(method: str, path: str) -> tuple[str, dict[str, Any], dict[str, str]] | None:
    """(template, operation, path values) of the documented operation; literal paths first."""
    candidates = sorted(spec()["paths"].items(), key=lambda item: item[0].count("{"))
    for template, item in candidates:
        match = _template_regex(template).match(path)
        if match and method.lower() in item:
            return template, item[method.lower()], match.groupdict()
    return None


def parameters(op: dict[str, Any], where: str) -> dict[str, dict[str, Any]]:
    found = (resolve(p) for p in op.get("parameters", []))
    return {p["name"]: p for p in found if p["in"] == where}


def parameter_value(parameter: dict[str, Any], raw: str) -> Any:
    """A query or path value as the schema types it (form style, explode false: comma lists)."""
    schema = resolve(parameter.get("schema", {}))
    if schema.get("type") == "array":
        return [_scalar(resolve(schema.get("items", {})), item) for item in raw.split(",")]
    return _scalar(schema, raw)


def _scalar(schema: dict[str, Any], raw: str) -> Any:
    if schema.get("type") == "integer" and raw.lstrip("-").isdigit():
        return int(raw)
    if schema.get("type") == "boolean" and raw in ("true", "false"):
        return raw == "true"
    return raw


def json_schema_of(op: dict[str, Any], media_type: str = "application/json") -> dict[str, Any] | None:
    content = op.get("requestBody", {}).get("content", {})
    entry = content.get(media_type)
    return entry["schema"] if entry else None


def success_schema(op: dict[str, Any], status: int) -> dict[str, Any] | None:
    answer = op.get("responses", {}).get(str(status))
    schema = (answer or {}).get("content", {}).get("application/json", {}).get("schema")
    return schema if isinstance(schema, dict) else None

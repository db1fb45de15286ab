"""A platform's published OpenAPI description as something a contract test can ask: which
operation a logged request is, and whether a body, query or answer fits its schemas.

OpenAPI 3.0 schemas are JSON Schema draft 4/7 plus `nullable`; `nullable: true` is rewritten
to a `null` type, and `$ref`s resolve inside the one document through a `referencing`
registry. `one_of_as_any_of` reads `oneOf` as `anyOf`, for documents whose alternatives
overlap (Pinterest's metric enums: IMPRESSION fits two branches, which only its
discriminators tell apart).
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

SPECS = Path(__file__).parent / "specs"


def _template_regex(template: str) -> re.Pattern[str]:
    return re.compile("^" + re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(template)) + "$")


class OpenApiSpec:
    def __init__(self, path: Path, *, one_of_as_any_of: bool = False) -> None:
        self.path, self.one_of_as_any_of = path, one_of_as_any_of
        self.base = f"urn:openapi:{path.parent.name}"

    def _normalise(self, node: Any) -> Any:
        if isinstance(node, dict):
            node = {key: self._normalise(value) for key, value in node.items()}
            if node.pop("nullable", False) and "type" in node:
                node["type"] = [node["type"], "null"]
            if self.one_of_as_any_of and "oneOf" in node:
                node["anyOf"] = node.pop("oneOf")
            return node
        if isinstance(node, list):
            return [self._normalise(item) for item in node]
        return node

    @functools.cached_property
    def document(self) -> dict[str, Any]:
        document: dict[str, Any] = self._normalise(json.loads(self.path.read_text()))
        return document

    def spec(self) -> dict[str, Any]:
        return self.document

    @functools.cached_property
    def _registry(self) -> Registry:
        return Registry().with_resource(self.base, Resource.from_contents(self.document, default_specification=DRAFT7))

    def resolve(self, node: dict[str, Any]) -> dict[str, Any]:
        """A parameter or schema object with its top-level `$ref` followed."""
        while "$ref" in node:
            target: Any = self.document
            for part in node["$ref"].removeprefix("#/").split("/"):
                target = target[part]
            node = target
        return node

    def _absolute(self, node: Any) -> Any:
        """The same schema with document-local `$ref`s made absolute, so inline schemas resolve."""
        if isinstance(node, dict):
            return {
                k: self.base + v if k == "$ref" and v.startswith("#") else self._absolute(v) for k, v in node.items()
            }
        return [self._absolute(item) for item in node] if isinstance(node, list) else node

    def errors(self, instance: Any, schema: dict[str, Any]) -> list[str]:
        """Why `instance` does not fit `schema` (a schema from the document); [] when it does."""
        validator = jsonschema.Draft7Validator(self._absolute(schema), registry=self._registry)
        return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(instance)]

    def operation(self, method: str, path: str) -> tuple[str, dict[str, Any], dict[str, str]] | None:
        """(template, operation, path values) of the documented operation; literal paths first."""
        candidates = sorted(self.document["paths"].items(), key=lambda item: item[0].count("{"))
        for template, item in candidates:
            match = _template_regex(template).match(path)
            if match and method.lower() in item:
                return template, item[method.lower()], match.groupdict()
        return None

    def parameters(self, op: dict[str, Any], where: str) -> dict[str, dict[str, Any]]:
        found = (self.resolve(p) for p in op.get("parameters", []))
        return {p["name"]: p for p in found if p["in"] == where}

    def parameter_value(self, parameter: dict[str, Any], raw: str) -> Any:
        """A query or path value as the schema types it (form style, explode false: comma lists)."""
        schema = self.resolve(parameter.get("schema", {}))
        if schema.get("type") == "array":
            return [self._scalar(self.resolve(schema.get("items", {})), item) for item in raw.split(",")]
        return self._scalar(schema, raw)

    @staticmethod
    def _scalar(schema: dict[str, Any], raw: str) -> Any:
        if schema.get("type") == "integer" and raw.lstrip("-").isdigit():
            return int(raw)
        if schema.get("type") == "boolean" and raw in ("true", "false"):
            return raw == "true"
        return raw

    @staticmethod
    def json_schema_of(op: dict[str, Any], media_type: str = "application/json") -> dict[str, Any] | None:
        entry = op.get("requestBody", {}).get("content", {}).get(media_type)
        return entry["schema"] if entry else None

    @staticmethod
    def success_schema(op: dict[str, Any], status: int) -> dict[str, Any] | None:
        answer = op.get("responses", {}).get(str(status))
        schema = (answer or {}).get("content", {}).get("application/json", {}).get("schema")
        return schema if isinstance(schema, dict) else None

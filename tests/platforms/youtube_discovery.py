"""Google's Discovery documents (specs/youtube/) as something a test can ask: which method a
logged request is, whether its query parameters and JSON body fit, and whether an answer has
the documented response shape.

Discovery schemas are not JSON Schema; `json_schema()` translates the parts used here
(`type`, `properties`, `items`, `additionalProperties`, `enum`, `$ref`) and closes every object
to its listed properties, so an invented field name is an error. Hosts: the Data API's
`rootUrl` is youtube.googleapis.com; www.googleapis.com serves the same paths and is the host
YouTube's guides use, so both map to the document. Media uploads match a method through its
`mediaUpload.protocols` paths.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import jsonschema

SPECS = Path(__file__).parent / "specs" / "youtube"
DATA_HOSTS = ("/www.googleapis.com/", "/youtube.googleapis.com/")
ANALYTICS_HOST = "/youtubeanalytics.googleapis.com/"


@functools.cache
def document(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((SPECS / name).read_text())
    return loaded


def data_api() -> dict[str, Any]:
    return document("youtube.v3.json")


def analytics_api() -> dict[str, Any]:
    return document("youtubeAnalytics.v2.json")


def _methods(doc: dict[str, Any]) -> list[dict[str, Any]]:
    found = []
    for resource in doc.get("resources", {}).values():
        found += list(resource.get("methods", {}).values())
        found += _methods(resource)
    return found


def _upload_paths(method: dict[str, Any]) -> set[str]:
    protocols = method.get("mediaUpload", {}).get("protocols", {})
    return {p["path"].lstrip("/") for p in protocols.values()}


def method_for(http_method: str, logged_path: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """(document, method) documenting a request logged at `/HOST/PATH`, or None."""
    doc, path = _document_and_path(logged_path)
    if doc is None:
        return None
    for method in _methods(doc):
        if method["httpMethod"] != http_method:
            continue
        if doc["servicePath"] + method["path"] == path or path in _upload_paths(method):
            return doc, method
    return None


def _document_and_path(logged_path: str) -> tuple[dict[str, Any] | None, str]:
    for host in DATA_HOSTS:
        if logged_path.startswith(host):
            return data_api(), logged_path.removeprefix(host)
    if logged_path.startswith(ANALYTICS_HOST):
        return analytics_api(), logged_path.removeprefix(ANALYTICS_HOST)
    return None, logged_path


def query_errors(doc: dict[str, Any], method: dict[str, Any], query: list[tuple[str, str]]) -> list[str]:
    """Undocumented names, missing required ones and values of the wrong type or enum."""
    documented = {**doc["parameters"], **method.get("parameters", {})}
    given = dict(query)
    errors = [f"{name} is required" for name, p in documented.items() if p.get("required") and name not in given]
    for name, raw in query:
        if name not in documented:
            errors.append(f"{name} is not a documented parameter")
            continue
        errors += [f"{name}: {e}" for e in _value_errors(documented[name], raw)]
    return errors


def _value_errors(parameter: dict[str, Any], raw: str) -> list[str]:
    values = raw.split(",") if parameter.get("repeated") else [raw]
    errors = []
    for value in values:
        if "enum" in parameter and value not in parameter["enum"]:
            errors.append(f"{value!r} is not one of {parameter['enum']}")
        if parameter.get("type") == "boolean" and value not in ("true", "false"):
            errors.append(f"{value!r} is not a boolean")
        if parameter.get("type") == "integer" and not _integer_in_range(parameter, value):
            errors.append(f"{value!r} is not an integer in range")
    return errors


def _integer_in_range(parameter: dict[str, Any], value: str) -> bool:
    if not value.lstrip("-").isdigit():
        return False
    low, high = parameter.get("minimum"), parameter.get("maximum")
    return (low is None or int(value) >= int(low)) and (high is None or int(value) <= int(high))


def json_schema(node: dict[str, Any]) -> dict[str, Any]:
    """A Discovery schema as a JSON Schema, objects closed to their documented properties."""
    if "$ref" in node:
        return {"$ref": f"#/definitions/{node['$ref']}"}
    kind = node.get("type")
    schema: dict[str, Any] = {} if kind in (None, "any") else {"type": kind}
    if "enum" in node:
        schema["enum"] = node["enum"]
    if kind == "array":
        schema["items"] = json_schema(node.get("items", {}))
    if kind == "object":
        schema["properties"] = {k: json_schema(v) for k, v in node.get("properties", {}).items()}
        extra = node.get("additionalProperties")
        schema["additionalProperties"] = json_schema(extra) if extra else "properties" not in node
    return schema


def errors(doc: dict[str, Any], instance: Any, schema_name: str) -> list[str]:
    """Why `instance` does not fit the named schema of `doc`; [] when it does."""
    definitions = {name: json_schema(s) for name, s in doc["schemas"].items()}
    validator = jsonschema.Draft7Validator({"$ref": f"#/definitions/{schema_name}", "definitions": definitions})
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(instance)]

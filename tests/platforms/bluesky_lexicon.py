"""A small atproto lexicon validator for the contract tests: enough of the schema language for
what our requests and the sandbox's answers use (objects, strings with formats and grapheme
limits, integers, arrays, refs and unions across files, blobs, params). `knownValues` are hints
and are ignored; a ref to a lexicon not saved under specs/ is skipped (noted, not failed)."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path
from typing import Any

import regex

ROOT = Path(__file__).parent / "specs" / "bluesky" / "lexicons"

FORMATS = {
    "did": re.compile(r"did:[a-z]+:[a-zA-Z0-9._:%-]*[a-zA-Z0-9._-]"),
    "handle": re.compile(r"([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"),
    "at-uri": re.compile(r"at://[^\s/]+(/[a-zA-Z0-9.-]+(/[a-zA-Z0-9._:~-]+)?)?"),
    "uri": re.compile(r"[a-z][a-z0-9+.-]*:\S+"),
    "cid": re.compile(r"[a-zA-Z0-9+=]{8,256}"),
    "nsid": re.compile(r"[a-zA-Z]([a-zA-Z0-9-]*)(\.[a-zA-Z0-9-]+)+"),
    "tid": re.compile(r"[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}"),
    "record-key": re.compile(r"(?!\.{1,2}$)[a-zA-Z0-9._:~-]{1,512}"),
    "language": re.compile(r"[a-zA-Z]{2,3}(-[a-zA-Z0-9]+)*"),
    "datetime": re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})"),
}


def _format_ok(fmt: str, value: str) -> bool:
    if fmt == "at-identifier":
        return _format_ok("did", value) or _format_ok("handle", value)
    pattern = FORMATS.get(fmt)
    if pattern is None or not pattern.fullmatch(value):
        return pattern is None
    if fmt == "datetime":
        try:
            dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return False
    return True


class Lexicons:
    def __init__(self, root: Path = ROOT) -> None:
        self.docs = {}
        for path in root.rglob("*.json"):
            doc = json.loads(path.read_text())
            self.docs[doc["id"]] = doc
        self.skipped: set[str] = set()

    # --- lookups -------------------------------------------------------------------------

    def main(self, nsid: str) -> dict[str, Any] | None:
        doc = self.docs.get(nsid)
        return doc["defs"].get("main") if doc else None

    def resolve(self, ref: str, context: str) -> tuple[str, dict[str, Any]] | None:
        """(the def's full name, the def) for 'nsid', 'nsid#def' or '#def' seen in `context`."""
        nsid, _, name = ref.partition("#")
        nsid = nsid or context
        doc = self.docs.get(nsid)
        if doc is None or (name or "main") not in doc["defs"]:
            self.skipped.add(ref if nsid != context else f"{context}{ref}")
            return None
        return (nsid if not name or name == "main" else f"{nsid}#{name}"), doc["defs"][name or "main"]

    # --- validation ----------------------------------------------------------------------

    def validate(self, value: Any, schema: dict[str, Any], context: str, path: str = "$") -> list[str]:
        kind = schema.get("type")
        check = getattr(self, f"_{kind.replace('-', '_')}", None) if kind else None
        if check is None:
            return [] if kind in ("unknown", "cid-link", "bytes", "token") else [f"{path}: unsupported type {kind}"]
        return check(value, schema, context, path)

    def validate_record(self, record: Any, collection: str) -> list[str]:
        main = self.main(collection)
        if main is None or main.get("type") != "record":
            return [f"{collection} is not a record lexicon"]
        if not isinstance(record, dict) or record.get("$type") != collection:
            return [f"record $type must be {collection}"]
        return self.validate(record, main["record"], collection)

    def _object(self, value: Any, schema: dict[str, Any], context: str, path: str) -> list[str]:
        if not isinstance(value, dict):
            return [f"{path}: expected an object"]
        errors = [f"{path}.{k}: required" for k in schema.get("required", []) if k not in value]
        for key, sub in schema.get("properties", {}).items():
            if key in value and not (value[key] is None and key in schema.get("nullable", [])):
                errors += self.validate(value[key], sub, context, f"{path}.{key}")
        return errors

    _params = _object

    def _string(self, value: Any, schema: dict[str, Any], context: str, path: str) -> list[str]:
        if not isinstance(value, str):
            return [f"{path}: expected a string"]
        size, graphemes = len(value.encode()), len(regex.findall(r"\X", value))
        errors = [f"{path}: longer than {schema['maxLength']} bytes"] if size > schema.get("maxLength", size) else []
        if graphemes > schema.get("maxGraphemes", graphemes):
            errors.append(f"{path}: more than {schema['maxGraphemes']} graphemes")
        if "enum" in schema and value not in schema["enum"]:
            errors.append(f"{path}: not one of {schema['enum']}")
        if "format" in schema and not _format_ok(schema["format"], value):
            errors.append(f"{path}: not a valid {schema['format']}: {value!r}")
        return errors

    def _integer(self, value: Any, schema: dict[str, Any], context: str, path: str) -> list[str]:
        if not isinstance(value, int) or isinstance(value, bool):
            return [f"{path}: expected an integer"]
        low, high = schema.get("minimum", value), schema.get("maximum", value)
        return [] if low <= value <= high else [f"{path}: {value} outside [{low}, {high}]"]

    def _boolean(self, value: Any, schema: dict[str, Any], context: str, path: str) -> list[str]:
        return [] if isinstance(value, bool) else [f"{path}: expected a boolean"]

    def _array(self, value: Any, schema: dict[str, Any], context: str, path: str) -> list[str]:
        if not isinstance(value, list):
            return [f"{path}: expected an array"]
        too_many = len(value) > schema.get("maxLength", len(value))
        errors = [f"{path}: more than {schema['maxLength']} items"] if too_many else []
        if len(value) < schema.get("minLength", 0):
            errors.append(f"{path}: fewer than {schema['minLength']} items")
        for i, item in enumerate(value):
            errors += self.validate(item, schema["items"], context, f"{path}[{i}]")
        return errors

    def _ref(self, value: Any, schema: dict[str, Any], context: str, path: str) -> list[str]:
        found = self.resolve(schema["ref"], context)
        if found is None:
            return []
        name, target = found
        return self.validate(value, target, name.partition("#")[0], path)

    def _union(self, value: Any, schema: dict[str, Any], context: str, path: str) -> list[str]:
        if not isinstance(value, dict) or not isinstance(value.get("$type"), str):
            return [f"{path}: a union member needs $type"]
        refs = {_full_name(ref, context): ref for ref in schema["refs"]}
        if value["$type"] not in refs:
            return [f"{path}: $type {value['$type']} is not one of {sorted(refs)}"]
        found = self.resolve(refs[value["$type"]], context)
        if found is None:
            return []
        name, target = found
        return self.validate(value, target, name.partition("#")[0], path)

    def _blob(self, value: Any, schema: dict[str, Any], context: str, path: str) -> list[str]:
        ok_shape = isinstance(value, dict) and value.get("$type") == "blob" and isinstance(value.get("ref"), dict)
        if not ok_shape or not isinstance(value.get("size"), int) or not isinstance(value.get("mimeType"), str):
            return [f"{path}: expected a blob {{$type, ref: {{$link}}, mimeType, size}}"]
        errors = [] if _format_ok("cid", str(value["ref"].get("$link"))) else [f"{path}: blob ref is not a cid"]
        if value["size"] > schema.get("maxSize", value["size"]):
            errors.append(f"{path}: blob over {schema['maxSize']} bytes")
        accept = schema.get("accept")
        if accept and not any(_mime_ok(pattern, value["mimeType"]) for pattern in accept):
            errors.append(f"{path}: mimeType {value['mimeType']} not in {accept}")
        return errors


def _full_name(ref: str, context: str) -> str:
    nsid, _, name = ref.partition("#")
    nsid = nsid or context
    return nsid if name in ("", "main") else f"{nsid}#{name}"


def _mime_ok(pattern: str, mime: str) -> bool:
    return pattern in ("*/*", mime) or (pattern.endswith("/*") and mime.startswith(pattern[:-1]))


def query_params(schema: dict[str, Any], pairs: list[tuple[str, str]]) -> dict[str, Any]:
    """Query-string pairs typed by the params schema (repeated keys for arrays)."""
    typed: dict[str, Any] = {}
    for key, value in pairs:
        kind = schema.get("properties", {}).get(key, {}).get("type")
        if kind == "array":
            typed.setdefault(key, []).append(value)
        elif kind == "integer":
            typed[key] = int(value) if value.lstrip("-").isdigit() else value
        elif kind == "boolean":
            typed[key] = {"true": True, "false": False}.get(value, value)
        else:
            typed[key] = value
    return typed

"""The API's JSON parser (and the CSV one of bulk creates), with a bounded cost.

A body is read only up to `API_MAX_BODY_BYTES` (1 MB): a larger one is a 413 whether or not
its Content-Length said so. DRF hands JSON parsers `request.body`, which Django reads only up
to DATA_UPLOAD_MAX_MEMORY_SIZE (set to the same limit); the exception handler answers its
RequestDataTooBig with the same 413. The parsed document may nest at most `API_MAX_BODY_DEPTH` levels:
the standard library's decoder recurses, so a body of a few thousand `[` would otherwise end in
a RecursionError deep in the parser (a 500), and deep structures only cost every later step.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from typing import IO, Any

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser, JSONParser

from config.errors import InvalidRequest, PayloadTooLarge


class LengthRequired(InvalidRequest):
    status_code = 411
    code = "LENGTH_REQUIRED"


def length_required() -> LengthRequired:
    return LengthRequired("The request body has no Content-Length and its end cannot be told: send Content-Length.")


def too_large() -> PayloadTooLarge:
    limit = settings.API_MAX_BODY_BYTES
    return PayloadTooLarge(f"The request body is larger than {limit // 1024} KB.", details={"max_bytes": limit})


def depth_of(document: Any) -> int:
    """How deep `document` nests (a scalar is 0, `[]` is 1), counted without recursion."""
    deepest, pending = 0, [(document, 0)]
    while pending:
        node, depth = pending.pop()
        if isinstance(node, Mapping):
            children = list(node.values())
        elif isinstance(node, list):
            children = node
        else:
            deepest = max(deepest, depth)
            continue
        deepest = max(deepest, depth + 1)
        pending.extend((child, depth + 1) for child in children)
    return deepest


class BoundedJSONParser(JSONParser):
    def parse(self, stream: IO[bytes] | None, media_type: str | None = None, parser_context: Any = None) -> Any:
        limit = settings.API_MAX_BODY_BYTES
        request = (parser_context or {}).get("request")
        declared = request.META.get("CONTENT_LENGTH") if request is not None else None
        if declared and declared.isdigit() and int(declared) > limit:
            raise too_large()
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise too_large()
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            document = json.loads(raw.decode(encoding), parse_constant=_refuse_constant)
        except RecursionError:
            raise _too_deep() from None
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from exc
        if depth_of(document) > settings.API_MAX_BODY_DEPTH:
            raise _too_deep()
        return document


def _too_deep() -> InvalidRequest:
    limit = settings.API_MAX_BODY_DEPTH
    return InvalidRequest(f"The request body nests deeper than {limit} levels.", code="BODY_TOO_DEEP")


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not valid JSON")


class BoundedCSVParser(BaseParser):
    """`text/csv` (RFC 4180, UTF-8, a header row; a byte-order mark is allowed), read within
    the same size limit as JSON: the header's names and the rows as dicts of strings,
    `{"columns": [...], "rows": [...]}`. Text that is not UTF-8, a row longer than its header
    and unbalanced quotes are 400s naming the line."""

    media_type = "text/csv"

    def parse(self, stream: IO[bytes] | None, media_type: str | None = None, parser_context: Any = None) -> Any:
        limit = settings.API_MAX_BODY_BYTES
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise too_large()
        charset = (parser_context or {}).get("encoding") or "utf-8"
        if charset.lower().replace("_", "-") not in ("utf-8", "utf8", "us-ascii"):
            raise InvalidRequest(f"A CSV body must be UTF-8, not {charset}.", code="CSV_NOT_UTF8")
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InvalidRequest(
                f"The CSV is not UTF-8 (byte {exc.start + 1} cannot be read); save it as UTF-8.",
                code="CSV_NOT_UTF8",
                details={"byte": exc.start + 1},
            ) from None
        reader = csv.reader(io.StringIO(text, newline=""), strict=True)
        try:
            header = next(reader, None)
            if not header or not any(name.strip() for name in header):
                raise InvalidRequest("The CSV needs a header row naming its columns.", code="CSV_NO_HEADER")
            columns = [name.strip() for name in header]
            rows = []
            for values in reader:
                if not any(value.strip() for value in values):
                    continue  # a blank line
                if len(values) > len(columns):
                    raise InvalidRequest(
                        f"Line {reader.line_num} has {len(values)} fields; the header names {len(columns)}.",
                        code="CSV_INVALID",
                        details={"line": reader.line_num},
                    )
                rows.append(dict(zip(columns, values + [""] * (len(columns) - len(values)), strict=True)))
        except csv.Error as exc:
            raise InvalidRequest(
                f"The CSV cannot be read at line {reader.line_num}: {exc}.",
                code="CSV_INVALID",
                details={"line": reader.line_num},
            ) from None
        return {"columns": columns, "rows": rows}

"""Many creates in one request (`POST /api/v1/publishes/bulk`): the rows of a JSON list or of
a CSV file, each a create body, checked first and then created all together or not at all.

A CSV row has the columns `content`, `account_ids` and `media_ids` (both space-separated),
`publish_mode` and `scheduled_at`; an empty cell is a field not given. Its problems use the
same objects as `POST /publishes/validate`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from config.errors import InvalidRequest

MAX_ROWS = 500
CSV_COLUMNS = ("content", "account_ids", "publish_mode", "scheduled_at", "media_ids")


def bodies_from_csv(document: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The create bodies of a parsed CSV (`config.parsers.BoundedCSVParser`). 400 for a column
    that is not one of CSV_COLUMNS, a column named twice, or a file without `account_ids`."""
    if "columns" not in document:  # an empty body is never parsed
        raise InvalidRequest("The CSV needs a header row naming its columns.", code="CSV_NO_HEADER")
    columns: list[str] = document["columns"]
    unknown = [name for name in columns if name not in CSV_COLUMNS]
    if unknown:
        raise InvalidRequest(
            f"Unknown CSV column {', '.join(repr(name) for name in unknown)}; the columns are "
            + ", ".join(CSV_COLUMNS)
            + ".",
            code="CSV_UNKNOWN_COLUMNS",
            details={"columns": unknown, "allowed": list(CSV_COLUMNS)},
        )
    if len(set(columns)) != len(columns):
        raise InvalidRequest("Each CSV column may appear only once.", code="CSV_INVALID")
    if "account_ids" not in columns:
        raise InvalidRequest("The CSV needs an account_ids column.", code="CSV_INVALID")
    return [_body(row) for row in document["rows"]]


def _body(row: Mapping[str, str]) -> dict[str, Any]:
    body: dict[str, Any] = {
        "content": row.get("content", ""),
        "targets": [{"account_id": account_id} for account_id in row.get("account_ids", "").split()],
        "media_ids": row.get("media_ids", "").split(),
    }
    for name in ("publish_mode", "scheduled_at"):
        if row.get(name, "").strip():
            body[name] = row[name].strip()
    return body


def check_row_count(bodies: Sequence[Any]) -> None:
    if not bodies:
        raise InvalidRequest("Give at least one row.", code="NO_ROWS", details={"field": "publishes"})
    if len(bodies) > MAX_ROWS:
        raise InvalidRequest(
            f"A batch holds at most {MAX_ROWS} rows; this one has {len(bodies)}. Send it in parts.",
            code="TOO_MANY_ROWS",
            details={"max_rows": MAX_ROWS, "row_count": len(bodies)},
        )


def row_problems(verdict: Mapping[str, Any]) -> list[dict[str, str]]:
    """A row's problems as one list: the request's own, then each target's with its field
    named from the row (`targets[1].content`)."""
    problems = list(verdict["problems"])
    for target in verdict["targets"]:
        for problem in target["problems"]:
            field = (
                f"targets[{target['index']}].{problem['field']}" if problem["field"] else f"targets[{target['index']}]"
            )
            problems.append({**problem, "field": field})
    if not problems and verdict["error"] is not None:
        error = verdict["error"]
        problems.append({"field": "", "code": error["code"], "message": error["message"]})
    return problems

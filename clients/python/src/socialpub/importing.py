"""`socialpub import FILE.csv`: many publishes from one CSV file, all created or none.

Rows are numbered as a person reads the file: row 1 is the first row under the header. Each
row also names the line it starts on, counted as the service reads the file (RFC 4180: a
quoted cell may hold line breaks; blank lines are skipped), so an editor's line number finds it.
"""

from __future__ import annotations

import argparse
import csv
import io
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from socialpub._generated.models import BulkDryRunResponse
from socialpub.client import ApiError, Client, ClientError, warnings
from socialpub.output import Output, headline

EXIT_ERROR = 1


def import_csv(client: Client, args: argparse.Namespace, output: Output) -> int:
    path = Path(args.file)
    try:
        document = path.read_bytes()
    except OSError as exc:
        raise ClientError(f"{path}: {exc.strerror}") from None
    rows = Rows(row_lines(document))
    try:
        answer = client.bulk_csv(document, dry_run=args.dry_run, idempotency_key=args.idempotency_key)
    except ApiError as exc:
        if exc.code != "INVALID_ROWS" or output.as_json:
            raise
        output.error(exc)
        for row in exc.details.get("rows", []):
            _problems(output, rows.name(row["index"]), row["problems"], to_stderr=True)
        return EXIT_ERROR
    output.warnings(warnings(answer))
    if output.as_json:
        output.json(answer.to_dict())
    elif isinstance(answer, BulkDryRunResponse):
        _verdicts(output, rows, answer.to_dict())
    else:
        for index, created in enumerate(answer.data):
            output.line(f"{rows.name(index)}: {headline(created)}")
        output.line(f"{len(answer.data)} publishes created from {path.name}")
    return EXIT_ERROR if isinstance(answer, BulkDryRunResponse) and not answer.meta.valid else 0


class Rows:
    """Names a row by its index in the batch: `row 2 (line 3)`."""

    def __init__(self, lines: list[int]) -> None:
        self.lines = lines

    def name(self, index: int) -> str:
        line = f" (line {self.lines[index]})" if index < len(self.lines) else ""
        return f"row {index + 1}{line}"


def row_lines(document: bytes) -> list[int]:
    """The line each data row starts on, read as the service reads the file; none when the file
    is not CSV the service would accept (its refusal then says where)."""
    try:
        reader = csv.reader(io.StringIO(document.decode("utf-8-sig"), newline=""), strict=True)
        next(reader, None)  # the header
        lines, after = [], reader.line_num
        for values in reader:
            if any(value.strip() for value in values):
                lines.append(after + 1)
            after = reader.line_num
    except (UnicodeDecodeError, csv.Error):
        return []
    return lines


def _verdicts(output: Output, rows: Rows, body: dict[str, Any]) -> None:
    for verdict in body["data"]:
        name = rows.name(verdict["index"])
        problems = row_problems(verdict)
        if verdict["valid"]:
            at = f", scheduled at {_utc(verdict['scheduled_at'])}" if verdict.get("scheduled_at") else ""
            output.line(f"{name}: ok{at}")
        else:
            output.line(f"{name}: refused")
            _problems(output, "", problems, to_stderr=False)
    meta = body["meta"]
    if meta["valid"]:
        verdict = "every row would be created"
    elif meta["status"] == 429:
        verdict = "the batch is more than the month's posts quota has left"
    else:
        refused = sum(1 for verdict in body["data"] if not verdict["valid"])
        verdict = f"{refused} of {len(body['data'])} rows would be refused"
    output.line(f"dry run: {verdict}; nothing was created")


def _utc(instant: str) -> str:
    """An API instant as `headline` writes one: `2026-12-01 09:00 UTC`."""
    return f"{datetime.fromisoformat(instant).astimezone(UTC):%Y-%m-%d %H:%M} UTC"


def row_problems(verdict: dict[str, Any]) -> list[dict[str, Any]]:
    """A row's problems as one list: the row's own, then each target's, named `targets[1].content`."""
    problems = list(verdict.get("problems") or [])
    for target in verdict.get("targets") or []:
        for problem in target.get("problems") or []:
            field = f"targets[{target['index']}]" + (f".{problem['field']}" if problem.get("field") else "")
            problems.append({**problem, "field": field})
    error = verdict.get("error")
    if not problems and isinstance(error, dict):
        problems.append({"field": "", "code": error.get("code", ""), "message": error.get("message", "")})
    return problems


def _problems(output: Output, name: str, problems: list[dict[str, Any]], *, to_stderr: bool) -> None:
    console = output.err if to_stderr else output.out
    prefix = f"{name}: " if name else "  "
    for problem in problems:
        field = f"{problem['field']} " if problem.get("field") else ""
        console.print(f"{prefix}{field}{problem['code']}: {problem['message']}", markup=False, soft_wrap=True)

"""Many creates in one request (`POST /api/v1/publishes/bulk`): the rows of a JSON list or of
a CSV file, each a create body, checked first and then created all together or not at all.

A CSV row has the columns `content`, `account_ids` and `media_ids` (both space-separated),
`publish_mode` and `scheduled_at`; an empty cell is a field not given. Its problems use the
same objects as `POST /publishes/validate`.

The API and the dashboard's Import page share the rest: each row's verdict (`dry_run`, the
validate answer of every row as the batch meets it) and the create itself (`create_rows`),
whose refusal names every row's problems.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NoReturn

from rest_framework import status
from rest_framework.exceptions import ValidationError

from config.errors import ApplicationError, InvalidRequest
from config.handlers import rendered_error
from config.serializers import validated
from publishing import checks, inputs, lifecycle
from publishing.models import Publish, PublishMode
from publishing.serializers import CreatePublishSerializer, ids_of, target_inputs
from teams.models import Team
from teams.services import quota_check

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


# --- the rows' verdicts and the create -------------------------------------------------------


def request_fields(data: dict[str, Any]) -> dict[str, Any]:
    """The fields of `lifecycle.CreateRequest` in a validated create body: without
    `publish_mode`, a body with `scheduled_at` is scheduled and one without is immediate."""
    mode = data.get("publish_mode") or (PublishMode.SCHEDULED if data.get("scheduled_at") else PublishMode.IMMEDIATE)
    return {
        "content": data["content"],
        "media_ids": ids_of(data["media_ids"]),
        "targets": target_inputs(data["targets"]),
        "publish_mode": mode,
        "scheduled_at": data.get("scheduled_at"),
    }


def invalid_body(exc: ValidationError) -> dict[str, Any]:
    """The validation answer for a body the create's serializer refuses."""
    status_code, body = rendered_error(exc)
    fields = body["error"].get("details", {})
    problems = [
        {"field": name, "code": "VALIDATION_ERROR", "message": message} for name, message in _flat_messages(fields)
    ]
    return {
        "valid": False,
        "status": status_code,
        "approval_required": False,
        "error": body["error"],
        "problems": problems,
        "targets": [],
        "scheduled_at": None,
        "warnings": [],
    }


def _flat_messages(details: Any, prefix: str = "") -> list[tuple[str, str]]:
    """DRF's nested field errors as (`targets[0].account_id`, message) pairs."""
    if isinstance(details, dict):
        return [pair for key, value in details.items() for pair in _flat_messages(value, _path(prefix, key))]
    if isinstance(details, list) and details and all(isinstance(item, str) for item in details):
        return [(prefix, message) for message in details]
    if isinstance(details, list):
        return [pair for index, item in enumerate(details) for pair in _flat_messages(item, f"{prefix}[{index}]")]
    return [(prefix, str(details))] if details else []


def _path(prefix: str, key: Any) -> str:
    if str(key).isdigit():  # an item of a list (DRF reports a list's errors by index)
        return f"{prefix}[{key}]"
    return f"{prefix}.{key}" if prefix else str(key)


def validation_body(result: checks.CreateCheck) -> dict[str, Any]:
    """A create's check as `POST /publishes/validate` answers it."""
    status_code: int = status.HTTP_201_CREATED
    error = None
    if result.refusal is not None:
        status_code, body = rendered_error(result.refusal)
        error = body["error"]
    targets = [{"index": index, **check.as_dict()} for index, check in enumerate(result.targets)]
    return {
        "valid": result.refusal is None,
        "status": status_code,
        "approval_required": result.waits_for_approval,
        "error": error,
        "problems": [{"field": p.field, "code": p.code, "message": p.message} for p in result.problems],
        "targets": targets,
        "scheduled_at": result.scheduled_at,
        "warnings": [w.as_dict() for w in result.warnings],
    }


def row_requests(bodies: list[Any]) -> tuple[dict[int, Any], dict[int, dict[str, Any]]]:
    """By row index, the validated create bodies, and the verdicts of the rows the create's
    serializer refuses."""
    valid: dict[int, Any] = {}
    refused: dict[int, dict[str, Any]] = {}
    for index, body in enumerate(bodies):
        try:
            valid[index] = validated(CreatePublishSerializer(data=body))
        except ValidationError as exc:
            refused[index] = invalid_body(exc)
    return valid, refused


def create_rows(
    bodies: list[Any],
    *,
    team: Team,
    caller: inputs.Caller,
    finish: Callable[[list[Publish]], None] | None = None,
) -> list[Publish]:
    """Create every row or none (`lifecycle.publish_create_many`). 400 INVALID_ROWS naming
    each refused row's problems (`details.rows`); 429 when the batch is over the month's quota."""
    valid, refused = row_requests(bodies)
    if refused:
        _rows_refused(bodies, team=team, caller=caller, valid=valid, refused=refused, create_refusals={})
    requests = [lifecycle.CreateRequest(**request_fields(valid[index])) for index in sorted(valid)]
    try:
        return lifecycle.publish_create_many(team=team, caller=caller, requests=requests, finish=finish)
    except lifecycle.RowsInvalid as exc:
        _rows_refused(bodies, team=team, caller=caller, valid=valid, refused=refused, create_refusals=exc.refusals)


def _rows_refused(
    bodies: list[Any],
    *,
    team: Team,
    caller: inputs.Caller,
    valid: dict[int, Any],
    refused: dict[int, dict[str, Any]],
    create_refusals: Mapping[int, Exception],
) -> NoReturn:
    """Raise the batch's 400: every row the create refused or would refuse, with its problems."""
    rows = []
    for index in range(len(bodies)):
        verdict = refused.get(index) or validation_body(
            checks.publish_check(team=team, caller=caller, **request_fields(valid[index]))
        )
        problems = row_problems(verdict) if not verdict["valid"] else []
        if not problems and index in create_refusals:  # a refusal only the batch meets (rows in its way)
            _, body = rendered_error(create_refusals[index])
            problems = [{"field": "", "code": body["error"]["code"], "message": body["error"]["message"]}]
        if problems:
            rows.append({"index": index, "problems": problems})
    raise InvalidRequest(
        f"{len(rows)} of {len(bodies)} rows cannot be created; nothing was created.",
        code="INVALID_ROWS",
        details={"rows": rows},
    )


def dry_run(bodies: list[Any], *, team: Team, caller: inputs.Caller) -> dict[str, Any]:
    """Each row's verdict as the batch would meet it (queued rows after the rows before them),
    and the batch's: 201, 400 or 429 (the rows submitted are more than the month has left)."""
    valid, refused = row_requests(bodies)
    reserved: dict[str, set[Any]] = {}
    verdicts = []
    for index in range(len(bodies)):
        if index in refused:
            verdicts.append({"index": index, **refused[index]})
            continue
        fields = request_fields(valid[index])
        verdict = validation_body(checks.publish_check(team=team, caller=caller, **fields, reserved=reserved))
        at = verdict["scheduled_at"] or fields["scheduled_at"]
        if verdict["valid"] and at is not None:
            for target in fields["targets"]:
                reserved.setdefault(str(target.account_id), set()).add(at)
        verdicts.append({"index": index, **verdict})
    batch_status: int = status.HTTP_201_CREATED
    if not all(verdict["valid"] for verdict in verdicts):
        batch_status = status.HTTP_400_BAD_REQUEST
    else:
        counted = sum(1 for index in valid if request_fields(valid[index])["publish_mode"] != PublishMode.DRAFT)
        try:
            quota_check(team=team, posts=counted)
        except ApplicationError:
            batch_status = status.HTTP_429_TOO_MANY_REQUESTS
    return {"data": verdicts, "meta": {"valid": batch_status == status.HTTP_201_CREATED, "status": batch_status}}

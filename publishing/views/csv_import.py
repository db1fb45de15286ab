"""The Import page: many publishes from one CSV file, as POST /api/v1/publishes/bulk takes it.

"Check" parses the file (`config.parsers.BoundedCSVParser`, the same limits as the API) and
shows every row's verdict (`bulk.dry_run`), creating nothing. The page keeps the file's text in
a hidden field, so "Create" sends the very rows that were checked; they are checked again as
they are created, all or none (`bulk.create_rows`), and a refused batch shows its rows again
with their problems. A member's rows wait for approval, as their creates do.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.dateparse import parse_datetime
from django.utils.text import Truncator

from config.datetime_input import local_text
from config.errors import ApplicationError, InvalidRequest, QuotaExceeded
from config.parsers import BoundedCSVParser
from publishing import approval, bulk
from publishing.models import QUEUE_MODE, PublishMode
from publishing.views import compose_form as form
from publishing.views import dashboard_caller
from publishing.views.compose import team_accounts
from teams.dashboard import page_context, requested_membership
from teams.models import Membership

TEMPLATE = "publishing/import.html"
EXAMPLE = (
    "content,account_ids,publish_mode,scheduled_at,media_ids\n"
    '"Monday tip: stretch, then code",<account id>,queue,,\n'
    "Launch day!,<account id> <another account id>,scheduled,2026-12-01T09:00:00+01:00,\n"
)
MAX_MB = settings.API_MAX_BODY_BYTES // (1024 * 1024)
# The API's words for a batch that is not one, where a page says it otherwise.
_FILE_SENTENCES = {
    "NO_ROWS": "The file has a header row but no rows under it.",
    "PAYLOAD_TOO_LARGE": f"The file is larger than {MAX_MB} MB: split it into parts.",
}
_WHEN = {PublishMode.IMMEDIATE: "Now", PublishMode.DRAFT: "Draft", QUEUE_MODE: "Next free slot"}


@dataclass
class Row:
    """One row of the verdict table: its number in the file (the header is not counted)."""

    number: int
    excerpt: str
    accounts: list[str]
    when: str
    problems: list[str] = field(default_factory=list)


@login_required
def csv_import(request: HttpRequest) -> HttpResponse:
    membership = requested_membership(request)
    if request.method != "POST":
        return _page(request, membership)
    try:
        text, bodies = _read(request)
    except ApplicationError as exc:
        return _page(request, membership, problem=_FILE_SENTENCES.get(exc.code, exc.message), status=400)
    if request.POST.get("action") == "create":
        return _create(request, membership, text, bodies)
    caller = dashboard_caller(request, membership)
    verdicts = bulk.dry_run(bodies, team=membership.team, caller=caller)
    rows = _rows(membership, bodies, verdicts["data"])
    quota = verdicts["meta"]["status"] == QuotaExceeded.status_code
    return _page(request, membership, rows=rows, text=text, ready=verdicts["meta"]["valid"], quota=quota)


def _read(request: HttpRequest) -> tuple[str, list[dict[str, Any]]]:
    """The file's text and its rows as create bodies; 400s in the API's words for a file
    that is not a CSV of rows."""
    raw = _raw(request)
    # Read once as sent, to refuse what is not UTF-8 CSV in the parser's words; then the text
    # with LF line breaks, as the hidden field comes back (browsers send its breaks as CRLF).
    BoundedCSVParser().parse(io.BytesIO(raw), "text/csv", {"encoding": "utf-8"})
    text = raw.decode("utf-8-sig").replace("\r\n", "\n")
    document = BoundedCSVParser().parse(io.BytesIO(text.encode()), "text/csv", {"encoding": "utf-8"})
    bodies = bulk.bodies_from_csv(document)
    bulk.check_row_count(bodies)
    return text, bodies


def _raw(request: HttpRequest) -> bytes:
    """The uploaded file's bytes, or (on Create) the hidden field's that Check filled."""
    try:
        upload, kept = request.FILES.get("file"), request.POST.get("csv")
    except RequestDataTooBig:
        raise InvalidRequest("", code="PAYLOAD_TOO_LARGE") from None
    if upload is not None:
        if upload.size is not None and upload.size > settings.API_MAX_BODY_BYTES:
            raise InvalidRequest("", code="PAYLOAD_TOO_LARGE")
        return bytes(upload.read())
    if kept:
        return kept.encode()
    raise InvalidRequest("Choose a CSV file to check.", code="NO_FILE")


def _create(request: HttpRequest, membership: Membership, text: str, bodies: list[dict[str, Any]]) -> HttpResponse:
    caller = dashboard_caller(request, membership)
    try:
        publishes = bulk.create_rows(bodies, team=membership.team, caller=caller)
    except QuotaExceeded:
        rows = _rows(membership, bodies, [])
        return _page(request, membership, rows=rows, text=text, quota=True, status=429)
    except InvalidRequest as exc:
        if exc.code != "INVALID_ROWS":
            raise
        refused = [{"index": r["index"], "valid": False, **r} for r in (exc.details or {}).get("rows", [])]
        return _page(request, membership, rows=_rows(membership, bodies, refused), text=text, status=400)
    waiting = sum(1 for publish in publishes if publish.approval_status)
    messages.success(request, _created(len(publishes), waiting))
    return redirect(f"{reverse('publishes')}?team={membership.team.pk}")


def _created(count: int, waiting: int) -> str:
    said = f"Created {count} publish{'es' if count != 1 else ''} from the file."
    if waiting:
        said += f" {waiting} wait{'s' if waiting == 1 else ''} for approval by the team's owner or an admin."
    return said


def _rows(membership: Membership, bodies: Sequence[Mapping[str, Any]], verdicts: list[dict[str, Any]]) -> list[Row]:
    """Each row as the table shows it, with the problems of its verdict (those `verdicts`
    name by index; a row without one is OK)."""
    names = {str(a.pk): str(a) for a in team_accounts(membership.team)}
    by_index = {v["index"]: v for v in verdicts}
    rows = []
    for index, body in enumerate(bodies):
        account_ids = [t["account_id"] for t in body["targets"]]
        verdict = by_index.get(index, {})
        rows.append(
            Row(
                number=index + 1,
                excerpt=Truncator(body["content"]).chars(80),
                accounts=[names.get(a, a) for a in account_ids],
                when=_when(body, verdict.get("scheduled_at")),
                problems=_sentences(verdict, account_ids, names) if verdict and not verdict["valid"] else [],
            )
        )
    return rows


def _when(body: Mapping[str, Any], slot: Any) -> str:
    if slot is not None:  # the queue slot the row would take
        return local_text(slot)
    given = str(body.get("scheduled_at") or "")
    if given and (moment := parse_datetime(given)) is not None and moment.tzinfo is not None:
        return local_text(moment)
    if given:
        return given  # not a time: its problem says so
    mode = str(body.get("publish_mode") or PublishMode.IMMEDIATE)
    return _WHEN.get(mode, mode)


def _sentences(verdict: Mapping[str, Any], account_ids: Sequence[str], names: Mapping[str, str]) -> list[str]:
    """A row's problems in the dashboard's words, a target's named by its account."""
    problems = verdict["problems"] if "targets" not in verdict else bulk.row_problems(verdict)
    said = []
    for problem in problems:
        # DRF names a list's own errors `targets.non_field_errors`: they are the list's.
        where, _, name = problem["field"].removesuffix(".non_field_errors").rpartition(".")
        sentence = form.in_words(name.split("[", 1)[0] or form.GENERAL, problem["message"])
        if where.startswith("targets[") and (index := _index(where)) is not None and index < len(account_ids):
            sentence = f"{names.get(account_ids[index], account_ids[index])}: {sentence}"
        said.append(sentence)
    return list(dict.fromkeys(said))


def _index(where: str) -> int | None:
    number = where.removeprefix("targets[").split("]", 1)[0]
    return int(number) if number.isdigit() else None


def _page(request: HttpRequest, membership: Membership, status: int = 200, **extra: Any) -> HttpResponse:
    context = page_context(
        request,
        membership,
        example=EXAMPLE,
        columns=bulk.CSV_COLUMNS,
        max_rows=bulk.MAX_ROWS,
        max_mb=MAX_MB,
        waits_for_approval=_waits(request, membership),
        **extra,
    )
    return render(request, TEMPLATE, context, status=status)


def _waits(request: HttpRequest, membership: Membership) -> bool:
    caller = dashboard_caller(request, membership)
    return approval.waits_for_approval(team=membership.team, caller=caller, publish_mode=PublishMode.IMMEDIATE)

"""The dashboard page of one publish: its content and media, what its check before its time
found wrong (`publishing.preflight`), each target's delivery (status, live link, error
evidence, attempts) and the actions its state allows: retry the failed targets
(each editable first), approve or reject, confirm or discard a draft.

Each action is one POST calling one lifecycle transition, as the API's action of the same name
does; the transition hands the jobs it wrote to the broker itself. `publishing.actions` decides
which actions are offered, from the same predicates the lifecycle guards with. A refusal is
shown on the page again with each problem beside the field it concerns (the text typed stays);
success goes back to the page with a message. As in the API, a publish of another team, or an
approval asked by a member, is a 404.

While targets are being sent the page polls `?fragment=targets` (static/dashboard/detail.js),
which answers the delivery section alone, until the publish settles.
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.text import Truncator, capfirst
from django.views.decorators.http import require_GET, require_POST

from config.datetime_input import local_text, utc_moment
from config.errors import ApplicationError, InvalidRequest, NotFound
from media.models import MediaUpload
from media.selectors import media_pull_url, ready_media, ready_media_by_ids
from publishing import actions, approval, handover, lifecycle, preflight, removals
from publishing.models import (
    ApprovalStatus,
    Publish,
    PublishStatus,
    Target,
    TargetState,
    ThreadItem,
    ThreadItemKind,
)
from publishing.selectors import publish_by_id, with_accounts
from publishing.views import dashboard_caller
from publishing.views.compose_form import in_words
from teams.dashboard import can_manage, page_context, requested_membership
from teams.models import Membership, Team

# How many of the team's newest ready files a failed target's edit offers besides its own.
MEDIA_CHOICES = 24


@dataclass(frozen=True)
class Refusal:
    """An action refused, by the lifecycle or by the form: the message for the top of its form,
    and the problems by field (`scheduled_at`, `reason`, `content-<target id>`, ...)."""

    action: str
    message: str
    fields: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Thumb:
    id: str
    name: str
    kind: str  # image, video, or missing (no longer a ready file of the team)
    url: str = ""


@dataclass
class TargetRow:
    """A target as the page shows it, and, when it failed and may be retried, its edit."""

    target: Target
    media: list[Thumb]  # its own media, when it overrides the publish's
    settings: list[tuple[str, str]]  # its platform settings, each value as JSON unless a string
    problem: str = ""
    edit_content: str | None = None
    edit_media: set[str] = field(default_factory=set)
    content_problem: str = ""
    media_problem: str = ""
    replies: list[ThreadItem] = field(default_factory=list)  # its thread's later posts
    comment: ThreadItem | None = None  # its first comment, if it asked for one
    removing: bool = False  # a take-down of its post is under way


# --- reading -------------------------------------------------------------------------------------


def _publish(membership: Membership, publish_id: uuid.UUID) -> Publish:
    publish = publish_by_id(team=membership.team, publish_id=str(publish_id))
    if publish is None:
        raise Http404("No such publish.")
    with_accounts([publish])
    return publish


def _sends(publish: Publish, target: Target) -> tuple[str, list[str]]:
    """The text and media the target sends: its own, else the publish's."""
    text = publish.content if target.content is None else target.content
    return text, list(publish.media_ids if target.media_ids is None else target.media_ids)


def _thumb_of(upload: MediaUpload) -> Thumb:
    kind = "video" if upload.content_type.startswith("video/") else "image"
    return Thumb(id=str(upload.pk), name=upload.filename, kind=kind, url=media_pull_url(upload))


def _thumb(uploads: Mapping[str, MediaUpload], media_id: str) -> Thumb:
    upload = uploads.get(media_id)
    if upload is None:
        return Thumb(id=media_id, name=f"File {media_id} (no longer available)", kind="missing")
    return _thumb_of(upload)


def _uploads(
    team: Team, publish: Publish, failed: Sequence[Target]
) -> tuple[dict[str, MediaUpload], list[MediaUpload]]:
    """The files the publish and its targets name, and those a failed target's edit may choose
    from (its own and the team's newest): two queries, whatever the number of targets."""
    named = list(publish.media_ids) + [i for t in publish.targets.all() for i in (t.media_ids or [])]
    found, _ = ready_media_by_ids(team=team, media_ids=list(dict.fromkeys(named)))
    uploads = {str(u.pk): u for u in found}
    if not failed:
        return uploads, []
    newest = list(ready_media(team=team)[:MEDIA_CHOICES])
    offered = {str(u.pk) for u in newest}
    chosen = {i for t in failed for i in _sends(publish, t)[1]}
    return uploads, [uploads[i] for i in sorted(chosen - offered) if i in uploads] + newest


def _row(
    publish: Publish,
    target: Target,
    uploads: Mapping[str, MediaUpload],
    fields: Mapping[str, str],
    typed: QueryDict | None,
) -> TargetRow:
    """The target as shown; a failed one with its edit: what it sends now, or what was typed
    in a retry that was refused."""
    own = [_thumb(uploads, i) for i in target.media_ids] if target.media_ids is not None else []
    settings = [(k, v if isinstance(v, str) else json.dumps(v)) for k, v in target.platform_settings.items()]
    row = TargetRow(target=target, media=own, settings=settings, problem=fields.get(f"target-{target.pk}", ""))
    items = list(target.thread_items.all())
    row.replies = [item for item in items if item.kind == ThreadItemKind.REPLY]
    row.comment = next((item for item in items if item.kind == ThreadItemKind.COMMENT), None)
    row.removing = any(item.kind == ThreadItemKind.REMOVAL and item.state in removals.OPEN_ITEM for item in items)
    if target.state == TargetState.FAILED:
        text, media = _sends(publish, target)
        row.edit_content = typed.get(f"content-{target.pk}", text) if typed else text
        row.edit_media = set(typed.getlist(f"media-{target.pk}") if typed else media)
        row.content_problem = fields.get(f"content-{target.pk}", "")
        row.media_problem = fields.get(f"media-{target.pk}", "")
    return row


def _thread_going_out(publish: Publish) -> bool:
    """A published target's thread still has items on their way: the page keeps polling."""
    return any(
        item.state in removals.OPEN_ITEM
        for target in publish.targets.all()
        if target.state == TargetState.PUBLISHED
        for item in target.thread_items.all()
    )


def _context(
    request: HttpRequest,
    membership: Membership,
    publish: Publish,
    *,
    refusal: Refusal | None = None,
    posted: QueryDict | None = None,
) -> dict[str, Any]:
    allowed = actions.allowed_actions(publish, can_approve=can_manage(membership))
    failed = [t for t in publish.targets.all() if t.state == TargetState.FAILED] if "retry" in allowed else []
    uploads, choices = _uploads(membership.team, publish, failed)
    typed = posted if refusal and refusal.action == "retry" else None
    rows = [_row(publish, t, uploads, refusal.fields if refusal else {}, typed) for t in publish.targets.all()]
    # What "Take down" would ask for: not what is under way, nor asked again where it cannot be.
    removable = [
        row.target
        for row in rows
        if removals.removable(row.target)
        and not row.removing
        and not (row.target.removal_error and not removals.deletes(row.target.platform))
    ]
    return page_context(
        request,
        membership,
        publish=publish,
        allowed=allowed,
        settled=actions.is_settled(publish) and not _thread_going_out(publish),
        media=[_thumb(uploads, i) for i in publish.media_ids],
        rows=rows,
        choices=[_thumb_of(upload) for upload in choices],
        refusal=refusal,
        posted=posted if refusal else None,
        at_risk=preflight.at_risk_problems(publish),
        removable=removable,
        undeletable=sorted({t.account.get_platform_display() for t in removable if not removals.deletes(t.platform)}),
    )


@login_required
@require_GET
def detail(request: HttpRequest, publish_id: uuid.UUID) -> HttpResponse:
    membership = requested_membership(request)
    publish = _publish(membership, publish_id)
    if request.GET.get("fragment") == "targets":
        return render(request, "publishing/_detail_delivery.html", _context(request, membership, publish))
    return render(request, "publishing/detail.html", _context(request, membership, publish))


# --- acting --------------------------------------------------------------------------------------


def _detail_url(membership: Membership, publish_id: uuid.UUID) -> str:
    return f"{reverse('dashboard-publish', kwargs={'publish_id': publish_id})}?team={membership.team.pk}"


def _refusal(action: str, exc: ApplicationError, publish: Publish) -> Refusal:
    """The error's message, and its details turned into problems by field: a named field, a
    target named by id, and each target's problems (text beside its text, media beside its
    media, the rest beside the target)."""
    details = exc.details or {}
    fields: dict[str, str] = {}
    if details.get("field"):
        fields[str(details["field"])] = in_words(str(details["field"]), exc.message)
    if details.get("target_id"):
        fields[f"target-{details['target_id']}"] = exc.message
    by_account = {str(t.account_id): t.pk for t in publish.targets.all()}
    for entry in details.get("targets") or []:
        pk = by_account.get(str(entry.get("account_id")))
        for problem in entry.get("problems") or []:
            name = str(problem.get("field", ""))
            kind = "media" if name.startswith("media") else "content" if name == "text" else "target"
            kind = kind if action == "retry" else "target"
            key = f"{kind}-{pk}"
            fields[key] = " ".join(filter(None, [fields.get(key), str(problem.get("message", ""))]))
    return Refusal(action=action, message=exc.message, fields=fields)


def excerpt(publish: Publish | None) -> str:
    """How messages name a publish: the start of its text, quoted."""
    if publish is None or not publish.content:
        return "the publish"
    return f"“{Truncator(publish.content).chars(60)}”"


def _act(
    request: HttpRequest,
    publish_id: uuid.UUID,
    action: str,
    run: Callable[[Membership], str],
    after: Callable[[Membership], str] | None = None,
) -> HttpResponse:
    """Run one action for the signed-in user in the posted team: on success back to the page
    (or to `after`) with its message; refused, the page again with the problems. A form of the
    approvals queue (`back=approvals`) goes back to the queue either way."""
    membership = requested_membership(request)
    queue = f"{reverse('approvals')}?team={membership.team.pk}" if request.POST.get("back") == "approvals" else ""
    try:
        messages.success(request, run(membership))
    except NotFound as exc:
        raise Http404(exc.message) from exc
    except ApplicationError as exc:
        if queue:
            messages.error(request, exc.message)
            return redirect(queue)
        publish = _publish(membership, publish_id)
        refusal = _refusal(action, exc, publish)
        context = _context(request, membership, publish, refusal=refusal, posted=request.POST)
        return render(request, "publishing/detail.html", context, status=exc.status_code)
    return redirect(queue or (after(membership) if after else _detail_url(membership, publish_id)))


def _when(publish: Publish) -> str:
    return local_text(publish.scheduled_at) if publish.scheduled_at else ""


def _queued(publish: Publish, sent: bool, done: str) -> str:
    """What happens next to a publish an action left: waiting for approval, for its time, for
    the queue (the relay sends what the broker refused), or being sent."""
    if publish.approval_status == ApprovalStatus.PENDING:
        return f"{done}; it waits for approval by the team's owner or an admin."
    if publish.status == PublishStatus.SCHEDULED:
        return f"{done}; it is published at its scheduled time, {_when(publish)}."
    if not sent:
        return f"{done}; the queue is busy, so it is sent within a few minutes."
    return f"{done}; it is being published."


# Retry: a failed target's edit, as `lifecycle.publish_retry` takes it (publishing.serializers
# `retry_edits`): only what differs from what the target sends now.


def _chosen_media(form: QueryDict, target: Target, current: list[str]) -> list[str] | None:
    """The files ticked for the target, kept ones first in their order; None when unchanged
    (or not offered: a form without files to choose from says nothing of them)."""
    if f"media-shown-{target.pk}" not in form:
        return None
    chosen = form.getlist(f"media-{target.pk}")
    for media_id in chosen:
        try:
            uuid.UUID(media_id)
        except ValueError:
            raise InvalidRequest(
                "Choose files from the list.", code="MEDIA_NOT_FOUND", details={"field": f"media-{target.pk}"}
            ) from None
    if set(chosen) == set(current):
        return None
    return [i for i in current if i in chosen] + [i for i in dict.fromkeys(chosen) if i not in current]


def _retry_edits(form: QueryDict, publish: Publish) -> list[dict[str, Any]]:
    edits = []
    for target in publish.targets.all():
        if target.state != TargetState.FAILED or f"content-{target.pk}" not in form:
            continue
        text, media = _sends(publish, target)
        edit: dict[str, Any] = {"target_id": str(target.pk)}
        # Browsers send a textarea's line breaks as CRLF; the text was typed with LF.
        content = form.get(f"content-{target.pk}", "").replace("\r\n", "\n")
        if content != text:
            edit["content"] = content
        chosen = _chosen_media(form, target, media)
        if chosen is not None:
            edit["media_ids"] = chosen
        if len(edit) > 1:
            edits.append(edit)
    return edits


@login_required
@require_POST
def retry(request: HttpRequest, publish_id: uuid.UUID) -> HttpResponse:
    def run(membership: Membership) -> str:
        shown = _publish(membership, publish_id)
        edits = _retry_edits(request.POST, shown)
        caller, sent = dashboard_caller(request, membership), True
        try:
            publish = lifecycle.publish_retry(team=membership.team, publish_id=publish_id, caller=caller, edits=edits)
        except handover.PublishDispatchUncertain as exc:
            publish, sent = exc.publish, False
        if publish.approval_status == ApprovalStatus.PENDING:  # a member's edits wait for approval
            return _queued(publish, sent, "Your edits are saved")
        count = sum(target.state == TargetState.FAILED for target in shown.targets.all())
        return _queued(publish, sent, f"Sending {count} failed target{'s' if count != 1 else ''} again")

    return _act(request, publish_id, "retry", run)


# Confirm: now (or at the time the draft already has), or at a time picked in the team's zone.


def _scheduled_at(form: QueryDict) -> dt.datetime | None:
    if form.get("when") != "schedule":
        return None
    value = form.get("scheduled_at", "").strip()
    if not value:
        problem = "Pick the date and time to publish it at."
        raise InvalidRequest(problem, code="SCHEDULED_AT_REQUIRED", details={"field": "scheduled_at"})
    try:
        return utc_moment(value, malformed="Enter the date and time as YYYY-MM-DD HH:MM.")
    except ValidationError as exc:
        raise InvalidRequest(exc.messages[0], code="SCHEDULED_AT_INVALID", details={"field": "scheduled_at"}) from None


@login_required
@require_POST
def confirm(request: HttpRequest, publish_id: uuid.UUID) -> HttpResponse:
    def run(membership: Membership) -> str:
        caller, when, sent = dashboard_caller(request, membership), _scheduled_at(request.POST), True
        try:
            publish = lifecycle.publish_confirm(
                team=membership.team, publish_id=publish_id, caller=caller, scheduled_at=when
            )
        except handover.PublishDispatchUncertain as exc:
            publish, sent = exc.publish, False
        return _queued(publish, sent, "Confirmed")

    return _act(request, publish_id, "confirm", run)


@login_required
@require_POST
def discard(request: HttpRequest, publish_id: uuid.UUID) -> HttpResponse:
    def run(membership: Membership) -> str:
        if request.POST.get("sure") != "yes":
            raise InvalidRequest(
                "Tick the box to confirm that the draft is deleted for good.",
                code="CONFIRMATION_REQUIRED",
                details={"field": "sure"},
            )
        lifecycle.publish_discard(team=membership.team, publish_id=publish_id)
        return "Discarded the draft."

    return _act(request, publish_id, "discard", run, after=lambda m: f"{reverse('publishes')}?team={m.team.pk}")


@login_required
@require_POST
def approve(request: HttpRequest, publish_id: uuid.UUID) -> HttpResponse:
    def run(membership: Membership) -> str:
        caller, sent = dashboard_caller(request, membership), True
        try:
            publish, already = approval.publish_approve(team=membership.team, publish_id=publish_id, caller=caller)
        except handover.PublishDispatchUncertain as exc:
            publish, already, sent = exc.publish, False, False
        if already:
            return f"{capfirst(excerpt(publish))} was already approved."
        return _queued(publish, sent, f"Approved {excerpt(publish)}")

    return _act(request, publish_id, "approve", run)


@login_required
@require_POST
def reject(request: HttpRequest, publish_id: uuid.UUID) -> HttpResponse:
    def run(membership: Membership) -> str:
        reason = request.POST.get("reason", "").strip()
        caller = dashboard_caller(request, membership)
        publish = approval.publish_reject(team=membership.team, publish_id=publish_id, caller=caller, reason=reason)
        return f"Rejected {excerpt(publish)}; it will not be published."

    return _act(request, publish_id, "reject", run)


@login_required
@require_POST
def unpublish(request: HttpRequest, publish_id: uuid.UUID) -> HttpResponse:
    def run(membership: Membership) -> str:
        if request.POST.get("sure") != "yes":
            raise InvalidRequest(
                "Tick the box to confirm that the posts are deleted on their networks.",
                code="CONFIRMATION_REQUIRED",
                details={"field": "unpublish-sure"},
            )
        try:
            publish = lifecycle.publish_unpublish(team=membership.team, publish_id=publish_id)
        except handover.PublishDispatchUncertain as exc:
            publish = exc.publish  # the relay sends what the broker refused
        return f"Taking down {excerpt(publish)}: each post is deleted on its network; this page shows when."

    return _act(request, publish_id, "unpublish", run)

"""Editing a planned publish on the compose page's form, and copying any publish into a new
draft.

The edit page is compose's form and template, filled from the publish (`edit_form`). Every
account the publish goes to is in the form, a disconnected or expired one too: ticked, with a
warning, so that it leaves the publish only when unticked. A target's thread is shown, not
edited: saving leaves it as it is (the API's PATCH changes it).

Saving builds the body of PATCH /api/v1/publishes/{id}, validates it with the API's serializer and
calls `lifecycle.publish_edit` as the signed-in user: the PATCH's own transition (and, for a
scheduled publish's time, the reschedule's), so its rules hold here too: only an open draft
or a scheduled publish not yet sent, a member's edit in a team that requires approval waits
for approval again, another team's publish is a 404. Problems come back next to their fields
as on compose; a publish that went out meanwhile is a sentence on its page.

Duplicate (`publishing.duplicate`) makes a new draft of the same post and opens its edit page;
on a rejected publish, which stays rejected, it is the way to send the post again.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone
from django.utils.text import capfirst
from django.views.decorators.http import require_http_methods, require_POST
from rest_framework.exceptions import ValidationError

from accounts.models import SocialAccount
from config.errors import ApplicationError, NotFound
from config.serializers import validated
from publishing import actions, approval, duplicate, lifecycle
from publishing.models import ApprovalStatus, Publish, PublishStatus, Target, ThreadItemKind
from publishing.selectors import publish_by_id
from publishing.serializers import UpdatePublishSerializer, update_changes
from publishing.views import compose, dashboard_caller, edit_form
from publishing.views import compose_form as form
from publishing.views.detail import excerpt
from teams.dashboard import requested_membership
from teams.models import Membership

TEMPLATE = "publishing/edit.html"


def _url(name: str, membership: Membership, publish_id: uuid.UUID | str) -> str:
    return f"{reverse(name, kwargs={'publish_id': publish_id})}?team={membership.team.pk}"


def _publish(membership: Membership, publish_id: uuid.UUID) -> Publish:
    publish = publish_by_id(team=membership.team, publish_id=str(publish_id))
    if publish is None:
        raise Http404("No such publish.")
    return publish


def _gone(request: HttpRequest, membership: Membership, publish: Publish) -> HttpResponse:
    """Back to the publish's page, saying why it can no longer be edited."""
    if publish.approval_status == ApprovalStatus.REJECTED:
        why = "it was rejected. Copy it into a new draft to change it and send it again"
    elif publish.status == PublishStatus.DRAFT:
        why = "it was submitted and waits for approval; only an owner or admin can decide on it now"
    else:
        why = f"it is {publish.get_status_display().lower()} now. Duplicate it to send a changed copy"
    messages.error(request, f"{capfirst(excerpt(publish))} can no longer be edited: {why}.")
    return redirect(_url("dashboard-publish", membership, publish.pk))


@login_required
@require_http_methods(["GET", "POST"])
def edit(request: HttpRequest, publish_id: uuid.UUID) -> HttpResponse:
    membership = requested_membership(request)
    publish = _publish(membership, publish_id)
    if not actions.is_editable(publish):
        return _gone(request, membership, publish)
    targets = list(publish.targets.all())  # with their thread items (`publish_by_id`)
    accounts = list(compose.team_accounts(membership.team, targeted=[str(t.account_id) for t in targets]))
    if request.method != "POST":
        return _render(request, membership, publish, accounts, targets, data=edit_form.form_data(publish, targets))
    return _save(request, membership, publish, accounts, targets)


def _render(
    request: HttpRequest,
    membership: Membership,
    publish: Publish,
    accounts: list[SocialAccount],
    targets: list[Target],
    **kwargs: Any,
) -> HttpResponse:
    # A member's change to a submitted publish in a team that requires approval is a new submission.
    again = publish.confirmed and approval.gated(membership.team, dashboard_caller(request, membership))
    threads = {str(t.account_id): [i for i in t.thread_items.all() if i.kind == ThreadItemKind.REPLY] for t in targets}
    return compose.render_form(
        request,
        membership,
        accounts,
        template=TEMPLATE,
        publish=publish,
        approval_again=again,
        threads=threads,
        **kwargs,
    )


def _save(
    request: HttpRequest,
    membership: Membership,
    publish: Publish,
    accounts: list[SocialAccount],
    targets: list[Target],
) -> HttpResponse:
    platforms = {str(a.pk): a.platform for a in accounts}
    account_ids = request.POST.getlist("account")  # the body's targets, in order
    stored = {str(t.account_id): t for t in targets}
    if refused := compose.save_alt_texts(membership.team, request.POST):
        return _render(request, membership, publish, accounts, targets, problems=refused, status=400)
    try:
        body = edit_form.update_body(request.POST, platforms, stored)
        changes = update_changes(validated(UpdatePublishSerializer(data=body)))
        when = edit_form.kept_time(changes.pop("scheduled_at", None), publish.scheduled_at)
        saved = lifecycle.publish_edit(
            team=membership.team,
            publish_id=publish.pk,
            changes=changes,
            caller=dashboard_caller(request, membership),
            scheduled_at=when,
        )
    except ValidationError as exc:
        problems, status = form.problems_of_serializer(exc.detail, account_ids), 400
    except NotFound as exc:
        raise Http404(exc.message) from exc
    except ApplicationError as exc:
        if exc.code == "NOT_EDITABLE":  # it went out, or was submitted, since the page was drawn
            return _gone(request, membership, _publish(membership, publish.pk))
        problems, status = form.problems_of_error(exc, account_ids), exc.status_code
    else:
        messages.success(request, _outcome(saved))
        return redirect(_url("dashboard-publish", membership, saved.pk))
    shown = problems.shown_on(set(platforms))
    return _render(request, membership, publish, accounts, targets, problems=shown, status=status)


def _outcome(publish: Publish) -> str:
    done = f"Saved your changes to {excerpt(publish)}"
    if publish.approval_status == ApprovalStatus.PENDING:
        return f"{done}; it waits for approval by the team's owner or an admin."
    if publish.status == PublishStatus.SCHEDULED and publish.scheduled_at:
        when = timezone.localtime(publish.scheduled_at)  # the team's zone, as every time on the page
        return f"{done}; it is published at {when:%Y-%m-%d %H:%M} {publish.team.time_zone}."
    return f"{done}."


@login_required
@require_POST
def copy(request: HttpRequest, publish_id: uuid.UUID) -> HttpResponse:
    """Duplicate: a new draft of the post, opened for editing."""
    membership = requested_membership(request)
    try:
        draft = duplicate.publish_duplicate(
            team=membership.team, publish_id=publish_id, caller=dashboard_caller(request, membership)
        )
    except NotFound as exc:
        raise Http404(exc.message) from exc
    except ApplicationError as exc:
        messages.error(request, exc.message)
        return redirect(_url("dashboard-publish", membership, publish_id))
    messages.success(request, f"Copied into a new draft: {capfirst(excerpt(draft))}. Change what you like and save it.")
    return redirect(_url("publish-edit", membership, draft.pk))

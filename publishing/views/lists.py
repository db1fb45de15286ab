"""Dashboard pages of publishing: the team's publishes with each target's delivery, and the
approvals queue where owners and admins approve or reject what members submitted.

The buttons call one lifecycle transition each; the transition decides who may act. As in the
API, a caller who may not approve (or a publish of another team) gets 404, not a hint that the
publish exists.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.text import Truncator
from django.views.decorators.http import require_POST

from config.errors import ApplicationError, NotFound
from publishing import dispatch, lifecycle
from publishing.models import Publish
from publishing.selectors import approvals_for, publishes_for
from teams.dashboard import page_context, signed_in_user, team_membership
from teams.models import Membership, Role, Team

PAGE_SIZE = 20


def _can_approve(membership: Membership) -> bool:
    return membership.role in (Role.OWNER, Role.ADMIN)


def _page(request: HttpRequest, template: str, query: Callable[[Membership], QuerySet[Publish]]) -> HttpResponse:
    """Render one of the team's lists, a page of `query(membership)` at a time."""
    try:
        membership = team_membership(request, request.GET.get("team"))
    except PermissionError as exc:
        return render(request, template, {"problem": str(exc)}, status=403)
    context = page_context(
        request,
        membership,
        can_approve=_can_approve(membership),
        page=Paginator(query(membership), PAGE_SIZE).get_page(request.GET.get("page")),
    )
    return render(request, template, context)


@login_required
def publishes(request: HttpRequest) -> HttpResponse:
    return _page(
        request,
        "publishing/publishes.html",
        lambda membership: publishes_for(team=membership.team).order_by("-created_at", "-id"),
    )


@login_required
def approvals(request: HttpRequest) -> HttpResponse:
    # Owners and admins review the whole team's queue; a member follows their own submissions.
    return _page(
        request,
        "publishing/approvals.html",
        lambda membership: approvals_for(
            team=membership.team, user=None if _can_approve(membership) else signed_in_user(request)
        ),
    )


def _decide(request: HttpRequest, act: Callable[[Team, lifecycle.Caller], str]) -> HttpResponse:
    """Run one approval transition as the logged-in user in the posted team, then go back to
    the queue with its outcome as a message."""
    try:
        membership = team_membership(request, request.POST.get("team"))
    except PermissionError:
        raise Http404("No such publish.") from None
    team = membership.team
    caller = lifecycle.Caller(user=signed_in_user(request), can_approve=_can_approve(membership))
    try:
        messages.success(request, act(team, caller))
    except NotFound as exc:
        raise Http404(exc.message) from exc
    except ApplicationError as exc:
        messages.error(request, exc.message)
    return redirect(f"{reverse('approvals')}?team={team.pk}")


def _excerpt(publish: Publish) -> str:
    return f"“{Truncator(publish.content).chars(60)}”" if publish.content else "the publish"


@login_required
@require_POST
def approve(request: HttpRequest, publish_id: uuid.UUID) -> HttpResponse:
    def act(team: Team, caller: lifecycle.Caller) -> str:
        publish, already = lifecycle.publish_approve(team=team, publish_id=publish_id, caller=caller)
        # After the commit, as the API does; jobs the broker refuses now go with the relay.
        sent = dispatch.send_after_commit(publish, quietly=True)
        if already:
            return f"{_excerpt(publish)} was already approved."
        if publish.scheduled_at and not publish.released_at:
            return f"Approved {_excerpt(publish)}; it is published at its scheduled time."
        if not sent:
            return f"Approved {_excerpt(publish)}; the queue is busy, so it is sent within a few minutes."
        return f"Approved {_excerpt(publish)}; it is being published."

    return _decide(request, act)


@login_required
@require_POST
def reject(request: HttpRequest, publish_id: uuid.UUID) -> HttpResponse:
    reason = request.POST.get("reason", "").strip()

    def act(team: Team, caller: lifecycle.Caller) -> str:
        publish = lifecycle.publish_reject(team=team, publish_id=publish_id, caller=caller, reason=reason)
        return f"Rejected {_excerpt(publish)}; it will not be published."

    return _decide(request, act)

"""The team settings page: rename, approval, duplicate posts and time zone (owner or admin), the owner's default team,
members and their roles (owner), and deleting the team into another one the owner has (owner).

Every form posts to a view that calls one service of teams.services, the same the API calls
where the API has the operation. A refusal is shown beside the field it concerns on the page
rendered again (400, or the service's own status); a success redirects with a message.
"""

from __future__ import annotations

import uuid

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from config.errors import ApplicationError, NotFound
from teams import selectors, services, time_zones
from teams.dashboard import can_manage, page_context, signed_in_user
from teams.models import DUPLICATE_WINDOW_MAX_HOURS, Membership, Role, Team
from teams.views.common import back_to, field_errors, is_owner, settings_view

TEMPLATE = "teams/team.html"
MANAGERS_ONLY = "Only the team's owner or an admin can change the team's settings."
OWNER_ONLY = "Only the team's owner can do that."


def _render(
    request: HttpRequest,
    membership: Membership,
    *,
    errors: dict[str, str] | None = None,
    problem_row: uuid.UUID | None = None,
    status: int = 200,
) -> HttpResponse:
    user = signed_in_user(request)
    destinations = selectors.teams_owned(user=user).exclude(pk=membership.team_id) if is_owner(membership) else []
    context = page_context(
        request,
        membership,
        members=selectors.members_of(team=membership.team),
        assignable_roles=[Role.MEMBER, Role.ADMIN],
        destinations=destinations,
        time_zones=time_zones.names() if can_manage(membership) else [],
        duplicate_window_max=DUPLICATE_WINDOW_MAX_HOURS,
        errors=errors or {},
        problem_row=problem_row,
        posted=request.POST if request.method == "POST" else {},
    )
    return render(request, TEMPLATE, context, status=status)


def _refused(
    request: HttpRequest, membership: Membership, exc: ApplicationError, field: str, *, row: uuid.UUID | None = None
) -> HttpResponse:
    """The page again with the service's refusal beside `field`, or in the member's `row`."""
    if isinstance(exc, NotFound):
        raise Http404(exc.message) from exc
    errors = {"member": exc.message} if row else field_errors(exc, field)
    return _render(request, membership, errors=errors, problem_row=row, status=exc.status_code)


@settings_view()
def team_settings(request: HttpRequest, membership: Membership) -> HttpResponse:
    return _render(request, membership)


@settings_view(allowed=can_manage, refusal=MANAGERS_ONLY, action_of="settings-team")
def rename(request: HttpRequest, membership: Membership) -> HttpResponse:
    try:
        team = services.team_rename(
            team=membership.team, user=signed_in_user(request), name=request.POST.get("name", "")
        )
    except ApplicationError as exc:
        return _refused(request, membership, exc, "name")
    messages.success(request, f"The team is now called “{team.name}”.")
    return back_to("settings-team", team)


@settings_view(allowed=can_manage, refusal=MANAGERS_ONLY, action_of="settings-team")
def approval(request: HttpRequest, membership: Membership) -> HttpResponse:
    required = request.POST.get("approval_required") == "on"
    try:
        services.team_set_approval(team=membership.team, user=signed_in_user(request), required=required)
    except ApplicationError as exc:
        return _refused(request, membership, exc, "approval_required")
    if required:
        messages.success(request, "Publishes from members now wait for an owner or admin to approve them.")
    else:
        messages.success(request, "Approval is off: members' publishes are sent without waiting.")
    return back_to("settings-team", membership.team)


@settings_view(allowed=can_manage, refusal=MANAGERS_ONLY, action_of="settings-team")
def duplicates(request: HttpRequest, membership: Membership) -> HttpResponse:
    block = request.POST.get("block_duplicates") == "on"
    try:
        hours = int(request.POST.get("duplicate_window_hours", "").strip())
    except ValueError:
        errors = {"duplicate_window_hours": "Give the window as a whole number of hours, such as 72."}
        return _render(request, membership, errors=errors, status=400)
    try:
        services.team_set_duplicates(
            team=membership.team, user=signed_in_user(request), block=block, window_hours=hours
        )
    except ApplicationError as exc:
        return _refused(request, membership, exc, "duplicate_window_hours")
    within = f"within {hours} hour{'s' if hours != 1 else ''}"
    if block:
        messages.success(request, f"Posts whose text an account already got {within} are now refused.")
    else:
        messages.success(request, f"Posts whose text an account already got {within} are sent, with a warning.")
    return back_to("settings-team", membership.team)


@settings_view(allowed=can_manage, refusal=MANAGERS_ONLY, action_of="settings-team")
def time_zone(request: HttpRequest, membership: Membership) -> HttpResponse:
    try:
        services.team_set_time_zone(
            team=membership.team, user=signed_in_user(request), name=request.POST.get("time_zone", "")
        )
    except ApplicationError as exc:
        return _refused(request, membership, exc, "time_zone")
    messages.success(request, f"The dashboard now shows and reads times in {membership.team.time_zone}.")
    return back_to("settings-team", membership.team)


@settings_view(allowed=is_owner, refusal=OWNER_ONLY, action_of="settings-team")
def make_default(request: HttpRequest, membership: Membership) -> HttpResponse:
    try:
        changed = services.team_set_default(user=signed_in_user(request), team=membership.team)
    except ApplicationError as exc:
        return _refused(request, membership, exc, "default")
    name = membership.team.name
    messages.success(request, f"“{name}” is {'now' if changed else 'already'} your default team.")
    return back_to("settings-team", membership.team)


@settings_view(allowed=is_owner, refusal=OWNER_ONLY, action_of="settings-team")
def member_add(request: HttpRequest, membership: Membership) -> HttpResponse:
    try:
        added = services.membership_add_by_username(
            team=membership.team,
            user=signed_in_user(request),
            username=request.POST.get("username", ""),
            role=request.POST.get("role", ""),
        )
    except ApplicationError as exc:
        return _refused(request, membership, exc, "username")
    messages.success(request, f"Added {added.user.username} as {added.role}.")
    return back_to("settings-team", membership.team)


@settings_view(allowed=is_owner, refusal=OWNER_ONLY, action_of="settings-team")
def member_role(request: HttpRequest, membership: Membership, membership_id: uuid.UUID) -> HttpResponse:
    try:
        changed = services.membership_set_role(
            team=membership.team,
            user=signed_in_user(request),
            membership_id=membership_id,
            role=request.POST.get("role", ""),
        )
    except ApplicationError as exc:
        return _refused(request, membership, exc, "member", row=membership_id)
    messages.success(request, f"{changed.user.username} is now {changed.role}.")
    return back_to("settings-team", membership.team)


@settings_view(allowed=is_owner, refusal=OWNER_ONLY, action_of="settings-team")
def member_remove(request: HttpRequest, membership: Membership, membership_id: uuid.UUID) -> HttpResponse:
    try:
        removed = services.membership_remove(
            team=membership.team, user=signed_in_user(request), membership_id=membership_id
        )
    except ApplicationError as exc:
        return _refused(request, membership, exc, "member", row=membership_id)
    messages.success(request, f"Removed {removed.user.username} from the team.")
    return back_to("settings-team", membership.team)


@settings_view(allowed=is_owner, refusal=OWNER_ONLY, action_of="settings-team")
def delete(request: HttpRequest, membership: Membership) -> HttpResponse:
    try:
        destination_id = uuid.UUID(request.POST.get("destination_team_id", ""))
    except ValueError:
        errors = {"destination_team_id": "Choose the team that receives the content."}
        return _render(request, membership, errors=errors, status=400)
    try:
        deletion = services.team_delete(
            user=signed_in_user(request),
            team=membership.team,
            destination_id=destination_id,
            confirmation_name=request.POST.get("confirmation_name", ""),
            used_key=None,  # a signed-in owner asks, not an API key
        )
    except ApplicationError as exc:
        return _refused(request, membership, exc, "delete")
    destination = Team.objects.get(pk=deletion.destination_team_id)
    messages.success(request, _deleted_message(membership.team.name, destination.name, deletion))
    return back_to("settings-team", destination)


def _count(number: int, noun: str, plural: str = "") -> str:
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def _deleted_message(deleted: str, destination: str, deletion: services.TeamDeletion) -> str:
    merged = deletion.merged_accounts
    merged_text = f" (and {merged} merged into accounts it already had)" if merged else ""
    return (
        f"Deleted “{deleted}”. Moved to “{destination}”: {_count(deletion.moved_accounts, 'account')}{merged_text}, "
        f"{_count(deletion.moved_publishes, 'publish', 'publishes')}, {_count(deletion.moved_media, 'media file')}. "
        f"Removed {_count(deletion.deleted_keys, 'team key')}, {_count(deletion.removed_webhooks, 'webhook')} "
        f"and {_count(deletion.removed_memberships, 'membership')}; "
        f"revoked {_count(deletion.revoked_keys, 'user key')} that acted in it."
    )

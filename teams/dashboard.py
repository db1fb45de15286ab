"""What every dashboard page needs: the signed-in user, the team the page shows (named by
`?team=` or a posted `team`, else the user's default team) and the role they hold in it.

Pages render `page_context()` into base.html, which draws the navigation and the team switcher
from it; `can_manage` (owner or admin) and `is_owner` decide which actions a page offers. The
services behind each action check the role again: hiding a button is not the protection.

Finding the team also activates its time zone (teams/time_zones.py): from then on the page
renders and reads times in it.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest
from django.shortcuts import get_object_or_404
from django.utils import timezone

from teams.models import Membership, Role
from teams.time_zones import zone_of


class NoTeam(PermissionDenied):
    """The signed-in user belongs to no team yet: a dashboard page answers 403 (templates/403.html)
    with this message, whatever page it is."""


def signed_in_user(request: HttpRequest) -> User:
    user = request.user
    assert isinstance(user, User)  # noqa: S101 - login_required guarantees it
    return user


def team_membership(request: HttpRequest, team_id: str | None) -> Membership:
    """The signed-in user's membership of the team named (404 if none), else of their default
    team; the team's time zone is active for the rest of the request."""
    membership = _membership(request, team_id)
    timezone.activate(zone_of(membership.team.time_zone))
    return membership


def _membership(request: HttpRequest, team_id: str | None) -> Membership:
    memberships = Membership.objects.select_related("team", "team__plan").filter(user=signed_in_user(request))
    if team_id:
        try:
            uuid.UUID(team_id)
        except ValueError:
            raise Http404("No such team.") from None
        return get_object_or_404(memberships, team_id=team_id)
    membership = memberships.order_by("-is_default", "created_at").first()
    if membership is None:
        raise NoTeam("You belong to no team yet.")
    return membership


def requested_membership(request: HttpRequest) -> Membership:
    """The membership of the team a request names: `team` in the query, else in the form."""
    return team_membership(request, request.GET.get("team") or request.POST.get("team"))


def can_manage(membership: Membership) -> bool:
    """Owners and admins approve, connect accounts, manage keys and webhooks."""
    return membership.role in (Role.OWNER, Role.ADMIN)


def page_context(request: HttpRequest, membership: Membership, **extra: Any) -> dict[str, Any]:
    """The context base.html draws the page around: the team, every team of the user (for the
    switcher, one query) and what the user's role lets them do."""
    teams = Membership.objects.select_related("team").filter(user=signed_in_user(request)).order_by("created_at")
    return {
        "team": membership.team,
        "teams": [m.team for m in teams],
        "membership": membership,
        "can_manage": can_manage(membership),
        "is_owner": membership.role == Role.OWNER,
        **extra,
    }

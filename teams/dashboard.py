"""What every dashboard page needs: the signed-in user and the team the page shows."""

from __future__ import annotations

import uuid

from django.contrib.auth.models import User
from django.http import Http404, HttpRequest
from django.shortcuts import get_object_or_404

from teams.models import Membership


def signed_in_user(request: HttpRequest) -> User:
    user = request.user
    assert isinstance(user, User)  # noqa: S101 - login_required guarantees it
    return user


def team_membership(request: HttpRequest, team_id: str | None) -> Membership:
    """The signed-in user's membership of the team named (404 if none), else of their default team."""
    memberships = Membership.objects.select_related("team").filter(user=signed_in_user(request))
    if team_id:
        try:
            uuid.UUID(team_id)
        except ValueError:
            raise Http404("No such team.") from None
        return get_object_or_404(memberships, team_id=team_id)
    membership = memberships.order_by("-is_default", "created_at").first()
    if membership is None:
        raise PermissionError("You belong to no team yet.")
    return membership

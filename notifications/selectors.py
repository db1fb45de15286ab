from __future__ import annotations

from collections.abc import Collection

from django.contrib.auth.models import User

from notifications.models import Kind, Preference
from teams.models import Role, Team

EVERY_ROLE = (Role.OWNER, Role.ADMIN, Role.MEMBER)


def preference_of(*, user: User) -> Preference:
    """The user's switches; an unsaved row with every kind on when they never saved any."""
    return Preference.objects.filter(user=user).first() or Preference(user=user)


def recipients(
    *,
    team: Team,
    kind: Kind,
    roles: Collection[Role] = EVERY_ROLE,
    only: int | None = None,
    excluding: int | None = None,
) -> list[User]:
    """The team's active members in `roles` with an email address who have not turned `kind`
    off (no preference row: on), `only` one of them or `excluding` one when given."""
    users = User.objects.filter(memberships__team=team, memberships__role__in=roles, is_active=True).exclude(email="")
    users = users.exclude(**{f"notification_preference__{kind.value}": False})
    if only is not None:
        users = users.filter(pk=only)
    if excluding is not None:
        users = users.exclude(pk=excluding)
    return list(users.order_by("pk"))

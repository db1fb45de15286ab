"""What base.html shows on every page of a signed-in user: how many publishes wait for their
approval, across every team where they approve (owner or admin). One grouped query, made only
when a page draws the navigation."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import User
from django.db.models import Count
from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from publishing.selectors import approvals_waiting_for


@dataclass(frozen=True)
class Waiting:
    """Publishes waiting for the user's approval, counted per team."""

    counts: dict[uuid.UUID, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def teams(self) -> list[uuid.UUID]:
        """The teams with some waiting, for the navigation to lead to one of them."""
        return sorted(self.counts, key=str)


def waiting_for(user: User) -> Waiting:
    rows = approvals_waiting_for(user=user).order_by().values("team_id").annotate(n=Count("id"))
    return Waiting(counts={row["team_id"]: row["n"] for row in rows})


def approvals_waiting(request: HttpRequest) -> dict[str, Any]:
    user = getattr(request, "user", None)
    if not isinstance(user, User):
        return {}
    return {"approvals_waiting": SimpleLazyObject(lambda: waiting_for(user))}

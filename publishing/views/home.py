"""The home page: where a signed-in user starts the day. For the team the page shows: the
scheduled posts whose check before their time found a problem (`publishing.preflight`), to fix
now; what goes out in the next seven days, what failed (or partly) lately and can be retried,
the posts taken down lately (found gone from their network, or removed), the accounts to
re-authorize and this month's usage; and, across every team where the user approves, what waits
for their approval (a member sees their own submissions still waiting instead).

Each section shows its count and at most `LIST_SIZE` items, then leads to the page with all of
them: the calendar, the filtered publishes list, the approvals queue, the accounts page, usage.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from django.contrib.auth.decorators import login_required
from django.db.models import Model, QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from accounts.selectors import accounts_to_reconnect
from publishing import preflight
from publishing.context_processors import waiting_for
from publishing.selectors import (
    approvals_waiting_for,
    own_submissions_waiting,
    removed_since,
    retryable_since,
    upcoming_between,
)
from teams import selectors as team_selectors
from teams.dashboard import page_context, requested_membership, signed_in_user
from teams.views.usage import meters_for

LIST_SIZE = 10
UPCOMING = dt.timedelta(days=7)
RECENT_FAILURES = dt.timedelta(days=7)

M = TypeVar("M", bound=Model)


@dataclass(frozen=True)
class Section(Generic[M]):
    """How many there are, and the first `LIST_SIZE` of them."""

    count: int
    items: list[M]

    @property
    def more(self) -> bool:
        return self.count > len(self.items)


def section(query: QuerySet[M]) -> Section[M]:
    count = query.count()
    return Section(count=count, items=list(query[:LIST_SIZE]) if count else [])


@login_required
def home(request: HttpRequest) -> HttpResponse:
    membership = requested_membership(request)
    team, user, now = membership.team, signed_in_user(request), timezone.now()
    context = page_context(request, membership)
    approves_in = team_selectors.teams_approved_in(user=user)
    waiting = waiting_for(user)
    names = {t.pk: t.name for t in context["teams"]}
    usage = team_selectors.usage_for(team=team)
    at_risk = preflight.publishes_at_risk(team=team)
    extra: dict[str, Any] = {
        "at_risk": Section(count=len(at_risk), items=at_risk[:LIST_SIZE]),
        "upcoming": section(upcoming_between(team=team, start=now, end=now + UPCOMING)),
        "retry": section(retryable_since(team=team, since=now - RECENT_FAILURES)),
        "removed": section(removed_since(team=team, since=now - RECENT_FAILURES)),
        "approver": bool(approves_in),
        "approvals": section(approvals_waiting_for(user=user)) if approves_in else None,
        "approvals_waiting": waiting,
        "approval_teams": sorted(((names.get(pk, ""), pk, n) for pk, n in waiting.counts.items()), key=str),
        "own_waiting": section(own_submissions_waiting(user=user)),
        "reconnect": section(accounts_to_reconnect(team=team)),
        "usage": usage,
        "meters": meters_for(usage),
        "upcoming_days": UPCOMING.days,
        "failure_days": RECENT_FAILURES.days,
    }
    return render(request, "publishing/home.html", {**context, **extra})

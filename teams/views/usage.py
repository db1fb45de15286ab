"""The usage page: the plan's limits against the team's counters, the same numbers
GET /api/v1/usage answers (`selectors.usage_for`), as bars anyone in the team can read."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.defaultfilters import filesizeformat

from teams import selectors
from teams.dashboard import page_context
from teams.models import Membership
from teams.views.common import settings_view

TEMPLATE = "teams/usage.html"


@dataclass(frozen=True)
class Meter:
    """One counter against its limit (None: unlimited), with the words the page shows."""

    key: str
    label: str
    used: int
    limit: int | None
    used_text: str
    limit_text: str

    @property
    def percent(self) -> int:
        if not self.limit:
            return 100 if self.limit == 0 else 0
        return min(100, round(100 * self.used / self.limit))

    @property
    def full(self) -> bool:
        return self.limit is not None and self.used >= self.limit


def meters_for(usage: selectors.Usage) -> list[Meter]:
    plan = usage.team.plan
    return [
        Meter(
            key="posts",
            label="Posts this month",
            used=usage.posts_this_month,
            limit=plan.posts_per_month,
            used_text=str(usage.posts_this_month),
            limit_text=str(plan.posts_per_month),
        ),
        Meter(
            key="accounts",
            label="Connected accounts",
            used=usage.social_accounts,
            limit=plan.social_accounts,
            used_text=str(usage.social_accounts),
            limit_text=str(plan.social_accounts),
        ),
        Meter(
            key="storage",
            label="Media storage",
            used=usage.media_storage_bytes,
            limit=plan.media_storage_bytes,
            used_text=filesizeformat(usage.media_storage_bytes),
            limit_text=f"{plan.media_storage_gb} GB",
        ),
    ]


@settings_view()
def usage(request: HttpRequest, membership: Membership) -> HttpResponse:
    counted = selectors.usage_for(team=membership.team)
    context = page_context(request, membership, usage=counted, meters=meters_for(counted))
    return render(request, TEMPLATE, context)

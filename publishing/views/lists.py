"""Dashboard pages of publishing: the team's publishes with each target's delivery, and the
approvals queue where owners and admins approve or reject what members submitted.

The publishes list filters as GET /api/v1/publishes does (`publishes_matching`), plus a date
range and a text search; its GET form is validated by `PublishFilterForm`, whose problems are
shown beside their fields while the valid filters still apply. Like the API, it shows every
member all of the team's publishes.

The buttons call one lifecycle transition each; the transition decides who may act. As in the
API, a caller who may not approve (or a publish of another team) gets 404, not a hint that the
publish exists.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib.auth.decorators import login_required
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from accounts.models import Platform, SocialAccount
from config.datetime_input import day_in_range
from config.pagination import Paginator
from publishing.models import Publish, PublishStatus
from publishing.selectors import approvals_for, publishes_matching, with_accounts
from teams.dashboard import can_manage, page_context, requested_membership, signed_in_user
from teams.models import Membership, Team

PAGE_SIZE = 20
SEARCH_MAX_LENGTH = 200


class _AccountChoice(forms.ModelChoiceField[SocialAccount]):
    def label_from_instance(self, obj: SocialAccount) -> str:
        return f"{Platform(obj.platform).label} · {obj.handle or obj.display_name or obj.external_id}"


class PublishFilterForm(forms.Form):
    """The publishes list's GET form. `filters()` turns what is valid of it into
    `publishes_matching`'s arguments; an invalid field is left out and shows its problem."""

    status = forms.MultipleChoiceField(
        choices=PublishStatus.choices, required=False, widget=forms.CheckboxSelectMultiple
    )
    platform = forms.MultipleChoiceField(choices=Platform.choices, required=False, widget=forms.CheckboxSelectMultiple)
    account = _AccountChoice(queryset=SocialAccount.objects.none(), required=False, empty_label="Any account")
    created_from = forms.DateField(
        required=False, label="Created from", widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")
    )
    created_to = forms.DateField(
        required=False, label="Created to", widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")
    )
    q = forms.CharField(required=False, max_length=SEARCH_MAX_LENGTH, label="Search text", widget=forms.SearchInput())

    def __init__(self, data: Any, *, team: Team) -> None:
        super().__init__(data, label_suffix="")
        accounts = SocialAccount.objects.filter(team=team).order_by("platform", "handle", "id")
        self.fields["account"].queryset = accounts  # type: ignore[attr-defined]

    def clean_created_from(self) -> dt.date | None:
        return _in_range(self.cleaned_data["created_from"])

    def clean_created_to(self) -> dt.date | None:
        return _in_range(self.cleaned_data["created_to"])

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        start, end = data.get("created_from"), data.get("created_to")
        if start and end and start > end:
            self.add_error("created_to", "The end date is before the start date.")
        return data

    def filters(self) -> dict[str, Any]:
        self.is_valid()  # cleaned_data keeps only the valid fields
        for name in self.errors:
            if name in self.fields:
                self.fields[name].widget.attrs["aria-describedby"] = f"{name}-problem"
        data = self.cleaned_data
        account, start, end = data.get("account"), data.get("created_from"), data.get("created_to")
        return {
            "status": data.get("status") or None,
            "platform": data.get("platform") or None,
            "account_id": account.pk if account else None,
            # The selector's bounds are exclusive, as the API's created_after is: from the last
            # microsecond before the first day to the first moment after the last one.
            "created_after": _midnight(start) - dt.timedelta(microseconds=1) if start else None,
            "created_before": _midnight(end + dt.timedelta(days=1)) if end else None,
            "search": data.get("q") or None,
        }


def _in_range(day: dt.date | None) -> dt.date | None:
    if day is not None:
        day_in_range(day)  # the filter reads the day before the first and after the last
    return day


def _midnight(day: dt.date) -> dt.datetime:
    """The first moment of `day` in the team's zone, where the filter's days are."""
    return dt.datetime.combine(day, dt.time.min, tzinfo=timezone.get_current_timezone())


def pager_query(request: HttpRequest, team: Team) -> str:
    """The page's query string without `page` and naming the team: what pager links keep."""
    query = request.GET.copy()
    query.pop("page", None)
    query["team"] = str(team.pk)
    return query.urlencode()


Listing = tuple[QuerySet[Publish], dict[str, Any]]


def _page(
    request: HttpRequest, template: str, listing: Callable[[Membership], Listing], *, links: bool = False
) -> HttpResponse:
    """Render one of the team's lists: `listing(membership)` gives the query, shown a page at a
    time, and whatever else the template needs; with `links`, the targets' accounts too (a
    sandbox account's live link leads to the sandbox)."""
    membership = requested_membership(request)
    query, extra = listing(membership)
    page = Paginator(query, PAGE_SIZE).get_page(request.GET.get("page"))
    if links:
        with_accounts(page.object_list)
    context = page_context(
        request,
        membership,
        can_approve=can_manage(membership),
        page=page,
        pager_query=pager_query(request, membership.team),
        **extra,
    )
    return render(request, template, context)


@login_required
def publishes(request: HttpRequest) -> HttpResponse:
    def listing(membership: Membership) -> Listing:
        form = PublishFilterForm(request.GET, team=membership.team)
        filters = form.filters()
        query = publishes_matching(team=membership.team, **filters).order_by("-created_at", "-id")
        return query, {"form": form, "filtered": any(filters.values())}

    return _page(request, "publishing/publishes.html", listing, links=True)


@login_required
def approvals(request: HttpRequest) -> HttpResponse:
    # Owners and admins review the whole team's queue; a member follows their own submissions.
    def listing(membership: Membership) -> Listing:
        user = None if can_manage(membership) else signed_in_user(request)
        return approvals_for(team=membership.team, user=user), {}

    return _page(request, "publishing/approvals.html", listing)

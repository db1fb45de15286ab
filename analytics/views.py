"""Dashboard pages of analytics: the team's published posts with their totals, sorted, filtered
and paged as GET /api/v1/analytics/posts does (its own query serializer and selector), the same
totals per platform, one post's metrics per platform with charts of its samples over time and
"Refresh now", and an account's posts' daily totals with its recent posts.

Only targets that reached `published` count, as in the API; a post with none is not listed and
its page is a 404, as is a post of another team.
"""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST
from rest_framework.exceptions import ValidationError

from accounts.models import Platform, SocialAccount
from analytics import services
from analytics.api import AnalyticsFilterSerializer
from analytics.chart import DAY, metrics_charts, post_moments
from analytics.models import PostMetrics
from analytics.selectors import (
    account_daily_totals,
    account_recent_targets,
    analytics_listing,
    analytics_platform_totals,
    analytics_posts,
    metrics_samples,
)
from config.pagination import Paginator
from config.serializers import validated
from publishing.links import live_link
from publishing.models import Publish, Target
from publishing.views.lists import pager_query
from teams.dashboard import page_context, requested_membership
from teams.models import Team

PAGE_SIZE = 20
# The account page's spans (days) to choose from, the first by default, and its recent posts.
SPANS = (30, 90)
RECENT_POSTS = 20
# The sortable columns, as the API names its sorts.
COLUMNS = {
    "published_at": "Published ({time_zone})",
    "total_views": "Views",
    "total_likes": "Likes",
    "total_comments": "Comments",
    "total_shares": "Shares",
}


def list_filters(request: HttpRequest) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """The list's query as the API's serializer validates it (platform checkboxes joined into
    its comma-separated form), and the problems by field: an invalid value is dropped and the
    rest still applies."""
    given = {name: request.GET.get(name, "") for name in ("sort", "order")}
    given["platform"] = ",".join(request.GET.getlist("platform"))
    given = {name: value for name, value in given.items() if value}
    try:
        return dict(validated(AnalyticsFilterSerializer(data=given))), {}
    except ValidationError as exc:
        detail = exc.detail if isinstance(exc.detail, dict) else {}
        problems = {name: [str(message) for message in messages] for name, messages in detail.items()}
        kept = {name: value for name, value in given.items() if name not in problems}
        return dict(validated(AnalyticsFilterSerializer(data=kept))), problems


def sort_columns(request: HttpRequest, team: Team, sort: str, order: str) -> list[dict[str, Any]]:
    """Each sortable header's link (descending first; the current sort flips its order) and,
    on the current one, its `aria-sort`."""
    columns = []
    for key, label in COLUMNS.items():
        active = key == sort
        query = request.GET.copy()
        query.pop("page", None)
        query["team"], query["sort"] = str(team.pk), key
        query["order"] = ("asc" if order == "desc" else "desc") if active else "desc"
        columns.append(
            {
                "key": key,
                "label": label.format(time_zone=team.time_zone),
                "href": f"?{query.urlencode()}",
                "aria_sort": ("ascending" if order == "asc" else "descending") if active else "",
            }
        )
    return columns


@login_required
def analytics(request: HttpRequest) -> HttpResponse:
    template = "analytics/analytics.html"
    membership = requested_membership(request)
    team = membership.team
    filters, problems = list_filters(request)
    platforms = filters.get("platform", [])
    sort, order = filters["sort"], filters["order"]
    listed = analytics_listing(team=team, platforms=platforms, sort=sort, order=order)
    page = Paginator(listed, PAGE_SIZE).get_page(request.GET.get("page"))  # type: ignore[arg-type]  # as it pages a queryset
    context = page_context(
        request,
        membership,
        page=page,
        rows=[(post, _platform_names(post)) for post in page.object_list],
        pager_query=pager_query(request, team),
        sort=sort,
        order=order,
        columns=sort_columns(request, team, sort, order),
        platform_totals=[
            {**row, "label": Platform(row["platform"]).label}
            for row in analytics_platform_totals(team=team, platforms=platforms)
        ],
        platform_choices=[(value, label, value in platforms) for value, label in Platform.choices],
        problems=problems,
        filtered=bool(platforms),
        accounts=SocialAccount.objects.defer("access_token", "refresh_token")
        .filter(team=team)
        .order_by("platform", "handle", "id"),
    )
    return render(request, template, context)


def _platform_names(publish: Publish) -> str:
    """The platforms of the post's counted targets, as the API lists them (sorted, once each)."""
    platforms = sorted({target.platform for target in getattr(publish, "published_targets", [])})
    return ", ".join(Platform(platform).label for platform in platforms)


def _entry(target: Target, accounts: dict[Any, SocialAccount]) -> dict[str, Any]:
    """One platform's row of the post page: what the API's single-post answer gives for it,
    with the live link the dashboard shows (a sandbox account's leads to the sandbox)."""
    metrics: PostMetrics | None = getattr(target, "metrics", None)  # none before the first sync
    target.account = accounts[target.account_id]
    return {
        "target": target,
        "link": live_link(target),
        "platform": Platform(target.platform).label,
        "metrics": metrics,
        "platform_specific_data": sorted((metrics.extra if metrics else {}).items()),
    }


@login_required
def post(request: HttpRequest, publish_id: uuid.UUID) -> HttpResponse:
    template = "analytics/post.html"
    membership = requested_membership(request)
    publish = analytics_posts(team=membership.team).filter(pk=publish_id).first()
    if publish is None:
        raise Http404("No such published post.")
    targets = getattr(publish, "published_targets", [])
    # The accounts of its targets in one query, as `publishing.selectors.with_accounts` reads them.
    accounts = SocialAccount.objects.defer("access_token", "refresh_token").in_bulk({t.account_id for t in targets})
    moments = post_moments(metrics_samples(publish=publish))
    context = page_context(
        request,
        membership,
        post=publish,
        entries=[_entry(target, accounts) for target in targets],
        moments=moments,
        charts=metrics_charts(moments),
        refresh_seconds=settings.ANALYTICS_REFRESH_SECONDS,
    )
    return render(request, template, context)


@login_required
@require_POST
def refresh(request: HttpRequest, publish_id: uuid.UUID) -> HttpResponse:
    """ "Refresh now": one sync of the post's metrics, at most once per post in the window."""
    membership = requested_membership(request)
    publish = analytics_posts(team=membership.team).filter(pk=publish_id).first()
    if publish is None:
        raise Http404("No such published post.")
    done = services.metrics_refresh(publish=publish)
    if done.started:
        messages.success(request, "Refreshing: the figures update within a minute.")
    else:
        ago = _span(settings.ANALYTICS_REFRESH_SECONDS)
        again = f"{timezone.localtime(_minute_up(done.again_at)):%H:%M} {membership.team.time_zone}"  # the page's zone
        messages.info(request, f"Refreshed less than {ago} ago: try again at {again}.")
    return redirect(f"{reverse('analytics-post', args=[publish.pk])}?team={membership.team.pk}")


@login_required
def account(request: HttpRequest, account_id: uuid.UUID) -> HttpResponse:
    template = "analytics/account.html"
    membership = requested_membership(request)
    found = SocialAccount.objects.defer("access_token", "refresh_token").filter(team=membership.team)
    social_account = found.filter(pk=account_id).first()
    if social_account is None:
        raise Http404("No such account.")
    days = next((span for span in SPANS if request.GET.get("days") == str(span)), SPANS[0])
    since = timezone.now().date() - dt.timedelta(days=days - 1)
    moments = account_daily_totals(account=social_account, since=since)
    context = page_context(
        request,
        membership,
        account=social_account,
        days=days,
        spans=[(span, span == days) for span in SPANS],
        moments=moments,
        charts=metrics_charts(moments, min_step=DAY),
        targets=account_recent_targets(account=social_account, limit=RECENT_POSTS),
    )
    return render(request, template, context)


def _span(seconds: int) -> str:
    minutes = -(-seconds // 60)
    return "a minute" if minutes <= 1 else f"{minutes} minutes"


def _minute_up(moment: dt.datetime) -> dt.datetime:
    """The first whole minute from `moment`, so that "try again at" is never too soon."""
    whole = moment.replace(second=0, microsecond=0)
    return whole if whole == moment else whole + dt.timedelta(minutes=1)

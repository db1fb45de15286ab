"""The calendar page: the team's publishes by day, week or month on the day they go (or went) out,
in the team's time zone (its local days, its today), with the two moves a publish still waiting
in the schedule queue allows: a new time (typed, or by dragging it onto another day; read as the
team's wall-clock time) and unschedule (back to a draft without a time).

Each account with a posting schedule also shows its free slots still ahead on the page, as quiet
entries beside the posts (`accounts.schedules.free_slots_between`): one query for the
schedules, one for the instants scheduled posts take.

What falls on a day is `selectors.publishes_between`'s rule, whether a publish can still be
moved is `outbox.is_waiting` (the lifecycle's own rule), and the buttons call
`lifecycle.publish_reschedule` / `publish_unschedule`. As in the API (posts:write, no role
check) members may move publishes too; a publish of another team is a 404.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.text import Truncator, capfirst
from django.views.decorators.http import require_POST

from accounts.models import Platform, SocialAccount
from accounts.schedules import free_slots_between
from accounts.selectors import posting_schedules_for_team
from config.datetime_input import local_text, utc_moment
from config.errors import ApplicationError, InvalidRequest, NotFound
from config.pagination import Paginator
from publishing import inputs, lifecycle, outbox
from publishing.models import Publish
from publishing.selectors import (
    publish_by_id,
    publishes_between,
    publishes_by_day,
    scheduled_instants_by_account,
)
from publishing.views import dashboard_caller
from publishing.views.compose_form import in_words
from publishing.views.detail import excerpt
from teams.dashboard import page_context, requested_membership
from teams.models import Team

TEMPLATE = "publishing/calendar.html"
WEEK = dt.timedelta(days=7)
# A day of the week, or of the month (smaller, and six weeks of them), shows this many posts,
# then "+N more" (its own page), N counted up to MORE_COUNTED ("+99+ more" past it); a day's
# page lists them all, this many a page. What a page reads and renders stays bounded however
# many posts a team has.
DAY_ENTRIES = {"week": 12, "month": 4}
MORE_COUNTED = 99
DAY_PAGE = 50
MALFORMED = "Enter the date and time as YYYY-MM-DD HH:MM."


@dataclass(frozen=True)
class Span:
    """The days one page shows, [first, end): a week from Monday, or a month's whole weeks."""

    view: str
    anchor: dt.date
    first: dt.date
    end: dt.date
    previous: dt.date
    following: dt.date

    def dates(self) -> list[dt.date]:
        return [self.first + dt.timedelta(days=n) for n in range((self.end - self.first).days)]


def _midnight(day: dt.date) -> dt.datetime:
    """The first moment of `day` in the team's zone. Where the clocks skip midnight itself,
    zoneinfo reads the skipped 00:00 with the offset before the change: the moment they jump."""
    return dt.datetime.combine(day, dt.time(), tzinfo=timezone.get_current_timezone())


def _month(anchor: dt.date) -> Span:
    start = anchor.replace(day=1)
    following = (start + dt.timedelta(days=32)).replace(day=1)
    previous = (start - dt.timedelta(days=1)).replace(day=1)
    first = start - dt.timedelta(days=start.weekday())
    end = following + dt.timedelta(days=(7 - following.weekday()) % 7)
    return Span("month", anchor, first, end, previous, following)


def _week(anchor: dt.date) -> Span:
    first = anchor - dt.timedelta(days=anchor.weekday())
    return Span("week", anchor, first, first + WEEK, first - WEEK, first + WEEK)


def _day(anchor: dt.date) -> Span:
    one = dt.timedelta(days=1)
    return Span("day", anchor, anchor, anchor + one, anchor - one, anchor + one)


def _today() -> dt.date:
    return timezone.localdate()


def requested_span(params: Mapping[str, str]) -> Span:
    """The span `view` and `date` name; the week of the team's today for anything else. Dates at the
    ends of the calendar are refused, so the month before or after always exists."""
    try:
        anchor = dt.date.fromisoformat(params.get("date", ""))
    except ValueError:
        anchor = _today()
    if not dt.MINYEAR < anchor.year < dt.MAXYEAR:
        anchor = _today()
    return {"month": _month, "day": _day}.get(params.get("view", ""), _week)(anchor)


# A page reverses each of its links once, for this id, and puts each entry's id in its place.
_SOME_ID = uuid.UUID(int=0)


@dataclass(frozen=True)
class Links:
    """The links an entry carries, as patterns of `_SOME_ID`."""

    publish: str
    reschedule: str
    unschedule: str

    @classmethod
    def of_page(cls, team: Team) -> Links:
        team_query = f"?{urlencode({'team': str(team.pk)})}"
        return cls(
            publish=reverse("dashboard-publish", kwargs={"publish_id": _SOME_ID}) + team_query,
            reschedule=reverse("calendar-reschedule", args=[_SOME_ID]),
            unschedule=reverse("calendar-unschedule", args=[_SOME_ID]),
        )


@dataclass(frozen=True)
class Entry:
    """A post on the page, with the text its markup needs made here: a page holds up to a few
    hundred entries, and each template filter, tag or URL reversed for one of them costs more
    than the line of Python that makes the same text."""

    publish: Publish
    at: dt.datetime
    platforms: str
    movable: bool
    links: Links
    free = False

    @property
    def iso(self) -> str:
        return self.at.isoformat()

    @property
    def clock(self) -> str:
        return self.at.strftime("%H:%M")

    @property
    def title(self) -> str:
        return Truncator(self.publish.content).chars(80) or "(no text)"

    def _link(self, pattern: str) -> str:
        return pattern.replace(str(_SOME_ID), str(self.publish.pk))

    @property
    def href(self) -> str:
        return self._link(self.links.publish)

    @property
    def reschedule_url(self) -> str:
        return self._link(self.links.reschedule)

    @property
    def unschedule_url(self) -> str:
        return self._link(self.links.unschedule)

    @property
    def scheduled_value(self) -> str:
        """The scheduled time as the datetime-local input takes it, in the team's zone."""
        scheduled = self.publish.scheduled_at
        return timezone.localtime(scheduled).strftime("%Y-%m-%dT%H:%M") if scheduled else ""


@dataclass(frozen=True)
class FreeSlot:
    """A posting schedule slot no scheduled post to its account takes."""

    account: SocialAccount
    at: dt.datetime
    free = True


@dataclass
class Day:
    date: dt.date
    today: bool
    outside: bool  # in the month view, a day of the month before or after
    entries: list[Entry] = field(default_factory=list)
    free_slots: list[FreeSlot] = field(default_factory=list)
    more: int = 0  # the day's posts beyond the ones shown
    more_counted: bool = True  # False: at least `more` (counted no further)
    more_url: str = ""  # the day's own page, listing them all

    @property
    def iso(self) -> str:
        return self.date.isoformat()

    @property
    def label(self) -> tuple[str, int, str]:
        """Its weekday, day of the month and month, as the cell's heading shows them."""
        return self.date.strftime("%a"), self.date.day, self.date.strftime("%b")

    def timeline(self) -> list[Entry | FreeSlot]:
        """The posts and free slots of the day in time order (a post before a slot at its time)."""
        return sorted([*self.entries, *self.free_slots], key=lambda item: (item.at, item.free))


def _entry(publish: Publish, links: Links) -> Entry:
    platforms = sorted({Platform(target.platform).label for target in publish.targets.all()})
    at = timezone.localtime(publish.calendar_at)  # type: ignore[attr-defined]
    return Entry(
        publish=publish, at=at, platforms=", ".join(platforms), movable=outbox.is_waiting(publish), links=links
    )


def _days(
    span: Span,
    publishes: Iterable[Publish],
    free_slots: Iterable[FreeSlot],
    counts: Mapping[dt.date, int],
    *,
    team: Team,
    counted_up_to: int | None = None,
) -> list[Day]:
    """The span's days with their entries and free slots; a day with more posts than it shows
    says how many more (`counts`: the posts of each day, a count of `counted_up_to` meaning at
    least that many)."""
    today = _today()
    days = {
        date: Day(date=date, today=date == today, outside=span.view == "month" and date.month != span.anchor.month)
        for date in span.dates()
    }
    links = Links.of_page(team)
    for publish in publishes:
        entry = _entry(publish, links)
        days[entry.at.date()].entries.append(entry)
    for slot in free_slots:
        days[slot.at.date()].free_slots.append(slot)
    for day in days.values():
        counted = counts.get(day.date, 0)
        day.more, day.more_counted = counted - len(day.entries), counted != counted_up_to
    return list(days.values())


def _free_slots(team: Team, start: dt.datetime, end: dt.datetime) -> list[FreeSlot]:
    """The free slots of the team's accounts in [start, end) that are still ahead, in the team's zone."""
    start = max(start, timezone.now())
    schedules = posting_schedules_for_team(team=team)
    if not schedules or end <= start:
        return []
    taken = scheduled_instants_by_account(accounts=[schedule.account for schedule in schedules], start=start)
    return [
        FreeSlot(account=schedule.account, at=timezone.localtime(at))
        for schedule in schedules
        for at in free_slots_between(schedule, start, end, taken.get(schedule.account_id, set()))
    ]


def _calendar_url(team: Team, span: Span, date: dt.date | None = None) -> str:
    query = {"team": str(team.pk), "view": span.view, "date": (date or span.anchor).isoformat()}
    return f"{reverse('calendar')}?{urlencode(query)}"


@login_required
def calendar(request: HttpRequest) -> HttpResponse:
    """A week or a month, each day showing its first DAY_ENTRIES posts and how many more; or one
    day (`view=day`), all of its posts a page of DAY_PAGE at a time (counted as the lists count)."""
    membership = requested_membership(request)
    team, span = membership.team, requested_span(request.GET)
    start, end = _midnight(span.first), _midnight(span.end)
    page, counted_up_to = None, None
    if span.view == "day":
        page = Paginator(publishes_between(team=team, start=start, end=end), DAY_PAGE).get_page(request.GET.get("page"))
        shown, counts = list(page.object_list), {span.first: page.paginator.count}
    else:
        per_day = DAY_ENTRIES[span.view]
        counted_up_to = per_day + MORE_COUNTED
        midnights = [_midnight(date) for date in span.dates()] + [end]
        shown, each = publishes_by_day(team=team, midnights=midnights, per_day=per_day, count_up_to=counted_up_to)
        counts = dict(zip(span.dates(), each, strict=True))
    days = _days(span, shown, _free_slots(team, start, end), counts, team=team, counted_up_to=counted_up_to)
    for day in days:  # a day's own page has its pager instead
        day.more_url = _calendar_url(team, _day(day.date)) if day.more > 0 and span.view != "day" else ""
    context = page_context(
        request,
        membership,
        span=span,
        anchor_iso=span.anchor.isoformat(),
        days=days,
        page=page,
        pager_query=urlencode({"team": str(team.pk), "view": "day", "date": span.anchor.isoformat()}),
        empty=not any(day.entries for day in days),
        links={
            "previous": _calendar_url(team, span, span.previous),
            "today": _calendar_url(team, span, _today()),
            "following": _calendar_url(team, span, span.following),
            "week": _calendar_url(team, _week(span.anchor)),
            "month": _calendar_url(team, _month(span.anchor)),
            "day": _calendar_url(team, _day(span.anchor)),
        },
    )
    return render(request, TEMPLATE, context)


def _when(moment: dt.datetime) -> str:
    return local_text(moment, f"%a {timezone.localtime(moment).day} %b %Y, %H:%M")


def _utc(value: str) -> dt.datetime | None:
    """A datetime-local value, read in the team's zone; None when empty (the lifecycle then answers that a
    time is required)."""
    if not value.strip():
        return None
    try:
        return utc_moment(value, malformed=MALFORMED)
    except ValidationError as exc:
        raise InvalidRequest(exc.messages[0], code="SCHEDULED_AT_INVALID", details={"field": "scheduled_at"}) from None


def _move(
    request: HttpRequest, publish_id: uuid.UUID, act: Callable[[Team, inputs.Caller], str], refused: str
) -> HttpResponse:
    """Run one transition on a publish of the posted team, then go back to the calendar page it
    was asked from with the outcome as a message naming the publish."""
    membership = requested_membership(request)
    team = membership.team
    try:
        messages.success(request, act(team, dashboard_caller(request, membership)))
    except NotFound as exc:
        raise Http404(exc.message) from exc
    except ApplicationError as exc:
        named = capfirst(excerpt(publish_by_id(team=team, publish_id=str(publish_id))))
        said = in_words(str((exc.details or {}).get("field", "")), exc.message)
        messages.error(request, f"{named} {refused}: {said}")
    return redirect(_calendar_url(team, requested_span(request.POST)))


@login_required
@require_POST
def reschedule(request: HttpRequest, publish_id: uuid.UUID) -> HttpResponse:
    def act(team: Team, caller: inputs.Caller) -> str:
        when = _utc(request.POST.get("scheduled_at", ""))
        publish = lifecycle.publish_reschedule(team=team, publish_id=publish_id, scheduled_at=when, caller=caller)
        assert publish.scheduled_at is not None  # noqa: S101 - a rescheduled publish has its time
        return f"Moved {excerpt(publish)} to {_when(publish.scheduled_at)}."

    return _move(request, publish_id, act, "was not moved")


@login_required
@require_POST
def unschedule(request: HttpRequest, publish_id: uuid.UUID) -> HttpResponse:
    def act(team: Team, caller: inputs.Caller) -> str:
        publish = lifecycle.publish_unschedule(team=team, publish_id=publish_id)
        return f"Unscheduled {excerpt(publish)}: it is a draft again, without a time, under Publishes."

    return _move(request, publish_id, act, "was not unscheduled")

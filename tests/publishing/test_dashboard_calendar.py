"""The calendar page of the dashboard: the team's publishes on the days they go (or went) out,
by week and by month (a dozen a day, then a day's own page), and moving a scheduled one (a new
time, or back to a draft) through the lifecycle, through Django's test client."""

from __future__ import annotations

import datetime as dt
import html
import zoneinfo

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.services import account_disconnect, posting_schedule_set
from demo.seed import sandbox_account
from publishing import inputs, lifecycle
from publishing.models import Publish, PublishMode, PublishStatus, ScheduledRelease
from publishing.views.calendar import requested_span
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

CALENDAR = "/dashboard/calendar/"


def _create(persona, account, content, *, mode=PublishMode.SCHEDULED, when=None):
    """A publish to `account` as the API creates it for `persona` (owners and admins approve)."""
    return lifecycle.publish_create(
        team=account.team,
        caller=inputs.Caller(user=persona.user, can_approve=True),
        content=content,
        media_ids=[],
        targets=[inputs.TargetInput(account_id=str(account.pk))],
        publish_mode=mode,
        scheduled_at=when,
    )


def _at(day: dt.date, hour: int = 12, minute: int = 0) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(hour, minute), tzinfo=dt.UTC)


def _today() -> dt.date:
    return timezone.now().date()


@pytest.fixture
def monday():
    """A Monday three to four weeks ahead: every day around it is in the future."""
    day = _today() + dt.timedelta(days=21)
    return day - dt.timedelta(days=day.weekday())


def _as(client, persona):
    client.force_login(persona.user)
    return client


def _page(response) -> str:
    assert response.status_code == 200
    return response.content.decode()


def _cell(page: str, day: dt.date) -> str:
    """The HTML of one day's cell (up to the next day's)."""
    start = page.index(f'data-day="{day.isoformat()}"')
    end = page.find('data-day="', start + 1)
    return page[start : end if end != -1 else len(page)]


def _post(client, persona, publish, verb, **data):
    fields = {"team": str(persona.team.pk), "view": "week", "date": _today().isoformat(), **data}
    return _as(client, persona).post(f"{CALENDAR}{publish.pk}/{verb}/", fields)


# --- what the page shows -----------------------------------------------------------------------


def test_the_week_view_puts_each_post_on_its_day(client, owner, accounts, monday):
    sunday = monday + dt.timedelta(days=6)
    first = _create(owner, accounts.x, "Monday morning", when=_at(monday, 9, 5))
    last = _create(owner, accounts.bluesky, "Sunday night", when=_at(sunday, 23, 30))
    before = _create(owner, accounts.x, "The Sunday before", when=_at(monday - dt.timedelta(days=1), 23, 59))
    after = _create(owner, accounts.x, "The next Monday", when=_at(monday + dt.timedelta(days=7), 0, 0))

    page = _page(
        _as(client, owner).get(CALENDAR, {"view": "week", "date": (monday + dt.timedelta(days=2)).isoformat()})
    )

    assert page.count('data-day="') == 7
    assert f'id="publish-{first.pk}"' in _cell(page, monday)
    assert "09:05 UTC" in _cell(page, monday)
    assert "Monday morning" in _cell(page, monday)
    assert f'id="publish-{last.pk}"' in _cell(page, sunday)
    assert "23:30 UTC" in _cell(page, sunday)
    assert "Bluesky" in _cell(page, sunday)
    assert '<span class="status scheduled">scheduled</span>' in _cell(page, sunday)
    assert f"/dashboard/publishes/{first.pk}/?team={owner.team.pk}" in page
    assert str(before.pk) not in page
    assert str(after.pk) not in page


def test_the_month_view_shows_the_months_whole_weeks(client, owner, accounts):
    month = (_today().replace(day=1) + dt.timedelta(days=70)).replace(day=1)
    following = (month + dt.timedelta(days=32)).replace(day=1)
    grid_start = month - dt.timedelta(days=month.weekday())
    grid_end = following + dt.timedelta(days=(7 - following.weekday()) % 7)
    first = _create(owner, accounts.x, "First of the month", when=_at(month, 8))
    last = _create(owner, accounts.x, "Last of the month", when=_at(following - dt.timedelta(days=1), 18))
    leading = _create(owner, accounts.x, "Start of the grid", when=_at(grid_start, 0, 0))
    beyond = _create(owner, accounts.x, "After the grid", when=_at(grid_end, 0, 0))

    page = _page(_as(client, owner).get(CALENDAR, {"view": "month", "date": month.isoformat()}))

    assert page.count('data-day="') == (grid_end - grid_start).days
    assert (grid_end - grid_start).days % 7 == 0
    assert f'id="publish-{first.pk}"' in _cell(page, month)
    assert f'id="publish-{last.pk}"' in _cell(page, following - dt.timedelta(days=1))
    assert f'id="publish-{leading.pk}"' in _cell(page, grid_start)
    assert str(beyond.pk) not in page
    assert month.strftime("%B %Y") in page


def test_a_published_post_is_shown_when_it_was_published(client, owner, accounts, sandbox):
    publish = _create(owner, accounts.x, "Out already", mode=PublishMode.IMMEDIATE)
    target = Publish.objects.get(pk=publish.pk).targets.get()
    assert target.published_at is not None

    page = _page(_as(client, owner).get(CALENDAR))  # the week of today

    cell = _cell(page, target.published_at.date())
    assert f'id="publish-{publish.pk}"' in cell
    assert f"{target.published_at:%H:%M} UTC" in cell
    assert '<span class="status published">published</span>' in cell
    assert "Move or unschedule" not in cell


def test_a_draft_with_a_time_is_shown_as_a_draft_and_one_without_is_not(client, owner, accounts, monday):
    planned = _create(owner, accounts.x, "Planned draft", mode=PublishMode.DRAFT, when=_at(monday, 10))
    loose = _create(owner, accounts.x, "Loose draft", mode=PublishMode.DRAFT)

    page = _page(_as(client, owner).get(CALENDAR, {"date": monday.isoformat()}))

    assert f'id="publish-{planned.pk}"' in _cell(page, monday)
    assert '<span class="status draft">draft</span>' in _cell(page, monday)
    assert "Move or unschedule" not in _cell(page, monday)  # confirm or edit it on its page
    assert str(loose.pk) not in page


def test_another_teams_posts_are_not_shown(client, owner, outsider, monday):
    theirs = _create(outsider, sandbox_account(outsider.team, "x"), "Their secret plans", when=_at(monday, 9))

    page = _page(_as(client, owner).get(CALENDAR, {"date": monday.isoformat()}))

    assert "Their secret plans" not in page
    assert _as(client, owner).get(CALENDAR, {"team": str(theirs.team_id)}).status_code == 404


def test_previous_today_and_next_links_move_by_the_view(client, owner, monday):
    page = _page(_as(client, owner).get(CALENDAR, {"view": "week", "date": monday.isoformat()}))
    team = owner.team.pk

    assert f"?team={team}&amp;view=week&amp;date={monday - dt.timedelta(days=7)}" in page
    assert f"?team={team}&amp;view=week&amp;date={monday + dt.timedelta(days=7)}" in page
    assert f"?team={team}&amp;view=week&amp;date={_today()}" in page
    assert f"?team={team}&amp;view=month&amp;date={monday}" in page


def test_the_span_defaults_to_this_week_and_months_cover_whole_weeks():
    today = timezone.now().date()
    assert requested_span({}).first == today - dt.timedelta(days=today.weekday())
    assert requested_span({"date": "not a date", "view": "year"}).view == "week"
    assert requested_span({"date": "0001-01-03"}).anchor == today  # no month before it

    month = requested_span({"view": "month", "date": "2026-03-18"})
    assert (month.first, month.end) == (dt.date(2026, 2, 23), dt.date(2026, 4, 6))
    assert (month.previous, month.following) == (dt.date(2026, 2, 1), dt.date(2026, 4, 1))
    february = requested_span({"view": "month", "date": "2027-02-10"})  # starts on a Monday, 4 weeks
    assert (february.first, february.end) == (dt.date(2027, 2, 1), dt.date(2027, 3, 1))


def test_each_movable_post_has_a_labelled_form_with_a_csrf_token(client, owner, accounts, monday):
    publish = _create(owner, accounts.x, "Move me", when=_at(monday, 9, 30))

    page = _page(_as(client, owner).get(CALENDAR, {"date": monday.isoformat()}))

    assert f'<label for="when-{publish.pk}">New time (UTC)</label>' in page
    assert f'id="when-{publish.pk}" name="scheduled_at" value="{monday}T09:30"' in page
    assert f'action="/dashboard/calendar/{publish.pk}/reschedule/"' in page
    assert f'action="/dashboard/calendar/{publish.pk}/unschedule/"' in page
    assert page.count('name="csrfmiddlewaretoken"') >= 2
    assert f'draggable="true" data-publish="{publish.pk}"' in page
    assert "dashboard/calendar.js" in page


# --- reschedule and unschedule -----------------------------------------------------------------


def test_reschedule_moves_the_time_and_the_release(client, owner, accounts, monday):
    publish = _create(owner, accounts.x, "Launch day", when=_at(monday, 9))
    wednesday = monday + dt.timedelta(days=2)

    response = _post(
        client, owner, publish, "reschedule", scheduled_at=f"{wednesday}T14:45", view="month", date=str(monday)
    )

    assert response.status_code == 302
    assert response["Location"] == f"{CALENDAR}?team={owner.team.pk}&view=month&date={monday}"
    publish.refresh_from_db()
    assert publish.scheduled_at == _at(wednesday, 14, 45)
    assert ScheduledRelease.objects.get(publish=publish).due_at == _at(wednesday, 14, 45)
    page = _page(client.get(response["Location"]))
    assert html.escape(f"Moved “Launch day” to {wednesday:%a} {wednesday.day} {wednesday:%b %Y}, 14:45 UTC.") in page
    assert f'id="publish-{publish.pk}"' in _cell(page, wednesday)
    assert f'id="publish-{publish.pk}"' not in _cell(page, monday)


def test_a_member_may_reschedule_as_the_api_allows(client, owner, member, accounts, monday):
    publish = _create(owner, accounts.x, "Team post", when=_at(monday, 9))

    _post(client, member, publish, "reschedule", scheduled_at=f"{monday}T11:00")

    publish.refresh_from_db()
    assert publish.scheduled_at == _at(monday, 11)


def test_a_past_time_is_refused_with_a_message_naming_the_post(client, owner, accounts, monday):
    publish = _create(owner, accounts.x, "Launch day", when=_at(monday, 9))
    yesterday = _today() - dt.timedelta(days=1)

    response = _post(client, owner, publish, "reschedule", scheduled_at=f"{yesterday}T09:00")

    publish.refresh_from_db()
    assert publish.scheduled_at == _at(monday, 9)
    assert ScheduledRelease.objects.get(publish=publish).due_at == _at(monday, 9)
    page = _page(client.get(response["Location"]))
    assert html.escape("“Launch day” was not moved: That time has already passed: pick one in the future.") in page


def test_an_empty_time_is_refused_with_a_message(client, owner, accounts, monday):
    publish = _create(owner, accounts.x, "Launch day", when=_at(monday, 9))

    response = _post(client, owner, publish, "reschedule", scheduled_at="")

    publish.refresh_from_db()
    assert publish.scheduled_at == _at(monday, 9)
    assert "was not moved: Pick the date and time to schedule the post for." in _page(client.get(response["Location"]))


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("9999-12-31T23:00-05:00", "Pick a date before the year 9999."),
        ("9999-06-01T12:00", "Pick a date before the year 9999."),
        ("0001-01-01T00:00+05:00", "That date is out of range."),
        ("next tuesday", "Enter the date and time as YYYY-MM-DD HH:MM."),
    ],
)
def test_a_time_out_of_range_is_refused_with_a_message(client, owner, accounts, monday, value, problem):
    publish = _create(owner, accounts.x, "Launch day", when=_at(monday, 9))

    response = _post(client, owner, publish, "reschedule", scheduled_at=value)

    assert response.status_code == 302
    publish.refresh_from_db()
    assert publish.scheduled_at == _at(monday, 9)
    assert ScheduledRelease.objects.get(publish=publish).due_at == _at(monday, 9)
    assert html.escape(f"“Launch day” was not moved: {problem}") in _page(client.get(response["Location"]))


def test_a_post_already_sent_cannot_be_moved(client, owner, accounts, sandbox, monday):
    publish = _create(owner, accounts.x, "Out already", mode=PublishMode.IMMEDIATE)

    response = _post(client, owner, publish, "reschedule", scheduled_at=f"{monday}T09:00")

    publish.refresh_from_db()
    assert (publish.status, publish.scheduled_at) == (PublishStatus.PUBLISHED, None)
    page = _page(client.get(response["Location"]))
    assert "was not moved: This publish is no longer waiting in the schedule queue." in page


def test_unschedule_makes_a_draft_that_leaves_the_calendar(client, member, owner, accounts, monday):
    publish = _create(owner, accounts.x, "Not yet", when=_at(monday, 9))

    response = _post(client, member, publish, "unschedule", date=str(monday))

    publish.refresh_from_db()
    assert (publish.status, publish.scheduled_at, publish.confirmed) == (PublishStatus.DRAFT, None, False)
    assert not ScheduledRelease.objects.filter(publish=publish).exists()
    page = _page(client.get(response["Location"]))
    assert html.escape("Unscheduled “Not yet”: it is a draft again") in page
    assert f'id="publish-{publish.pk}"' not in page


def test_unscheduling_twice_says_why(client, owner, accounts, monday):
    publish = _create(owner, accounts.x, "Not yet", when=_at(monday, 9))
    _post(client, owner, publish, "unschedule")

    response = _post(client, owner, publish, "unschedule")

    assert "was not unscheduled: This publish is no longer waiting" in _page(client.get(response["Location"]))


@pytest.mark.parametrize("verb", ["reschedule", "unschedule"])
def test_another_teams_publish_is_not_found(client, owner, outsider, verb, monday):
    theirs = _create(outsider, sandbox_account(outsider.team, "x"), "Their plans", when=_at(monday, 9))

    in_own_team = _post(client, owner, theirs, verb, scheduled_at=f"{monday}T10:00")
    naming_their_team = _post(client, owner, theirs, verb, scheduled_at=f"{monday}T10:00", team=str(theirs.team_id))

    assert (in_own_team.status_code, naming_their_team.status_code) == (404, 404)
    theirs.refresh_from_db()
    assert (theirs.status, theirs.scheduled_at) == (PublishStatus.SCHEDULED, _at(monday, 9))


@pytest.mark.parametrize("verb", ["reschedule", "unschedule"])
def test_moving_needs_a_post(client, owner, accounts, verb, monday):
    publish = _create(owner, accounts.x, "Launch day", when=_at(monday, 9))

    assert _as(client, owner).get(f"{CALENDAR}{publish.pk}/{verb}/").status_code == 405


def test_the_page_needs_a_login_and_a_team(client, db):
    response = client.get(CALENDAR)
    assert (response.status_code, response["Location"].startswith("/login/")) == (302, True)

    client.force_login(UserFactory(username="loner"))
    response = client.get(CALENDAR)
    assert response.status_code == 403
    assert "You belong to no team yet." in response.content.decode()


# --- queries -----------------------------------------------------------------------------------


def test_the_query_count_does_not_grow_with_the_posts_shown(client, owner, accounts, monday):
    owner.team.plan.posts_per_month = None
    owner.team.plan.save()
    _create(owner, accounts.x, "Post 0", when=_at(monday, 0))
    _as(client, owner)
    week = {"view": "week", "date": monday.isoformat()}

    def count() -> tuple[int, str]:
        with CaptureQueriesContext(connection) as queries:
            page = _page(client.get(CALENDAR, week))
        return len(queries), page

    one, _ = count()
    for n in range(1, 84):  # 12 a day, as many as a day shows
        account = accounts.bluesky if n % 2 else accounts.x
        _create(owner, account, f"Post {n}", when=_at(monday + dt.timedelta(days=n % 7), n % 24, n % 60))
    many, page = count()

    assert page.count('class="entry ') == 84
    assert page.count("<summary>Move or unschedule</summary>") == 84
    assert many == one


def _busy_day(owner, accounts, day, posts):
    owner.team.plan.posts_per_month = None
    owner.team.plan.save()
    for n in range(posts):
        _create(owner, accounts.x if n % 2 else accounts.bluesky, f"Busy {n:02}", when=_at(day, 8, n))


@pytest.mark.parametrize(("view", "shown"), [("week", 12), ("month", 4)])
def test_a_busy_day_shows_its_first_posts_then_how_many_more(client, owner, accounts, monday, view, shown):
    _busy_day(owner, accounts, monday, 14)
    _create(owner, accounts.x, "The next day", when=_at(monday + dt.timedelta(days=1)))

    page = _page(
        _as(client, owner).get(CALENDAR, {"team": str(owner.team.pk), "view": view, "date": monday.isoformat()})
    )

    busy, calm = _cell(page, monday), _cell(page, monday + dt.timedelta(days=1))
    # the first ones, in time order: a dozen a day of a week, four of a month's smaller days
    assert [f"Busy {n:02}" in busy for n in range(14)] == [True] * shown + [False] * (14 - shown)
    day_page = f"{CALENDAR}?team={owner.team.pk}&amp;view=day&amp;date={monday.isoformat()}"
    assert f'<a class="more" href="{day_page}">+{14 - shown} more</a>' in busy
    assert "The next day" in calm
    assert 'class="more"' not in calm


def test_a_day_busier_than_it_counts_says_at_least_how_many_more(client, owner, accounts, monday, monkeypatch):
    monkeypatch.setattr("publishing.views.calendar.MORE_COUNTED", 5)
    _busy_day(owner, accounts, monday, 10)

    page = _page(
        _as(client, owner).get(CALENDAR, {"team": str(owner.team.pk), "view": "month", "date": monday.isoformat()})
    )

    assert ">+5+ more</a>" in _cell(page, monday)  # four shown, five more counted, and the count stopped


def test_a_days_own_page_lists_all_its_posts_a_page_at_a_time(client, owner, accounts, monday, monkeypatch):
    monkeypatch.setattr("publishing.views.calendar.DAY_PAGE", 5)
    _busy_day(owner, accounts, monday, 7)
    day = {"team": str(owner.team.pk), "view": "day", "date": monday.isoformat()}

    first = _page(_as(client, owner).get(CALENDAR, day))
    second = _page(client.get(CALENDAR, {**day, "page": "2"}))

    assert html.unescape(first).count("Busy 0") == 5
    assert "Page 1 of 2" in first
    assert f"view=day&amp;date={monday.isoformat()}&amp;page=2" in first
    assert [f"Busy {n:02}" in second for n in range(7)] == [False] * 5 + [True] * 2
    assert 'class="more"' not in first + second


# --- free slots of posting schedules -----------------------------------------------------------


def _name(account) -> str:
    return account.display_name or account.handle


def test_a_free_slot_shows_and_a_taken_one_does_not(client, owner, accounts, monday):
    wednesday = monday + dt.timedelta(days=2)
    posting_schedule_set(
        account=accounts.x, time_zone="UTC", slots=[{"day": "mon", "time": "09:00"}, {"day": "wed", "time": "14:00"}]
    )
    taken = _create(owner, accounts.x, "In the Monday slot", when=_at(monday, 9))

    page = _page(_as(client, owner).get(CALENDAR, {"view": "week", "date": monday.isoformat()}))

    assert f'id="publish-{taken.pk}"' in _cell(page, monday)
    assert "Free slot" not in _cell(page, monday)
    free = _cell(page, wednesday)
    assert f"Free slot · {_name(accounts.x)}</a>" in free
    assert f'<time datetime="{_at(wednesday, 14).isoformat()}">14:00 UTC</time>' in free
    assert f"/dashboard/accounts/{accounts.x.pk}/schedule/?team={owner.team.pk}" in free
    assert page.count('<li class="slot">') == 1
    assert 'class="entry ' not in free  # a slot is not a post: nothing to move or open


def test_free_slots_are_in_the_schedules_zone_on_the_teams_days(client, owner, accounts, monday):
    _in_zone(owner.team, "Europe/London")  # UTC in winter, UTC+1 in summer
    # Tuesday 08:00 in Tokyo is Monday 23:00 UTC: on Monday in London in winter, Tuesday in summer.
    posting_schedule_set(account=accounts.bluesky, time_zone="Asia/Tokyo", slots=[{"day": "tue", "time": "08:00"}])
    at = dt.datetime.combine(monday + dt.timedelta(days=1), dt.time(8), tzinfo=zoneinfo.ZoneInfo("Asia/Tokyo"))
    local = at.astimezone(zoneinfo.ZoneInfo("Europe/London"))

    page = _page(_as(client, owner).get(CALENDAR, {"view": "week", "date": monday.isoformat()}))

    assert f"{local:%H:%M} Europe/London</time>" in _cell(page, local.date())
    assert f"Free slot · {_name(accounts.bluesky)}" in _cell(page, local.date())


def test_past_slots_and_a_disconnected_accounts_slots_are_not_shown(client, owner, accounts, monday):
    every_day = [{"day": day, "time": "12:00"} for day in ("mon", "tue", "wed", "thu", "fri", "sat", "sun")]
    posting_schedule_set(account=accounts.x, time_zone="UTC", slots=every_day)
    posting_schedule_set(account=accounts.bluesky, time_zone="UTC", slots=every_day)
    account_disconnect(account=accounts.bluesky)
    last_week = _today() - dt.timedelta(days=7)

    past = _page(_as(client, owner).get(CALENDAR, {"view": "week", "date": last_week.isoformat()}))
    ahead = _page(client.get(CALENDAR, {"view": "week", "date": monday.isoformat()}))

    assert "Free slot" not in past
    assert ahead.count('<li class="slot">') == 7
    assert _name(accounts.bluesky) not in ahead


def test_another_teams_free_slots_are_not_shown(client, owner, outsider, monday):
    theirs = sandbox_account(outsider.team, "x")
    posting_schedule_set(account=theirs, time_zone="UTC", slots=[{"day": "wed", "time": "10:00"}])

    page = _page(_as(client, owner).get(CALENDAR, {"view": "week", "date": monday.isoformat()}))

    assert "Free slot" not in page


def test_the_query_count_does_not_grow_with_the_schedules_shown(client, owner, accounts, monday):
    month = {"view": "month", "date": monday.isoformat()}
    slots = [{"day": "mon", "time": "09:00"}, {"day": "thu", "time": "18:00"}]
    posting_schedule_set(account=accounts.x, time_zone="UTC", slots=slots)
    _create(owner, accounts.x, "On x", when=_at(monday, 13))
    _as(client, owner)

    def count() -> tuple[int, str]:
        with CaptureQueriesContext(connection) as queries:
            page = _page(client.get(CALENDAR, month))
        return len(queries), page

    one, _ = count()
    for days, platform in enumerate(("bluesky", "linkedin", "threads"), start=1):
        posting_schedule_set(account=getattr(accounts, platform), time_zone="America/New_York", slots=slots)
        _create(owner, getattr(accounts, platform), f"On {platform}", when=_at(monday + dt.timedelta(days=days), 13))
    four, page = count()

    assert page.count('<li class="slot">') > 20
    assert four == one


# --- the team's time zone ------------------------------------------------------------------------


def _in_zone(team, name):
    team.time_zone = name
    team.save()
    return zoneinfo.ZoneInfo(name)


def test_days_are_the_teams_local_days(client, owner, accounts, monday):
    _in_zone(owner.team, "Asia/Tokyo")
    late = _create(owner, accounts.x, "Late in London", when=_at(monday, 23, 30))  # 08:30 next day in Tokyo

    page = _page(_as(client, owner).get(CALENDAR, {"date": monday.isoformat()}))

    tuesday = monday + dt.timedelta(days=1)
    assert f'id="publish-{late.pk}"' in _cell(page, tuesday)
    assert f'id="publish-{late.pk}"' not in _cell(page, monday)
    assert "08:30 Asia/Tokyo" in _cell(page, tuesday)
    assert "Times are in Asia/Tokyo" in page
    assert f'<label for="when-{late.pk}">New time (Asia/Tokyo)</label>' in page
    assert f'name="scheduled_at" value="{tuesday}T08:30"' in page


# At any moment one of these two zones is on another date than UTC: together they would catch a
# "today" taken in UTC.
@pytest.mark.parametrize("name", ["Pacific/Kiritimati", "Pacific/Pago_Pago"])
def test_today_is_the_teams_today(client, owner, name):
    zone = _in_zone(owner.team, name)

    page = _page(_as(client, owner).get(CALENDAR))

    today = timezone.now().astimezone(zone).date()
    assert f'data-day="{today}" aria-current="date"' in page
    assert page.count('aria-current="date"') == 1


def test_a_new_time_is_read_in_the_teams_zone(client, owner, accounts, monday):
    zone = _in_zone(owner.team, "America/New_York")
    publish = _create(owner, accounts.x, "Launch day", when=_at(monday, 15))
    wednesday = monday + dt.timedelta(days=2)

    response = _post(client, owner, publish, "reschedule", scheduled_at=f"{wednesday}T09:00")

    publish.refresh_from_db()
    assert publish.scheduled_at == dt.datetime.combine(wednesday, dt.time(9), tzinfo=zone)
    page = _page(client.get(response["Location"]))
    expected = f"Moved “Launch day” to {wednesday:%a} {wednesday.day} {wednesday:%b %Y}, 09:00 America/New_York."
    assert html.escape(expected) in page


def _clock_change(zone, *, forward):
    """The next day whose 02:30 `zone` skips (forward) or shows twice (back), as that wall time."""
    day = _today() + dt.timedelta(days=1)
    while True:
        wall = dt.datetime.combine(day, dt.time(2 if forward else 1, 30))
        offsets = {wall.replace(tzinfo=zone, fold=fold).utcoffset() for fold in (0, 1)}
        skipped = wall.replace(tzinfo=zone).astimezone(dt.UTC).astimezone(zone).replace(tzinfo=None) != wall
        if len(offsets) == 2 and skipped == forward:
            return wall
        day += dt.timedelta(days=1)


def test_a_time_the_clocks_skip_is_refused_with_a_sentence(client, owner, accounts, monday):
    zone = _in_zone(owner.team, "America/New_York")
    publish = _create(owner, accounts.x, "Launch day", when=_at(monday, 9))
    skipped = _clock_change(zone, forward=True)

    response = _post(client, owner, publish, "reschedule", scheduled_at=skipped.strftime("%Y-%m-%dT%H:%M"))

    publish.refresh_from_db()
    assert publish.scheduled_at == _at(monday, 9)
    page = _page(client.get(response["Location"]))
    assert html.escape(f"{skipped:%Y-%m-%d %H:%M} does not exist in America/New_York: the clocks go forward") in page


def test_a_time_the_clocks_show_twice_is_the_first_of_the_two(client, owner, accounts, monday):
    zone = _in_zone(owner.team, "America/New_York")
    publish = _create(owner, accounts.x, "Launch day", when=_at(monday, 9))
    twice = _clock_change(zone, forward=False)

    _post(client, owner, publish, "reschedule", scheduled_at=twice.strftime("%Y-%m-%dT%H:%M"))

    publish.refresh_from_db()
    assert publish.scheduled_at == twice.replace(tzinfo=zone, fold=0).astimezone(dt.UTC)
    assert publish.scheduled_at.astimezone(dt.UTC).hour == 5  # 01:30 EDT, before the clocks go back to EST

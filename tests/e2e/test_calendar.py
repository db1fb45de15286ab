"""The calendar in a real browser (Playwright driving Debian's Chromium): schedule a post, see
it on its day, move it with the form and by dragging it onto another day, then unschedule it."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from demo.seed import sandbox_account
from publishing import inputs, lifecycle
from publishing.models import Publish, PublishMode, PublishStatus, ScheduledRelease
from tests.e2e.conftest import open_page

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]


@pytest.fixture(autouse=True)
def _eager(eager_tasks: None) -> None:
    """Delivery runs inside the request, so the post published for the picture is out at once."""


def _create(owner, platform: str, content: str, *, mode=PublishMode.SCHEDULED, when=None) -> Publish:
    return lifecycle.publish_create(
        team=owner.team,
        caller=inputs.Caller(user=owner.user, can_approve=True),
        content=content,
        media_ids=[],
        targets=[inputs.TargetInput(account_id=str(sandbox_account(owner.team, platform).pk))],
        publish_mode=mode,
        scheduled_at=when,
    )


def _in_two_days() -> dt.date:
    return timezone.now().date() + dt.timedelta(days=2)


@pytest.fixture
def neighbours(owner, sandbox) -> None:
    """A published post and a draft with a planned time, beside the scheduled one."""
    _create(owner, "bluesky", "Out on Bluesky this morning", mode=PublishMode.IMMEDIATE)  # sent at once (eager)
    _create(owner, "x", "A draft with a planned time", mode=PublishMode.DRAFT, when=_at(_in_two_days(), 16, 0))


@pytest.fixture
def scheduled(owner, neighbours) -> Publish:
    """A post scheduled two days ahead at 09:30 UTC."""
    return _create(owner, "x", "Launch day: the calendar is live", when=_at(_in_two_days(), 9, 30))


def _at(day: dt.date, hour: int, minute: int) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(hour, minute), tzinfo=dt.UTC)


def _moved_to(publish: Publish) -> dt.datetime | None:
    publish.refresh_from_db()
    return publish.scheduled_at


def test_schedule_one_and_move_it_in_the_calendar(signed_in, owner, neighbours, screenshot):
    page = signed_in
    day = _in_two_days()
    # Scheduled in the compose page, two days ahead at 09:30 UTC.
    open_page(page, "Compose")
    page.fill("#content", "Launch day: the calendar is live")
    page.check(f'input.pick[value="{sandbox_account(owner.team, "x").pk}"]')
    page.fill("#scheduled_at", f"{day}T09:30")
    page.click("button:has-text('Schedule')")
    page.wait_for_selector(".messages >> text=is scheduled for")
    scheduled = Publish.objects.get(content="Launch day: the calendar is live")
    assert (scheduled.status, scheduled.scheduled_at) == (PublishStatus.SCHEDULED, _at(day, 9, 30))
    entry = f"#publish-{scheduled.pk}"
    # Another day of the same week, in the future.
    other = day + dt.timedelta(days=1) if day.weekday() < 6 else day - dt.timedelta(days=1)

    open_page(page, "Calendar")
    page.wait_for_selector(".days.week")
    today = timezone.now().date()
    if day - dt.timedelta(days=day.weekday()) != today - dt.timedelta(days=today.weekday()):
        page.click("text=Next week →")
    page.wait_for_selector(f'[data-day="{day}"] {entry}')
    assert "09:30 UTC" in page.inner_text(entry)
    assert "scheduled" in page.inner_text(entry)
    screenshot(page, "calendar-week")

    # With the form: a new day and time of day.
    page.click(f"{entry} summary")
    page.fill(f"#when-{scheduled.pk}", f"{other}T15:10")
    page.click(f"{entry} button:has-text('Move')")
    page.wait_for_selector(f'[data-day="{other}"] {entry}')
    assert "Moved “Launch day: the calendar is live”" in page.inner_text(".messages")
    assert "15:10 UTC" in page.inner_text(entry)
    assert _moved_to(scheduled) == _at(other, 15, 10)

    # By drag and drop back onto its first day: the time of day stays 15:10.
    page.locator(f"{entry} .grip").drag_to(page.locator(f'[data-day="{day}"]'))
    page.wait_for_selector(f'[data-day="{day}"] {entry}')
    assert "15:10 UTC" in page.inner_text(entry)
    assert _moved_to(scheduled) == _at(day, 15, 10)
    assert ScheduledRelease.objects.get(publish=scheduled).due_at == _at(day, 15, 10)

    page.click(".subnav >> text=Month")
    page.wait_for_selector(f'.days.month [data-day="{day}"] {entry}')
    screenshot(page, "calendar-month")
    page.set_viewport_size({"width": 390, "height": 844})  # a phone: a list of days, no sideways scroll
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    assert page.locator(".days.month .day.empty").first.is_hidden()
    page.set_viewport_size({"width": 1280, "height": 800})

    page.click(f"{entry} summary")
    page.click(f"{entry} button:has-text('Unschedule')")
    page.wait_for_selector(".messages >> text=Unscheduled")
    assert page.locator(entry).count() == 0  # a draft without a time is not on the calendar
    scheduled.refresh_from_db()
    assert (scheduled.status, scheduled.scheduled_at) == (PublishStatus.DRAFT, None)


def test_a_day_in_the_past_is_refused_with_a_message(signed_in, scheduled, live_server):
    page = signed_in
    entry = f"#publish-{scheduled.pk}"
    planned = scheduled.scheduled_at
    assert planned is not None
    yesterday = timezone.now().date() - dt.timedelta(days=1)

    page.goto(f"{live_server.url}/dashboard/calendar/?view=month&date={planned.date()}")
    page.click(f"{entry} summary")
    page.fill(f"#when-{scheduled.pk}", f"{yesterday}T09:30")
    page.click(f"{entry} button:has-text('Move')")
    page.wait_for_selector(".messages li.error")

    assert "was not moved: That time has already passed: pick one in the future." in page.inner_text(".messages")
    assert _moved_to(scheduled) == planned

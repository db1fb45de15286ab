"""An account's posting schedule page in the dashboard, through Django's test client: what each
role sees and may change, the next free slots in the schedule's zone, and refusals beside the
field they concern."""

from __future__ import annotations

import datetime as dt
import html
import re
import zoneinfo

import pytest
from django.utils import timezone

from accounts.models import PostingSchedule
from accounts.schedules import DAYS
from accounts.selectors import posting_schedule_of
from accounts.services import posting_schedule_set
from publishing import inputs, lifecycle
from publishing.models import PublishMode
from tests.factories import SocialAccountFactory

pytestmark = pytest.mark.django_db

EMPTY_WEEK = {f"slots_{day}": "" for day in DAYS}


def _url(account):
    return f"/dashboard/accounts/{account.pk}/schedule/"


def _as(client, persona):
    client.force_login(persona.user)
    return client


def _get(client, persona, account):
    return _as(client, persona).get(_url(account), {"team": str(persona.team.pk)})


def _post(client, persona, account, **fields):
    form = {"team": str(persona.team.pk), "time_zone": "Europe/Paris", **EMPTY_WEEK, **fields}
    return _as(client, persona).post(_url(account), form)


def _text(response, status=200):
    assert response.status_code == status, response.content.decode()[-2000:]
    return html.unescape(response.content.decode())


def _problem(page, problem_id):
    match = re.search(rf'<p class="field-problem" id="{problem_id}"[^>]*>(.*?)</p>', page, re.S)
    assert match, f"no #{problem_id} on the page"
    return match.group(1).strip()


def _free_slots(page):
    return [dt.datetime.fromisoformat(at) for at in re.findall(r'<li><time datetime="([^"]+)">', page)]


@pytest.fixture
def account(team):
    return SocialAccountFactory(team=team, handle="acme")


def test_the_accounts_page_links_each_account_to_its_schedule(client, owner, account):
    page = _text(_as(client, owner).get("/dashboard/", {"team": str(owner.team.pk)}))

    assert f'href="{_url(account)}?team={owner.team.pk}"' in page
    assert 'aria-label="Posting schedule of X @acme"' in page


def test_an_account_without_a_schedule_starts_in_the_teams_zone(client, owner, account):
    owner.team.time_zone = "Asia/Tokyo"
    owner.team.save()

    page = _text(_get(client, owner, account))

    assert re.search(r'id="schedule-time-zone"[^>]*value="Asia/Tokyo"', page)
    assert 'id="no-free-slots"' in page


def test_saving_shows_the_slots_and_the_next_free_ones_in_the_schedules_zone(client, owner, account):
    response = _post(client, owner, account, slots_mon="9:00 18:30", slots_fri="12:00,13:00")

    assert response.status_code == 302
    page = _text(_as(client, owner).get(response["Location"]))
    assert "Saved the posting schedule of" in page
    assert re.search(r'id="slots_mon"[^>]*value="09:00 18:30"', page)
    assert re.search(r'id="slots_fri"[^>]*value="12:00 13:00"', page)
    assert re.search(r'id="slots_tue"[^>]*value=""', page)
    saved = posting_schedule_of(account=account)
    assert saved.time_zone == "Europe/Paris"
    assert saved.slots == [
        {"day": "mon", "time": "09:00"},
        {"day": "mon", "time": "18:30"},
        {"day": "fri", "time": "12:00"},
        {"day": "fri", "time": "13:00"},
    ]
    instants = _free_slots(page)
    assert len(instants) == 10
    assert instants == sorted(instants)
    assert instants[0] > timezone.now()
    paris = zoneinfo.ZoneInfo("Europe/Paris")
    first = instants[0].astimezone(paris)
    # Shown as the wall-clock time in the schedule's zone, labelled with it.
    assert f"{first:%a} {first.day} {first:%b %Y, %H:%M} Europe/Paris" in page
    assert {instant.astimezone(paris).strftime("%a %H:%M") for instant in instants} <= {
        "Mon 09:00",
        "Mon 18:30",
        "Fri 12:00",
        "Fri 13:00",
    }


def test_a_slot_a_scheduled_post_takes_is_not_free(client, owner, account):
    posting_schedule_set(account=account, time_zone="UTC", slots=[{"day": day, "time": "10:00"} for day in DAYS])
    first = _free_slots(_text(_get(client, owner, account)))[0]
    lifecycle.publish_create(
        team=owner.team,
        caller=inputs.Caller(user=owner.user, can_approve=True),
        content="In the first slot",
        media_ids=[],
        targets=[inputs.TargetInput(account_id=str(account.pk))],
        publish_mode=PublishMode.SCHEDULED,
        scheduled_at=first,
    )

    shown = _free_slots(_text(_get(client, owner, account)))

    assert first not in shown
    assert shown[0] == first + dt.timedelta(days=1)


def test_emptying_every_day_clears_the_schedule(client, admin, account):
    posting_schedule_set(account=account, time_zone="UTC", slots=[{"day": "mon", "time": "10:00"}])

    response = _post(client, admin, account, time_zone="UTC")

    assert response.status_code == 302
    assert posting_schedule_of(account=account).slots == []
    page = _text(_as(client, admin).get(response["Location"]))
    assert "Cleared the posting schedule of" in page
    assert 'id="no-free-slots"' in page


def test_a_word_that_is_not_a_time_is_refused_naming_its_day(client, owner, account):
    posting_schedule_set(account=account, time_zone="UTC", slots=[{"day": "mon", "time": "10:00"}])

    page = _text(_post(client, owner, account, slots_mon="09:00", slots_wed="09:00 9am", slots_sat="25:00"), 400)

    assert _problem(page, "slots_wed-problem") == (
        "Wednesday: “9am” is not a time. Write each time as hours and minutes on the 24-hour clock, "
        "such as 09:00 or 18:30, with a space between two times."
    )
    assert _problem(page, "slots_sat-problem").startswith("Saturday: “25:00” is not a time.")
    assert re.search(r'id="slots_wed"[^>]*value="09:00 9am"[^>]*aria-invalid="true"', page)  # kept as typed
    assert 'id="slots_mon-problem"' not in page
    assert posting_schedule_of(account=account).slots == [{"day": "mon", "time": "10:00"}]  # nothing saved


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("Mars/Olympus", "“Mars/Olympus” is not a time zone name. Pick one from the list"),
        ("", "Pick a time zone."),
        ("X" * 60, "That is not a time zone name. Pick one from the list"),
    ],
)
def test_an_unknown_time_zone_is_refused_beside_its_field(client, owner, account, typed, said):
    page = _text(_post(client, owner, account, time_zone=typed, slots_mon="09:00"), 400)

    assert _problem(page, "schedule-time-zone-problem").startswith(said)
    assert re.search(r'id="slots_mon"[^>]*value="09:00"', page)
    assert not PostingSchedule.objects.filter(account=account).exists()


def test_more_slots_than_one_an_hour_are_refused(client, owner, account):
    every_hour = " ".join(f"{hour:02d}:00" for hour in range(24))
    fields = {f"slots_{day}": every_hour for day in DAYS}
    fields["slots_mon"] += " 00:30"

    page = _text(_post(client, owner, account, **fields), 400)

    assert _problem(page, "slots-problem") == "A schedule has at most 168 slots, one an hour; this one has 169."
    assert not PostingSchedule.objects.filter(account=account).exists()


def test_a_member_sees_the_schedule_read_only_and_cannot_change_it(client, member, account):
    posting_schedule_set(account=account, time_zone="Asia/Tokyo", slots=[{"day": "tue", "time": "08:15"}])

    page = _text(_get(client, member, account))
    refused = _post(client, member, account, slots_mon="09:00")

    assert 'id="schedule-form"' not in page
    assert re.search(r"<dt>Time zone</dt><dd>Asia/Tokyo</dd>", page)
    assert re.search(r"<dt>Tuesday</dt><dd>08:15</dd>", page)
    assert len(_free_slots(page)) == 10
    assert refused.status_code == 403
    assert "Only the team's owner or an admin can change an account's posting schedule." in _text(refused, 403)
    assert posting_schedule_of(account=account).slots == [{"day": "tue", "time": "08:15"}]


def test_another_teams_account_is_not_found(client, owner, outsider):
    theirs = SocialAccountFactory(team=outsider.team)
    posting_schedule_set(account=theirs, time_zone="UTC", slots=[{"day": "mon", "time": "10:00"}])

    assert _get(client, owner, theirs).status_code == 404
    assert _post(client, owner, theirs, slots_mon="09:00").status_code == 404
    # Naming their team in the request does not help: the user is not a member of it.
    assert _as(client, owner).get(_url(theirs), {"team": str(outsider.team.pk)}).status_code == 404
    assert posting_schedule_of(account=theirs).slots == [{"day": "mon", "time": "10:00"}]

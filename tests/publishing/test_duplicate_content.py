"""Duplicate content through the API: a create or a validate whose text an account already got,
or is set to get, within the team's window answers `warnings` naming the earlier publish; a
team that blocks duplicates gets 409 DUPLICATE_CONTENT and nothing is created."""

from __future__ import annotations

import datetime as dt
import html
import zoneinfo

import pytest
from django.utils import timezone

from accounts.schedules import DAYS
from accounts.services import posting_schedule_set
from demo.seed import sandbox_account
from publishing.models import Publish, PublishStatus
from teams.caller_cache import forget_callers
from tests.media import files

pytestmark = pytest.mark.django_db

URL = "/api/v1/publishes"


def _create(api, key, body, **headers):
    return api.as_(key).post(URL, body, format="json", **headers)


def _created(api, key, body):
    response = _create(api, key, body)
    assert response.status_code == 201, response.content
    return response.json()


def _validate(api, key, body):
    response = api.as_(key).post(f"{URL}/validate", body, format="json")
    assert response.status_code == 200, response.content
    return response.json()["data"]


def _at(hours):
    return (timezone.now() + dt.timedelta(hours=hours)).isoformat()


def _body(text, *accounts, **fields):
    return {"content": text, "targets": [{"account_id": str(a.pk)} for a in accounts], **fields}


def _warning(account, publish_id):
    return {"code": "DUPLICATE_CONTENT", "account_id": str(account.pk), "publish_id": publish_id}


def _team_setting(team, **fields):
    for name, value in fields.items():
        setattr(team, name, value)
    team.save()
    forget_callers()  # an API key's caller holds the team row


def test_repeating_a_published_text_is_created_with_a_warning_whatever_the_spacing(api, owner, accounts, sandbox):
    first = _created(api, owner.key, _body("Launch day: doors open at 9", accounts.x, accounts.bluesky))
    assert first["warnings"] == []
    assert Publish.objects.get(pk=first["data"]["id"]).status == PublishStatus.PUBLISHED

    again = _body("  Launch day:\n doors   open at 9 ", accounts.x)
    checked = _validate(api, owner.key, again)
    created = _created(api, owner.key, again)

    assert checked["valid"] is True
    assert checked["warnings"] == [_warning(accounts.x, first["data"]["id"])]
    assert created["warnings"] == [_warning(accounts.x, first["data"]["id"])]
    assert Publish.objects.get(pk=created["data"]["id"]).status == PublishStatus.PUBLISHED  # not held back


def test_a_scheduled_post_near_another_scheduled_one_is_warned_of(api, owner, accounts):
    first = _created(api, owner.key, _body("Webinar tomorrow", accounts.x, scheduled_at=_at(2)))

    again = _body("Webinar tomorrow", accounts.x, scheduled_at=_at(50))

    assert _validate(api, owner.key, again)["warnings"] == [_warning(accounts.x, first["data"]["id"])]
    assert _created(api, owner.key, again)["warnings"] == [_warning(accounts.x, first["data"]["id"])]


def test_an_immediate_post_repeating_one_scheduled_later_is_warned_of(api, owner, accounts, sandbox):
    first = _created(api, owner.key, _body("Sale starts", accounts.x, scheduled_at=_at(24)))

    assert _created(api, owner.key, _body("Sale starts", accounts.x))["warnings"] == [
        _warning(accounts.x, first["data"]["id"])
    ]


def test_outside_the_teams_window_there_is_no_warning(api, owner, accounts):
    first = _created(api, owner.key, _body("Weekly digest", accounts.x, scheduled_at=_at(1)))
    a_week_later = _body("Weekly digest", accounts.x, scheduled_at=_at(1 + 24 * 7))

    assert _validate(api, owner.key, a_week_later)["warnings"] == []

    _team_setting(owner.team, duplicate_window_hours=24 * 8)
    assert _validate(api, owner.key, a_week_later)["warnings"] == [_warning(accounts.x, first["data"]["id"])]


def test_failed_targets_and_drafts_do_not_count(api, owner, accounts, sandbox):
    sandbox.outcomes("x", "error")
    failed = _created(api, owner.key, _body("Try this", accounts.x))
    assert Publish.objects.get(pk=failed["data"]["id"]).status == PublishStatus.FAILED
    _created(api, owner.key, _body("Try this", accounts.x, publish_mode="draft"))
    _created(api, owner.key, _body("Try this", accounts.x, publish_mode="draft", scheduled_at=_at(1)))

    assert _created(api, owner.key, _body("Try this", accounts.x))["warnings"] == []


def test_a_discarded_draft_does_not_count_but_a_confirmed_one_does(api, owner, accounts):
    draft = _created(api, owner.key, _body("Draft words", accounts.x, publish_mode="draft"))["data"]["id"]
    api.as_(owner.key).delete(f"{URL}/{draft}")
    confirmed = _created(api, owner.key, _body("Confirmed words", accounts.x, publish_mode="draft"))["data"]["id"]
    response = api.as_(owner.key).post(f"{URL}/{confirmed}/confirm", {"scheduled_at": _at(3)}, format="json")
    assert response.status_code == 200, response.content

    assert _validate(api, owner.key, _body("Draft words", accounts.x))["warnings"] == []
    assert _validate(api, owner.key, _body("Confirmed words", accounts.x))["warnings"] == [
        _warning(accounts.x, confirmed)
    ]


def test_a_members_post_waiting_for_approval_counts(api, owner, member, accounts):
    _team_setting(member.team, approval_required=True)
    waiting = _created(api, member.key, _body("Pending words", accounts.x))
    assert waiting["data"]["approval_status"] == "pending_approval"

    assert _validate(api, owner.key, _body("Pending words", accounts.x))["warnings"] == [
        _warning(accounts.x, waiting["data"]["id"])
    ]


def test_another_account_or_another_team_does_not_count(api, owner, outsider, accounts):
    _created(api, owner.key, _body("Same words", accounts.bluesky, scheduled_at=_at(1)))
    elsewhere = sandbox_account(outsider.team, "x")
    _created(api, outsider.key, _body("Same words", elsewhere, scheduled_at=_at(1)))

    assert _validate(api, owner.key, _body("Same words", accounts.x, scheduled_at=_at(2)))["warnings"] == []


def test_a_targets_own_text_is_what_it_repeats(api, owner, accounts):
    body = _body("Main text", accounts.x, accounts.bluesky, scheduled_at=_at(1))
    body["targets"][0]["content"] = "Words for X"
    first = _created(api, owner.key, body)["data"]["id"]

    assert _validate(api, owner.key, _body("Words for X", accounts.x, accounts.bluesky))["warnings"] == [
        _warning(accounts.x, first)
    ]
    assert _validate(api, owner.key, _body("Main text", accounts.x, accounts.bluesky))["warnings"] == [
        _warning(accounts.bluesky, first)
    ]


def test_each_target_names_the_most_recent_earlier_publish(api, owner, accounts):
    _created(api, owner.key, _body("Twice", accounts.x, scheduled_at=_at(1)))
    latest = _created(api, owner.key, _body("Twice", accounts.x, scheduled_at=_at(2)))["data"]["id"]

    assert _validate(api, owner.key, _body("Twice", accounts.x))["warnings"] == [_warning(accounts.x, latest)]


def test_a_team_that_blocks_duplicates_refuses_with_409_and_creates_nothing(api, owner, accounts):
    first = _created(api, owner.key, _body("Only once", accounts.x, scheduled_at=_at(1)))["data"]["id"]
    _team_setting(owner.team, block_duplicates=True)
    again = _body("Only once", accounts.bluesky, accounts.x)

    checked = _validate(api, owner.key, again)
    response = _create(api, owner.key, again)

    assert response.status_code == 409
    error = response.json()["error"]
    assert (error["type"], error["code"]) == ("conflict", "DUPLICATE_CONTENT")
    assert error["details"] == {"target": 1, "account_id": str(accounts.x.pk), "publish_id": first}
    assert Publish.objects.count() == 1
    assert (checked["valid"], checked["status"]) == (False, 409)
    assert {k: v for k, v in checked["error"].items() if k != "request_id"} == {
        k: v for k, v in error.items() if k != "request_id"
    }
    assert checked["warnings"] == [_warning(accounts.x, first)]
    assert [p["code"] for p in checked["targets"][1]["problems"]] == ["DUPLICATE_CONTENT"]
    assert checked["targets"][0]["problems"] == []


def test_a_blocked_duplicate_ranks_after_the_posts_own_problems(api, owner, accounts):
    _created(api, owner.key, _body("a" * 100, accounts.x, scheduled_at=_at(1)))
    _team_setting(owner.team, block_duplicates=True)
    body = _body("a" * 100, accounts.x, accounts.pinterest)  # a pin needs media and a board

    checked = _validate(api, owner.key, body)

    assert checked["status"] == 400 == _create(api, owner.key, body).status_code


def test_an_idempotent_replay_answers_the_same_warnings(api, owner, accounts):
    first = _created(api, owner.key, _body("Replayed", accounts.x, scheduled_at=_at(1)))["data"]["id"]
    again = _body("Replayed", accounts.x, scheduled_at=_at(2))

    answers = [_create(api, owner.key, again, HTTP_IDEMPOTENCY_KEY="k-1").json() for _ in range(2)]

    assert answers[0] == answers[1]
    assert answers[1]["warnings"] == [_warning(accounts.x, first)]


def test_a_post_of_media_only_is_never_a_duplicate(api, owner, accounts, settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    photo = files.stored_upload(owner.team, files.image(), "image/png", "photo.png")
    _created(api, owner.key, _body("", accounts.x, media_ids=[photo], scheduled_at=_at(1)))

    assert _validate(api, owner.key, _body("  ", accounts.x, media_ids=[photo]))["warnings"] == []


# --- the dashboard's compose page ----------------------------------------------------------------

CHECK = "/dashboard/compose/check/"


def _form(persona, *accounts, content, **fields):
    return {"team": str(persona.team.pk), "content": content, "account": [str(a.pk) for a in accounts], **fields}


def _check(client, persona, *accounts, content, **fields):
    client.force_login(persona.user)
    response = client.post(CHECK, _form(persona, *accounts, content=content, **fields))
    assert response.status_code == 200
    return response.json()


def test_compose_says_which_account_got_the_text_and_when(api, client, owner, accounts):
    _team_setting(owner.team, time_zone="Europe/Paris")
    when = timezone.now().replace(microsecond=0) + dt.timedelta(hours=5)
    _created(api, owner.key, _body("Seen before", accounts.x, scheduled_at=when.isoformat()))

    result = _check(client, owner, accounts.x, accounts.bluesky, content="Seen before")

    local = when.astimezone(zoneinfo.ZoneInfo("Europe/Paris")).strftime("%Y-%m-%d %H:%M")
    handle = accounts.x.handle
    assert result["ok"] is True
    assert result["duplicates"] == [
        {
            "account_id": str(accounts.x.pk),
            "message": f"This text is already scheduled for @{handle} on {local} Europe/Paris.",
        }
    ]


def test_compose_says_you_posted_it_for_a_text_already_sent(api, client, owner, accounts, sandbox):
    _created(api, owner.key, _body("Sent before", accounts.x))

    [note] = _check(client, owner, accounts.x, content="Sent before")["duplicates"]

    assert note["message"].startswith(f"You posted this text to @{accounts.x.handle} on ")


def test_compose_in_a_team_that_blocks_shows_the_refusal_as_the_accounts_problem(api, client, owner, accounts):
    _created(api, owner.key, _body("Blocked text", accounts.x, scheduled_at=_at(1)))
    _team_setting(owner.team, block_duplicates=True)

    result = _check(client, owner, accounts.x, content="Blocked text")

    assert result["ok"] is False
    assert result["duplicates"] == []
    [problem] = [p for t in result["targets"] for p in t["problems"]]
    assert problem["message"].startswith(f"This text is already scheduled for @{accounts.x.handle} on ")
    assert problem["message"].endswith("This team refuses duplicate posts: change the text or untick the account.")


def test_sending_a_blocked_duplicate_from_compose_is_refused_beside_the_account(api, client, owner, accounts):
    _created(api, owner.key, _body("Blocked text", accounts.x, scheduled_at=_at(1)))
    _team_setting(owner.team, block_duplicates=True)
    client.force_login(owner.user)

    response = client.post(
        f"/dashboard/compose/?team={owner.team.pk}",
        _form(owner, accounts.x, content="Blocked text", publish_mode="immediate"),
    )

    assert response.status_code == 409
    page = html.unescape(response.content.decode())
    assert "This account already got the same text within 72 hours, and this team refuses duplicate posts" in page
    assert Publish.objects.count() == 1


def test_the_edit_page_check_does_not_find_the_post_a_duplicate_of_itself(api, client, owner, accounts):
    stored = _created(api, owner.key, _body("Edit me", accounts.x, scheduled_at=_at(1)))["data"]["id"]
    _team_setting(owner.team, block_duplicates=True)

    result = _check(client, owner, accounts.x, content="Edit me", editing=stored)

    page = client.get(f"/dashboard/publishes/{stored}/edit/", {"team": str(owner.team.pk)})
    assert f'name="editing" value="{stored}"' in page.content.decode()
    assert (result["ok"], result["duplicates"]) == (True, [])
    assert _check(client, owner, accounts.x, content="Edit me")["ok"] is False  # a new post would repeat it


# --- queue mode and batches ------------------------------------------------------------------------


def test_a_queued_post_is_judged_at_the_slot_it_takes(api, owner, accounts):
    in_five_days = DAYS[(timezone.now() + dt.timedelta(days=5)).weekday()]  # a slot four days or more away
    posting_schedule_set(account=accounts.x, time_zone="UTC", slots=[{"day": in_five_days, "time": "09:00"}])
    slot = _validate(api, owner.key, _body("Queued words", accounts.x, publish_mode="queue"))["scheduled_at"]
    beside_the_slot = dt.datetime.fromisoformat(slot.replace("Z", "+00:00")) + dt.timedelta(hours=1)
    first = _created(api, owner.key, _body("Queued words", accounts.x, scheduled_at=beside_the_slot.isoformat()))
    assert _validate(api, owner.key, _body("Queued words", accounts.x))["warnings"] == []  # far from now

    queued = _body("Queued words", accounts.x, publish_mode="queue")

    assert _validate(api, owner.key, queued)["warnings"] == [_warning(accounts.x, first["data"]["id"])]
    assert _created(api, owner.key, queued)["warnings"] == [_warning(accounts.x, first["data"]["id"])]


def test_a_batch_answers_each_rows_warnings_with_its_index(api, owner, accounts):
    earlier = _created(api, owner.key, _body("Batch words", accounts.x, scheduled_at=_at(1)))["data"]["id"]
    rows = [_body("Fresh words", accounts.x), _body("Batch words", accounts.bluesky, accounts.x)]

    response = api.as_(owner.key).post(f"{URL}/bulk", {"publishes": rows}, format="json")

    assert response.status_code == 201, response.content
    assert response.json()["warnings"] == [{**_warning(accounts.x, earlier), "index": 1}]


def test_a_batch_in_a_team_that_blocks_duplicates_creates_nothing_and_names_the_row(api, owner, accounts):
    _created(api, owner.key, _body("Batch words", accounts.x, scheduled_at=_at(1)))
    _team_setting(owner.team, block_duplicates=True)
    rows = [_body("Fresh words", accounts.x), _body("Batch words", accounts.x)]

    response = api.as_(owner.key).post(f"{URL}/bulk", {"publishes": rows}, format="json")

    assert response.status_code == 400
    [row] = response.json()["error"]["details"]["rows"]
    assert row["index"] == 1
    assert [p["code"] for p in row["problems"]] == ["DUPLICATE_CONTENT"]
    assert Publish.objects.count() == 1

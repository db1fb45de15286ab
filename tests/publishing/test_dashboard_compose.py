"""The compose page: the team's accounts with their settings, the live check (the create's own
rules and each platform's own count, nothing created), and publishing, scheduling and saving a
draft through the form, which creates through the lifecycle as the API does."""

from __future__ import annotations

import datetime as dt
import html
import re
import zoneinfo

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import AccountStatus
from accounts.schedules import DAYS
from accounts.services import posting_schedule_set
from demo.seed import PINTEREST_BOARD_ID, sandbox_account
from media import services, storage
from media.models import MediaUpload
from publishing.models import ApprovalStatus, Publish, PublishMode, PublishStatus
from teams.models import MonthlyUsage
from tests.factories import SocialAccountFactory, UserFactory
from tests.media import files

pytestmark = pytest.mark.django_db

URL = "/dashboard/compose/"
CHECK = "/dashboard/compose/check/"
FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"  # one grapheme, seven code points


def _as(client, persona):
    client.force_login(persona.user)
    return client


def _form(persona, *accounts, content="Hello from the dashboard", **fields):
    return {"team": str(persona.team.pk), "content": content, "account": [str(a.pk) for a in accounts], **fields}


def _later(hours=2):
    """A datetime-local value (no zone: read as UTC) `hours` from now."""
    return (timezone.now() + dt.timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M")


def _check(client, persona, *accounts, **fields):
    response = _as(client, persona).post(CHECK, _form(persona, *accounts, **fields))
    assert response.status_code == 200
    return response.json()


def _target(result, account):
    [entry] = [t for t in result["targets"] if t["account_id"] == str(account.pk)]
    return entry


def _messages(client):
    """The messages the next page shows (after a redirect)."""
    page = client.get(URL).content.decode()
    return [html.unescape(m) for m in re.findall(r'<ul class="messages".*?<li[^>]*>(.*?)</li>', page, re.S)]


def _problem_text(page, element_id):
    match = re.search(rf'id="{re.escape(element_id)}"[^>]*>(.*?)</p>', page, re.S)
    assert match, element_id
    return html.unescape(match.group(1)).strip()


# --- the page ----------------------------------------------------------------------------------


def test_the_page_offers_the_teams_active_accounts_and_shows_expired_ones_disabled(client, owner, outsider, accounts):
    x, pinterest = accounts.x, accounts.pinterest
    expired = sandbox_account(owner.team, "x", suffix="_expired", status=AccountStatus.EXPIRED)
    theirs = sandbox_account(outsider.team, "bluesky")

    response = _as(client, owner).get(URL)
    page = response.content.decode()

    assert response.status_code == 200
    assert f'name="account" value="{x.pk}"' in page
    assert re.search(rf'name="account" value="{expired.pk}"[^>]*disabled', page)
    assert "re-authorize first" in page
    assert f'href="/dashboard/?team={owner.team.pk}"' in page
    assert theirs.handle not in page
    # The platform settings as inputs: Pinterest's board from the account's metadata.
    assert f'<option value="{PINTEREST_BOARD_ID}">Demo board</option>' in page
    assert f'name="t-{pinterest.pk}-boardId"' in page
    assert f'name="t-{x.pk}-for_super_followers_only"' in page


def test_the_form_carries_a_csrf_token_and_the_pages_script(client, owner, accounts):
    page = _as(client, owner).get(URL).content.decode()

    assert 'name="csrfmiddlewaretoken"' in page
    assert "dashboard/compose.js" in page
    assert "<noscript>" in page


def test_every_input_has_a_label(client, owner, accounts):
    for platform in ("x", "linkedin", "facebook", "instagram", "threads", "bluesky", "pinterest", "youtube", "tiktok"):
        getattr(accounts, platform)
    page = _as(client, owner).get(URL).content.decode()

    ids = re.findall(r'<(?:input|select|textarea)(?![^>]*type="(?:hidden|checkbox)")[^>]*id="([^"]+)"', page)
    assert len(ids) > 30
    for element_id in ids:
        assert f'for="{element_id}"' in page, element_id


def test_the_page_needs_a_login(client):
    response = client.get(URL)

    assert response.status_code == 302
    assert response["Location"].startswith("/login/")


def test_another_teams_page_is_not_found(client, owner, outsider):
    assert _as(client, owner).get(f"{URL}?team={outsider.team.pk}").status_code == 404


def test_the_page_reads_the_same_number_of_queries_for_1_or_100_accounts(client, owner):
    def queries_for_page():
        with CaptureQueriesContext(connection) as captured:
            assert client.get(URL).status_code == 200
        return len(captured)

    _as(client, owner)
    SocialAccountFactory(team=owner.team, platform="pinterest", metadata={"boards": [{"id": "1", "name": "B"}]})
    one = queries_for_page()
    for index in range(99):
        SocialAccountFactory(team=owner.team, platform=["x", "bluesky", "tiktok", "pinterest"][index % 4])
    hundred = queries_for_page()

    assert hundred == one


# --- the live check ----------------------------------------------------------------------------


def test_the_check_counts_x_the_weighted_way_with_a_url_as_23(client, owner, accounts):
    text = "Read https://example.com/a/rather/long/path/to/an/article?with=query ok"

    result = _check(client, owner, accounts.x, content=text)

    assert _target(result, accounts.x) == {
        "account_id": str(accounts.x.pk),
        "platform": "x",
        "length": len("Read ") + 23 + len(" ok"),
        "limit": 280,
        "problems": [],
    }
    assert result["ok"] is True


def test_the_check_counts_bluesky_graphemes_and_threads_emoji_bytes(client, owner, accounts):
    result = _check(client, owner, accounts.bluesky, accounts.threads, accounts.x, content=FAMILY * 3)

    assert _target(result, accounts.bluesky)["length"] == 3
    assert _target(result, accounts.bluesky)["limit"] == 300
    assert _target(result, accounts.threads)["length"] == 3 * len(FAMILY.encode())
    assert _target(result, accounts.x)["length"] == 6  # an emoji sequence weighs 2


def test_an_over_limit_text_is_a_problem_of_the_target_it_is_too_long_for(client, owner, accounts):
    result = _check(client, owner, accounts.x, accounts.bluesky, content="a" * 281)

    x, bluesky = _target(result, accounts.x), _target(result, accounts.bluesky)
    assert (x["length"], x["limit"]) == (281, 280)
    assert [(p["field"], p["code"]) for p in x["problems"]] == [("text", "TEXT_TOO_LONG")]
    assert "281" in x["problems"][0]["message"]
    assert bluesky["problems"] == []
    assert result["ok"] is False


def test_a_targets_own_text_is_counted_instead_of_the_posts(client, owner, accounts):
    result = _check(
        client, owner, accounts.x, accounts.bluesky, content="short", **{f"t-{accounts.x.pk}-content": "b" * 300}
    )

    assert _target(result, accounts.x)["length"] == 300
    assert _target(result, accounts.bluesky)["length"] == 5


def test_the_check_reports_every_problem_at_once_and_creates_nothing(client, owner, accounts):
    expired = sandbox_account(owner.team, "x", suffix="_expired", status=AccountStatus.EXPIRED)
    past = (timezone.now() - dt.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M")

    result = _check(client, owner, expired, accounts.x, accounts.pinterest, content="a" * 300, scheduled_at=past)

    assert [(p["field"], p["code"]) for p in result["problems"]] == [("scheduled_at", "SCHEDULED_AT_NOT_FUTURE")]
    assert [p["code"] for p in _target(result, expired)["problems"]] == ["ACCOUNT_EXPIRED"]
    assert "TEXT_TOO_LONG" in [p["code"] for p in _target(result, accounts.x)["problems"]]
    pinterest = {p["field"]: p["code"] for p in _target(result, accounts.pinterest)["problems"]}
    assert pinterest["media"] == "MEDIA_REQUIRED"
    assert "boardId" in pinterest
    assert Publish.objects.count() == 0
    assert MonthlyUsage.objects.count() == 0


def test_a_setting_chosen_in_the_form_reaches_the_check(client, owner, accounts):
    pinterest = accounts.pinterest
    without = _check(client, owner, pinterest)
    with_board = _check(client, owner, pinterest, **{f"t-{pinterest.pk}-boardId": PINTEREST_BOARD_ID})

    assert "boardId" in [p["field"] for p in _target(without, pinterest)["problems"]]
    assert "boardId" not in [p["field"] for p in _target(with_board, pinterest)["problems"]]


def test_another_teams_account_is_refused_in_the_check_without_its_data(client, owner, outsider):
    theirs = sandbox_account(outsider.team, "x")

    result = _check(client, owner, theirs)

    assert _target(result, theirs) == {
        "account_id": str(theirs.pk),
        "platform": None,
        "length": None,
        "limit": None,
        "problems": [
            {"field": "account_id", "code": "ACCOUNT_NOT_FOUND", "message": "targets[0]: no such account in this team."}
        ],
    }


def test_the_check_without_accounts_asks_for_one(client, owner, accounts):
    result = _check(client, owner)

    assert [(p["field"], p["message"]) for p in result["problems"]] == [
        ("targets", "Choose at least one account to post to.")
    ]
    assert result["targets"] == []


def test_the_check_says_a_past_time_in_words(client, owner, accounts):
    past = (timezone.now() - dt.timedelta(days=1)).strftime("%Y-%m-%dT%H:%M")

    result = _check(client, owner, accounts.x, scheduled_at=past)

    assert [(p["field"], p["message"]) for p in result["problems"]] == [
        ("scheduled_at", "That time has already passed: pick one in the future.")
    ]


def test_a_malformed_time_is_a_problem_of_the_time_field(client, owner, accounts):
    result = _check(client, owner, accounts.x, scheduled_at="next tuesday")

    assert [p["field"] for p in result["problems"]] == ["scheduled_at"]


def test_the_check_says_when_a_post_will_wait_for_approval(client, member, accounts):
    member.team.approval_required = True
    member.team.save()

    assert _check(client, member, accounts.x)["waits_for_approval"] is True


def test_the_check_needs_the_csrf_token(owner, accounts):
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner.user)

    response = client.post(CHECK, _form(owner, accounts.x))

    assert response.status_code == 403


def test_the_check_needs_a_post_and_a_login(client, owner):
    assert client.post(CHECK, {}).status_code == 302
    assert _as(client, owner).get(CHECK).status_code == 405


def test_the_check_of_another_team_is_not_found(client, owner, outsider):
    response = _as(client, owner).post(CHECK, {"team": str(outsider.team.pk)})

    assert response.status_code == 404


# --- sending -----------------------------------------------------------------------------------


def test_publish_now_publishes_through_the_lifecycle_and_opens_the_publish(client, owner, accounts, sandbox):
    response = _as(client, owner).post(
        URL, _form(owner, accounts.x, accounts.bluesky, content="Live from compose", publish_mode="immediate")
    )

    publish = Publish.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/dashboard/publishes/{publish.pk}/?team={owner.team.pk}"
    assert (publish.publish_mode, publish.status, publish.created_by) == (
        PublishMode.IMMEDIATE,
        PublishStatus.PUBLISHED,
        owner.user,
    )
    assert sorted(t.platform for t in publish.targets.all()) == ["bluesky", "x"]
    assert {p["text"] for p in sandbox.posts()} == {"Live from compose"}
    assert _messages(client) == ["“Live from compose” is being published."]


def test_schedule_creates_a_scheduled_publish_at_the_utc_time_given(client, owner, accounts):
    when = _later(hours=5)

    response = _as(client, owner).post(URL, _form(owner, accounts.x, publish_mode="scheduled", scheduled_at=when))

    publish = Publish.objects.get()
    assert response.status_code == 302
    assert publish.status == PublishStatus.SCHEDULED
    assert publish.scheduled_at == dt.datetime.fromisoformat(when).replace(tzinfo=dt.UTC)
    assert f"scheduled for {when.replace('T', ' ')} UTC" in _messages(client)[0]


def test_save_draft_creates_a_draft_that_is_not_sent(client, owner, accounts, sandbox):
    response = _as(client, owner).post(URL, _form(owner, accounts.x, publish_mode="draft"))

    publish = Publish.objects.get()
    assert response.status_code == 302
    assert (publish.status, publish.confirmed) == (PublishStatus.DRAFT, False)
    assert sandbox.posts() == []


def test_publish_now_ignores_the_time_field(client, owner, accounts, sandbox):
    _as(client, owner).post(URL, _form(owner, accounts.x, publish_mode="immediate", scheduled_at=_later()))

    assert Publish.objects.get().publish_mode == PublishMode.IMMEDIATE


def test_each_targets_text_media_choice_and_settings_reach_the_target(client, owner, accounts):
    x, bluesky = accounts.x, accounts.bluesky
    fields = {
        f"t-{x.pk}-content": "Only on X",
        f"t-{x.pk}-reply_to": "1234567890",
        f"t-{x.pk}-for_super_followers_only": "on",
        f"t-{bluesky.pk}-media-own": "on",
        f"t-{bluesky.pk}-first_comment": "More in the thread",
    }

    _as(client, owner).post(URL, _form(owner, x, bluesky, publish_mode="draft", **fields))

    targets = {t.platform: t for t in Publish.objects.get().targets.all()}
    assert (targets["x"].content, targets["x"].media_ids) == ("Only on X", None)
    assert targets["x"].platform_settings == {"reply_to": "1234567890", "for_super_followers_only": True}
    assert (targets["bluesky"].content, targets["bluesky"].media_ids) == (None, [])
    assert targets["bluesky"].platform_settings == {"first_comment": "More in the thread"}


def test_a_checkbox_that_starts_on_is_sent_only_when_switched_off():
    from django.http import QueryDict

    from publishing.views.compose_form import settings_of

    on = QueryDict(mutable=True)
    on.update({"t-a-allows_comments": "on", "t-a-allows_duet": "on", "t-a-tags": "x"})
    assert settings_of(on, "a", "tiktok") == {"allows_stitch": False}
    assert settings_of(QueryDict("t-a-tags=one, two ,,three"), "a", "youtube") == {"tags": ["one", "two", "three"]}


def test_a_past_time_is_shown_next_to_the_time_field_with_the_input_kept(client, owner, accounts):
    past = (timezone.now() - dt.timedelta(days=1)).strftime("%Y-%m-%dT%H:%M")

    response = _as(client, owner).post(
        URL, _form(owner, accounts.x, content="Keep this text", publish_mode="scheduled", scheduled_at=past)
    )

    page = response.content.decode()
    assert response.status_code == 400
    assert _problem_text(page, "scheduled_at-problem") == "That time has already passed: pick one in the future."
    assert ">Keep this text</textarea>" in page
    assert f'value="{past}"' in page
    assert re.search(rf'name="account" value="{accounts.x.pk}"[^>]*checked', page)
    assert Publish.objects.count() == 0


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("9999-12-31T23:00-05:00", "Pick a date before the year 9999."),
        ("9999-12-31T23:59", "Pick a date before the year 9999."),
        ("0001-01-01T00:00+05:00", "That date is out of range."),
    ],
)
def test_a_time_out_of_range_is_shown_next_to_the_time_field(client, owner, accounts, value, problem):
    form = _form(owner, accounts.x, content="Keep this text", publish_mode="scheduled", scheduled_at=value)

    response = _as(client, owner).post(URL, form)

    page = response.content.decode()
    assert response.status_code == 400
    assert _problem_text(page, "scheduled_at-problem") == problem
    assert ">Keep this text</textarea>" in page
    assert Publish.objects.count() == 0
    check = _check(client, owner, accounts.x, scheduled_at=value)
    assert [(p["field"], p["message"]) for p in check["problems"]] == [("scheduled_at", problem)]


def test_publish_now_ignores_a_time_out_of_range(client, owner, accounts, sandbox):
    form = _form(owner, accounts.x, publish_mode="immediate", scheduled_at="9999-12-31T23:00-05:00")

    assert _as(client, owner).post(URL, form).status_code == 302
    assert Publish.objects.get().scheduled_at is None


def test_sending_without_an_account_asks_for_one_next_to_the_accounts(client, owner, accounts):
    response = _as(client, owner).post(URL, _form(owner, content="Keep this text", publish_mode="immediate"))

    page = response.content.decode()
    assert response.status_code == 400
    assert _problem_text(page, "targets-problem") == "Choose at least one account to post to."
    assert "This list may not be empty" not in page
    assert Publish.objects.count() == 0


def test_the_api_keeps_its_own_words_for_the_same_mistake(api, owner, accounts):
    response = api.as_(owner.key).post("/api/v1/publishes", {"content": "Hello", "targets": []}, format="json")

    assert response.status_code == 400
    assert response.json()["error"]["details"]["targets"] == {"non_field_errors": ["This list may not be empty."]}


def test_schedule_without_a_time_asks_for_one_next_to_the_field(client, owner, accounts):
    response = _as(client, owner).post(URL, _form(owner, accounts.x, publish_mode="scheduled"))

    assert response.status_code == 400
    assert (
        _problem_text(response.content.decode(), "scheduled_at-problem")
        == "Pick the date and time to schedule the post for."
    )


def test_a_platforms_problem_is_shown_next_to_its_input(client, owner, accounts):
    fields = {f"t-{accounts.x.pk}-reply_to": "not-an-id"}

    response = _as(client, owner).post(URL, _form(owner, accounts.x, publish_mode="immediate", **fields))

    page = response.content.decode()
    assert response.status_code == 400
    match = re.search(r'data-problem="reply_to">([^<]+)</p>', page)
    assert match
    assert match.group(1).startswith("Reply to post (id) must be a post id")
    assert 'value="not-an-id"' in page


def test_an_over_limit_text_is_refused_next_to_the_target(client, owner, accounts):
    response = _as(client, owner).post(URL, _form(owner, accounts.x, content="a" * 281, publish_mode="immediate"))

    page = response.content.decode()
    assert response.status_code == 400
    problem = f"t-{accounts.x.pk}-text-problem"
    assert _problem_text(page, problem).startswith("Text counts 281 of X")
    # Both the account's checkbox and its own text field are described by the problem.
    described = re.findall(rf'(name="(?:account|t-{accounts.x.pk}-content)")[^>]*aria-describedby="([^"]*)"', page)
    assert {name for name, ids in described if problem in ids.split()} == {
        'name="account"',
        f'name="t-{accounts.x.pk}-content"',
    }
    assert Publish.objects.count() == 0


def test_another_teams_account_is_refused_without_showing_it(client, owner, outsider):
    theirs = sandbox_account(outsider.team, "x")

    response = _as(client, owner).post(URL, _form(owner, theirs, publish_mode="immediate"))

    page = response.content.decode()
    assert response.status_code == 400
    assert "no such account in this team" in page
    assert theirs.handle not in page
    assert Publish.objects.count() == 0


def test_an_expired_account_cannot_be_published_to(client, owner, accounts):
    expired = sandbox_account(owner.team, "x", suffix="_expired", status=AccountStatus.EXPIRED)

    response = _as(client, owner).post(URL, _form(owner, expired, publish_mode="immediate"))

    assert response.status_code == 400
    assert (
        f"@{expired.handle} needs reconnecting: reconnect it or untick it before saving." in response.content.decode()
    )
    assert Publish.objects.count() == 0


def test_a_member_of_a_team_that_requires_approval_waits_for_it(client, member, accounts, sandbox):
    member.team.approval_required = True
    member.team.save()

    response = _as(client, member).post(
        URL, _form(member, accounts.x, content="Please approve", publish_mode="immediate")
    )

    publish = Publish.objects.get()
    assert publish.approval_status == ApprovalStatus.PENDING
    assert sandbox.posts() == []
    assert response.status_code == 302
    assert "waiting for approval" in _messages(client)[0]
    assert "waits for the owner or an admin" in client.get(URL).content.decode()


def test_an_owner_in_a_team_that_requires_approval_publishes_at_once(client, owner, accounts, sandbox):
    owner.team.approval_required = True
    owner.team.save()

    _as(client, owner).post(URL, _form(owner, accounts.x, publish_mode="immediate"))

    assert Publish.objects.get().approval_status is None
    assert len(sandbox.posts()) == 1


def test_sending_needs_the_csrf_token(owner, accounts):
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner.user)

    response = client.post(URL, _form(owner, accounts.x, publish_mode="draft"))

    assert response.status_code == 403
    assert Publish.objects.count() == 0


def test_a_refused_submit_keeps_the_uploaded_media_with_a_preview(client, owner, accounts):
    data = files.image()
    upload = services.media_create(
        team=owner.team, user=owner.user, filename="kept.png", content_type="image/png", size_bytes=len(data)
    )
    storage.write_stream(upload.storage_key, [data])
    services.media_confirm(team=owner.team, media_id=str(upload.pk))
    fields = {
        "media_ids": [str(upload.pk)],
        f"t-{accounts.x.pk}-media-own": "on",
        f"t-{accounts.x.pk}-media": str(upload.pk),
    }

    response = _as(client, owner).post(
        URL, _form(owner, accounts.x, content="a" * 281, publish_mode="immediate", **fields)
    )

    page = response.content.decode()
    assert response.status_code == 400
    assert f'<input type="hidden" name="media_ids" value="{upload.pk}">' in page
    assert "kept.png" in page
    assert re.search(rf'<img src="[^"]*/media/files/{upload.pk}[^"]*"', page)
    assert re.search(rf'name="t-{accounts.x.pk}-media" value="{upload.pk}" checked', page)


def test_a_user_without_a_team_is_told_so(client, db):
    client.force_login(UserFactory(username="loner"))

    response = client.get(URL)

    assert response.status_code == 403
    assert "You belong to no team yet." in response.content.decode()


# --- the team's time zone ------------------------------------------------------------------------

NEW_YORK = zoneinfo.ZoneInfo("America/New_York")


def _in_zone(team, name):
    team.time_zone = name
    team.save()


def _spring_forward(zone):
    """The next day after today whose 02:00 to 03:00 `zone` skips, with the wall time 02:30."""
    day = timezone.now().date() + dt.timedelta(days=1)
    while True:
        wall = dt.datetime.combine(day, dt.time(2, 30))
        if wall.replace(tzinfo=zone).astimezone(dt.UTC).astimezone(zone).replace(tzinfo=None) != wall:
            return wall
        day += dt.timedelta(days=1)


def test_a_team_in_new_york_schedules_at_nine_local_and_the_api_answers_in_utc(client, api, owner, accounts):
    _in_zone(owner.team, "America/New_York")
    day = timezone.now().astimezone(NEW_YORK).date() + dt.timedelta(days=3)
    expected = dt.datetime.combine(day, dt.time(9, 0), tzinfo=NEW_YORK).astimezone(dt.UTC)

    page = _as(client, owner).get(URL).content.decode()
    form = _form(owner, accounts.x, publish_mode="scheduled", scheduled_at=f"{day}T09:00")
    response = client.post(URL, form)

    assert '<label for="scheduled_at">Time to publish (America/New_York)</label>' in page
    assert response.status_code == 302
    publish = Publish.objects.get()
    assert publish.scheduled_at == expected  # 13:00 or 14:00 UTC, as daylight saving time has it
    assert f"scheduled for {day} 09:00 America/New_York" in _messages(client)[0]
    answer = api.as_(owner.key).get(f"/api/v1/publishes/{publish.pk}")
    assert answer.status_code == 200, answer.content
    assert answer.json()["data"]["scheduled_at"] == expected.strftime("%Y-%m-%dT%H:%M:%SZ")


def test_a_time_the_clocks_skip_is_refused_next_to_the_time_field(client, owner, accounts):
    _in_zone(owner.team, "America/New_York")
    skipped = _spring_forward(NEW_YORK).strftime("%Y-%m-%dT%H:%M")

    response = _as(client, owner).post(URL, _form(owner, accounts.x, publish_mode="scheduled", scheduled_at=skipped))

    assert response.status_code == 400
    problem = _problem_text(response.content.decode(), "scheduled_at-problem")
    assert problem == (
        f"{skipped.replace('T', ' ')} does not exist in America/New_York: the clocks go forward then. "
        "Pick a time outside the skipped hour."
    )
    assert Publish.objects.count() == 0


# --- alt text of the media -----------------------------------------------------------------------


def _photo(persona, name="photo.png", alt_text=""):
    media_id = files.stored_upload(persona.team, files.image(), "image/png", name)
    if alt_text:
        services.media_set_alt_text(team=persona.team, media_id=media_id, alt_text=alt_text)
    return media_id


def test_a_file_taken_from_the_library_shows_its_alt_text_field(client, owner, accounts):
    media_id = _photo(owner, alt_text="A rocket & a city")

    page = _as(client, owner).get(URL, {"team": str(owner.team.pk), "media": media_id}).content.decode()

    assert f'<label for="media-alt-{media_id}">Alt text' in page
    assert re.search(rf'<textarea id="media-alt-{media_id}" name="media-alt-{media_id}"[^>]*maxlength="1000"', page)
    assert ">A rocket &amp; a city</textarea>" in page
    assert "sent to X, Bluesky, LinkedIn, Facebook, Instagram, Threads and Pinterest" in page


def test_alt_text_typed_in_compose_is_saved_on_the_upload_with_the_post(client, owner, accounts):
    media_id = _photo(owner)
    fields = {"media_ids": [media_id], f"media-alt-{media_id}": "Our team\r\nat the launch ", "publish_mode": "draft"}

    response = _as(client, owner).post(URL, _form(owner, accounts.x, **fields))

    assert response.status_code == 302
    assert [str(i) for i in Publish.objects.get().media_ids] == [media_id]
    assert MediaUpload.objects.get(pk=media_id).alt_text == "Our team\nat the launch"


def test_an_alt_text_too_long_is_refused_beside_its_field_and_no_post_is_made(client, owner, accounts):
    media_id = _photo(owner, alt_text="Kept")
    fields = {"media_ids": [media_id], f"media-alt-{media_id}": "y" * 1001, "publish_mode": "draft"}

    response = _as(client, owner).post(URL, _form(owner, accounts.x, **fields))

    page = response.content.decode()
    assert response.status_code == 400
    assert "1001 characters" in _problem_text(page, f"media-alt-{media_id}-problem")
    assert f">{'y' * 1001}</textarea>" in page  # what was typed, to shorten
    assert 'aria-invalid="true"' in page
    assert Publish.objects.count() == 0
    assert MediaUpload.objects.get(pk=media_id).alt_text == "Kept"


def test_a_refused_submit_keeps_the_alt_text_typed(client, owner, accounts):
    media_id = _photo(owner)
    fields = {"media_ids": [media_id], f"media-alt-{media_id}": "A red square", "publish_mode": "immediate"}

    response = _as(client, owner).post(URL, _form(owner, accounts.x, content="a" * 281, **fields))

    assert response.status_code == 400
    assert ">A red square</textarea>" in response.content.decode()
    assert MediaUpload.objects.get(pk=media_id).alt_text == "A red square"


def test_an_alt_text_left_as_it_was_is_not_written_again(client, owner, accounts):
    media_id = _photo(owner, alt_text="Same words")
    before = MediaUpload.objects.get(pk=media_id).updated_at
    fields = {"media_ids": [media_id], f"media-alt-{media_id}": "Same words", "publish_mode": "draft"}

    _as(client, owner).post(URL, _form(owner, accounts.x, **fields))

    assert MediaUpload.objects.get(pk=media_id).updated_at == before


def test_another_teams_upload_keeps_its_alt_text(client, owner, outsider, accounts):
    theirs = _photo(outsider, alt_text="Theirs")
    fields = {"media_ids": [theirs], f"media-alt-{theirs}": "Overwritten?", "publish_mode": "draft"}

    response = _as(client, owner).post(URL, _form(owner, accounts.x, **fields))

    assert response.status_code == 400  # the media is not the team's
    assert MediaUpload.objects.get(pk=theirs).alt_text == "Theirs"


# --- add to queue --------------------------------------------------------------------------------

EVERY_DAY_AT_NINE = [{"day": day, "time": "09:00"} for day in DAYS]


def test_add_to_queue_schedules_at_the_first_free_slot_and_says_when(client, owner, accounts):
    _in_zone(owner.team, "America/New_York")
    posting_schedule_set(account=accounts.x, time_zone="America/New_York", slots=EVERY_DAY_AT_NINE)
    # The time field is not the queue's: it takes the slot, whatever was typed.
    form = _form(owner, accounts.x, content="Into the queue", publish_mode="queue", scheduled_at=_later(hours=50))

    response = _as(client, owner).post(URL, form)

    assert response.status_code == 302
    publish = Publish.objects.get()
    slot = publish.scheduled_at.astimezone(NEW_YORK)
    assert (publish.status, slot.time()) == (PublishStatus.SCHEDULED, dt.time(9, 0))
    assert publish.scheduled_at - timezone.now() < dt.timedelta(days=1, minutes=2)
    said = f"Queued for {slot:%a %d %b}, 09:00 America/New_York: “Into the queue”."
    assert _messages(client) == [said]


def test_add_to_queue_takes_the_next_slot_after_one_taken(client, owner, accounts):
    posting_schedule_set(account=accounts.x, time_zone="UTC", slots=EVERY_DAY_AT_NINE)
    _as(client, owner).post(URL, _form(owner, accounts.x, publish_mode="queue"))
    client.post(URL, _form(owner, accounts.x, publish_mode="queue"))

    first, second = Publish.objects.order_by("scheduled_at").values_list("scheduled_at", flat=True)
    assert second - first == dt.timedelta(days=1)


def test_add_to_queue_without_a_posting_schedule_says_so_and_links_to_it(client, owner, accounts):
    response = _as(client, owner).post(URL, _form(owner, accounts.x, publish_mode="queue"))

    page = response.content.decode()
    assert response.status_code == 400
    assert Publish.objects.count() == 0
    said = f"{accounts.x} has no posting schedule yet: set its slots, or pick a time."
    schedule = f"/dashboard/accounts/{accounts.x.pk}/schedule/?team={owner.team.pk}"
    assert f'<span class="problem-text">{html.escape(said)}</span>' in page
    assert f'<a href="{schedule}">Set the posting schedule of {accounts.x}</a>' in page


def test_the_live_check_says_when_the_queue_would_send_the_post(client, owner, accounts):
    posting_schedule_set(account=accounts.x, time_zone="UTC", slots=EVERY_DAY_AT_NINE)

    result = _check(client, owner, accounts.x)

    assert re.fullmatch(r"Next free slot: \w{3} \d\d \w{3}, 09:00 UTC\.", result["queue"]["next_slot"])


def test_the_live_check_says_which_account_has_no_posting_schedule(client, owner, accounts):
    posting_schedule_set(account=accounts.x, time_zone="UTC", slots=EVERY_DAY_AT_NINE)

    result = _check(client, owner, accounts.x, accounts.bluesky)

    assert result["queue"] == {
        "problem": f"{accounts.bluesky} has no posting schedule yet: set its slots, or pick a time.",
        "schedule_url": f"/dashboard/accounts/{accounts.bluesky.pk}/schedule/?team={owner.team.pk}",
        "schedule_text": f"Set the posting schedule of {accounts.bluesky}",
    }


def test_the_live_check_says_nothing_of_the_queue_for_another_teams_account(client, owner, outsider, accounts):
    theirs = sandbox_account(outsider.team, "bluesky")

    assert _check(client, owner, accounts.x, theirs)["queue"] == {}


def test_the_page_offers_add_to_queue_beside_schedule(client, owner, accounts):
    page = _as(client, owner).get(URL).content.decode()

    assert re.search(r'value="scheduled"[^>]*>Schedule</button>\s*<button[^>]*value="queue"[^>]*>Add to queue<', page)

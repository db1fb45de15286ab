"""The Import page: a CSV file's rows checked (each row's verdict, nothing created), then
created all together or not at all, as POST /api/v1/publishes/bulk does."""

from __future__ import annotations

import datetime as dt
import html
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from accounts.schedules import DAYS
from accounts.services import posting_schedule_set
from demo.seed import sandbox_account
from publishing.models import ApprovalStatus, Publish, PublishStatus
from teams.models import Plan

pytestmark = pytest.mark.django_db

URL = "/dashboard/import/"
HEADER = "content,account_ids,publish_mode,scheduled_at,media_ids\n"
EVERY_DAY_AT_NINE = [{"day": day, "time": "09:00"} for day in DAYS]


def _as(client, persona):
    client.force_login(persona.user)
    return client


def _later(days=2):
    return (timezone.now() + dt.timedelta(days=days)).replace(microsecond=0, second=0).isoformat()


def _file(text, name="posts.csv"):
    data = text.encode() if isinstance(text, str) else text
    return SimpleUploadedFile(name, data, content_type="text/csv")


def _check(client, persona, text):
    return _as(client, persona).post(f"{URL}?team={persona.team.pk}", {"file": _file(text), "action": "check"})


def _create(client, persona, text):
    return _as(client, persona).post(f"{URL}?team={persona.team.pk}", {"csv": text, "action": "create"})


def _rows(response):
    """The verdict table as (row, text, accounts, when, verdict) tuples of plain text."""
    page = response.content.decode()
    body = re.search(r"<tbody>(.*?)</tbody>", page, re.S)
    assert body, page
    rows = []
    for row in re.findall(r"<tr>(.*?)</tr>", body.group(1), re.S):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        rows.append(tuple(_plain(cell) for cell in cells))
    return rows


def _plain(fragment):
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def _problem(response):
    match = re.search(r'id="import-problem">(.*?)</p>', response.content.decode(), re.S)
    return html.unescape(match.group(1)).strip()


def _messages(client, persona):
    page = client.get(f"/dashboard/publishes/?team={persona.team.pk}").content.decode()
    return [html.unescape(m) for m in re.findall(r'<ul class="messages".*?<li[^>]*>(.*?)</li>', page, re.S)]


def test_the_page_explains_the_columns_with_an_example_and_is_in_the_nav(client, member):
    page = _as(client, member).get(f"{URL}?team={member.team.pk}").content.decode()

    assert '<input type="file" id="import-file" name="file"' in page
    for column in ("content", "account_ids", "publish_mode", "scheduled_at", "media_ids"):
        assert f"<dt><code>{column}</code></dt>" in page
    assert "content,account_ids,publish_mode,scheduled_at,media_ids" in page
    assert f'href="/dashboard/import/?team={member.team.pk}" aria-current="page">Import</a>' in page


def test_check_shows_every_rows_verdict_and_creates_nothing(client, owner, accounts):
    when = _later()
    text = (
        HEADER
        + f'"Hello, world",{accounts.x.pk},scheduled,{when},\n'
        + f"Too early,{accounts.x.pk},scheduled,2020-01-01T09:00:00Z,\n"
    )

    response = _check(client, owner, text)

    assert response.status_code == 200
    assert Publish.objects.count() == 0
    first, second = _rows(response)
    assert first[:3] == ("1", "Hello, world", str(accounts.x))
    assert first[4] == "OK"
    assert second[0] == "2"
    assert "That time has already passed: pick one in the future." in second[4]
    assert "Create 2 publishes" not in response.content.decode()


def test_a_queued_row_shows_the_slot_it_would_take(client, owner, accounts):
    posting_schedule_set(account=accounts.x, time_zone="UTC", slots=EVERY_DAY_AT_NINE)

    response = _check(client, owner, HEADER + f"Queued,{accounts.x.pk},queue,,\n")

    [row] = _rows(response)
    assert row[3].endswith("09:00 UTC")
    assert row[4] == "OK"


def test_a_queued_row_without_a_posting_schedule_says_so_in_words(client, owner, accounts):
    response = _check(client, owner, HEADER + f"Queued,{accounts.x.pk},queue,,\n")

    [row] = _rows(response)
    assert row[4] == f"{accounts.x} has no posting schedule yet: set its slots, or pick a time."


def test_a_targets_problem_is_named_by_its_account(client, owner, accounts):
    response = _check(client, owner, HEADER + f"{'x' * 300},{accounts.x.pk},scheduled,{_later()},\n")

    [row] = _rows(response)
    assert row[4].startswith(f"{accounts.x}: ")


def test_create_makes_every_row_and_lists_them(client, owner, accounts):
    text = HEADER + f'"Hello, world",{accounts.x.pk},scheduled,{_later()},\nA draft,{accounts.bluesky.pk},draft,,\n'
    checked = _check(client, owner, text)
    kept = re.search(r'name="csv" value="([^"]*)"', checked.content.decode()).group(1)
    assert "Create 2 publishes</button>" in checked.content.decode()

    response = _create(client, owner, html.unescape(kept).replace("\n", "\r\n"))

    assert response.status_code == 302
    assert response["Location"] == f"/dashboard/publishes/?team={owner.team.pk}"
    assert sorted(Publish.objects.values_list("content", "status")) == [
        ("A draft", PublishStatus.DRAFT),
        ("Hello, world", PublishStatus.SCHEDULED),
    ]
    assert _messages(client, owner) == ["Created 2 publishes from the file."]


def test_a_members_rows_wait_for_approval(client, member, accounts):
    member.team.approval_required = True
    member.team.save()

    response = _create(client, member, HEADER + f"From a member,{accounts.x.pk},scheduled,{_later()},\n")

    assert response.status_code == 302
    publish = Publish.objects.get()
    assert publish.approval_status == ApprovalStatus.PENDING
    assert _messages(client, member) == [
        "Created 1 publish from the file. 1 waits for approval by the team's owner or an admin."
    ]


def test_a_refused_batch_creates_nothing_and_shows_the_rows_again(client, owner, accounts):
    text = HEADER + f"Fine,{accounts.x.pk},scheduled,{_later()},\nNo account,,scheduled,{_later()},\n"

    response = _create(client, owner, text)

    assert response.status_code == 400
    assert Publish.objects.count() == 0
    first, second = _rows(response)
    assert (first[4], second[4]) == ("OK", "Choose at least one account to post to.")
    assert "Some rows cannot be created; nothing was created." in response.content.decode()


def test_a_batch_over_the_quota_says_so(client, owner, accounts):
    owner.team.plan = Plan.objects.create(code="limit-1", name="1 post", posts_per_month=1)
    owner.team.save()
    text = HEADER + f"One,{accounts.x.pk},scheduled,{_later()},\nTwo,{accounts.x.pk},scheduled,{_later(3)},\n"

    checked = _check(client, owner, text)
    created = _create(client, owner, text)

    quota = "These publishes are more than the team's publishing quota has left this month; nothing can be created."
    assert quota in html.unescape(checked.content.decode())
    assert "Create 2 publishes" not in checked.content.decode()
    assert created.status_code == 429
    assert quota in html.unescape(created.content.decode())
    assert Publish.objects.count() == 0


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            "content,account_ids\n\xe9t\xe9,x\n".encode("latin-1"),
            "The CSV is not UTF-8 (byte 21 cannot be read); save it as UTF-8.",
        ),
        (
            "content,accounts\nHi,x\n",
            "Unknown CSV column 'accounts'; the columns are content, account_ids, publish_mode, scheduled_at, "
            "media_ids.",
        ),
        ('content,account_ids\n"Hi,x\n', "The CSV cannot be read"),
        (HEADER, "The file has a header row but no rows under it."),
        ("", "The CSV needs a header row naming its columns."),
    ],
)
def test_a_file_that_is_no_csv_of_rows_is_refused_in_words(client, owner, text, said):
    response = _check(client, owner, text)

    assert response.status_code == 400
    assert _problem(response).startswith(said)


def test_check_without_a_file_asks_for_one(client, owner):
    response = _as(client, owner).post(f"{URL}?team={owner.team.pk}", {"action": "check"})

    assert response.status_code == 400
    assert _problem(response) == "Choose a CSV file to check."


def test_a_file_over_one_megabyte_is_refused(client, owner, accounts):
    text = HEADER + f"{'x' * 1024},{accounts.x.pk},draft,,\n" * 1100

    response = _check(client, owner, text)

    assert response.status_code == 400
    assert _problem(response) == "The file is larger than 1 MB: split it into parts."


def test_a_row_of_another_teams_account_is_refused(client, owner, outsider):
    theirs = sandbox_account(outsider.team, "x")

    response = _check(client, owner, HEADER + f"Hi,{theirs.pk},draft,,\n")

    [row] = _rows(response)
    assert row[2] == str(theirs.pk)  # not named: the account is not this team's
    assert row[4] != "OK"


def test_an_outsider_cannot_import_into_another_team(client, owner, outsider, accounts):
    response = _as(client, outsider).post(
        f"{URL}?team={owner.team.pk}", {"csv": HEADER + f"Hi,{accounts.x.pk},draft,,\n", "action": "create"}
    )

    assert response.status_code == 404
    assert Publish.objects.count() == 0

"""POST /api/v1/publishes/bulk: many creates in one request, from JSON or CSV, all or none."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from accounts.schedules import DAYS
from accounts.services import posting_schedule_set
from publishing.models import Publish
from teams.models import MonthlyUsage, Plan

pytestmark = pytest.mark.django_db

URL = "/api/v1/publishes/bulk"
EVERY_DAY_AT_NINE = [{"day": day, "time": "09:00"} for day in DAYS]


def _later(hours: int = 24) -> str:
    return (timezone.now() + dt.timedelta(hours=hours)).isoformat()


def _row(account, content="Hello", **fields):
    return {"content": content, "targets": [{"account_id": str(account.pk)}], **fields}


def _post(api, key, body, **headers):
    return api.as_(key).post(URL, body, format="json", headers=headers)


def _csv(api, key, text, query="", **headers):
    data = text.encode() if isinstance(text, str) else text
    return api.as_(key).post(URL + query, data, content_type="text/csv", headers=headers)


def _limit(team, posts):
    team.plan = Plan.objects.create(code=f"limit-{posts}", name=f"{posts} posts", posts_per_month=posts)
    team.save()


def test_a_batch_is_created_in_row_order(api, owner, accounts):
    posting_schedule_set(account=accounts.x, time_zone="UTC", slots=EVERY_DAY_AT_NINE)
    rows = [
        _row(accounts.x, "First", scheduled_at=_later()),
        _row(accounts.bluesky, "Second", publish_mode="draft"),
        _row(accounts.x, "Third", publish_mode="queue"),
        _row(accounts.x, "Fourth", publish_mode="queue"),
    ]

    response = _post(api, owner.key, {"publishes": rows})

    assert response.status_code == 201, response.json()
    data = response.json()["data"]
    assert [p["content"] for p in data] == ["First", "Second", "Third", "Fourth"]
    assert [p["status"] for p in data] == ["scheduled", "draft", "scheduled", "scheduled"]
    third, fourth = (dt.datetime.fromisoformat(p["scheduled_at"]) for p in data[2:])
    assert fourth - third == dt.timedelta(days=1)  # queued rows take successive slots
    listed = api.as_(owner.key).get("/api/v1/publishes").json()["data"]
    assert {p["id"] for p in listed} == {p["id"] for p in data}


def test_one_bad_row_creates_nothing_and_every_bad_row_is_named(api, owner, accounts):
    rows = [
        _row(accounts.x, "Fine"),
        _row(accounts.x, "x" * 300),  # over X's 280
        {"content": "No targets", "targets": []},
        _row(accounts.bluesky, "Fine too", scheduled_at="2001-01-01T00:00:00Z"),
    ]

    response = _post(api, owner.key, {"publishes": rows})

    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["type"], error["code"]) == ("invalid_request", "INVALID_ROWS")
    by_index = {row["index"]: row["problems"] for row in error["details"]["rows"]}
    assert sorted(by_index) == [1, 2, 3]
    assert [(p["field"], p["code"]) for p in by_index[1]] == [("targets[0].text", "TEXT_TOO_LONG")]
    assert by_index[2][0]["field"].startswith("targets")
    assert [(p["field"], p["code"]) for p in by_index[3]] == [("scheduled_at", "SCHEDULED_AT_NOT_FUTURE")]
    assert not Publish.objects.exists()


def test_a_dry_run_answers_each_rows_verdict_and_creates_nothing(api, owner, accounts):
    posting_schedule_set(account=accounts.x, time_zone="UTC", slots=EVERY_DAY_AT_NINE)
    rows = [_row(accounts.x, "Queued", publish_mode="queue"), _row(accounts.x, "Also", publish_mode="queue")]

    fine = _post(api, owner.key, {"publishes": rows, "dry_run": True})
    bad = _post(api, owner.key, {"publishes": [*rows, _row(accounts.x, "x" * 300)], "dry_run": True})

    assert fine.status_code == 200, fine.json()
    assert fine.json()["meta"] == {"valid": True, "status": 201}
    verdicts = fine.json()["data"]
    assert [(v["index"], v["valid"], v["status"]) for v in verdicts] == [(0, True, 201), (1, True, 201)]
    first, second = (dt.datetime.fromisoformat(v["scheduled_at"]) for v in verdicts)
    assert second - first == dt.timedelta(days=1)
    assert bad.json()["meta"] == {"valid": False, "status": 400}
    assert bad.json()["data"][2]["targets"][0]["problems"][0]["code"] == "TEXT_TOO_LONG"
    assert not Publish.objects.exists()


def test_a_batch_of_500_is_created_and_501_is_refused(api, owner, accounts):
    _limit(owner.team, None)
    rows = [_row(accounts.bluesky, f"Post {n}", scheduled_at=_later(1 + n)) for n in range(500)]

    created = _post(api, owner.key, {"publishes": rows})
    refused = _post(api, owner.key, {"publishes": [*rows, _row(accounts.bluesky)]})

    assert created.status_code == 201, created.json()
    assert [p["content"] for p in created.json()["data"]] == [f"Post {n}" for n in range(500)]
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == "TOO_MANY_ROWS"
    assert refused.json()["error"]["details"] == {"max_rows": 500, "row_count": 501}
    assert Publish.objects.count() == 500


def test_an_empty_batch_and_a_malformed_one_are_400s(api, owner):
    assert _post(api, owner.key, {"publishes": []}).json()["error"]["code"] == "NO_ROWS"
    malformed = _post(api, owner.key, {"publishes": "not a list"})
    assert (malformed.status_code, malformed.json()["error"]["code"]) == (400, "VALIDATION_ERROR")


def test_every_submitted_row_counts_against_the_quota(api, owner, accounts):
    _limit(owner.team, 3)
    rows = [_row(accounts.bluesky, f"Post {n}", scheduled_at=_later()) for n in range(4)]

    over = _post(api, owner.key, {"publishes": rows})
    dry = _post(api, owner.key, {"publishes": rows, "dry_run": True})
    with_a_draft = _post(api, owner.key, {"publishes": [*rows[:3], _row(accounts.bluesky, publish_mode="draft")]})

    assert (over.status_code, over.json()["error"]["code"]) == (429, "QUOTA_EXCEEDED")
    assert dry.json()["meta"] == {"valid": False, "status": 429}
    assert with_a_draft.status_code == 201, with_a_draft.json()
    assert Publish.objects.count() == 4  # the refused batch left nothing
    assert MonthlyUsage.objects.get(team=owner.team).posts == 3


def test_an_idempotency_key_covers_the_whole_batch(api, owner, accounts):
    rows = [_row(accounts.bluesky, f"Post {n}", scheduled_at=_later()) for n in range(3)]

    first = _post(api, owner.key, {"publishes": rows}, **{"Idempotency-Key": "batch-1"})
    again = _post(api, owner.key, {"publishes": rows}, **{"Idempotency-Key": "batch-1"})
    other = _post(api, owner.key, {"publishes": rows[:1]}, **{"Idempotency-Key": "batch-1"})

    assert first.status_code == again.status_code == 201
    assert again.json() == first.json()
    assert (other.status_code, other.json()["error"]["code"]) == (409, "IDEMPOTENCY_KEY_REUSED")
    assert Publish.objects.count() == 3


def test_a_refused_batch_frees_its_idempotency_key(api, owner, accounts):
    bad = [_row(accounts.bluesky, "Past", scheduled_at="2001-01-01T00:00:00Z")]
    good = [_row(accounts.bluesky, "Future", scheduled_at=_later())]

    assert _post(api, owner.key, {"publishes": bad}, **{"Idempotency-Key": "k"}).status_code == 400
    # The key names a different body now: only a replay of a created batch is kept.
    assert _post(api, owner.key, {"publishes": good}, **{"Idempotency-Key": "k"}).status_code == 201


def test_bulk_needs_posts_write(api, owner, accounts):
    response = _post(api, owner.key_with("posts:read"), {"publishes": [_row(accounts.bluesky)]})

    assert response.status_code == 403


# --- CSV ---------------------------------------------------------------------------------------


def test_a_csv_is_created_with_its_quoting_kept(api, owner, accounts):
    text = (
        "\ufeffcontent,account_ids,publish_mode,scheduled_at,media_ids\r\n"
        f'"Hello, world",{accounts.x.pk} {accounts.bluesky.pk},scheduled,{_later()},\r\n'
        f'"She said ""hi""\nand left 👋",{accounts.bluesky.pk},draft,,\r\n'
    )

    response = _csv(api, owner.key, text)

    assert response.status_code == 201, response.json()
    first, second = response.json()["data"]
    assert first["content"] == "Hello, world"
    assert {t["account_id"] for t in first["targets"]} == {str(accounts.x.pk), str(accounts.bluesky.pk)}
    assert (second["content"], second["status"]) == ('She said "hi"\nand left 👋', "draft")


def test_a_csv_may_leave_out_columns_and_order_them_freely(api, owner, accounts):
    text = f"account_ids,content\n{accounts.bluesky.pk},Only two columns\n"

    response = _csv(api, owner.key, text, "?dry_run=true")

    assert response.status_code == 200, response.json()
    assert response.json()["meta"] == {"valid": True, "status": 201}
    assert not Publish.objects.exists()


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("content,account_ids,colour\nHi,abc,red\n", "CSV_UNKNOWN_COLUMNS"),
        ("content\nHi\n", "CSV_INVALID"),
        ('content,account_ids\n"Unclosed,abc\n', "CSV_INVALID"),
        ("content,account_ids\nHi,abc,extra\n", "CSV_INVALID"),
        ("", "CSV_NO_HEADER"),
        ("content,account_ids\n", "NO_ROWS"),
    ],
)
def test_a_malformed_csv_is_a_400(api, owner, text, code):
    response = _csv(api, owner.key, text)

    assert (response.status_code, response.json()["error"]["code"]) == (400, code)


def test_a_csv_that_is_not_utf8_is_a_400(api, owner, accounts):
    text = f"content,account_ids\nCafé,{accounts.bluesky.pk}\n".encode("latin-1")

    response = _csv(api, owner.key, text)

    assert (response.status_code, response.json()["error"]["code"]) == (400, "CSV_NOT_UTF8")
    assert not Publish.objects.exists()


def test_a_csv_row_with_a_bad_cell_is_named_by_its_index(api, owner, accounts):
    text = f"content,account_ids,scheduled_at\nFine,{accounts.bluesky.pk},\nBad time,{accounts.bluesky.pk},soon\n"

    response = _csv(api, owner.key, text)

    assert response.status_code == 400
    rows = response.json()["error"]["details"]["rows"]
    assert [row["index"] for row in rows] == [1]
    assert rows[0]["problems"][0]["field"] == "scheduled_at"

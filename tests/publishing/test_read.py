"""GET /api/v1/publishes and GET /api/v1/publishes/{id}: the team's publishes, newest first,
paged and filtered, each with its targets' delivery state and failure evidence."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from django.utils import timezone

from config import pagination
from demo.seed import sandbox_account
from publishing.models import Target
from publishing.serializers import AttemptSerializer

pytestmark = pytest.mark.django_db

URL = "/api/v1/publishes"


def _create(api, key, accounts, content="Hi", **fields):
    body = {"content": content, "targets": [{"account_id": str(a.pk)} for a in accounts], **fields}
    response = api.as_(key).post(URL, body, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["data"]["id"]


def _draft(api, key, account, content="Draft"):
    return _create(api, key, [account], content, publish_mode="draft")


def _list(api, key, **params):
    return api.as_(key).get(URL, params)


def _ids(response):
    assert response.status_code == 200, response.json()
    return [p["id"] for p in response.json()["data"]]


def _error(response):
    return response.json()["error"]


# --- list: order and paging -------------------------------------------------------------------


def test_list_shows_newest_first(api, owner, accounts):
    made = [_draft(api, owner.key, accounts.x, f"draft {n}") for n in range(3)]

    response = _list(api, owner.key)

    assert _ids(response) == made[::-1]
    assert [p["content"] for p in response.json()["data"]] == ["draft 2", "draft 1", "draft 0"]


def test_list_pages_by_20_by_default(api, owner, accounts):
    made = [_draft(api, owner.key, accounts.x, f"draft {n}") for n in range(21)]

    first = _list(api, owner.key)
    second = _list(api, owner.key, page=2)

    assert set(first.json()) == {"data", "pagination"}
    assert _ids(first) == made[::-1][:20]
    pagination = first.json()["pagination"]
    assert pagination["page"] == 1
    assert pagination["page_size"] == 20
    assert pagination["total_count"] == 21
    assert pagination["total_pages"] == 2
    assert _ids(second) == [made[0]]


def test_page_size_chooses_the_page_length(api, owner, accounts):
    made = [_draft(api, owner.key, accounts.x, f"draft {n}") for n in range(3)]

    page = _list(api, owner.key, page_size=2, page=2)

    assert _ids(page) == [made[0]]
    assert page.json()["pagination"]["page_size"] == 2
    assert page.json()["pagination"]["total_pages"] == 2


def test_page_size_100_is_allowed(api, owner, accounts):
    _draft(api, owner.key, accounts.x)

    response = _list(api, owner.key, page_size=100)

    assert response.status_code == 200
    assert response.json()["pagination"]["page_size"] == 100


@pytest.mark.parametrize("params", [{"page_size": 101}, {"page_size": 0}, {"page": 0}, {"page": "first"}])
def test_bad_paging_is_refused(api, owner, params):
    response = _list(api, owner.key, **params)

    assert response.status_code == 400
    assert _error(response)["type"] == "invalid_request"


# --- list: filters ---------------------------------------------------------------------------


@pytest.fixture
def mixed(api, owner, accounts, sandbox):
    """One publish in each of draft, scheduled, published (x), published (bluesky),
    published (both) and failed (x)."""
    later = (timezone.now() + dt.timedelta(days=1)).isoformat()
    made = {
        "draft": _draft(api, owner.key, accounts.x),
        "scheduled": _create(api, owner.key, [accounts.x], "Later", scheduled_at=later),
        "x": _create(api, owner.key, [accounts.x], "X only"),
        "bluesky": _create(api, owner.key, [accounts.bluesky], "Bluesky only"),
        "both": _create(api, owner.key, [accounts.x, accounts.bluesky], "Both"),
    }
    sandbox.outcomes("x", "error")
    made["failed"] = _create(api, owner.key, [accounts.x], "Refused")
    return made


def test_status_filter_takes_a_comma_list(api, owner, mixed):
    assert set(_ids(_list(api, owner.key, status="draft,scheduled"))) == {mixed["draft"], mixed["scheduled"]}
    assert set(_ids(_list(api, owner.key, status="published"))) == {mixed["x"], mixed["bluesky"], mixed["both"]}
    assert _ids(_list(api, owner.key, status="failed")) == [mixed["failed"]]
    assert _ids(_list(api, owner.key, status="partial")) == []


def test_platform_filter_takes_a_comma_list(api, owner, mixed):
    assert set(_ids(_list(api, owner.key, platform="bluesky"))) == {mixed["bluesky"], mixed["both"]}
    assert set(_ids(_list(api, owner.key, platform="x,bluesky"))) == set(mixed.values())
    assert _ids(_list(api, owner.key, platform="instagram")) == []


def test_account_filter_lists_publishes_with_a_target_on_it(api, owner, accounts, mixed):
    found = set(_ids(_list(api, owner.key, account_id=str(accounts.bluesky.pk))))

    assert found == {mixed["bluesky"], mixed["both"]}
    assert _ids(_list(api, owner.key, account_id=str(uuid.uuid4()))) == []


def test_created_after_lists_only_later_publishes(api, owner, accounts):
    first = _draft(api, owner.key, accounts.x, "first")
    created_at = api.as_(owner.key).get(f"{URL}/{first}").json()["data"]["created_at"]
    second = _draft(api, owner.key, accounts.x, "second")
    third = _draft(api, owner.key, accounts.x, "third")

    assert _ids(_list(api, owner.key, created_after=created_at)) == [third, second]
    assert _ids(_list(api, owner.key, created_after=(timezone.now() + dt.timedelta(hours=1)).isoformat())) == []


def test_created_before_continues_a_list_longer_than_its_pages_reach(api, owner, accounts, monkeypatch):
    """Past the pages' reach, the recipe the docs give (created_before just past the last item
    seen, skipping ids already seen) walks the rest of the list, every publish once."""
    monkeypatch.setattr(pagination, "EXACT_COUNT_LIMIT", 3)
    made = [_draft(api, owner.key, accounts.x, f"post {n}") for n in range(7)]
    walked: list[str] = []
    query: dict[str, str] = {"page_size": "2"}
    while True:
        page, last = 1, None
        while page is not None:
            body = _list(api, owner.key, **query, page=str(page)).json()
            walked += [item["id"] for item in body["data"] if item["id"] not in walked]
            last = body["data"][-1] if body["data"] else last
            page = body["pagination"]["next_page"]
        if body["pagination"]["total_count_exact"] or last is None:
            break
        moment = dt.datetime.fromisoformat(last["created_at"].replace("Z", "+00:00"))
        query["created_before"] = (moment + dt.timedelta(microseconds=1)).isoformat()

    assert walked == made[::-1]  # newest first, each once


def test_filters_combine(api, owner, accounts, mixed):
    response = _list(api, owner.key, status="published,failed", platform="x", account_id=str(accounts.x.pk))

    assert set(_ids(response)) == {mixed["x"], mixed["both"], mixed["failed"]}
    assert _ids(_list(api, owner.key, status="draft", platform="bluesky")) == []


@pytest.mark.parametrize(
    "params",
    [
        {"status": "sent"},
        {"status": "draft,sent"},
        {"platform": "myspace"},
        {"platform": "x,myspace"},
        {"account_id": "not-a-uuid"},
        {"created_after": "yesterday"},
        {"created_after": "2024-13-40"},
        {"created_before": "tomorrow"},
    ],
    ids=lambda p: "-".join(f"{k}={v}" for k, v in p.items()),
)
def test_bad_filter_values_are_refused(api, owner, params):
    response = _list(api, owner.key, **params)

    assert response.status_code == 400
    assert _error(response)["type"] == "invalid_request"
    assert set(params) <= set(_error(response)["details"])


# --- other teams ------------------------------------------------------------------------------


def test_another_teams_publish_is_not_found_and_not_listed(api, owner, outsider, accounts):
    their_account = sandbox_account(outsider.team, "x")
    theirs = _draft(api, outsider.key, their_account, "Theirs")
    ours = _draft(api, owner.key, accounts.x, "Ours")

    response = api.as_(owner.key).get(f"{URL}/{theirs}")

    assert response.status_code == 404
    assert _error(response)["type"] == "not_found"
    assert _ids(_list(api, owner.key)) == [ours]
    assert _ids(_list(api, owner.key, account_id=str(their_account.pk))) == []
    assert _ids(_list(api, outsider.key)) == [theirs]


def test_unknown_publish_is_not_found(api, owner):
    response = api.as_(owner.key).get(f"{URL}/{uuid.uuid4()}")

    assert response.status_code == 404
    assert _error(response)["type"] == "not_found"


def test_malformed_publish_id_is_not_found(api, owner):
    response = api.as_(owner.key).get(f"{URL}/not-a-uuid")

    assert response.status_code == 404
    assert _error(response)["type"] == "not_found"


def test_reading_needs_a_key_with_posts_read(api, owner, accounts):
    publish_id = _draft(api, owner.key, accounts.x)
    key = owner.key_with("accounts:read")

    assert api.as_(None).get(URL).status_code == 401
    assert api.as_(key).get(URL).status_code == 403
    assert _error(api.as_(key).get(f"{URL}/{publish_id}"))["type"] == "authorization_error"


# --- the record ------------------------------------------------------------------------------


def test_publish_record_has_its_fields_under_data(api, owner, accounts, sandbox):
    publish_id = _create(api, owner.key, [accounts.x, accounts.bluesky], "Hello")

    response = api.as_(owner.key).get(f"{URL}/{publish_id}")

    assert response.status_code == 200
    data = response.json()["data"]
    assert uuid.UUID(data["id"]).version == 7
    assert data["id"] == publish_id
    assert data["status"] == "published"
    assert data["approval_status"] is None
    assert data["content"] == "Hello"
    assert data["media_ids"] == []
    assert data["publish_mode"] == "immediate"
    assert data["scheduled_at"] is None
    assert [t["account_id"] for t in data["targets"]] == [str(accounts.x.pk), str(accounts.bluesky.pk)]
    for target, platform in zip(data["targets"], ("x", "bluesky"), strict=True):
        assert target["platform"] == platform
        assert target["status"] == "published"
        assert target["outcome"] == "published"
        assert target["platform_post_id"]
        assert target["platform_post_url"].startswith("https://")
        assert target["error"] is None
        assert [(a["number"], a["state"]) for a in target["attempts"]] == [(1, "published")]
    x_post = next(p for p in sandbox.posts("x"))
    assert data["targets"][0]["platform_post_id"] == x_post["id"]


def test_listed_records_match_the_single_record(api, owner, accounts, sandbox):
    publish_id = _create(api, owner.key, [accounts.x], "Same everywhere")

    listed = _list(api, owner.key).json()["data"][0]
    single = api.as_(owner.key).get(f"{URL}/{publish_id}").json()["data"]

    assert listed == single


def test_timestamps_are_iso_8601_utc(api, owner, accounts):
    when = timezone.now() + dt.timedelta(days=2)
    publish_id = _create(api, owner.key, [accounts.x], "Later", scheduled_at=when.isoformat())

    data = api.as_(owner.key).get(f"{URL}/{publish_id}").json()["data"]

    for value in (data["scheduled_at"], data["created_at"]):
        parsed = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        assert parsed.utcoffset() == dt.timedelta(0)
    assert dt.datetime.fromisoformat(data["scheduled_at"].replace("Z", "+00:00")) == when


def test_failed_target_shows_its_error_evidence(api, owner, accounts, sandbox):
    sandbox.outcomes("x", "error")
    publish_id = _create(api, owner.key, [accounts.x, accounts.bluesky], "Half of it")

    data = api.as_(owner.key).get(f"{URL}/{publish_id}").json()["data"]

    assert data["status"] == "partial"
    failed, published = data["targets"]
    assert failed["platform"] == "x"
    assert failed["status"] == "failed"
    assert failed["outcome"] == "failed"
    assert failed["platform_post_id"] is None
    assert failed["platform_post_url"] is None
    assert failed["error"]["code"]
    assert failed["error"]["message"]
    attempt = failed["attempts"][0]
    assert attempt["state"] == "failed"
    assert attempt["http_status"] == 403
    assert attempt["error_code"] == failed["error"]["code"]
    assert published["status"] == "published"
    assert published["error"] is None
    assert [p["platform"] for p in sandbox.posts()] == ["bluesky"]
    assert _ids(_list(api, owner.key, status="partial")) == [publish_id]


def test_attempts_read_with_their_targets_show_what_is_stored(api, owner, accounts, sandbox):
    """Attempts come in the targets' query as JSON: each shows exactly what its row holds,
    times included, in attempt order, in one read and in the list alike."""
    sandbox.outcomes("x", "error")
    publish_id = _create(api, owner.key, [accounts.x, accounts.bluesky], "Twice on X")
    api.as_(owner.key).post(f"{URL}/{publish_id}/retry", {}, format="json")
    stored = {
        str(t.pk): AttemptSerializer(t.attempts.order_by("number"), many=True).data
        for t in Target.objects.filter(publish_id=publish_id)
    }

    one = api.as_(owner.key).get(f"{URL}/{publish_id}").json()["data"]
    listed = next(p for p in _list(api, owner.key).json()["data"] if p["id"] == publish_id)

    for data in (one, listed):
        assert {t["id"]: t["attempts"] for t in data["targets"]} == stored
    assert [a["number"] for a in stored[one["targets"][0]["id"]]] == [1, 2]

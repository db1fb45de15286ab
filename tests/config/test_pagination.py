"""`page` / `page_size` paging on GET /api/v1/accounts (default 50, at most 100)."""

from __future__ import annotations

import pytest

from config import pagination
from tests.factories import SocialAccountFactory

pytestmark = pytest.mark.django_db

TOTAL = 55
BAD_NUMBERS = [
    pytest.param("0", id="zero"),
    pytest.param("-1", id="negative"),
    pytest.param("abc", id="letters"),
    pytest.param("1.5", id="decimal"),
    pytest.param("²", id="superscript two"),
    pytest.param("\uff12", id="fullwidth two"),
    pytest.param("1e2", id="exponent"),
    pytest.param("+5", id="plus sign"),
    pytest.param(" 5", id="leading blank"),
    pytest.param("0x10", id="hex"),
    pytest.param("9" * 30, id="huge"),
]


@pytest.fixture
def accounts(owner):
    return SocialAccountFactory.create_batch(TOTAL, team=owner.team)


def _page(api, owner, query=""):
    return api.as_(owner.key).get(f"/api/v1/accounts{query}")


def _ok(response):
    assert response.status_code == 200, response.content
    return response.json()


def _assert_invalid_pagination(response, name):
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert (error["type"], error["code"]) == ("invalid_request", "INVALID_PAGINATION")
    assert set(error["details"]) == {name}
    assert name in error["message"]
    assert error["request_id"] == response["X-Request-ID"]


def test_accounts_default_to_50_per_page(api, owner, accounts):
    body = _ok(_page(api, owner))

    assert len(body["data"]) == 50
    assert body["pagination"] == {
        "page": 1,
        "page_size": 50,
        "total_count": TOTAL,
        "total_count_exact": True,
        "total_pages": 2,
        "next_page": 2,
        "previous_page": None,
    }


def test_last_page_holds_the_rest(api, owner, accounts):
    body = _ok(_page(api, owner, "?page=2"))

    assert len(body["data"]) == TOTAL - 50
    assert body["pagination"] == {
        "page": 2,
        "page_size": 50,
        "total_count": TOTAL,
        "total_count_exact": True,
        "total_pages": 2,
        "next_page": None,
        "previous_page": 1,
    }


def test_empty_values_fall_back_to_the_defaults(api, owner, accounts):
    body = _ok(_page(api, owner, "?page=&page_size="))

    assert (body["pagination"]["page"], body["pagination"]["page_size"]) == (1, 50)
    assert len(body["data"]) == 50


def test_page_size_100_is_allowed(api, owner, accounts):
    body = _ok(_page(api, owner, "?page_size=100"))

    assert len(body["data"]) == TOTAL
    assert body["pagination"]["page_size"] == 100
    assert body["pagination"]["total_pages"] == 1
    assert body["pagination"]["next_page"] is None


def test_page_size_above_100_is_refused(api, owner, accounts):
    response = _page(api, owner, "?page_size=101")

    _assert_invalid_pagination(response, "page_size")
    assert response.json()["error"]["details"] == {"page_size": "101"}


@pytest.mark.parametrize("value", BAD_NUMBERS)
def test_bad_page_size_is_refused(api, owner, value):
    _assert_invalid_pagination(api.as_(owner.key).get("/api/v1/accounts", {"page_size": value}), "page_size")


@pytest.mark.parametrize("value", [*BAD_NUMBERS, pytest.param("1000001", id="beyond the last allowed page")])
def test_bad_page_is_refused(api, owner, value):
    _assert_invalid_pagination(api.as_(owner.key).get("/api/v1/accounts", {"page": value}), "page")


def test_page_past_the_end_is_empty_with_the_true_totals(api, owner, accounts):
    body = _ok(_page(api, owner, "?page=9&page_size=10"))

    assert body["data"] == []
    pagination = body["pagination"]
    assert (pagination["page"], pagination["page_size"]) == (9, 10)
    assert (pagination["total_count"], pagination["total_pages"]) == (TOTAL, 6)
    assert pagination["next_page"] is None
    assert pagination["previous_page"] == 6  # the last page that has items


def test_empty_list_has_no_pages(api, owner):
    body = _ok(_page(api, owner))

    assert body["data"] == []
    assert body["pagination"]["total_count"] == 0
    assert body["pagination"]["total_pages"] == 0
    assert body["pagination"]["next_page"] is None


def test_walking_the_pages_sees_every_item_exactly_once_in_a_stable_order(api, owner, accounts):
    walked, page = [], 1
    while page is not None:
        body = _ok(_page(api, owner, f"?page={page}&page_size=10"))
        walked += [account["id"] for account in body["data"]]
        page = body["pagination"]["next_page"]

    assert len(walked) == TOTAL
    assert len(set(walked)) == TOTAL
    assert {str(account.pk) for account in accounts} == set(walked)
    assert walked == [account["id"] for account in _ok(_page(api, owner, "?page_size=100"))["data"]]


def test_past_the_exact_limit_the_pages_reach_that_far_and_say_so(api, owner, accounts, monkeypatch):
    """A long list is counted up to EXACT_COUNT_LIMIT only, and its pages reach that far: the
    totals say so (flagged inexact), the last reachable page leads nowhere, and a page beyond
    is refused with where the pages end, rather than skipping a whole history to answer."""
    monkeypatch.setattr(pagination, "EXACT_COUNT_LIMIT", 20)
    walked, page, seen = [], 1, []
    while page is not None:
        body = _ok(_page(api, owner, f"?page={page}&page_size=10"))
        walked += [account["id"] for account in body["data"]]
        seen.append(body["pagination"])
        page = body["pagination"]["next_page"]

    everything = [account["id"] for account in _ok(_page(api, owner, "?page_size=100"))["data"]]
    assert walked == everything[:20]
    assert {(p["total_count"], p["total_count_exact"], p["total_pages"]) for p in seen} == {(20, False, 2)}
    assert [p["next_page"] for p in seen] == [2, None]
    beyond = _page(api, owner, "?page=3&page_size=10")
    assert beyond.status_code == 400, beyond.content
    error = beyond.json()["error"]
    assert (error["type"], error["code"]) == ("invalid_request", "PAGE_OUT_OF_REACH")
    assert error["details"] == {"page": 3, "last_page": 2}
    assert "first 20 items" in error["message"]
    assert _ok(_page(api, owner, "?page=3&page_size=7"))["pagination"]["next_page"] is None  # 7 x 3 reach 20


def test_up_to_the_limit_the_count_is_exact(api, owner, accounts, monkeypatch):
    monkeypatch.setattr(pagination, "EXACT_COUNT_LIMIT", TOTAL)
    body = _ok(_page(api, owner, "?page_size=10"))

    assert (body["pagination"]["total_count"], body["pagination"]["total_count_exact"]) == (TOTAL, True)

"""GET /api/v1/analytics/posts and /api/v1/analytics/posts/{id} after syncs through the sandbox."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from django.utils import timezone

from accounts.services import account_mark_expired
from analytics import services
from publishing.models import Target

pytestmark = pytest.mark.django_db

LIST = "/api/v1/analytics/posts"


def listed(api, key, **params):
    response = api.as_(key).get(LIST, params)
    assert response.status_code == 200, response.json()
    return response.json()


def detail(api, key, publish_id):
    response = api.as_(key).get(f"{LIST}/{publish_id}")
    assert response.status_code == 200, response.json()
    return response.json()["data"]


def test_totals_add_up_across_platforms(api, owner, posts, accounts):
    publish_id = posts.publish(accounts.x, accounts.bluesky, accounts.linkedin)
    posts.set_metrics(publish_id, "x", views=100, likes=10, comments=2, shares=3)
    posts.set_metrics(publish_id, "bluesky", views=999, likes=5, comments=1, shares=4)
    posts.set_metrics(publish_id, "linkedin", views=50, likes=7, comments=3, shares=1)
    services.metrics_sync()

    [post] = listed(api, owner.key)["data"]

    assert post["id"] == publish_id
    assert post["content"] == "Hello analytics"
    assert post["platforms"] == ["bluesky", "linkedin", "x"]
    metrics = post["metrics"]
    assert (metrics["total_likes"], metrics["total_comments"], metrics["total_shares"]) == (22, 6, 8)
    # Bluesky reports no views (its 999 is never read); LinkedIn's are its impressions.
    assert metrics["total_views"] == 150
    assert metrics["last_sync_at"] is not None
    first = Target.objects.filter(publish_id=publish_id).order_by("published_at").first()
    assert post["published_at"] == first.published_at.isoformat().replace("+00:00", "Z")


def test_the_detail_lists_each_platforms_metrics_and_data(api, owner, posts, accounts):
    publish_id = posts.publish(accounts.x, accounts.bluesky)
    posts.set_metrics(publish_id, "x", views=100, likes=10, comments=2, shares=3)
    posts.set_metrics(publish_id, "bluesky", likes=5, comments=1, shares=4)
    services.metrics_sync()

    data = detail(api, owner.key, publish_id)

    assert data["metrics"]["total_views"] == 100
    assert data["metrics"]["total_likes"] == 15
    entries = {entry["platform"]: entry for entry in data["platforms"]}
    assert set(entries) == {"x", "bluesky"}
    x = entries["x"]
    target = posts.target(publish_id, "x")
    assert x["account_id"] == str(accounts.x.pk)
    assert x["platform_post_id"] == target.platform_post_id
    assert x["platform_post_url"] == target.platform_post_url
    assert x["metrics"]["views"] == 100
    assert x["metrics"]["likes"] == 10
    assert x["metrics"]["last_sync_at"] is not None
    assert x["platform_specific_data"]["impression_count"] == 100
    assert x["sync_error"] is None
    assert entries["bluesky"]["metrics"]["views"] is None
    assert entries["bluesky"]["metrics"]["shares"] == 4


def test_last_sync_at_is_null_and_totals_zero_before_the_first_sync(api, owner, posts, accounts):
    publish_id = posts.publish(accounts.x)

    [post] = listed(api, owner.key)["data"]
    assert post["metrics"] == {
        "total_views": 0,
        "total_likes": 0,
        "total_comments": 0,
        "total_shares": 0,
        "last_sync_at": None,
    }
    entry = detail(api, owner.key, publish_id)["platforms"][0]
    assert entry["metrics"] == {"views": None, "likes": 0, "comments": 0, "shares": 0, "last_sync_at": None}
    assert entry["sync_error"] is None


def test_only_published_targets_count_and_posts_without_one_are_not_listed(api, owner, posts, accounts, sandbox):
    sandbox.outcomes("bluesky", "error")
    partial = posts.publish(accounts.x, accounts.bluesky, content="partial")
    sandbox.outcomes("linkedin", "error")
    failed = posts.publish(accounts.linkedin, content="failed")
    draft = posts.publish(accounts.x, content="draft", publish_mode="draft")
    future = (timezone.now() + dt.timedelta(days=1)).isoformat()
    scheduled = posts.publish(accounts.x, content="scheduled", scheduled_at=future)
    posts.set_metrics(partial, "x", views=30, likes=3)
    services.metrics_sync()

    [post] = listed(api, owner.key)["data"]

    assert post["id"] == partial
    assert post["platforms"] == ["x"]
    assert (post["metrics"]["total_views"], post["metrics"]["total_likes"]) == (30, 3)
    assert [entry["platform"] for entry in detail(api, owner.key, partial)["platforms"]] == ["x"]
    for publish_id in (failed, draft, scheduled):
        assert api.get(f"{LIST}/{publish_id}").status_code == 404


@pytest.fixture
def three_posts(posts, accounts):
    """Three x posts, oldest first, each leading on a different counter."""
    values = [
        {"views": 30, "likes": 1, "comments": 9, "shares": 5},
        {"views": 10, "likes": 7, "comments": 2, "shares": 1},
        {"views": 20, "likes": 4, "comments": 5, "shares": 9},
    ]
    ids = []
    for i, counts in enumerate(values):
        publish_id = posts.publish(accounts.x, content=f"post {i}")
        posts.set_metrics(publish_id, "x", **counts)
        ids.append(publish_id)
    services.metrics_sync()
    return ids, values


def test_the_default_order_is_newest_published_first(api, owner, three_posts):
    ids, _ = three_posts

    assert [p["id"] for p in listed(api, owner.key)["data"]] == ids[::-1]
    assert [p["id"] for p in listed(api, owner.key, order="asc")["data"]] == ids
    assert [p["id"] for p in listed(api, owner.key, sort="published_at", order="desc")["data"]] == ids[::-1]


@pytest.mark.parametrize("counter", ["views", "likes", "comments", "shares"])
@pytest.mark.parametrize("order", ["asc", "desc"])
def test_sorting_by_each_total_in_both_orders(api, owner, three_posts, counter, order):
    ids, values = three_posts
    expected = [i for _, i in sorted(zip((v[counter] for v in values), ids, strict=True), reverse=order == "desc")]

    got = listed(api, owner.key, sort=f"total_{counter}", order=order)["data"]

    assert [p["id"] for p in got] == expected
    totals = [p["metrics"][f"total_{counter}"] for p in got]
    assert totals == sorted(totals, reverse=order == "desc")


@pytest.mark.parametrize("sort", ["published_at", "total_views", "total_comments"])
@pytest.mark.parametrize("platform", [None, "x"])
def test_each_page_holds_its_slice_of_the_whole_list_with_its_sums(api, owner, three_posts, sort, platform):
    """A page past the first is read as its ids, then those posts with their sums: it must
    hold what the same place of one long page holds, sums included."""
    query = {"sort": sort} | ({"platform": platform} if platform else {})
    whole = listed(api, owner.key, page_size=100, **query)["data"]

    pages = [listed(api, owner.key, page_size=1, page=n, **query)["data"] for n in (1, 2, 3, 4)]

    assert pages == [[post] for post in whole] + [[]]
    assert [post["metrics"]["total_views"] for post in whole] != [0, 0, 0]


def test_ties_keep_a_stable_order_across_pages(api, owner, posts, accounts):
    ids = sorted(posts.publish(accounts.x, content=f"tie {i}") for i in range(3))

    first = listed(api, owner.key, sort="total_likes", order="asc", page_size=2)
    second = listed(api, owner.key, sort="total_likes", order="asc", page_size=2, page=2)

    assert [p["id"] for p in first["data"] + second["data"]] == ids
    assert first["pagination"]["total_count"] == 3


def test_the_platform_filter_limits_the_targets_and_posts(api, owner, posts, accounts):
    both = posts.publish(accounts.x, accounts.bluesky, content="both")
    bluesky_only = posts.publish(accounts.bluesky, content="bluesky only")
    posts.set_metrics(both, "x", likes=10)
    posts.set_metrics(both, "bluesky", likes=1)
    posts.set_metrics(bluesky_only, "bluesky", likes=2)
    services.metrics_sync()

    [only_x] = listed(api, owner.key, platform="x")["data"]
    assert only_x["id"] == both
    assert only_x["platforms"] == ["x"]
    assert only_x["metrics"]["total_likes"] == 10
    on_bluesky = listed(api, owner.key, platform="bluesky", sort="total_likes")["data"]
    assert [(p["id"], p["metrics"]["total_likes"]) for p in on_bluesky] == [(bluesky_only, 2), (both, 1)]
    assert len(listed(api, owner.key, platform="x,bluesky")["data"]) == 2
    assert listed(api, owner.key, platform="tiktok")["data"] == []


@pytest.mark.parametrize(
    "params", [{"sort": "popularity"}, {"order": "up"}, {"platform": "myspace"}, {"platform": "x,,orkut"}]
)
def test_bad_filter_values_are_refused(api, owner, params):
    response = api.as_(owner.key).get(LIST, params)

    assert response.status_code == 400
    assert response.json()["error"]["type"] == "invalid_request"


def test_page_size_defaults_to_20_and_allows_at_most_100(api, owner):
    assert listed(api, owner.key)["pagination"]["page_size"] == 20
    assert api.as_(owner.key).get(LIST, {"page_size": 101}).status_code == 400


def test_an_expired_accounts_target_shows_why_it_was_not_synced(api, owner, posts, accounts):
    publish_id = posts.publish(accounts.x, accounts.bluesky)
    posts.set_metrics(publish_id, "bluesky", likes=4)
    account_mark_expired(account=accounts.x, reason="Revoked.")
    services.metrics_sync()

    entries = {e["platform"]: e for e in detail(api, owner.key, publish_id)["platforms"]}

    assert "re-authorize" in entries["x"]["sync_error"]
    assert entries["x"]["metrics"]["last_sync_at"] is None
    assert entries["bluesky"]["sync_error"] is None
    assert entries["bluesky"]["metrics"]["likes"] == 4


def test_another_teams_post_is_never_listed_and_is_404(api, owner, outsider, posts, accounts, other_posts):
    theirs, their_accounts = other_posts
    their_post = theirs.publish(their_accounts.x)
    ours = posts.publish(accounts.x)
    services.metrics_sync()

    assert [p["id"] for p in listed(api, owner.key)["data"]] == [ours]
    response = api.as_(owner.key).get(f"{LIST}/{their_post}")
    assert response.status_code == 404
    assert response.json()["error"]["type"] == "not_found"
    assert [p["id"] for p in listed(api, outsider.key)["data"]] == [their_post]


def test_an_absent_post_is_404(api, owner):
    response = api.as_(owner.key).get(f"{LIST}/{uuid.uuid4()}")

    assert response.status_code == 404
    assert response.json()["error"]["type"] == "not_found"


def test_analytics_read_scope_is_required(api, owner, posts, accounts):
    publish_id = posts.publish(accounts.x)
    without = owner.key_with("posts:read", "accounts:read")
    with_scope = owner.key_with("analytics:read")

    for path in (LIST, f"{LIST}/{publish_id}"):
        response = api.as_(without).get(path)
        assert response.status_code == 403
        assert response.json()["error"]["type"] == "authorization_error"
        assert api.as_(with_scope).get(path).status_code == 200
    assert api.as_(None).get(LIST).status_code == 401


def test_the_list_takes_a_fixed_number_of_queries(api, owner, posts, accounts, django_assert_max_num_queries):
    for i in range(4):
        posts.publish(accounts.x, accounts.bluesky, content=f"q {i}")
    services.metrics_sync()

    api.as_(owner.key)
    with django_assert_max_num_queries(8):
        assert len(api.get(LIST).json()["data"]) == 4

"""The analytics pages of the dashboard, through Django's test client: the posts with their
totals sorted and filtered as the API does, the totals per platform, and one post's metrics
per platform with the chart of its samples. Metrics come from syncs through the sandbox."""

from __future__ import annotations

import datetime as dt
import html
import re

import pytest
from django.db import connection
from django.db.models import CharField
from django.db.models.functions import Cast
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from analytics import services, totals, views
from analytics.chart import BOTTOM, HEIGHT, TOP, metrics_charts, post_moments, time_ticks
from analytics.models import MetricsSample, PostMetrics
from analytics.selectors import analytics_platform_totals
from publishing import inputs, lifecycle
from publishing.links import live_link
from publishing.models import Publish, PublishMode, Target, TargetState
from teams import services as team_services

pytestmark = pytest.mark.django_db

LIST = "/dashboard/analytics/"


def _get(client, persona, path=LIST, **params):
    client.force_login(persona.user)
    response = client.get(path, params)
    assert response.status_code == 200
    return response.content.decode()


def _row_ids(page):
    return re.findall(r'<tr id="post-([0-9a-f-]+)"', page)


def _row(page, element_id):
    found = re.search(rf'<tr id="{element_id}">(.*?)</tr>', page, re.S)
    assert found, element_id
    return found.group(1)


def _cell(row, label):
    found = re.search(rf'data-label="{label}">(.*?)</t[dh]>', row, re.S)
    assert found, label
    return re.sub(r"<[^>]+>", "", found.group(1)).strip()


def _sync(at=None):
    services.metrics_sync(now=at)


@pytest.fixture
def three_posts(posts, accounts):
    """Three X posts, oldest first, each leading on a different counter (as the API's tests)."""
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
    _sync()
    return ids


# --- the list --------------------------------------------------------------------------------


def test_the_list_shows_each_posts_totals_and_last_sync(client, owner, posts, accounts):
    publish_id = posts.publish(accounts.x, accounts.bluesky, content="Two networks")
    posts.set_metrics(publish_id, "x", views=1200, likes=10, comments=2, shares=3)
    posts.set_metrics(publish_id, "bluesky", likes=5, comments=1, shares=4)
    _sync()

    row = _row(_get(client, owner), f"post-{publish_id}")

    assert f'href="/dashboard/analytics/{publish_id}/?team={owner.team.pk}"' in row
    assert _cell(row, "Post") == "Two networks"
    assert _cell(row, "Platforms") == "Bluesky, X"  # sorted by name, as the API lists them
    assert (_cell(row, "Views"), _cell(row, "Likes"), _cell(row, "Comments"), _cell(row, "Shares")) == (
        "1,200",
        "15",
        "3",
        "7",
    )
    assert _cell(row, "Last sync") != "not yet"


def test_a_post_not_yet_synced_shows_zeros_and_not_yet(client, owner, posts, accounts):
    publish_id = posts.publish(accounts.x)

    row = _row(_get(client, owner), f"post-{publish_id}")

    assert (_cell(row, "Views"), _cell(row, "Likes"), _cell(row, "Last sync")) == ("0", "0", "not yet")


def test_drafts_and_failed_posts_are_not_listed(client, owner, posts, accounts, sandbox):
    posts.publish(accounts.x, content="only a draft", publish_mode="draft")
    sandbox.outcomes("linkedin", "error")
    posts.publish(accounts.linkedin, content="it failed")

    page = _get(client, owner)

    assert _row_ids(page) == []
    assert "No post has been published yet" in page


@pytest.mark.parametrize("sort", ["published_at", "total_views", "total_likes", "total_comments", "total_shares"])
@pytest.mark.parametrize("order", ["asc", "desc"])
def test_sorting_lists_posts_in_the_apis_order(client, api, owner, three_posts, sort, order):
    from_api = api.as_(owner.key).get("/api/v1/analytics/posts", {"sort": sort, "order": order}).json()["data"]

    page = _get(client, owner, sort=sort, order=order)

    assert _row_ids(page) == [post["id"] for post in from_api]
    assert len(set(_row_ids(page))) == 3


def _headers(page):
    """Each sortable header: (its column's label, aria-sort or None, its link's query)."""
    found = re.findall(r'<th scope="col" class="[^"]*"( aria-sort="(\w+)")?><a href="\?([^"]+)">([^<]+)', page)
    return {
        label.strip(): (sort or None, dict(q.split("=") for q in html.unescape(query).split("&")))
        for _, sort, query, label in found
    }


def test_the_headers_are_sort_links_and_the_active_one_has_aria_sort(client, owner, three_posts):
    default = _headers(_get(client, owner))

    assert set(default) == {"Published (UTC)", "Views", "Likes", "Comments", "Shares"}
    assert default["Published (UTC)"][0] == "descending"
    assert default["Published (UTC)"][1]["order"] == "asc"  # the active column flips its order
    assert default["Likes"] == (None, {"team": str(owner.team.pk), "sort": "total_likes", "order": "desc"})

    by_likes = _headers(_get(client, owner, sort="total_likes", order="asc", platform="x", page="1"))

    assert by_likes["Likes"][0] == "ascending"
    assert by_likes["Likes"][1]["order"] == "desc"
    assert by_likes["Published (UTC)"][0] is None
    assert by_likes["Views"][1] == {"team": str(owner.team.pk), "sort": "total_views", "order": "desc", "platform": "x"}


def test_the_platform_filter_narrows_posts_and_totals_like_the_api(client, api, owner, posts, accounts):
    both = posts.publish(accounts.x, accounts.bluesky, content="both")
    bluesky_only = posts.publish(accounts.bluesky, content="bluesky only")
    posts.set_metrics(both, "x", likes=10)
    posts.set_metrics(both, "bluesky", likes=1)
    posts.set_metrics(bluesky_only, "bluesky", likes=2)
    _sync()

    only_x = _get(client, owner, platform="x")
    on_bluesky = _get(client, owner, platform="bluesky", sort="total_likes")
    on_either = _get(client, owner, platform=["x", "bluesky"])

    assert _row_ids(only_x) == [both]
    assert _cell(_row(only_x, f"post-{both}"), "Likes") == "10"
    assert 'id="filter-platform-x" name="platform" value="x" checked' in only_x
    assert _row_ids(on_bluesky) == [bluesky_only, both]
    assert _cell(_row(on_bluesky, f"post-{both}"), "Likes") == "1"
    assert len(_row_ids(on_either)) == 2
    api_order = api.as_(owner.key).get("/api/v1/analytics/posts", {"platform": "bluesky", "sort": "total_likes"})
    assert _row_ids(on_bluesky) == [p["id"] for p in api_order.json()["data"]]


@pytest.mark.parametrize(
    ("params", "problem"),
    [
        ({"sort": "popularity"}, "Sort: "),
        ({"order": "sideways"}, "Order: "),
        ({"platform": "myspace"}, 'id="platform-problem"'),
    ],
)
def test_bad_values_are_shown_not_a_500(client, owner, three_posts, params, problem):
    page = _get(client, owner, **params)

    assert problem in page
    assert len(_row_ids(page)) == 3


def test_a_bad_value_is_dropped_and_the_valid_ones_still_apply(client, owner, three_posts):
    page = _get(client, owner, sort="popularity", order="asc")

    assert re.search(r'<p class="field-problem" id="sort-problem">Sort: [^<]*popularity', page)
    assert _row_ids(page) == three_posts  # the default sort, in the order asked for: oldest first


def test_pagination_links_keep_the_sort_and_filter(client, owner, posts, accounts, monkeypatch):
    monkeypatch.setattr(views, "PAGE_SIZE", 2)
    for i in range(3):
        posts.publish(accounts.x, content=f"paged {i}")
    _sync()

    first = _get(client, owner, sort="total_likes", order="asc", platform="x")
    [link] = re.findall(r'<a rel="next" href="\?([^"]+)"', first)
    query = dict(q.split("=") for q in html.unescape(link).split("&"))

    assert query == {"sort": "total_likes", "order": "asc", "platform": "x", "team": str(owner.team.pk), "page": "2"}
    assert "Next" in first


# --- per platform ----------------------------------------------------------------------------


def test_the_totals_per_platform_sum_published_targets(client, owner, posts, accounts, sandbox):
    first = posts.publish(accounts.x, accounts.bluesky, content="first")
    second = posts.publish(accounts.x, content="second")
    sandbox.outcomes("linkedin", "error")
    posts.publish(accounts.linkedin, content="failed, not counted")
    posts.set_metrics(first, "x", views=100, likes=10, comments=2, shares=3)
    posts.set_metrics(first, "bluesky", likes=5, comments=1, shares=4)
    posts.set_metrics(second, "x", views=50, likes=1, comments=1, shares=1)
    _sync()

    page = _get(client, owner)
    x, bluesky = _row(page, "totals-x"), _row(page, "totals-bluesky")

    assert [_cell(x, name) for name in ("Posts", "Views", "Likes", "Comments", "Shares")] == [
        "2",
        "150",
        "11",
        "3",
        "4",
    ]
    assert [_cell(bluesky, name) for name in ("Posts", "Views", "Likes")] == ["1", "not reported", "5"]
    assert 'id="totals-linkedin"' not in page


def test_the_totals_per_platform_take_one_query(owner, posts, accounts, django_assert_num_queries):
    for i in range(3):
        posts.publish(accounts.x, accounts.bluesky, accounts.threads, content=f"p {i}")
    _sync()

    with django_assert_num_queries(1):
        rows = analytics_platform_totals(team=owner.team)

    assert [(row["platform"], row["posts"]) for row in rows] == [("bluesky", 3), ("threads", 3), ("x", 3)]


# --- one post --------------------------------------------------------------------------------


def _post_page(client, persona, publish_id):
    return _get(client, persona, f"{LIST}{publish_id}/")


def test_the_post_page_shows_each_platforms_metrics_link_and_data(client, owner, posts, accounts):
    publish_id = posts.publish(accounts.x, accounts.bluesky, content="Per platform")
    posts.set_metrics(publish_id, "x", views=100, likes=10, comments=2, shares=3)
    posts.set_metrics(publish_id, "bluesky", likes=5, comments=1, shares=4)
    _sync()
    x, bluesky = posts.target(publish_id, "x"), posts.target(publish_id, "bluesky")

    page = _post_page(client, owner, publish_id)
    x_row, bluesky_row = _row(page, f"target-{x.pk}"), _row(page, f"target-{bluesky.pk}")

    assert "Per platform" in page
    # Sandbox accounts: the live links lead to the sandbox's page of each post.
    assert f'href="{live_link(x)}"' in x_row
    assert f'href="{live_link(bluesky)}"' in bluesky_row
    assert "/_sandbox/posts/x/" in live_link(x)
    assert [_cell(x_row, name) for name in ("Views", "Likes", "Comments", "Shares")] == ["100", "10", "2", "3"]
    assert [_cell(bluesky_row, name) for name in ("Views", "Likes")] == ["not reported", "5"]
    # platform_specific_data, as the API's single-post answer has it
    assert "<dt>impression_count</dt><dd>100</dd>" in x_row
    assert f'href="/dashboard/publishes/{publish_id}/?team={owner.team.pk}"' in page


def test_a_post_without_samples_says_so(client, owner, posts, accounts):
    publish_id = posts.publish(accounts.x)

    page = _post_page(client, owner, publish_id)

    assert "No samples yet" in page
    assert "<svg" not in page.split("<main", 1)[1]


def _polylines(page):
    return {
        metric: [tuple(float(n) for n in point.split(",")) for point in points.split()]
        for metric, points in re.findall(r'<polyline data-metric="(\w+)" points="([^"]*)"', page)
    }


def _desc(page, key):
    return re.search(rf'<desc id="chart-{key}-desc">([^<]*)</desc>', page).group(1)


def test_the_charts_draw_one_line_per_metric_through_the_samples(client, owner, posts, accounts):
    publish_id = posts.publish(accounts.x, content="Charted")
    start = timezone.now() + dt.timedelta(hours=1)
    for hour, likes in enumerate((0, 5, 10)):
        posts.set_metrics(publish_id, "x", views=likes * 10, likes=likes, comments=1, shares=hour)
        _sync(start + dt.timedelta(hours=hour))
    assert MetricsSample.objects.filter(target__publish_id=publish_id).count() == 3

    page = _post_page(client, owner, publish_id)
    lines = _polylines(page)

    assert set(lines) == {"views", "likes", "comments", "shares"}
    assert all(len(points) == 3 for points in lines.values())
    xs = [x for x, _ in lines["likes"]]
    assert xs[1] - xs[0] == pytest.approx(xs[2] - xs[1], abs=0.2)  # equal time steps, equal distances
    likes = [y for _, y in lines["likes"]]
    assert likes[0] == HEIGHT - BOTTOM  # 0 on the x axis
    assert likes[0] - likes[1] == pytest.approx(likes[1] - likes[2], abs=0.2)  # 0, 5, 10: evenly up
    assert likes[2] == TOP  # 10 likes: the top of the engagement chart's scale
    assert [y for _, y in lines["views"]][2] == TOP  # 100 views: the top of the views chart's scale
    assert len({y for _, y in lines["comments"]}) == 1  # flat at 1
    # Accessible: a title, a description and the numbers as a table.
    assert '<figcaption class="chart-title" id="chart-reach-title">Views of this post</figcaption>' in page
    assert "3 samples" in _desc(page, "engagement")
    assert "Likes from 0 to 10" in _desc(page, "engagement")
    assert "Views from 0 to 100" in _desc(page, "reach")
    table = page.split('<details class="chart-data">', 1)[1]
    assert table.count('data-label="Taken"') == 3


def test_engagement_has_its_own_scale_beside_thousands_of_views(client, owner, posts, accounts):
    publish_id = posts.publish(accounts.x)
    start = timezone.now() + dt.timedelta(hours=1)
    for hour, likes in enumerate((0, 3, 5)):
        posts.set_metrics(publish_id, "x", views=10_000, likes=likes)
        _sync(start + dt.timedelta(hours=hour))

    page = _post_page(client, owner, publish_id)
    lines = _polylines(page)
    engagement = page.split('class="chart chart-engagement"', 1)[1].split("</figure>", 1)[0]

    # 5 likes climb most of the way up their chart, not a pixel above its axis.
    assert HEIGHT - BOTTOM - lines["likes"][2][1] > (HEIGHT - BOTTOM - TOP) * 0.75
    assert "views" not in _polylines(engagement)
    assert re.findall(r'class="y-tick"[^>]*>([^<]+)<', engagement) == ["0", "2", "4", "6"]
    table = page.split('<details class="chart-data">', 1)[1].split("</details>", 1)[0]
    assert table.count(">10,000<") == 3  # the table keeps every metric


def test_the_chart_sums_platforms_and_carries_a_targets_last_value_forward():
    t0 = dt.datetime(2024, 5, 1, 12, 0, tzinfo=dt.UTC)
    t1 = t0 + dt.timedelta(hours=1)
    samples = [
        MetricsSample(target_id="a", taken_at=t0, views=100, likes=3, comments=0, shares=0),
        MetricsSample(target_id="b", taken_at=t0, views=None, likes=4, comments=1, shares=0),
        MetricsSample(target_id="a", taken_at=t1, views=150, likes=6, comments=0, shares=2),
    ]

    moments = post_moments(samples)

    assert [m.taken_at for m in moments] == [t0, t1]
    assert moments[0].values == {"views": 100, "likes": 7, "comments": 1, "shares": 0}
    assert moments[1].values == {"views": 150, "likes": 10, "comments": 1, "shares": 2}  # b's 4 likes kept
    reach, engagement = metrics_charts(moments)
    assert [tick.label for tick in reach.y_ticks] == ["0", "50", "100", "150"]
    assert [tick.label for tick in engagement.y_ticks] == ["0", "5", "10"]
    assert metrics_charts([]) == []
    big = [MetricsSample(target_id="a", taken_at=t0, views=1_234_567, likes=0, comments=0, shares=0)]
    assert [tick.label for tick in metrics_charts(post_moments(big))[0].y_ticks] == ["0", "500k", "1M", "1.5M"]


def test_a_post_on_platforms_without_views_has_no_views_chart():
    t0 = dt.datetime(2024, 5, 1, 12, 0, tzinfo=dt.UTC)
    samples = [MetricsSample(target_id="b", taken_at=t0, views=None, likes=4, comments=1, shares=0)]

    [chart] = metrics_charts(post_moments(samples))

    assert chart.key == "engagement"


def _labels(times, **options):
    return [tick.label for tick in time_ticks(times[0], times[-1], **options)]


def test_time_labels_of_samples_a_minute_apart_are_distinct_times():
    start = dt.datetime(2024, 5, 1, 12, 0, 30, tzinfo=dt.UTC)
    labels = _labels([start + dt.timedelta(minutes=n) for n in range(10)])

    assert labels == ["12:02", "12:04", "12:06", "12:08"]


def test_time_labels_of_samples_seconds_apart_show_seconds():
    start = dt.datetime(2024, 5, 1, 12, 0, 10, tzinfo=dt.UTC)
    labels = _labels([start, start + dt.timedelta(seconds=40)])

    assert len(labels) == len(set(labels)) > 1
    assert labels[0] == "12:00:10"


def test_time_labels_of_samples_days_apart_are_dates():
    start = dt.datetime(2024, 5, 1, 12, 0, tzinfo=dt.UTC)
    labels = _labels([start + dt.timedelta(days=3 * n) for n in range(4)])

    assert labels == ["3 May", "5 May", "7 May", "9 May"]  # every other midnight: 9 days in four labels


def test_time_labels_across_midnight_carry_the_day_and_never_repeat():
    start = dt.datetime(2024, 5, 1, 6, 0, tzinfo=dt.UTC)
    many = [start + dt.timedelta(minutes=15 * n) for n in range(4 * 48)]  # two days every 15 minutes
    labels = _labels(many)

    assert len(labels) == len(set(labels)) <= 6  # fewer labels than points
    assert labels[0] == "1 May 12:00"
    assert "2 May 00:00" in labels


def test_time_labels_across_a_new_year_carry_the_year():
    start = dt.datetime(2024, 12, 1, tzinfo=dt.UTC)
    labels = _labels([start, start + dt.timedelta(days=60)], min_step=86400)

    assert labels[0].endswith("2024")
    assert labels[-1].endswith("2025")


def test_another_teams_post_is_not_found(client, owner, outsider, other_posts):
    theirs, their_accounts = other_posts
    their_post = theirs.publish(their_accounts.x)
    client.force_login(owner.user)

    assert client.get(f"{LIST}{their_post}/").status_code == 404
    assert client.get(f"{LIST}{their_post}/", {"team": str(outsider.team.pk)}).status_code == 404
    assert their_post not in client.get(LIST).content.decode()


def test_switching_team_on_a_post_page_goes_to_the_other_teams_list(client, owner, posts, accounts):
    team_services.team_create(name="Second team", owner=owner.user)
    publish_id = posts.publish(accounts.x)

    page = _post_page(client, owner, publish_id)

    assert '<form method="get" class="row" action="/dashboard/analytics/">' in page


def test_a_post_with_no_published_target_is_not_found(client, owner, posts, accounts):
    draft = posts.publish(accounts.x, publish_mode="draft")
    client.force_login(owner.user)

    assert client.get(f"{LIST}{draft}/").status_code == 404


def test_a_member_reads_analytics_as_an_analytics_read_key_does(client, member, posts, accounts):
    publish_id = posts.publish(accounts.x)

    assert _row_ids(_get(client, member)) == [publish_id]
    assert "Post analytics" in _post_page(client, member, publish_id)


def test_the_pages_need_a_login(client, db):
    for path in (LIST, f"{LIST}01a2151a-3725-72f1-aa04-ddca08722c65/"):
        response = client.get(path)
        assert response.status_code == 302
        assert response["Location"].startswith("/login/")


# --- query counts ----------------------------------------------------------------------------


def _queries(client, path, **params):
    with CaptureQueriesContext(connection) as context:
        response = client.get(path, params)
    assert response.status_code == 200
    return len(context)


def _published_posts(persona, accounts, numbers):
    """Published posts on X and Bluesky with metrics, written directly: test setup for counts
    (publishing a hundred through the sandbox would only make the test slow)."""
    now = timezone.now()
    for number in numbers:
        lifecycle.publish_create(
            team=persona.team,
            caller=inputs.Caller(user=persona.user, can_approve=True),
            content=f"counted {number}",
            media_ids=[],
            targets=[inputs.TargetInput(account_id=str(a.pk)) for a in (accounts.x, accounts.bluesky)],
            publish_mode=PublishMode.DRAFT,
            scheduled_at=None,
        )
    fresh = Target.objects.filter(publish__team=persona.team).exclude(state=TargetState.PUBLISHED)
    fresh.update(state=TargetState.PUBLISHED, published_at=now, platform_post_id=Cast("id", CharField()))
    Publish.objects.filter(team=persona.team, published_at__isnull=True).update(published_at=now)
    PostMetrics.objects.bulk_create(
        [
            PostMetrics(target=target, views=7, likes=3, comments=1, shares=1, next_sync_at=now, last_sync_at=now)
            for target in Target.objects.filter(publish__team=persona.team, metrics__isnull=True)
        ]
    )
    totals.refresh(Publish.objects.filter(team=persona.team).values_list("pk", flat=True))


def test_the_analytics_list_takes_the_same_queries_for_1_or_100_rows(client, owner, accounts, monkeypatch):
    monkeypatch.setattr(views, "PAGE_SIZE", 100)
    client.force_login(owner.user)
    _published_posts(owner, accounts, range(1))
    one = _queries(client, LIST, sort="total_likes", platform=["x", "bluesky"])

    _published_posts(owner, accounts, range(1, 100))
    hundred = _queries(client, LIST, sort="total_likes", platform=["x", "bluesky"])

    assert len(_row_ids(client.get(LIST).content.decode())) == 100
    assert one == hundred


def test_the_post_page_takes_the_same_queries_for_1_or_100_samples(client, owner, posts, accounts):
    publish_id = posts.publish(accounts.x, accounts.bluesky)
    _sync()
    client.force_login(owner.user)
    one = _queries(client, f"{LIST}{publish_id}/")
    targets = list(Target.objects.filter(publish_id=publish_id))
    start = timezone.now()
    MetricsSample.objects.bulk_create(
        [
            MetricsSample(target=t, taken_at=start + dt.timedelta(hours=h), likes=h)
            for h in range(1, 100)
            for t in targets
        ]
    )

    hundred = _queries(client, f"{LIST}{publish_id}/")

    assert one == hundred

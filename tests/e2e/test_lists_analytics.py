"""The publishes list and the analytics pages in a real browser (Playwright driving Debian's
Chromium): filter and search the publishes, sort the posts by a metric, and open a post's
charts of its metrics over time (refreshed on demand), and an account's totals by day."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from analytics import services
from demo.seed import sandbox_account
from tests.analytics.conftest import Posts
from tests.e2e.conftest import open_page

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]


@pytest.fixture(autouse=True)
def _eager(eager_tasks: None) -> None:
    """Publishes made in the test are delivered to the sandbox at once."""


@pytest.fixture
def posts(api, owner, sandbox):
    return Posts(api, owner.key, sandbox)


@pytest.fixture
def x(owner):
    return sandbox_account(owner.team, "x")


@pytest.fixture
def bluesky(owner):
    return sandbox_account(owner.team, "bluesky")


def test_filtering_and_searching_the_publishes(signed_in, live_server, screenshot, posts, x, bluesky):
    page = signed_in
    wanted = posts.publish(x, content="Spring sale: everything half price", publish_mode="draft")
    posts.publish(bluesky, content="Team offsite photos", publish_mode="draft")
    posts.publish(x, content="The spring sale is live")  # published, so not a draft

    open_page(page, "Publishes")
    expect(page.locator("table.publishes tbody tr")).to_have_count(3)
    page.get_by_label("Draft", exact=True).check()
    page.fill("#id_q", "SPRING")
    page.click("button:has-text('Apply filters')")

    rows = page.locator("table.publishes tbody tr")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("Spring sale: everything half price")
    expect(page.locator("form.filters")).to_contain_text("1 publish matches")
    assert "status=draft" in page.url
    assert "q=SPRING" in page.url
    expect(page.get_by_label("Draft", exact=True)).to_be_checked()
    expect(page.locator("#id_q")).to_have_value("SPRING")
    screenshot(page, "publishes")

    page.click(f"#publish-{wanted} a.open")
    page.wait_for_url(re.compile(rf"/dashboard/publishes/{wanted}/\?team="))


def test_sorting_posts_and_opening_a_posts_chart(signed_in, live_server, screenshot, posts, x, bluesky):
    page = signed_in
    quiet = posts.publish(x, content="A quiet post")
    launch = posts.publish(x, bluesky, content="Launch day: the new editor is out")
    start = timezone.now() + dt.timedelta(hours=1)
    for hour, likes in enumerate((2, 9, 15, 24)):
        posts.set_metrics(launch, "x", views=100 * (hour + 1), likes=likes, comments=hour, shares=hour // 2)
        posts.set_metrics(launch, "bluesky", likes=likes // 2, comments=1, shares=hour)
        posts.set_metrics(quiet, "x", views=40, likes=1, comments=0, shares=0)
        services.metrics_sync(now=start + dt.timedelta(hours=hour))

    open_page(page, "Analytics")
    page.wait_for_selector(f"#post-{launch}")
    page.click("th >> a:has-text('Likes')")
    expect(page.locator("th[aria-sort=descending]")).to_have_text(re.compile("Likes"))
    expect(page.locator("table.analytics-posts tbody tr").first).to_have_id(f"post-{launch}")
    expect(page.locator("#totals-x")).to_contain_text("X")
    screenshot(page, "analytics")

    page.click(f"#post-{launch} a")
    page.wait_for_url(re.compile(rf"/dashboard/analytics/{launch}/"))
    # Views on their own scale; likes, comments and shares on theirs.
    expect(page.locator("figure.chart-reach svg polyline")).to_have_count(1)
    expect(page.locator("figure.chart-engagement svg polyline")).to_have_count(3)
    expect(page.locator("figure.chart-engagement .legend")).to_contain_text("Likes: 36 now")
    # Sandbox accounts: the live link opens the sandbox's page of the post.
    expect(page.locator("a:has-text('View on X in the sandbox')")).to_have_attribute(
        "href", re.compile(r"/_sandbox/posts/x/")
    )
    page.click("summary:has-text('The figures as a table')")
    expect(page.locator("details.chart-data tbody tr")).to_have_count(4)
    screenshot(page, "analytics-post")


def test_refreshing_a_post_now_and_once_a_minute(signed_in, live_server, posts, x):
    page = signed_in
    publish_id = posts.publish(x, content="Fresh numbers")
    posts.set_metrics(publish_id, "x", views=10, likes=1)
    services.metrics_sync()
    posts.set_metrics(publish_id, "x", views=4321, likes=12)

    page.goto(f"{live_server.url}/dashboard/analytics/{publish_id}/")
    expect(page.locator("dl.totals")).to_contain_text("10")
    page.click("button:has-text('Refresh now')")

    expect(page.locator(".messages")).to_have_text("Refreshing: the figures update within a minute.")
    # The sync ran on the request's commit (Celery is eager here): the page shows its figures.
    expect(page.locator("dl.totals")).to_contain_text("4,321")
    page.click("button:has-text('Refresh now')")
    expect(page.locator(".messages")).to_have_text(
        re.compile(r"^Refreshed less than a minute ago: try again at \d\d:\d\d UTC\.$")
    )


def test_an_accounts_totals_by_day(signed_in, live_server, screenshot, posts, x, bluesky):
    page = signed_in
    launch = posts.publish(x, content="Launch day: the new editor is out")
    tips = posts.publish(x, bluesky, content="Three tips for the new editor")
    today = timezone.now().replace(hour=12, minute=0, second=0, microsecond=0)
    for days_ago, views in ((6, 800), (4, 2400), (2, 5200), (1, 6100)):
        posts.set_metrics(launch, "x", views=views, likes=views // 200, comments=views // 1000, shares=views // 1500)
        posts.set_metrics(tips, "x", views=views // 4, likes=views // 400, comments=1, shares=0)
        services.metrics_sync(now=today - dt.timedelta(days=days_ago))

    page.goto(f"{live_server.url}/dashboard/")
    page.click("a[aria-label^='Analytics of X']")
    page.wait_for_url(re.compile(rf"/dashboard/analytics/accounts/{x.pk}/"))
    expect(page.locator("h1")).to_contain_text("X:")
    expect(page.locator("figure.chart-reach .legend")).to_contain_text("Views: 7,625 now")
    expect(page.locator("figure.chart-engagement .legend")).to_contain_text("Likes: 45 now")
    expect(page.locator("#recent-posts + .table-wrap tbody tr")).to_have_count(2)
    screenshot(page, "analytics-account")

    page.select_option("#days", "90")
    page.click("button:has-text('Show')")
    page.wait_for_url(re.compile(r"days=90"))
    expect(page.locator("h2", has_text="Over the last 90 days")).to_be_visible()
    page.click("summary:has-text('The figures as a table')")
    expect(page.locator("details.chart-data tbody tr")).to_have_count(4)

"""The publishes list and the analytics pages in a real browser (Playwright driving Debian's
Chromium): filter and search the publishes, sort the posts by a metric, and open a post's
chart of its metrics over time."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from analytics import services
from demo.seed import sandbox_account
from tests.analytics.conftest import Posts

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

    page.click("header >> text=Publishes")
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

    page.click("header >> text=Analytics")
    page.wait_for_selector(f"#post-{launch}")
    page.click("th >> a:has-text('Likes')")
    expect(page.locator("th[aria-sort=descending]")).to_have_text(re.compile("Likes"))
    expect(page.locator("table.analytics-posts tbody tr").first).to_have_id(f"post-{launch}")
    expect(page.locator("#totals-x")).to_contain_text("X")
    screenshot(page, "analytics")

    page.click(f"#post-{launch} a")
    page.wait_for_url(re.compile(rf"/dashboard/analytics/{launch}/"))
    expect(page.locator("figure.chart svg polyline")).to_have_count(4)
    expect(page.locator("figure.chart .legend")).to_contain_text("Likes: 36 now")
    # Sandbox accounts: the live link opens the sandbox's page of the post.
    expect(page.locator("a:has-text('View on X in the sandbox')")).to_have_attribute(
        "href", re.compile(r"/_sandbox/posts/x/")
    )
    page.click("summary:has-text('The samples as a table')")
    expect(page.locator("details.chart-data tbody tr")).to_have_count(4)
    screenshot(page, "analytics-post")

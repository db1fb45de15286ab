"""The compose page's preview in a real browser: each chosen account gets a card showing its post
as its network's feed will, the text cut where the network stops counting, the first image in
the shape the feed gives it and a link card only where the network makes one."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from demo.seed import sandbox_account
from tests.media import files
from tests.publishing.test_link_cards import PAGE, serve

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]


@pytest.fixture
def wide_image(tmp_path):
    path = tmp_path / "banner.jpg"
    path.write_bytes(files.image("JPEG", (300, 100)))  # 3:1, wider than Instagram shows
    return path


@pytest.fixture
def link(settings):
    """A page on loopback to link to, reachable as in development (private addresses allowed)."""
    settings.SSRF_ALLOW_PRIVATE = True
    with serve({"/launch/notes": PAGE}) as (_, origin):
        yield f"{origin}/launch/notes"


def test_each_account_previews_its_post_as_its_network_shows_it(
    signed_in, live_server, owner, wide_image, link, screenshot
):
    page = signed_in
    x, instagram = sandbox_account(owner.team, "x"), sandbox_account(owner.team, "instagram")
    page.goto(f"{live_server.url}/dashboard/compose/?team={owner.team.pk}")
    preview = page.get_by_role("region", name="Preview")
    expect(preview).to_contain_text("Choose an account to see its preview.")

    # Over X's limit: the card keeps 280 (the URL weighs 23) and marks the rest as cut.
    page.check(f'input.pick[value="{x.pk}"]')
    page.fill("#content", f"Read {link} " + "a" * 260)
    x_card = preview.locator(f'.preview-card[data-account="{x.pk}"]')
    expect(x_card.locator("mark.preview-over")).to_have_text("a" * 9)
    expect(x_card.locator(".preview-cut")).to_have_text("X stops at its limit of 280; 9 over, marked, is not posted.")
    expect(x_card.locator(".preview-link-domain")).to_have_text("127.0.0.1")
    expect(x_card.locator(".preview-link-title")).to_have_text("Launch notes & more")  # read from the page
    expect(x_card.locator(".preview-link-description")).to_have_text("What shipped today.")

    # Instagram: no link card in a caption, the caption folds, and a 3:1 image is cut to 1.91:1.
    page.check(f'input.pick[value="{instagram.pk}"]')
    insta_card = preview.locator(f'.preview-card[data-account="{instagram.pk}"]')
    expect(insta_card.locator(".preview-more")).to_have_text("… more")
    expect(insta_card.locator(".preview-link")).to_have_count(0)
    page.set_input_files("#media-file", str(wide_image))
    expect(page.locator(".media-item .media-status")).to_have_text("Uploaded")
    figure = insta_card.locator("figure.preview-media")
    expect(figure).to_have_attribute("data-aspect", "1.91:1")
    expect(figure.locator("figcaption")).to_have_text("Cropped to 1.91:1 in the feed")
    box = figure.bounding_box()
    assert box is not None
    assert abs(box["width"] / box["height"] - 1.91) < 0.03
    # X shows an image whole within its range: this one, wider, is cut to 16:9.
    expect(x_card.locator("figure.preview-media")).to_have_attribute("data-aspect", "16:9")

    # An account's own text is what its card shows.
    page.locator("summary", has_text="Customize for Instagram").click()
    page.fill(f"#t-{instagram.pk}-content", "Instagram's own caption")
    expect(insta_card.locator(".preview-text")).to_have_text("Instagram's own caption")
    expect(x_card.locator("mark.preview-over")).to_have_text("a" * 9)

    preview.scroll_into_view_if_needed()
    screenshot(page, "compose-preview")

    page.uncheck(f'input.pick[value="{x.pk}"]')
    expect(preview.locator(".preview-card")).to_have_count(1)

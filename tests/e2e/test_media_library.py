"""The media library in a real browser (Playwright driving Debian's Chromium): a member finds a
file by name, describes it, takes it into a new post, and deletes a file no post uses."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from media import services, storage
from media.models import MediaUpload
from tests.e2e.conftest import sign_in
from tests.media import files

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]


def _ready(team, filename):
    data = files.image()
    upload = services.media_create(
        team=team, user=None, filename=filename, content_type="image/png", size_bytes=len(data)
    )
    storage.write_stream(upload.storage_key, [data])
    return services.media_confirm(team=team, media_id=str(upload.pk))


def test_a_member_searches_describes_reuses_and_deletes_media(page, live_server, member, screenshot):
    launch, old = _ready(member.team, "launch-banner.png"), _ready(member.team, "old-logo.png")
    sign_in(page, live_server, member)

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Media").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Media library")
    expect(page.locator(f"#media-{launch.pk} img")).to_be_visible()
    page.get_by_label("File name").fill("banner")
    page.get_by_role("button", name="Search").click()
    expect(page.locator(".library-item")).to_have_count(1)

    page.get_by_label("Alt text for launch-banner.png").fill("Our launch banner: a rocket over the city")
    page.get_by_role("button", name="Save alt text").click()
    expect(page.get_by_role("status").filter(has_text="Saved the alt text")).to_be_visible()
    expect(page.get_by_label("Alt text for launch-banner.png")).to_have_value(
        "Our launch banner: a rocket over the city"
    )
    expect(page.locator(f"#media-{launch.pk} img")).to_have_attribute(
        "alt", "Our launch banner: a rocket over the city"
    )
    screenshot(page, "media")

    page.get_by_role("link", name="Use in a new post").click()
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    expect(page.locator(f'#media-list input[name="media_ids"][value="{launch.pk}"]')).to_have_count(1)

    page.goto(f"{live_server.url}/dashboard/media/?team={member.team.pk}")
    page.get_by_role("button", name="Delete old-logo.png").click()
    expect(page.get_by_role("status").filter(has_text="Deleted the file")).to_be_visible()
    expect(page.locator(f"#media-{old.pk}")).to_have_count(0)
    assert not MediaUpload.objects.filter(pk=old.pk).exists()

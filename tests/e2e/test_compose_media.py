"""Media inside compose in a real browser (Playwright driving Debian's Chromium): a file picked
from the library in a dialog joins the post as an upload does and is published with it; alt text
typed beside a file ends on its upload; the dialog keeps focus, closes on Escape and fits a
phone (axe's check of it open is in test_axe.py)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from demo.seed import sandbox_account
from media import services
from media.models import MediaUpload
from publishing.models import Publish, PublishStatus
from tests.e2e.conftest import LOADED_WIDTH, sign_in
from tests.media import files

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]


@pytest.fixture(autouse=True)
def _eager(eager_tasks: None) -> None:
    """Delivery runs inside the live server's request, so the post is out when the page returns."""


def _ready(team, filename, alt_text=""):
    media_id = files.stored_upload(team, files.image("PNG", (120, 90)), "image/png", filename)
    if alt_text:
        services.media_set_alt_text(team=team, media_id=media_id, alt_text=alt_text)
    return media_id


def _compose(page, live_server, persona):
    page.goto(f"{live_server.url}/dashboard/compose/?team={persona.team.pk}")
    expect(page.get_by_role("button", name="Choose from library")).to_be_visible()


def _pick(page, filename):
    page.get_by_role("button", name="Choose from library").click()
    dialog = page.get_by_role("dialog", name="Choose from the media library")
    expect(dialog).to_be_visible()
    dialog.get_by_role("button", name=filename).click()
    expect(dialog).to_be_hidden()


def test_a_member_picks_a_file_from_the_library_describes_it_and_publishes_it(
    page, live_server, member, sandbox, screenshot
):
    x = sandbox_account(member.team, "x")
    banner = _ready(member.team, "launch-banner.png", alt_text="A rocket")
    _ready(member.team, "old-logo.png")
    sign_in(page, live_server, member)
    _compose(page, live_server, member)
    page.fill("#content", "Launch day, with our banner")
    page.check(f'input.pick[value="{x.pk}"]')
    expect(page.locator("#media-alt-hint")).to_be_hidden()  # no file yet to describe

    page.get_by_role("button", name="Choose from library").click()
    dialog = page.get_by_role("dialog", name="Choose from the media library")
    expect(dialog.get_by_role("status")).to_have_text("2 files in the library.")
    expect(dialog.get_by_role("button", name="old-logo.png")).to_be_visible()
    screenshot(page, "compose-library")
    dialog.get_by_label("File name").fill("BANNER")
    dialog.get_by_role("button", name="Search").click()
    expect(dialog.get_by_role("status")).to_have_text("1 file matches.")
    expect(dialog.get_by_role("button", name="old-logo.png")).to_have_count(0)
    assert dialog.locator("img").evaluate(LOADED_WIDTH) == 120
    dialog.get_by_role("button", name="launch-banner.png").click()
    expect(dialog).to_be_hidden()
    expect(page.get_by_role("button", name="Choose from library")).to_be_focused()

    item = page.locator(f'.media-item[data-media="{banner}"]')
    expect(item.locator('input[name="media_ids"]')).to_have_value(banner)
    expect(item.locator("img")).to_be_visible()
    alt = page.get_by_label("Alt text for launch-banner.png")
    expect(alt).to_have_value("A rocket")
    expect(page.locator("#media-alt-hint")).to_be_visible()
    page.locator("summary", has_text="Customize for X").click()
    expect(page.locator(f'.target[data-account="{x.pk}"] [data-media-choices]')).to_contain_text("launch-banner.png")
    alt.fill("A rocket on our launch banner")
    expect(page.locator("#check-state")).to_have_text("Ready to send.")
    screenshot(page, "compose-media")

    page.click("button:has-text('Publish now')")
    page.wait_for_url(re.compile(r"/dashboard/publishes/[0-9a-f-]+/\?team="))

    publish = Publish.objects.get()
    assert [str(i) for i in publish.media_ids] == [banner]
    assert publish.status == PublishStatus.PUBLISHED
    assert MediaUpload.objects.get(pk=banner).alt_text == "A rocket on our launch banner"
    [post] = sandbox.posts("x")
    assert post["media_count"] == 1


def test_alt_text_typed_beside_an_upload_ends_on_the_upload(signed_in, live_server, owner, tmp_path):
    x = sandbox_account(owner.team, "x")
    image = tmp_path / "team.png"
    image.write_bytes(files.image("PNG", (120, 90)))
    page = signed_in
    _compose(page, live_server, owner)
    page.fill("#content", "Our team")
    page.check(f'input.pick[value="{x.pk}"]')

    page.set_input_files("#media-file", str(image))
    expect(page.locator(".media-item .media-status")).to_have_text("Uploaded")
    page.get_by_label("Alt text for team.png").fill("Five people laughing in front of a whiteboard")
    page.click("button:has-text('Save draft')")
    page.wait_for_url(re.compile(r"/dashboard/publishes/[0-9a-f-]+/\?team="))

    [media_id] = Publish.objects.get().media_ids
    assert MediaUpload.objects.get(pk=media_id).alt_text == "Five people laughing in front of a whiteboard"


def test_sending_waits_for_an_upload_under_way_and_removing_it_lets_the_post_go(
    signed_in, live_server, owner, tmp_path
):
    x = sandbox_account(owner.team, "x")
    image = tmp_path / "slow.png"
    image.write_bytes(files.image("PNG", (120, 90)))
    page = signed_in
    held = []  # the bytes' PUT to storage, never answered: the upload stays under way
    page.route("**/*", lambda route: held.append(route) if route.request.method == "PUT" else route.continue_())
    _compose(page, live_server, owner)
    page.fill("#content", "Not before the picture")
    page.check(f'input.pick[value="{x.pk}"]')

    page.set_input_files("#media-file", str(image))
    expect(page.locator(".media-item .media-status")).to_have_text(re.compile("Uploading"))
    page.click("button:has-text('Save draft')")

    expect(page.locator("#media-problem")).to_have_text("Wait until the uploads have finished.")
    assert not Publish.objects.exists()
    page.get_by_role("button", name="Remove slow.png").click()
    expect(page.locator(".media-item")).to_have_count(0)
    page.click("button:has-text('Save draft')")
    page.wait_for_url(re.compile(r"/dashboard/publishes/[0-9a-f-]+/\?team="))
    assert Publish.objects.get().media_ids == []


def test_a_file_picked_on_the_edit_page_is_saved_with_the_post(signed_in, live_server, owner, draft):
    photo = _ready(owner.team, "photo.png")
    page = signed_in
    page.goto(f"{live_server.url}/dashboard/publishes/{draft.pk}/edit/?team={owner.team.pk}")

    _pick(page, "photo.png")
    page.get_by_role("button", name="Save changes").click()
    page.wait_for_url(re.compile(rf"/dashboard/publishes/{draft.pk}/\?team="))

    draft.refresh_from_db()
    assert [str(i) for i in draft.media_ids] == [photo]


def test_the_dialog_keeps_focus_closes_on_escape_and_fits_a_phone(signed_in, live_server, owner):
    for n in range(15):
        _ready(owner.team, f"file-{n:02}.png")
    page = signed_in
    page.set_viewport_size({"width": 390, "height": 844})
    _compose(page, live_server, owner)
    opener = page.get_by_role("button", name="Choose from library")

    opener.click()
    dialog = page.get_by_role("dialog", name="Choose from the media library")
    expect(dialog.get_by_label("File name")).to_be_focused()
    expect(dialog.get_by_role("listitem")).to_have_count(12)
    box = dialog.bounding_box()
    assert box is not None
    assert 0 <= box["x"] <= box["x"] + box["width"] <= 390
    dialog.get_by_role("button", name="Show more").click()
    expect(dialog.get_by_role("listitem")).to_have_count(15)
    expect(dialog.get_by_role("button", name="file-02.png")).to_be_focused()
    expect(dialog.get_by_role("button", name="Show more")).to_be_hidden()
    for _ in range(40):  # Tab never leaves the modal dialog for the page behind it
        page.keyboard.press("Tab")
        assert page.evaluate("document.getElementById('media-picker').contains(document.activeElement)")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(opener).to_be_focused()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390

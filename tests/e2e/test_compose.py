"""Composing in a real browser (Playwright driving Debian's Chromium): an owner writes a post,
uploads an image straight to storage (progress bar, preview), sees each account's live count,
publishes it now to X and Bluesky on the sandbox and finds it published with its links; the
settings offer the choices each platform gives the account (Pinterest boards, YouTube
categories) and the chosen ones are the targets' platform_settings."""

from __future__ import annotations

import datetime as dt
import re
from urllib.parse import quote

import pytest
import requests
from django.utils import timezone
from playwright.sync_api import expect

from demo.seed import sandbox_account
from publishing import inputs, lifecycle
from publishing.models import ApprovalStatus, Publish, PublishMode, PublishStatus
from tests.e2e.conftest import LOADED_WIDTH, open_page, sign_in
from tests.media import files

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]

TEXT = "Launch day from the compose page: https://example.com/launch/notes 🚀"


@pytest.fixture(autouse=True)
def _eager(eager_tasks: None) -> None:
    """Delivery runs inside the live server's request, so the post is out when the page returns."""


@pytest.fixture
def image(tmp_path):
    path = tmp_path / "launch.png"
    path.write_bytes(files.image("PNG", (120, 90)))
    return path


def test_an_owner_composes_with_an_image_and_publishes_to_two_accounts(
    signed_in, live_server, owner, sandbox, image, screenshot
):
    page = signed_in
    x, bluesky = sandbox_account(owner.team, "x"), sandbox_account(owner.team, "bluesky")

    open_page(page, "Compose")
    page.fill("#content", TEXT)
    page.check(f'input.pick[value="{x.pk}"]')
    page.check(f'input.pick[value="{bluesky.pk}"]')

    # Live counts, each the platform's own: X weighs the URL 23 and the emoji 2.
    expect(page.locator(f'#counts li[data-account="{x.pk}"]')).to_have_text("X 60 / 280")
    expect(page.locator(f'#counts li[data-account="{bluesky.pk}"]')).to_have_text("Bluesky 68 / 300")

    page.set_input_files("#media-file", str(image))
    item = page.locator(".media-item")
    expect(item.locator(".media-status")).to_have_text("Uploaded")
    expect(item.locator("progress")).to_have_attribute("value", "100")
    expect(item.locator("img")).to_be_visible()
    assert item.locator("img").evaluate(LOADED_WIDTH) == 120
    # X's own settings, offered once X is chosen.
    page.locator("summary", has_text="Customize for X").click()
    page.check(f"#t-{x.pk}-sensitive")
    expect(page.locator("#check-state")).to_have_text("Ready to send.")
    page.evaluate("window.scrollTo(0, 0)")  # the sending card sticks to the top of the view
    screenshot(page, "compose")

    page.click("button:has-text('Publish now')")
    page.wait_for_url(re.compile(r"/dashboard/publishes/[0-9a-f-]+/\?team="))

    publish = Publish.objects.get()
    assert publish.status == PublishStatus.PUBLISHED
    assert len(publish.media_ids) == 1
    assert {t.platform: t.platform_settings for t in publish.targets.all()} == {"x": {"sensitive": True}, "bluesky": {}}
    posts = sandbox.posts()
    assert sorted(p["platform"] for p in posts) == ["bluesky", "x"]
    assert all(p["text"] == TEXT and p["media_count"] == 1 for p in posts)

    open_page(page, "Publishes")
    row = page.locator(f"#publish-{publish.pk}")
    expect(row.locator("a:has-text('View post')")).to_have_count(2)
    # The live links: the platform's URL, or the sandbox's page of the post for a sandbox account.
    hrefs = [a.get_attribute("href") for a in row.locator("a:has-text('View post')").all()]
    for target in publish.targets.all():
        post_id = target.platform_post_id
        assert any(post_id in href or quote(post_id, safe="") in href for href in hrefs), (post_id, hrefs)


def test_problems_show_before_anything_is_sent(signed_in, live_server, owner):
    page = signed_in
    x = sandbox_account(owner.team, "x")

    page.goto(f"{live_server.url}/dashboard/compose/")
    page.check(f'input.pick[value="{x.pk}"]')
    page.fill("#content", "a" * 290)

    count = page.locator(f'#counts li[data-account="{x.pk}"]')
    expect(count).to_have_text("X 290 / 280 — too long by 10")
    expect(count).to_have_class(re.compile(r"\bover\b"))
    expect(page.locator(f'.target[data-account="{x.pk}"] [data-problem="text"]')).to_contain_text("Text counts 290")

    page.fill("#scheduled_at", "2000-01-01T10:00")
    expect(page.locator("#scheduled_at-problem")).to_have_text("That time has already passed: pick one in the future.")
    page.locator("summary", has_text="Customize for X").click()
    page.fill(f"#t-{x.pk}-reply_to", "not an id")
    expect(page.locator(f'.target[data-account="{x.pk}"] [data-problem="reply_to"]')).to_contain_text(
        "Reply to post (id) must be a post id"
    )
    assert Publish.objects.count() == 0


def test_an_upload_can_be_removed_and_a_refused_file_is_explained(signed_in, live_server, owner, image, tmp_path):
    page = signed_in
    x = sandbox_account(owner.team, "x")
    notes = tmp_path / "notes.txt"
    notes.write_text("not a picture")

    page.goto(f"{live_server.url}/dashboard/compose/")
    page.set_input_files("#media-file", str(image))
    expect(page.locator(".media-item .media-status")).to_have_text("Uploaded")
    expect(page.locator("input[name=media_ids]")).to_have_count(1)
    page.click("button:has-text('Remove')")
    expect(page.locator(".media-item")).to_have_count(0)
    expect(page.locator("input[name=media_ids]")).to_have_count(0)

    page.set_input_files("#media-file", str(notes))
    expect(page.locator("#media-problem")).to_contain_text("notes.txt: TXT files cannot be posted")
    expect(page.locator(".media-item")).to_have_count(0)  # no preview left of a file not in the post

    # Once the post is ready to send, the refusal of a file that is not in it is gone.
    page.check(f'input.pick[value="{x.pk}"]')
    page.fill("#content", "Text only, then")
    expect(page.locator("#check-state")).to_have_text("Ready to send.")
    expect(page.locator("#media-problem")).to_have_text("")


def test_a_members_post_waits_until_the_owner_approves_it(page, live_server, owner, member, sandbox):
    member.team.approval_required = True
    member.team.save()
    x = sandbox_account(member.team, "x")

    sign_in(page, live_server, member)
    open_page(page, "Compose")
    page.fill("#content", "A member's launch post")
    page.check(f'input.pick[value="{x.pk}"]')
    expect(page.locator("main")).to_contain_text("This team requires approval: what you publish or schedule waits")
    expect(page.locator("#check-state")).to_have_text("Ready to send.")
    page.click("button:has-text('Publish now')")
    page.wait_for_url(re.compile(r"/dashboard/publishes/[0-9a-f-]+/\?team="))
    expect(page.locator(".messages")).to_contain_text("is waiting for approval by the team's owner or an admin")
    publish = Publish.objects.get()
    assert publish.approval_status == ApprovalStatus.PENDING
    assert sandbox.posts() == []

    # The owner, in a browser of their own, approves it from the queue.
    owners = page.context.browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    sign_in(owners, live_server, owner)
    open_page(owners, "Approvals")
    owners.click(f"#publish-{publish.pk} button:has-text('Approve')")
    expect(owners.locator(".messages")).to_contain_text("Approved “A member's launch post”")
    publish.refresh_from_db()
    assert (publish.approval_status, publish.status) == (ApprovalStatus.APPROVED, PublishStatus.PUBLISHED)
    assert [p["text"] for p in sandbox.posts("x")] == ["A member's launch post"]


def test_the_settings_offer_the_choices_the_platform_gives_the_account(
    signed_in, live_server, owner, sandbox, image, screenshot
):
    page = signed_in
    pinterest, youtube = sandbox_account(owner.team, "pinterest"), sandbox_account(owner.team, "youtube")
    [board] = requests.post(
        f"{sandbox.url}/_sandbox/pinterest/boards",
        json={"account": pinterest.external_id, "names": ["Holiday recipes"]},
        timeout=5,
    ).json()["boards"]

    page.goto(f"{live_server.url}/dashboard/compose/")
    page.fill("#content", "Cookies for the holidays")
    page.set_input_files("#media-file", str(image))
    expect(page.locator(".media-item .media-status")).to_have_text("Uploaded")
    page.check(f'input.pick[value="{pinterest.pk}"]')
    page.check(f'input.pick[value="{youtube.pk}"]')
    page.locator("summary", has_text="Customize for Pinterest").click()
    page.locator("summary", has_text="Customize for YouTube").click()

    # Pinterest's boards as the platform lists them now (the new board was never stored here).
    boards = page.locator(f"#t-{pinterest.pk}-boardId option")
    expect(boards.filter(has_text="Holiday recipes")).to_have_count(1)
    # YouTube's category id, typed before, is now a choice among the assignable categories.
    categories = page.locator(f"select#t-{youtube.pk}-category_id option")
    expect(categories.filter(has_text="People & Blogs")).to_have_count(1)
    expect(categories.filter(has_text="Short Movies")).to_have_count(0)
    screenshot(page, "compose-live-options")

    page.select_option(f"#t-{youtube.pk}-category_id", label="Gaming")
    expect(page.locator(f"#t-{youtube.pk}-category_id")).to_have_value("20")
    page.uncheck(f'input.pick[value="{youtube.pk}"]')  # a YouTube post needs a video
    page.select_option(f"#t-{pinterest.pk}-boardId", label="Holiday recipes")
    page.click("button:has-text('Save draft')")
    page.wait_for_url(re.compile(r"/dashboard/publishes/[0-9a-f-]+/\?team="))

    publish = Publish.objects.get()
    assert [(t.platform, t.platform_settings) for t in publish.targets.all()] == [
        ("pinterest", {"boardId": board["id"]})
    ]


def test_a_tiktok_creators_own_levels_are_offered_and_what_they_switched_off_is_locked(
    signed_in, live_server, owner, sandbox
):
    page = signed_in
    tiktok = sandbox_account(owner.team, "tiktok")
    creator = {"account": tiktok.external_id, "privacy_level_options": ["SELF_ONLY"], "duet_disabled": True}
    requests.post(f"{sandbox.url}/_sandbox/tiktok/creator", json=creator, timeout=5)

    page.goto(f"{live_server.url}/dashboard/compose/")
    page.check(f'input.pick[value="{tiktok.pk}"]')
    page.locator("summary", has_text="Customize for TikTok").click()

    expect(page.locator(f"#t-{tiktok.pk}-privacy_level option")).to_have_text(["Platform default", "SELF_ONLY"])
    expect(page.locator(f"#t-{tiktok.pk}-allows_duet")).to_be_disabled()
    expect(page.locator(f"#t-{tiktok.pk}-allows_duet")).not_to_be_checked()
    expect(page.locator(f"#t-{tiktok.pk}-allows_comments")).to_be_enabled()


def test_a_text_an_account_already_got_is_noted_beside_it_before_sending(signed_in, live_server, owner):
    page = signed_in
    x, bluesky = sandbox_account(owner.team, "x"), sandbox_account(owner.team, "bluesky")
    lifecycle.publish_create(
        team=owner.team,
        caller=inputs.Caller(user=owner.user, can_approve=True),
        content="Doors open at nine",
        media_ids=[],
        targets=[inputs.TargetInput(account_id=str(x.pk))],
        publish_mode=PublishMode.SCHEDULED,
        scheduled_at=timezone.now() + dt.timedelta(hours=3),
    )

    page.goto(f"{live_server.url}/dashboard/compose/")
    page.check(f'input.pick[value="{x.pk}"]')
    page.check(f'input.pick[value="{bluesky.pk}"]')
    page.fill("#content", "Doors open  at nine")

    expect(page.locator(f"#t-{x.pk}-warning")).to_contain_text(f"This text is already scheduled for @{x.handle} on ")
    expect(page.locator(f"#t-{bluesky.pk}-warning")).to_have_text("")
    expect(page.locator("#check-state")).to_have_text(
        "Ready to send, but an account already got this text: see the note beside it."
    )

    owner.team.block_duplicates = True
    owner.team.save()
    page.fill("#content", "Doors open at nine")
    expect(page.locator(f'.target[data-account="{x.pk}"] [data-problem="text"]')).to_contain_text(
        "This team refuses duplicate posts: change the text or untick the account."
    )
    expect(page.locator(f"#t-{x.pk}-warning")).to_have_text("")
    expect(page.locator("#check-state")).to_have_text("1 problem to fix before sending.")


def test_an_owner_adds_a_post_to_the_queue_and_is_told_when_it_goes(signed_in, owner):
    from accounts.schedules import DAYS
    from accounts.services import posting_schedule_set

    page = signed_in
    x = sandbox_account(owner.team, "x")
    posting_schedule_set(account=x, time_zone="UTC", slots=[{"day": day, "time": "09:00"} for day in DAYS])

    open_page(page, "Compose")
    page.fill("#content", "Into the queue")
    page.check(f'input.pick[value="{x.pk}"]')
    expect(page.locator("#check-state")).to_have_text("Ready to send.")
    expect(page.locator("#queue-state")).to_contain_text("Next free slot: ")
    page.click("button:has-text('Add to queue')")
    page.wait_for_url(re.compile(r"/dashboard/publishes/[0-9a-f-]+/\?team="))

    publish = Publish.objects.get()
    assert publish.status == PublishStatus.SCHEDULED
    expect(page.locator(".messages")).to_have_text(
        f"Queued for {publish.scheduled_at:%a %d %b}, 09:00 UTC: “Into the queue”."
    )


def test_adding_to_the_queue_without_a_posting_schedule_links_to_it(signed_in, owner):
    page = signed_in
    x = sandbox_account(owner.team, "x")

    open_page(page, "Compose")
    page.fill("#content", "Into the queue")
    page.check(f'input.pick[value="{x.pk}"]')
    page.click("button:has-text('Add to queue')")

    # The live check, run again on the refused form, keeps saying so.
    said = f"{x} has no posting schedule yet: set its slots, or pick a time. Set the posting schedule of {x}"
    expect(page.locator("#queue-state")).to_have_text(said)
    page.fill("#content", "Into the queue, later")
    expect(page.locator("#check-state")).to_have_text("Ready to send.")
    expect(page.locator("#queue-state")).to_have_text(said)
    page.click(f"text=Set the posting schedule of {x}")
    page.wait_for_url(re.compile(rf"/dashboard/accounts/{x.pk}/schedule/"))
    assert Publish.objects.count() == 0

"""The publish detail page of the dashboard: content, media and each target's delivery, and the
actions the state allows (retry with edits, approve/reject, confirm, discard, take down), through Django's
test client with delivery over HTTP to the sandbox (tasks run eagerly: tests/publishing/conftest)."""

from __future__ import annotations

import datetime as dt
import html
import re
from urllib.parse import quote

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from demo.seed import sandbox_account
from publishing import inputs, lifecycle
from publishing.links import live_link
from publishing.models import ApprovalStatus, Publish, PublishMode, PublishStatus, Target, TargetState
from publishing.release import relay
from tests.media import files
from tests.publishing.safety_support import broker_down

pytestmark = pytest.mark.django_db


def _create(persona, accounts, content="Hello from the team", *, mode=PublishMode.IMMEDIATE, can_approve=True, **kw):
    return lifecycle.publish_create(
        team=persona.team,
        caller=inputs.Caller(user=persona.user, can_approve=can_approve),
        content=content,
        media_ids=kw.get("media_ids", []),
        targets=[inputs.TargetInput(account_id=str(a.pk)) for a in accounts],
        publish_mode=mode,
        scheduled_at=kw.get("scheduled_at"),
    )


def _sent(publish):
    """The publish after its jobs ran (eagerly, over HTTP to the sandbox, as the create handed
    them over), read back."""
    return Publish.objects.get(pk=publish.pk)


def _url(publish, verb="", team=None):
    path = f"/dashboard/publishes/{publish.pk}/{verb + '/' if verb else ''}"
    return f"{path}?team={team.pk}" if team is not None and not verb else path


def _as(client, persona):
    client.force_login(persona.user)
    return client


def _page(response, status=200):
    assert response.status_code == status, response.content.decode()[:2000]
    return response.content.decode()


def _post(client, persona, publish, verb, **data):
    return _as(client, persona).post(_url(publish, verb), {"team": str(persona.team.pk), **data})


@pytest.fixture
def partial(owner, accounts, sandbox):
    """A publish to X and Bluesky whose X target failed (the sandbox refused it)."""
    sandbox.outcomes("x", "error")
    publish = _sent(_create(owner, [accounts.x, accounts.bluesky], "Launch day"))
    assert publish.status == PublishStatus.PARTIAL
    return publish


def _targets(publish):
    by_platform = {t.platform: t for t in publish.targets.select_related("account")}
    return by_platform["x"], by_platform["bluesky"]


# --- what the page shows -------------------------------------------------------------------------


def test_the_page_shows_content_targets_live_links_attempts_and_error_evidence(client, owner, partial, sandbox):
    x, bluesky = _targets(partial)

    page = _page(_as(client, owner).get(_url(partial)))

    assert "Launch day" in page
    assert '<span class="status partial" id="publish-status">partial</span>' in page
    # The failed target: its status in words, the platform's error and the attempt's evidence.
    assert x.state == TargetState.FAILED
    assert f"Error {x.error_code}" in page
    assert html.escape(x.error_message) in page
    attempt = x.attempts.get()
    assert attempt.http_status
    assert f'<td data-label="HTTP status">{attempt.http_status}</td>' in page
    # The published target links to the sandbox's page of the post, not to bsky.app.
    assert bluesky.platform_post_id
    viewer = f"{sandbox.url}/_sandbox/posts/bluesky/{quote(bluesky.platform_post_id, safe='')}"
    assert f'href="{viewer}"' in page
    assert bluesky.platform_post_url not in page
    assert f"@{bluesky.account.handle}" in page
    assert f"{attempt.started_at:%Y-%m-%d %H:%M:%S}" in page


def test_a_target_shows_its_own_text_media_and_settings(client, owner, accounts, sandbox, settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    photo = files.stored_upload(owner.team, files.image(), "image/png", "launch.png")
    publish = lifecycle.publish_create(
        team=owner.team,
        caller=inputs.Caller(user=owner.user, can_approve=True),
        content="For everyone",
        media_ids=[],
        targets=[
            inputs.TargetInput(
                account_id=str(accounts.bluesky.pk),
                content="Only on Bluesky",
                media_ids=[photo],
                platform_settings={"first_comment": "More soon"},
                fields=frozenset({"content", "media_ids", "platform_settings"}),
            )
        ],
        publish_mode=PublishMode.DRAFT,
        scheduled_at=None,
    )

    page = _page(_as(client, owner).get(_url(publish)))

    assert "Its own settings" in page
    assert "Only on Bluesky" in page
    assert 'alt="launch.png"' in page
    assert "first_comment" in page
    assert "More soon" in page


def test_the_publish_media_are_shown_as_thumbnails(client, owner, accounts, settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    photo = files.stored_upload(owner.team, files.image(), "image/png", "team-photo.png")
    publish = _create(owner, [accounts.x], "With a photo", mode=PublishMode.DRAFT, media_ids=[photo])

    page = _page(_as(client, owner).get(_url(publish)))

    assert '<img src="' in page
    assert 'alt="team-photo.png"' in page


def test_a_publish_of_another_team_is_not_found(client, owner, outsider):
    theirs = _create(outsider, [sandbox_account(outsider.team, "x")], "Their secret plans", mode=PublishMode.DRAFT)

    assert _as(client, owner).get(_url(theirs)).status_code == 404
    assert client.get(_url(theirs, team=outsider.team)).status_code == 404  # not a member of it
    assert _post(client, owner, theirs, "discard", sure="yes").status_code == 404
    assert Publish.objects.filter(pk=theirs.pk).exists()


def test_the_page_needs_a_login(client, partial):
    response = client.get(_url(partial))

    assert response.status_code == 302
    assert response["Location"].startswith("/login/")


def test_every_form_carries_a_csrf_token_and_a_post_without_one_is_refused(owner, partial):
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(owner.user)

    page = _page(strict.get(_url(partial)))
    refused = strict.post(_url(partial, "retry"), {"team": str(owner.team.pk)})

    assert page.count('method="post"') == page.count('name="csrfmiddlewaretoken"') >= 2  # log out, retry
    assert refused.status_code == 403


# --- only the actions the state allows -----------------------------------------------------------


def test_a_draft_offers_confirm_and_discard_but_no_retry(client, owner, accounts):
    draft = _create(owner, [accounts.x], "A draft", mode=PublishMode.DRAFT)

    page = _page(_as(client, owner).get(_url(draft)))

    assert f'action="/dashboard/publishes/{draft.pk}/confirm/"' in page
    assert f'action="/dashboard/publishes/{draft.pk}/discard/"' in page
    assert "/retry/" not in page
    assert 'type="datetime-local"' in page


def test_a_partial_publish_offers_retry_only(client, owner, partial):
    page = _page(_as(client, owner).get(_url(partial)))

    assert f'action="/dashboard/publishes/{partial.pk}/retry/"' in page
    assert "/confirm/" not in page
    assert "/discard/" not in page
    assert ">Approve</button>" not in page


def test_a_published_publish_offers_a_duplicate_and_taking_it_down(client, owner, accounts, sandbox):
    publish = _sent(_create(owner, [accounts.x], "All good"))

    page = _page(_as(client, owner).get(_url(publish)))

    assert publish.status == PublishStatus.PUBLISHED
    forms = re.findall(r'<form[^>]*action="([^"]*)"', page.split("</header>", 1)[1])
    assert forms == [f"/dashboard/publishes/{publish.pk}/duplicate/", f"/dashboard/publishes/{publish.pk}/take-down/"]
    assert "/edit/" not in page


# --- taking it down --------------------------------------------------------------------------------


def test_taking_down_needs_the_box_ticked(client, owner, accounts, sandbox):
    publish = _sent(_create(owner, [accounts.x], "Still here"))

    page = _page(_post(client, owner, publish, "take-down"), status=400)

    assert "Tick the box to confirm that the posts are deleted on their networks." in page
    assert len(sandbox.posts("x")) == 1


def test_taking_down_deletes_the_posts_and_the_page_says_so(client, owner, partial, sandbox):
    _, bluesky = _targets(partial)
    page = _page(_as(client, owner).get(_url(partial)))
    assert f'action="/dashboard/publishes/{partial.pk}/take-down/"' in page
    # The failed X target has nothing to take down.
    assert "Deletes the published post on Bluesky, with its replies and first comment." in page

    response = _post(client, owner, partial, "take-down", sure="yes")

    assert response.status_code == 302
    page = _page(_as(client, owner).get(response["Location"]))
    assert "Taking down “Launch day”" in page
    assert f'id="removed-{bluesky.pk}"' in page
    assert "by a person of the team" in page
    assert "/take-down/" not in page
    assert sandbox.posts("bluesky") == []


def test_a_network_without_a_delete_call_says_so_on_the_page(client, owner, accounts, sandbox):
    publish = _sent(_create(owner, [accounts.x], "Kept on TikTok"))
    Target.objects.filter(publish=publish).update(platform="tiktok", account=accounts.tiktok)

    page = _page(_as(client, owner).get(_url(publish)))
    assert "TikTok has no delete call: delete it there in the app." in page
    response = _post(client, owner, publish, "take-down", sure="yes")

    page = _page(_as(client, owner).get(response["Location"]))
    assert "Not removed</strong>: TikTok has no delete call: delete it in the app." in page
    assert "/take-down/" not in page  # asking again would change nothing


# --- retry -----------------------------------------------------------------------------------------


def test_retry_with_an_edit_resends_only_the_failed_target_with_the_edited_text(client, owner, partial, sandbox):
    x, bluesky = _targets(partial)

    response = _post(client, owner, partial, "retry", **{f"content-{x.pk}": "Launch day, take two"})

    assert response.status_code == 302
    assert response["Location"] == _url(partial, team=owner.team)
    x.refresh_from_db()
    bluesky.refresh_from_db()
    assert (x.state, x.attempt_count, x.content) == (TargetState.PUBLISHED, 2, "Launch day, take two")
    assert (bluesky.state, bluesky.attempt_count) == (TargetState.PUBLISHED, 1)  # not sent again
    assert [p["text"] for p in sandbox.posts("x")] == ["Launch day, take two"]
    assert len(sandbox.posts("bluesky")) == 1
    page = _page(client.get(response["Location"]))
    assert "Sending 1 failed target again; it is being published." in page
    assert '<span class="status published" id="publish-status">published</span>' in page


def test_retry_without_a_change_resends_the_same_text_and_keeps_it_inherited(client, owner, partial, sandbox):
    x, _ = _targets(partial)

    # The browser sends the textarea's text back, with CRLF line breaks.
    _post(client, owner, partial, "retry", **{f"content-{x.pk}": "Launch day"})

    x.refresh_from_db()
    assert (x.state, x.content) == (TargetState.PUBLISHED, None)
    assert [p["text"] for p in sandbox.posts("x")] == ["Launch day"]


def test_line_breaks_typed_in_the_browser_are_sent_as_typed(client, owner, partial, sandbox):
    x, _ = _targets(partial)

    _post(client, owner, partial, "retry", **{f"content-{x.pk}": "Line one\r\nLine two"})

    assert [p["text"] for p in sandbox.posts("x")] == ["Line one\nLine two"]


def test_a_retry_edit_the_platform_refuses_is_shown_beside_the_text_and_kept(client, owner, partial, sandbox):
    x, _ = _targets(partial)
    too_long = "y" * 300

    response = _post(client, owner, partial, "retry", **{f"content-{x.pk}": too_long})

    page = _page(response, status=400)
    assert f'id="content-{x.pk}-problem"' in page
    assert f'aria-describedby="content-{x.pk}-problem"' in page
    assert f">{too_long}</textarea>" in page  # what was typed stays
    x.refresh_from_db()
    assert (x.state, x.attempt_count) == (TargetState.FAILED, 1)
    assert sandbox.posts("x") == []


def test_a_retry_can_change_the_media_of_the_failed_target(client, owner, partial, sandbox, settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    photo = files.stored_upload(owner.team, files.image(), "image/png", "fix.png")
    x, _ = _targets(partial)
    page = _page(_as(client, owner).get(_url(partial)))
    assert f'name="media-{x.pk}" value="{photo}"' in page

    _post(
        client,
        owner,
        partial,
        "retry",
        **{f"content-{x.pk}": "Launch day", f"media-shown-{x.pk}": "1", f"media-{x.pk}": photo},
    )

    x.refresh_from_db()
    assert (x.state, x.media_ids) == (TargetState.PUBLISHED, [photo])
    assert [p["media_count"] for p in sandbox.posts("x")] == [1]


def test_retrying_what_cannot_be_retried_shows_the_lifecycles_reason(client, owner, accounts, sandbox):
    publish = _sent(_create(owner, [accounts.x], "All good"))

    page = _page(_post(client, owner, publish, "retry"), status=400)

    assert "Only a failed or partial publish can be retried; this one is published." in page


def test_a_members_edited_retry_waits_for_approval_in_a_gated_team(client, owner, member, accounts, sandbox):
    owner.team.approval_required = True
    owner.team.save()
    sandbox.outcomes("x", "error")
    publish = _sent(_create(owner, [accounts.x], "Launch day"))
    x = publish.targets.get()

    response = _post(client, member, publish, "retry", **{f"content-{x.pk}": "Member's fix"})

    publish.refresh_from_db()
    assert publish.approval_status == ApprovalStatus.PENDING
    assert sandbox.posts("x") == []
    assert "it waits for approval" in _page(client.get(response["Location"]))


# --- approve and reject -------------------------------------------------------------------------


@pytest.fixture
def pending(team, member, accounts):
    team.approval_required = True
    team.save()
    publish = _create(member, [accounts.x], "Launch day", can_approve=False)
    assert publish.approval_status == ApprovalStatus.PENDING
    return publish


def test_member_sees_no_approve_button_and_posting_approve_is_not_found(client, member, pending):
    page = _page(_as(client, member).get(_url(pending)))

    assert ">Approve</button>" not in page
    assert "/reject/" not in page
    assert "Waiting for the team's owner or an admin to approve it." in page
    assert _post(client, member, pending, "approve").status_code == 404
    assert _post(client, member, pending, "reject").status_code == 404
    pending.refresh_from_db()
    assert pending.approval_status == ApprovalStatus.PENDING


def test_owner_approves_from_the_page_and_it_is_published(client, owner, pending, sandbox):
    page = _page(_as(client, owner).get(_url(pending)))
    assert ">Approve</button>" in page

    response = _post(client, owner, pending, "approve")

    assert response["Location"] == _url(pending, team=owner.team)
    pending.refresh_from_db()
    assert (pending.approval_status, pending.approved_by, pending.status) == (
        ApprovalStatus.APPROVED,
        owner.user,
        PublishStatus.PUBLISHED,
    )
    assert [p["text"] for p in sandbox.posts("x")] == ["Launch day"]
    page = _page(client.get(response["Location"]))
    assert "Approved “Launch day”; it is being published." in page
    assert f"by {owner.user.username} at" in page


def test_admin_rejects_with_a_reason_which_the_page_shows(client, admin, pending, sandbox):
    response = _post(client, admin, pending, "reject", reason="  Off brand.  ")

    pending.refresh_from_db()
    assert (pending.approval_status, pending.rejection_reason) == (ApprovalStatus.REJECTED, "Off brand.")
    page = _page(client.get(response["Location"]))
    assert "Rejected “Launch day”; it will not be published." in page
    assert "Reason: Off brand." in page
    assert sandbox.posts() == []


def test_a_too_long_reason_is_shown_beside_the_reason(client, owner, pending):
    page = _page(_post(client, owner, pending, "reject", reason="r" * 2001), status=400)

    assert '<p class="field-problem" id="reason-problem">Keep the reason to 2000 characters or fewer.</p>' in page
    pending.refresh_from_db()
    assert pending.approval_status == ApprovalStatus.PENDING


def test_approving_a_publish_no_longer_pending_says_why(client, owner, pending):
    _post(client, owner, pending, "reject")

    page = _page(_post(client, owner, pending, "approve"), status=400)

    assert "This publish is not waiting for approval." in page


# --- drafts: confirm and discard --------------------------------------------------------------


def test_confirming_a_draft_publishes_it_now(client, owner, accounts, sandbox):
    draft = _create(owner, [accounts.x], "Now, please", mode=PublishMode.DRAFT)

    response = _post(client, owner, draft, "confirm", when="now")

    draft.refresh_from_db()
    assert (draft.confirmed, draft.status) == (True, PublishStatus.PUBLISHED)
    assert [p["text"] for p in sandbox.posts("x")] == ["Now, please"]
    assert "Confirmed; it is being published." in _page(client.get(response["Location"]))


def test_a_confirm_the_queue_refuses_is_saved_and_left_to_the_relay(client, owner, accounts, sandbox):
    draft = _create(owner, [accounts.x], "Through the outage", mode=PublishMode.DRAFT)

    with broker_down():
        response = _post(client, owner, draft, "confirm", when="now")

    draft.refresh_from_db()
    assert (draft.confirmed, draft.status) == (True, PublishStatus.PUBLISHING)
    shown = _page(client.get(response["Location"]))
    assert "Confirmed; the queue is busy, so it is sent within a few minutes." in shown
    assert relay() == 1
    assert [p["text"] for p in sandbox.posts("x")] == ["Through the outage"]


def test_confirming_with_a_time_schedules_it_at_that_time_in_utc(client, owner, accounts, sandbox):
    draft = _create(owner, [accounts.x], "Later", mode=PublishMode.DRAFT)

    response = _post(client, owner, draft, "confirm", when="schedule", scheduled_at="2099-01-02T03:04")

    draft.refresh_from_db()
    assert draft.status == PublishStatus.SCHEDULED
    assert draft.scheduled_at == dt.datetime(2099, 1, 2, 3, 4, tzinfo=dt.UTC)
    assert "it is published at its scheduled time, 2099-01-02 03:04 UTC." in _page(client.get(response["Location"]))
    assert sandbox.posts() == []


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("2001-01-01T00:00", "That time has already passed: pick one in the future."),
        ("", "Pick the date and time to publish it at."),
        ("tomorrow", "Enter the date and time as YYYY-MM-DD HH:MM."),
        ("9999-12-31T23:00-05:00", "Pick a date before the year 9999."),
        ("9999-12-31T23:59", "Pick a date before the year 9999."),
        ("0001-01-01T00:00+05:00", "That date is out of range."),
    ],
)
def test_a_bad_time_is_shown_beside_the_time(client, owner, accounts, value, problem):
    draft = _create(owner, [accounts.x], "Later", mode=PublishMode.DRAFT)

    page = _page(_post(client, owner, draft, "confirm", when="schedule", scheduled_at=value), status=400)

    assert f'<p class="field-problem" id="scheduled_at-problem">{problem}</p>' in page
    draft.refresh_from_db()
    assert (draft.status, draft.confirmed) == (PublishStatus.DRAFT, False)


def test_discarding_needs_the_box_ticked(client, owner, accounts):
    draft = _create(owner, [accounts.x], "Maybe not", mode=PublishMode.DRAFT)

    page = _page(_post(client, owner, draft, "discard"), status=400)

    assert "Tick the box to confirm that the draft is deleted for good." in page
    assert Publish.objects.filter(pk=draft.pk).exists()


def test_discarding_a_draft_goes_back_to_the_list(client, owner, accounts):
    draft = _create(owner, [accounts.x], "Maybe not", mode=PublishMode.DRAFT)

    response = _post(client, owner, draft, "discard", sure="yes")

    assert response["Location"] == f"/dashboard/publishes/?team={owner.team.pk}"
    assert not Publish.objects.filter(pk=draft.pk).exists()


def test_the_actions_need_a_post(client, owner, accounts):
    draft = _create(owner, [accounts.x], "A draft", mode=PublishMode.DRAFT)

    for verb in ("retry", "confirm", "discard", "approve", "reject", "take-down"):
        assert _as(client, owner).get(_url(draft, verb)).status_code == 405


# --- live status ---------------------------------------------------------------------------------


def test_a_publish_being_sent_polls_its_delivery_fragment(client, owner, accounts):
    sending = _create(owner, [accounts.x], "On its way")  # jobs written, not handed over yet

    page = _page(_as(client, owner).get(_url(sending)))
    fragment = _page(client.get(f"{_url(sending, team=owner.team)}&fragment=targets"))

    assert sending.status == PublishStatus.PUBLISHING
    assert 'aria-live="polite"' in page
    assert 'data-settled="false"' in page
    assert "dashboard/detail.js" in page
    assert "<html" not in fragment
    assert 'data-settled="false"' in fragment
    assert '<span class="status publishing" id="publish-status">publishing</span>' in fragment


def test_a_settled_publish_does_not_poll(client, owner, partial):
    fragment = _page(_as(client, owner).get(f"{_url(partial, team=owner.team)}&fragment=targets"))

    assert 'data-settled="true"' in fragment
    assert "Retry failed targets" in fragment  # what the page shows once it settles


# --- query count ---------------------------------------------------------------------------------


def _failed_publish(owner, count, sandbox, *, retries=0):
    accounts = [sandbox_account(owner.team, "x", suffix=f"_{n}") for n in range(count)]
    sandbox.outcomes("x", *["error"] * count * (retries + 1))
    publish = _sent(_create(owner, accounts, "Failing"))
    for _ in range(retries):
        publish = _sent(
            lifecycle.publish_retry(
                team=owner.team, publish_id=publish.pk, caller=inputs.Caller(user=owner.user, can_approve=True)
            )
        )
    return publish


def _queries_of(client, url):
    with CaptureQueriesContext(connection) as captured:
        _page(client.get(url))
    return len(captured)


def test_the_query_count_does_not_grow_with_targets_or_attempts(client, owner, sandbox, settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    files.stored_upload(owner.team, files.image(), "image/png", "choice.png")  # a file to choose in each edit
    one = _failed_publish(owner, 1, sandbox, retries=2)
    fifty = _failed_publish(owner, 50, sandbox)
    assert one.targets.get().attempts.count() == 3
    assert fifty.targets.count() == 50
    _as(client, owner)

    small, large = _queries_of(client, _url(one, team=owner.team)), _queries_of(client, _url(fifty, team=owner.team))

    assert small == large
    assert _queries_of(client, f"{_url(fifty, team=owner.team)}&fragment=targets") <= large


# --- the live link -------------------------------------------------------------------------------


def test_the_live_link_of_a_real_account_is_the_platforms_url(partial):
    _, bluesky = _targets(partial)
    bluesky.account.sandbox = False

    assert live_link(bluesky) == bluesky.platform_post_url


def test_the_page_shows_each_thread_item_with_its_status_and_a_link(client, owner, sandbox):
    accounts = [sandbox_account(owner.team, "x")]
    thread = [inputs.ThreadItemInput(content="A reply"), inputs.ThreadItemInput(content="And another")]
    publish = lifecycle.publish_create(
        team=owner.team,
        caller=inputs.Caller(user=owner.user, can_approve=True),
        content="The first post",
        media_ids=[],
        targets=[inputs.TargetInput(account_id=str(accounts[0].pk), thread=thread)],
        publish_mode=PublishMode.IMMEDIATE,
        scheduled_at=None,
    )
    _sent(publish)

    page = html.unescape(_page(_as(client, owner).get(_url(publish))))

    target = Target.objects.get(publish=publish)
    replies = [p for p in sandbox.posts("x") if p["text"] != "The first post"]
    assert [p["text"] for p in replies] == ["A reply", "And another"]
    for position, reply in enumerate(replies, start=1):
        row = page.split(f'id="thread-item-{target.pk}-{position}"', 1)[1].split("</tr>", 1)[0]
        assert reply["text"] in row
        assert "Published" in row
        assert f"/_sandbox/posts/x/{reply['id']}" in row


def test_a_published_publish_whose_thread_is_still_going_out_keeps_polling(client, owner, sandbox):
    account = sandbox_account(owner.team, "x")
    sandbox.outcomes("x", "ok", "timeout")  # the target goes out; its reply's answer is lost
    publish = lifecycle.publish_create(
        team=owner.team,
        caller=inputs.Caller(user=owner.user, can_approve=True),
        content="Published, its reply open",
        media_ids=[],
        targets=[inputs.TargetInput(account_id=str(account.pk), thread=[inputs.ThreadItemInput("A reply")])],
        publish_mode=PublishMode.IMMEDIATE,
        scheduled_at=None,
    )
    publish = _sent(publish)
    assert publish.status == PublishStatus.PUBLISHED

    fragment = _page(_as(client, owner).get(f"{_url(publish, team=owner.team)}&fragment=targets"))

    assert 'data-settled="false"' in fragment
    assert "Unknown" in fragment.split('class="stack thread"', 1)[1]

"""Editing a draft or a scheduled publish on the dashboard (compose's form, filled from the
publish, saved through the PATCH's own transition), duplicating a publish into a new draft, and
copying a rejected one, through Django's test client."""

from __future__ import annotations

import datetime as dt
import html
import re
import zoneinfo

import pytest
from django.utils import timezone

from accounts import services as account_services
from accounts.models import AccountStatus
from media import services
from media.models import MediaUpload
from publishing import approval, inputs, lifecycle
from publishing.models import ApprovalStatus, Publish, PublishMode, PublishStatus, ThreadItem
from tests.media import files

pytestmark = pytest.mark.django_db


def _at(hours: float) -> dt.datetime:
    return (timezone.now() + dt.timedelta(hours=hours)).replace(second=0, microsecond=0)


def _local(moment: dt.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M")


def _target(account, **fields):
    return inputs.TargetInput(account_id=str(account.pk), fields=frozenset(fields), **fields)


def _create(persona, *targets, content="The team's words", mode=PublishMode.SCHEDULED, when=None, **kw):
    return lifecycle.publish_create(
        team=persona.team,
        caller=inputs.Caller(user=persona.user, can_approve=kw.pop("can_approve", True)),
        content=content,
        media_ids=kw.pop("media_ids", []),
        targets=list(targets),
        publish_mode=mode,
        scheduled_at=when if when is not None else (_at(3) if mode == PublishMode.SCHEDULED else None),
    )


def _as(client, persona):
    client.force_login(persona.user)
    return client


def _edit_url(publish, persona):
    return f"/dashboard/publishes/{publish.pk}/edit/?team={persona.team.pk}"


def _form(persona, *accounts, content="Edited words", **fields):
    return {"team": str(persona.team.pk), "content": content, "account": [str(a.pk) for a in accounts], **fields}


def _save(client, persona, publish, *accounts, **fields):
    return _as(client, persona).post(_edit_url(publish, persona), _form(persona, *accounts, **fields))


def _messages(client, persona):
    page = client.get(f"/dashboard/publishes/?team={persona.team.pk}").content.decode()
    return [html.unescape(m) for m in re.findall(r'<ul class="messages".*?<li[^>]*>(.*?)</li>', page, re.S)]


def _problem(page, attribute):
    match = re.search(rf'<p class="field-problem"[^>]*{attribute}[^>]*>(.*?)</p>', page, re.S)
    assert match, attribute
    return html.unescape(match.group(1)).strip()


@pytest.fixture
def photo(owner, settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    return files.stored_upload(owner.team, files.image(), "image/png", "launch.png")


@pytest.fixture
def gated(team):
    team.approval_required = True
    team.save()


# --- the form, filled ------------------------------------------------------------------------------


def test_the_edit_page_is_compose_filled_with_everything_the_publish_holds(client, owner, accounts, photo):
    when = _at(5)
    publish = _create(
        owner,
        _target(accounts.x),
        _target(accounts.bluesky, content="Only on Bluesky", platform_settings={"first_comment": "More soon"}),
        content="For everyone",
        media_ids=[photo],
        when=when,
    )

    page = _as(client, owner).get(_edit_url(publish, owner)).content.decode()

    assert "<h1>Edit scheduled post" in page
    assert f'action="/dashboard/publishes/{publish.pk}/edit/?team={owner.team.pk}"' in page
    assert ">For everyone</textarea>" in page
    assert f'value="{_local(when)}"' in page
    assert f'<input type="hidden" name="media_ids" value="{photo}">' in page
    for account in (accounts.x, accounts.bluesky):
        assert f'name="account" value="{account.pk}" checked' in page
    assert f'name="account" value="{accounts.linkedin.pk}" checked' not in page
    assert ">Only on Bluesky</textarea>" in page
    assert ">More soon</textarea>" in page
    assert "Save changes" in page
    assert "Publish now" not in page


def test_the_detail_page_offers_edit_for_a_draft_and_a_scheduled_post_only(client, owner, accounts, sandbox):
    draft = _create(owner, _target(accounts.x), mode=PublishMode.DRAFT)
    scheduled = _create(owner, _target(accounts.x))
    published = _create(owner, _target(accounts.bluesky), mode=PublishMode.IMMEDIATE)
    assert Publish.objects.get(pk=published.pk).status == PublishStatus.PUBLISHED

    for publish, editable in ((draft, True), (scheduled, True), (published, False)):
        page = _as(client, owner).get(f"/dashboard/publishes/{publish.pk}/?team={owner.team.pk}").content.decode()
        assert (f'href="{_edit_url(publish, owner)}"'.replace("&", "&amp;") in page) is editable
        assert f'action="/dashboard/publishes/{publish.pk}/duplicate/"' in page


# --- saving ----------------------------------------------------------------------------------------


def test_saving_changes_the_text_time_accounts_media_and_settings(client, owner, accounts, photo):
    publish = _create(owner, _target(accounts.x, content="X only"), _target(accounts.linkedin))
    later = _at(30)
    bluesky = str(accounts.bluesky.pk)

    response = _save(
        client,
        owner,
        publish,
        accounts.linkedin,
        accounts.bluesky,
        content="New words\r\non two lines",
        scheduled_at=_local(later),
        media_ids=[photo],
        **{f"t-{bluesky}-content": "Bluesky's own", f"t-{bluesky}-first_comment": "See the thread"},
        **{f"t-{accounts.linkedin.pk}-visibility": "CONNECTIONS"},
    )

    assert response.status_code == 302
    assert response["Location"] == f"/dashboard/publishes/{publish.pk}/?team={owner.team.pk}"
    saved = Publish.objects.get(pk=publish.pk)
    assert (saved.content, saved.media_ids, saved.scheduled_at) == ("New words\non two lines", [photo], later)
    assert saved.status == PublishStatus.SCHEDULED
    targets = {t.platform: t for t in saved.targets.all()}
    assert set(targets) == {"linkedin", "bluesky"}
    assert (targets["bluesky"].content, targets["bluesky"].platform_settings) == (
        "Bluesky's own",
        {"first_comment": "See the thread"},
    )
    assert targets["linkedin"].platform_settings == {"visibility": "CONNECTIONS"}
    assert targets["linkedin"].content is None
    assert saved.release.due_at == later
    assert _messages(client, owner) == [
        f"Saved your changes to “New words\non two lines”; it is published at {later:%Y-%m-%d %H:%M} UTC."
    ]


def test_the_edit_page_shows_and_saves_the_alt_text_of_the_posts_media(client, owner, accounts, photo):
    services.media_set_alt_text(team=owner.team, media_id=photo, alt_text="A launch photo")
    publish = _create(owner, _target(accounts.x), media_ids=[photo])

    page = _as(client, owner).get(_edit_url(publish, owner)).content.decode()
    response = _save(
        client,
        owner,
        publish,
        accounts.x,
        scheduled_at=_local(publish.scheduled_at),
        media_ids=[photo],
        **{f"media-alt-{photo}": "The team on stage at the launch"},
    )

    assert f'name="media-alt-{photo}"' in page
    assert ">A launch photo</textarea>" in page
    assert response.status_code == 302
    assert MediaUpload.objects.get(pk=photo).alt_text == "The team on stage at the launch"


def test_an_alt_text_too_long_is_refused_and_the_edit_is_not_saved(client, owner, accounts, photo):
    publish = _create(owner, _target(accounts.x), media_ids=[photo])

    response = _save(
        client,
        owner,
        publish,
        accounts.x,
        content="Not saved",
        scheduled_at=_local(publish.scheduled_at),
        media_ids=[photo],
        **{f"media-alt-{photo}": "z" * 1001},
    )

    assert response.status_code == 400
    assert "at most 1000" in _problem(response.content.decode(), f'id="media-alt-{photo}-problem"')
    assert Publish.objects.get(pk=publish.pk).content == "The team's words"
    assert MediaUpload.objects.get(pk=photo).alt_text == ""


def test_a_blank_text_of_an_account_goes_back_to_the_posts_and_unknown_settings_stay(client, owner, accounts):
    settings = {"visibility": "CONNECTIONS", "x": 1}
    publish = _create(owner, _target(accounts.linkedin, content="Own words", platform_settings=settings))

    visibility = {f"t-{accounts.linkedin.pk}-visibility": "PUBLIC"}
    response = _save(client, owner, publish, accounts.linkedin, scheduled_at=_local(publish.scheduled_at), **visibility)

    assert response.status_code == 302

    [target] = Publish.objects.get(pk=publish.pk).targets.all()
    assert target.content is None
    assert target.platform_settings == {"visibility": "PUBLIC", "x": 1}


def test_a_target_keeps_its_own_media_and_thread_when_saved_unchanged(client, owner, accounts, photo):
    thread = [inputs.ThreadItemInput(content="Second post")]
    publish = _create(
        owner,
        inputs.TargetInput(
            account_id=str(accounts.x.pk), media_ids=[photo], fields=frozenset({"media_ids"}), thread=thread
        ),
    )
    form = _as(client, owner).get(_edit_url(publish, owner)).content.decode()
    assert f'name="t-{accounts.x.pk}-media-own" value="on" checked' in form

    _save(
        client,
        owner,
        publish,
        accounts.x,
        content="The team's words",
        scheduled_at=_local(publish.scheduled_at),
        media_ids=[photo],
        **{f"t-{accounts.x.pk}-media-own": "on", f"t-{accounts.x.pk}-media": photo},
    )

    [target] = Publish.objects.get(pk=publish.pk).targets.all()
    assert (target.media_ids, Publish.objects.get(pk=publish.pk).media_ids) == ([photo], [photo])
    assert [i.content for i in ThreadItem.objects.filter(target=target)] == ["Second post"]


def test_editing_the_main_text_of_a_thread_publish_keeps_its_thread_items(client, owner, accounts, photo):
    thread = [
        inputs.ThreadItemInput(content="1/ The first reply"),
        inputs.ThreadItemInput(content="2/ With a picture", media_ids=[photo]),
    ]
    publish = _create(owner, inputs.TargetInput(account_id=str(accounts.x.pk), thread=thread))
    [target] = publish.targets.all()
    stored = list(ThreadItem.objects.filter(target=target).order_by("position").values("pk", "content", "media_ids"))

    form = html.unescape(_as(client, owner).get(_edit_url(publish, owner)).content.decode())
    shown = re.search(rf'<div class="thread" id="t-{accounts.x.pk}-thread">(.*?)</div>', form, re.S)
    assert shown, "the thread is not shown on the edit page"
    assert "1/ The first reply" in shown.group(1)
    assert '2/ With a picture <span class="muted">+ 1 media</span>' in shown.group(1)
    assert f"PATCH /api/v1/publishes/{publish.pk}</code> with this target's <code>thread</code>" in shown.group(1)
    assert "<textarea" not in shown.group(1)  # shown, not edited here

    response = _save(
        client, owner, publish, accounts.x, content="New main words", scheduled_at=_local(publish.scheduled_at)
    )

    assert response.status_code == 302
    assert Publish.objects.get(pk=publish.pk).content == "New main words"
    kept = list(ThreadItem.objects.filter(target=target).order_by("position").values("pk", "content", "media_ids"))
    assert kept == stored


@pytest.mark.parametrize("cut_off", ["expired", "disconnected"])
def test_an_account_that_can_no_longer_publish_stays_on_the_edit_page_with_a_warning(client, owner, accounts, cut_off):
    publish = _create(owner, _target(accounts.x), _target(accounts.bluesky))
    if cut_off == "expired":
        account_services.account_mark_expired(account=accounts.bluesky, reason="The token was refused.")
    else:
        account_services.account_disconnect(account=accounts.bluesky)
    warning = f"@{accounts.bluesky.handle} needs reconnecting: reconnect it or untick it before saving."

    page = html.unescape(_as(client, owner).get(_edit_url(publish, owner)).content.decode())

    checkbox = re.search(
        rf'<input type="checkbox" class="pick" name="account" value="{accounts.bluesky.pk}"[^>]*>', page
    )
    assert checkbox, "the account is gone from the form"
    assert " checked" in checkbox.group(0)
    assert " disabled" not in checkbox.group(0)  # it can be unticked
    assert f'aria-describedby="t-{accounts.bluesky.pk}-problem ' in checkbox.group(0)
    assert _problem(page, f'id="t-{accounts.bluesky.pk}-problem"') == warning

    kept_ticked = _save(
        client, owner, publish, accounts.x, accounts.bluesky, content="Both", scheduled_at=_local(publish.scheduled_at)
    )

    assert kept_ticked.status_code == 400
    assert _problem(kept_ticked.content.decode(), f'id="t-{accounts.bluesky.pk}-problem"') == warning
    assert Publish.objects.get(pk=publish.pk).targets.count() == 2
    assert Publish.objects.get(pk=publish.pk).content == "The team's words"

    unticked = _save(client, owner, publish, accounts.x, content="Only X", scheduled_at=_local(publish.scheduled_at))

    assert unticked.status_code == 302
    assert [t.account_id for t in Publish.objects.get(pk=publish.pk).targets.all()] == [accounts.x.pk]


def test_compose_still_offers_no_disconnected_account(client, owner, accounts):
    account_services.account_disconnect(account=accounts.bluesky)
    accounts.x  # noqa: B018 - made on first use

    page = _as(client, owner).get(f"/dashboard/compose/?team={owner.team.pk}").content.decode()

    assert f'value="{accounts.bluesky.pk}"' not in page
    assert f'value="{accounts.x.pk}"' in page


@pytest.mark.parametrize(
    ("own", "state", "no_text_ticked"),
    [
        (None, "Same as the main text", False),
        ("", "No text: its own text is empty", True),
        ("Mine", "Its own text", False),
    ],
)
def test_the_customize_box_says_whether_an_account_uses_the_main_text(
    client, owner, accounts, photo, own, state, no_text_ticked
):
    fields = {} if own is None else {"content": own}
    publish = _create(owner, _target(accounts.bluesky, **fields), media_ids=[photo])
    pk = accounts.bluesky.pk

    page = html.unescape(_as(client, owner).get(_edit_url(publish, owner)).content.decode())

    assert f'Customize for Bluesky <span class="muted" data-text-state>· {state}</span>' in page
    assert 'placeholder="Same as the main text"' in page
    ticked = re.search(rf'<input type="checkbox" name="t-{pk}-no-text" value="on" data-no-text( checked)?>', page)
    assert ticked, "no 'no text' choice"
    assert bool(ticked.group(1)) == no_text_ticked

    # Saved as the page shows it, each target keeps what it had: its own empty text stays empty.
    form = {f"t-{pk}-content": own or "", "media_ids": [photo], "scheduled_at": _local(publish.scheduled_at)}
    if no_text_ticked:
        form[f"t-{pk}-no-text"] = "on"
    assert _save(client, owner, publish, accounts.bluesky, content="The team's words", **form).status_code == 302
    [target] = Publish.objects.get(pk=publish.pk).targets.all()
    assert target.content == own


def test_a_draft_takes_a_time_and_loses_it_again(client, owner, accounts):
    draft = _create(owner, _target(accounts.x), mode=PublishMode.DRAFT)
    later = _at(8)

    _save(client, owner, draft, accounts.x, scheduled_at=_local(later))
    assert Publish.objects.get(pk=draft.pk).scheduled_at == later

    _save(client, owner, draft, accounts.x, scheduled_at="")
    saved = Publish.objects.get(pk=draft.pk)
    assert (saved.scheduled_at, saved.status, saved.confirmed) == (None, PublishStatus.DRAFT, False)


def test_problems_are_shown_next_to_their_fields_and_nothing_is_saved(client, owner, accounts):
    publish = _create(owner, _target(accounts.x))
    past = _at(-2)

    response = _save(
        client, owner, publish, accounts.x, scheduled_at=_local(past), **{f"t-{accounts.x.pk}-content": "x" * 300}
    )

    assert response.status_code == 400
    page = response.content.decode()
    assert "x" * 300 in page  # what was typed stays
    assert _problem(page, 'data-problem="text"')
    assert Publish.objects.get(pk=publish.pk).content == "The team's words"

    response = _save(client, owner, publish, accounts.x, scheduled_at=_local(past))

    assert response.status_code == 400
    assert "future" in _problem(response.content.decode(), 'id="scheduled_at-problem"')
    saved = Publish.objects.get(pk=publish.pk)
    assert (saved.content, saved.scheduled_at) == ("The team's words", publish.scheduled_at)


def test_a_post_needs_an_account(client, owner, accounts):
    publish = _create(owner, _target(accounts.x))

    response = _save(client, owner, publish, scheduled_at=_local(publish.scheduled_at))

    assert response.status_code == 400
    assert _problem(response.content.decode(), 'id="targets-problem"')
    assert Publish.objects.get(pk=publish.pk).targets.count() == 1


# --- approval and roles: as the API's PATCH ------------------------------------------------------


def test_a_members_edit_of_a_scheduled_post_waits_for_approval_as_the_apis_patch_does(
    client, api, owner, member, accounts, gated
):
    by_dashboard = _create(owner, _target(accounts.x))
    by_api = _create(owner, _target(accounts.x))
    assert by_dashboard.approval_status is None

    response = _save(client, member, by_dashboard, accounts.x, scheduled_at=_local(by_dashboard.scheduled_at))
    patched = api.as_(member.key).patch(f"/api/v1/publishes/{by_api.pk}", {"content": "Edited words"}, format="json")

    assert response.status_code == 302
    assert patched.json()["data"]["approval_status"] == ApprovalStatus.PENDING
    assert Publish.objects.get(pk=by_dashboard.pk).approval_status == ApprovalStatus.PENDING
    assert _messages(client, member) == [
        "Saved your changes to “Edited words”; it waits for approval by the team's owner or an admin."
    ]


def test_an_admins_edit_needs_no_approval_and_a_members_draft_stays_a_draft(client, admin, member, accounts, gated):
    scheduled = _create(admin, _target(accounts.x))
    draft = _create(member, _target(accounts.x), mode=PublishMode.DRAFT, can_approve=False)

    form = _as(client, member).get(_edit_url(scheduled, member)).content.decode()
    assert "saving sends the post back to the owner or an admin for approval" in form
    _save(client, admin, scheduled, accounts.x, scheduled_at=_local(scheduled.scheduled_at))
    _save(client, member, draft, accounts.x)

    assert Publish.objects.get(pk=scheduled.pk).approval_status is None
    saved = Publish.objects.get(pk=draft.pk)
    assert (saved.content, saved.approval_status, saved.status) == ("Edited words", None, PublishStatus.DRAFT)


def test_another_teams_publish_is_a_404(client, owner, outsider, accounts):
    publish = _create(owner, _target(accounts.x))

    assert _as(client, outsider).get(_edit_url(publish, outsider)).status_code == 404
    assert _save(client, outsider, publish, accounts.x).status_code == 404
    duplicate = f"/dashboard/publishes/{publish.pk}/duplicate/"
    assert client.post(duplicate, {"team": str(outsider.team.pk)}).status_code == 404
    assert Publish.objects.count() == 1
    assert Publish.objects.get(pk=publish.pk).content == "The team's words"


def test_a_post_that_went_out_cannot_be_edited_and_the_page_says_why(client, owner, accounts, sandbox):
    published = _create(owner, _target(accounts.bluesky), content="Sent already", mode=PublishMode.IMMEDIATE)
    detail = f"/dashboard/publishes/{published.pk}/?team={owner.team.pk}"

    gone = "“Sent already” can no longer be edited: it is published now. Duplicate it to send a changed copy."

    response = _as(client, owner).get(_edit_url(published, owner))
    assert (response.status_code, response["Location"]) == (302, detail)
    assert _messages(client, owner) == [gone]

    response = _save(client, owner, published, accounts.bluesky)
    assert (response.status_code, response["Location"]) == (302, detail)
    assert _messages(client, owner) == [gone]
    assert Publish.objects.get(pk=published.pk).content == "Sent already"


# --- duplicate and a rejected post -----------------------------------------------------------------


def test_duplicate_makes_a_new_draft_of_the_post_on_the_accounts_still_connected(client, member, accounts, photo):
    original = _create(
        member,
        _target(accounts.x, content="X words", platform_settings={"sensitive": True}),
        _target(accounts.bluesky),
        content="Copy me",
        media_ids=[photo],
    )
    accounts.bluesky.status = AccountStatus.DISABLED
    accounts.bluesky.save()

    response = _as(client, member).post(f"/dashboard/publishes/{original.pk}/duplicate/", {"team": str(member.team.pk)})

    copy = Publish.objects.exclude(pk=original.pk).get()
    assert response["Location"] == _edit_url(copy, member)
    assert (copy.content, copy.media_ids, copy.status, copy.confirmed, copy.scheduled_at) == (
        "Copy me",
        [photo],
        PublishStatus.DRAFT,
        False,
        None,
    )
    assert copy.created_by == member.user
    [target] = copy.targets.all()
    assert (target.account_id, target.content, target.platform_settings) == (
        accounts.x.pk,
        "X words",
        {"sensitive": True},
    )
    assert Publish.objects.get(pk=original.pk).status == PublishStatus.SCHEDULED
    page = client.get(response["Location"]).content.decode()
    assert "<h1>Edit draft" in page
    assert "Copied into a new draft: “Copy me”. Change what you like and save it." in html.unescape(page)


def test_a_rejected_post_shows_the_reason_and_is_copied_into_a_new_draft(client, owner, member, accounts, gated):
    rejected = _create(member, _target(accounts.x), content="Too bold", can_approve=False)
    approval.publish_reject(
        team=owner.team,
        publish_id=rejected.pk,
        caller=inputs.Caller(user=owner.user, can_approve=True),
        reason="Tone it down",
    )
    detail = f"/dashboard/publishes/{rejected.pk}/?team={member.team.pk}"

    page = _as(client, member).get(detail).content.decode()

    section = re.search(r'<section class="rejection".*?</section>', page, re.S).group(0)
    assert "Tone it down" in section
    assert "Copy into a new draft" in section
    assert f'href="{_edit_url(rejected, member)}"'.replace("&", "&amp;") not in page
    assert client.get(_edit_url(rejected, member))["Location"] == detail

    client.post(f"/dashboard/publishes/{rejected.pk}/duplicate/", {"team": str(member.team.pk)})

    copy = Publish.objects.exclude(pk=rejected.pk).get()
    assert (copy.content, copy.status, copy.approval_status) == ("Too bold", PublishStatus.DRAFT, None)
    assert Publish.objects.get(pk=rejected.pk).approval_status == ApprovalStatus.REJECTED


def test_a_post_with_no_account_left_is_not_copied_and_the_page_says_why(client, owner, accounts):
    original = _create(owner, _target(accounts.x))
    accounts.x.status = AccountStatus.EXPIRED
    accounts.x.save()

    response = _as(client, owner).post(f"/dashboard/publishes/{original.pk}/duplicate/", {"team": str(owner.team.pk)})

    assert response["Location"] == f"/dashboard/publishes/{original.pk}/?team={owner.team.pk}"
    assert Publish.objects.count() == 1
    assert "None of this post's accounts is connected any more" in _messages(client, owner)[0]


def test_the_time_is_shown_and_taken_in_the_teams_zone(client, owner, accounts):
    owner.team.time_zone = "America/New_York"
    owner.team.save(update_fields=["time_zone"])
    zone = zoneinfo.ZoneInfo("America/New_York")
    when = _at(30)
    publish = _create(owner, _target(accounts.x), when=when)

    page = _as(client, owner).get(_edit_url(publish, owner)).content.decode()
    assert f'value="{_local(when.astimezone(zone))}"' in page
    assert "Time to publish (America/New_York)" in page

    _save(client, owner, publish, accounts.x, content="Same time", scheduled_at=_local(when.astimezone(zone)))
    assert Publish.objects.get(pk=publish.pk).scheduled_at == when  # unchanged, not moved by the offset
    assert _messages(client, owner)[0].endswith(
        f"it is published at {when.astimezone(zone):%Y-%m-%d %H:%M} America/New_York."
    )

    later = _at(54).astimezone(zone)
    _save(client, owner, publish, accounts.x, content="Later", scheduled_at=_local(later))
    assert Publish.objects.get(pk=publish.pk).scheduled_at == later
    assert _messages(client, owner)[0].endswith(f"it is published at {later:%Y-%m-%d %H:%M} America/New_York.")

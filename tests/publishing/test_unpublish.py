"""Taking a publish's posts down (`POST /publishes/{id}/unpublish`): each target's post deleted
on its network once, as a unit of the delivery engine, with its replies where they are posts of
their own; the target then shows `removed_by: "user"` and `post.removed` fires once. The sandbox
over real HTTP is the ground truth for what is still on each network."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone

from demo.seed import PINTEREST_BOARD_ID
from publishing import delivery
from publishing.models import DeliveryAttempt, DeliveryJob, JobState, ThreadItem, ThreadItemKind
from publishing.readback import reconcile
from tests.publishing.safety_support import create, error_of, fetch, not_eager, target_of
from webhooks.models import Event

pytestmark = pytest.mark.django_db

# What each network needs beside text for a post.
MEDIA = {"instagram": "jpeg", "youtube": "video", "pinterest": "jpeg"}
SETTINGS: dict[str, dict[str, Any]] = {
    "youtube": {"title": "A clip"},
    "pinterest": {"boardId": PINTEREST_BOARD_ID},
}
COMMENTS = ("x", "bluesky", "threads", "facebook", "linkedin", "youtube")
DELETING = (*COMMENTS, "pinterest")


def _later(**delta: float) -> dt.datetime:
    return timezone.now() + dt.timedelta(**delta)


def _target(account: Any, upload: Any, owner: Any, **settings: Any) -> dict[str, Any]:
    platform = account.platform
    target: dict[str, Any] = {
        "account_id": str(account.pk),
        "platform_settings": {**SETTINGS.get(platform, {}), **settings},
    }
    if platform in MEDIA:
        target["media_ids"] = [upload(owner.team, kind=MEDIA[platform])]
    return target


def _published(api: Any, owner: Any, *targets: dict[str, Any]) -> str:
    body = {"content": "Here for a while", "targets": list(targets)}
    publish_id = str(create(api, owner.key, body).json()["data"]["id"])
    assert fetch(api, owner.key, publish_id)["status"] == "published"
    return publish_id


def _unpublish(api: Any, owner: Any, publish_id: str, body: dict[str, Any] | None = None) -> Any:
    return api.as_(owner.key).post(f"/api/v1/publishes/{publish_id}/unpublish", body or {}, format="json")


def _removed_events(owner: Any) -> list[dict[str, Any]]:
    return [e.data for e in Event.objects.filter(team=owner.team, type="post.removed").order_by("created_at")]


# Pinterest pulls its image from this service's live server, which reads the upload over its own
# database connection: that case commits its rows (a transactional test) for the server to see.
NETWORKS = [
    *(n for n in DELETING if n != "pinterest"),
    pytest.param("pinterest", marks=pytest.mark.django_db(transaction=True)),
]


@pytest.mark.parametrize("platform", NETWORKS)
def test_a_published_post_is_deleted_on_its_network_and_shows_it(
    api, owner, accounts, sandbox, upload, platform, request
):
    if platform == "pinterest":
        request.getfixturevalue("pulled")
    account = getattr(accounts, platform)
    comment = {"first_comment": "More below"} if platform in COMMENTS else {}
    publish_id = _published(api, owner, _target(account, upload, owner, **comment))
    post_id = target_of(fetch(api, owner.key, publish_id), platform)["platform_post_id"]
    assert [p["id"] for p in sandbox.posts(platform) if not p["reply_to"]] == [post_id]

    answer = _unpublish(api, owner, publish_id)

    assert answer.status_code == 202, answer.content
    target = target_of(fetch(api, owner.key, publish_id), platform)
    assert (target["status"], target["removed_by"], target["removal_error"]) == ("published", "user", None)
    assert target["removed_at"] is not None
    assert sandbox.posts(platform) == []  # the post, and a first comment that was a reply
    assert sandbox.comments(platform) == []  # a comment goes with its post
    [event] = _removed_events(owner)
    assert (event["publish_id"], event["removed_by"]) == (publish_id, "user")
    assert [t["id"] for t in event["targets"]] == [target["id"]]


def test_on_x_the_whole_thread_and_first_comment_go_with_the_post(api, owner, accounts, sandbox, upload):
    target = _target(accounts.x, upload, owner, first_comment="Sources")
    target["thread"] = [{"content": "Second"}, {"content": "Third"}]
    publish_id = _published(api, owner, target)
    assert len(sandbox.posts("x")) == 4

    assert _unpublish(api, owner, publish_id).status_code == 202

    assert sandbox.posts("x") == []
    removals = ThreadItem.objects.filter(kind=ThreadItemKind.REMOVAL, target__publish_id=publish_id)
    assert sorted(r.state for r in removals) == ["published"] * 4
    # The thread as the API shows it is what was published, not the removals.
    shown = target_of(fetch(api, owner.key, publish_id), "x")
    assert [item["content"] for item in shown["thread"]] == ["Second", "Third"]
    assert shown["first_comment"]["status"] == "published"


def test_only_the_targets_named_are_taken_down(api, owner, accounts, sandbox, upload):
    publish_id = _published(api, owner, _target(accounts.x, upload, owner), _target(accounts.bluesky, upload, owner))
    bluesky = target_of(fetch(api, owner.key, publish_id), "bluesky")

    answer = _unpublish(api, owner, publish_id, {"target_ids": [bluesky["id"]]})

    assert answer.status_code == 202
    shown = fetch(api, owner.key, publish_id)
    assert target_of(shown, "bluesky")["removed_by"] == "user"
    assert target_of(shown, "x")["removed_at"] is None
    assert (len(sandbox.posts("x")), sandbox.posts("bluesky")) == (1, [])


@pytest.mark.parametrize("platform", ["tiktok", "instagram"])
def test_a_network_without_a_delete_call_says_so_and_nothing_is_sent(api, owner, accounts, sandbox, upload, platform):
    kind = "video" if platform == "tiktok" else "jpeg"
    publish = _stored_published(owner, getattr(accounts, platform), upload(owner.team, kind=kind))

    answer = _unpublish(api, owner, str(publish.pk))

    assert answer.status_code == 202
    target = target_of(answer.json()["data"], platform)
    assert target["removed_at"] is None
    name = {"tiktok": "TikTok", "instagram": "Instagram"}[platform]
    assert target["removal_error"].startswith(f"{name} has no delete call")
    assert not ThreadItem.objects.filter(kind=ThreadItemKind.REMOVAL).exists()
    assert _removed_events(owner) == []


def _stored_published(owner: Any, account: Any, media_id: str) -> Any:
    """A publish whose one target was published on `account` (a network that needs media and a
    live server to publish: the row as delivery leaves it)."""
    from publishing import inputs, lifecycle
    from publishing.models import Target, TargetState

    publish = lifecycle.publish_create(
        team=owner.team,
        caller=inputs.Caller(user=owner.user, can_approve=True),
        content="Here today",
        media_ids=[media_id],
        targets=[inputs.TargetInput(account_id=str(account.pk))],
        publish_mode="draft",
        scheduled_at=None,
    )
    Target.objects.filter(publish=publish).update(state=TargetState.PUBLISHED, platform_post_id="17890000000000001")
    return publish


def test_a_refused_delete_leaves_the_networks_words_and_may_be_asked_again(api, owner, accounts, sandbox, upload):
    publish_id = _published(api, owner, _target(accounts.x, upload, owner))
    sandbox.outcomes("x", "error")

    assert _unpublish(api, owner, publish_id).status_code == 202

    target = target_of(fetch(api, owner.key, publish_id), "x")
    assert target["removed_at"] is None
    assert target["removal_error"].startswith("X did not delete the post: ")
    assert len(sandbox.posts("x")) == 1

    assert _unpublish(api, owner, publish_id).status_code == 202

    target = target_of(fetch(api, owner.key, publish_id), "x")
    assert (target["removed_by"], target["removal_error"]) == ("user", None)
    assert sandbox.posts("x") == []


def test_asking_again_after_a_refusal_deletes_only_what_is_still_there(api, owner, accounts, sandbox, upload):
    publish_id = _published(api, owner, _target(accounts.x, upload, owner, first_comment="Sources"))
    sandbox.outcomes("x", "error")  # the post's delete (sent first) is refused; its reply's goes

    assert _unpublish(api, owner, publish_id).status_code == 202
    assert [p["reply_to"] for p in sandbox.posts("x")] == [None]
    assert _unpublish(api, owner, publish_id).status_code == 202

    assert sandbox.posts("x") == []
    removals = ThreadItem.objects.filter(kind=ThreadItemKind.REMOVAL, target__publish_id=publish_id)
    assert sorted((r.removes_id is None, r.state) for r in removals) == [
        (False, "published"),  # the reply, deleted once
        (True, "failed"),
        (True, "published"),
    ]


def test_a_delete_whose_answer_was_lost_is_read_back_never_sent_twice(api, owner, accounts, sandbox, upload):
    publish_id = _published(api, owner, _target(accounts.x, upload, owner))
    sandbox.outcomes("x", "timeout", "error")  # the delete is done, its answer lost; a second would be refused

    assert _unpublish(api, owner, publish_id).status_code == 202
    [removal] = ThreadItem.objects.filter(kind=ThreadItemKind.REMOVAL, target__publish_id=publish_id)
    assert removal.state == "unknown"
    assert target_of(fetch(api, owner.key, publish_id), "x")["removed_at"] is None

    reconcile(now=_later(minutes=1))

    target = target_of(fetch(api, owner.key, publish_id), "x")
    assert (target["removed_by"], target["removal_error"]) == ("user", None)
    reconcile(now=_later(hours=1))
    assert DeliveryAttempt.objects.filter(item__kind=ThreadItemKind.REMOVAL).count() == 1
    assert len(_removed_events(owner)) == 1


def test_a_delete_whose_worker_died_before_sending_is_sent_once_the_post_is_surely_still_there(
    api, owner, accounts, sandbox, upload, settings
):
    settings.DISPATCH_STALE_SECONDS = 1
    settings.RECONCILE_ABSENT_AFTER_SECONDS = 30
    publish_id = _published(api, owner, _target(accounts.x, upload, owner))
    with not_eager():  # the take-down's job waits for a worker
        assert _unpublish(api, owner, publish_id).status_code == 202
    job = DeliveryJob.objects.get(item__kind=ThreadItemKind.REMOVAL)
    DeliveryJob.objects.filter(pk=job.pk).update(state=JobState.RUNNING, claimed_at=timezone.now(), runs=1)
    assert delivery.attempt_start(job=DeliveryJob.objects.select_related("target", "item").get(pk=job.pk))
    # The worker recorded `sending`, then was gone before its DELETE went out.

    reconcile(now=_later(seconds=2))
    reconcile(now=_later(seconds=10))  # still there, but too soon to believe the delete was not made
    assert len(sandbox.posts("x")) == 1
    assert target_of(fetch(api, owner.key, publish_id), "x")["removed_at"] is None

    reconcile(now=_later(minutes=5))

    assert sandbox.posts("x") == []
    assert target_of(fetch(api, owner.key, publish_id), "x")["removed_by"] == "user"
    sends = DeliveryAttempt.objects.filter(item__kind=ThreadItemKind.REMOVAL).order_by("number")
    assert [(a.number, a.state, a.error_code) for a in sends] == [(1, "failed", "NOT_FOUND"), (2, "published", "")]
    reconcile(now=_later(hours=1))
    assert len(_removed_events(owner)) == 1


@pytest.mark.parametrize("platform", ["x", "bluesky", "threads"])
def test_a_reply_whose_send_was_under_way_is_deleted_once_it_turns_out_published(
    api, owner, accounts, sandbox, upload, platform
):
    sandbox.outcomes(platform, "ok", "timeout")  # the first comment (a reply there) is made, its answer lost
    publish_id = _published(api, owner, _target(getattr(accounts, platform), upload, owner, first_comment="Sources"))
    assert target_of(fetch(api, owner.key, publish_id), platform)["first_comment"]["status"] == "unknown"

    assert _unpublish(api, owner, publish_id).status_code == 202
    assert [p["reply_to"] is not None for p in sandbox.posts(platform)] == [True]  # the post went, its reply is left

    reconcile(now=_later(minutes=1))  # the reply is found published: it goes too

    assert sandbox.posts(platform) == []
    assert target_of(fetch(api, owner.key, publish_id), platform)["first_comment"]["status"] == "published"


def test_a_post_removed_already_or_never_published_has_nothing_to_take_down(api, owner, accounts, sandbox, upload):
    publish_id = _published(api, owner, _target(accounts.x, upload, owner))
    assert _unpublish(api, owner, publish_id).status_code == 202

    again = _unpublish(api, owner, publish_id)

    assert again.status_code == 409
    assert error_of(again)["code"] == "NOTHING_PUBLISHED"
    assert len(_removed_events(owner)) == 1
    body = {"content": "Later", "publish_mode": "draft", "targets": [_target(accounts.x, upload, owner)]}
    draft = create(api, owner.key, body)
    refused = _unpublish(api, owner, draft.json()["data"]["id"])
    assert (refused.status_code, error_of(refused)["code"]) == (409, "NOTHING_PUBLISHED")


def test_a_target_not_of_the_publish_or_a_bad_body_is_a_400(api, owner, accounts, sandbox, upload):
    publish_id = _published(api, owner, _target(accounts.x, upload, owner))
    other = _published(api, owner, _target(accounts.bluesky, upload, owner))
    stranger = target_of(fetch(api, owner.key, other), "bluesky")["id"]

    unknown = _unpublish(api, owner, publish_id, {"target_ids": [stranger]})
    malformed = _unpublish(api, owner, publish_id, {"target_ids": ["nope"]})
    empty = _unpublish(api, owner, publish_id, {"target_ids": []})

    assert (unknown.status_code, error_of(unknown)["code"]) == (400, "UNKNOWN_TARGET")
    assert (malformed.status_code, empty.status_code) == (400, 400)
    assert len(sandbox.posts("x")) == 1

"""The first comment (`platform_settings.first_comment`): a unit of its own, sent once after its
post is published, as a reply by the same account on X, Bluesky and Threads and as a comment
by the account on Facebook, Instagram, LinkedIn and YouTube; refused where the network cannot
comment. The sandbox over real HTTP is the ground truth for what was sent, and to what."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone

from demo.seed import PINTEREST_BOARD_ID
from publishing.models import DeliveryAttempt, ThreadItem, ThreadItemKind
from publishing.readback import reconcile
from tests.publishing.safety_support import create, error_of, fetch, target_of

pytestmark = pytest.mark.django_db

COMMENT = "Links and credits in this comment"
REPLY_NETWORKS = ("x", "bluesky", "threads")
COMMENT_NETWORKS = ("facebook", "instagram", "linkedin", "youtube")
# What each network needs beside text for a post (Instagram an image, YouTube a titled video).
MEDIA = {"instagram": "jpeg", "youtube": "video"}
SETTINGS = {"youtube": {"title": "A clip"}}


def _later(**delta: float) -> dt.datetime:
    return timezone.now() + dt.timedelta(**delta)


def _body(account: Any, upload: Any, owner: Any, *, comment: str = COMMENT, **extra: Any) -> dict[str, Any]:
    platform = account.platform
    target: dict[str, Any] = {
        "account_id": str(account.pk),
        "platform_settings": {**SETTINGS.get(platform, {}), "first_comment": comment},
        **extra,
    }
    if platform in MEDIA:
        target["media_ids"] = [upload(owner.team, kind=MEDIA[platform])]
    return {"content": "The post itself", "targets": [target]}


def _sent_comments(sandbox: Any, platform: str) -> list[tuple[str, str]]:
    """(the post it answers, its text) for each first comment the network holds."""
    if platform in REPLY_NETWORKS:
        return [(p["reply_to"], p["text"]) for p in sandbox.posts(platform) if p["reply_to"]]
    return [(c["post_id"], c["text"]) for c in sandbox.comments(platform)]


# Instagram pulls its image from this service's live server, which reads the upload over its own
# database connection: that case commits its rows (a transactional test) for the server to see.
NETWORKS = [
    *REPLY_NETWORKS,
    *(n for n in COMMENT_NETWORKS if n != "instagram"),
    pytest.param("instagram", marks=pytest.mark.django_db(transaction=True)),
]


@pytest.mark.parametrize("platform", NETWORKS)
def test_the_first_comment_is_sent_once_after_the_post_on_every_network_that_comments(
    api, owner, accounts, sandbox, upload, request, platform
):
    if platform == "instagram":
        request.getfixturevalue("pulled")
    account = getattr(accounts, platform)

    created = create(api, owner.key, _body(account, upload, owner))

    assert created.status_code == 201, created.json()
    target = target_of(fetch(api, owner.key, created.json()["data"]["id"]), platform)
    assert (target["status"], target["error"]) == ("published", None)
    comment = target["first_comment"]
    assert (comment["text"], comment["status"], comment["error"]) == (COMMENT, "published", None)
    assert _sent_comments(sandbox, platform) == [(target["platform_post_id"], COMMENT)]
    assert comment["platform_post_id"]
    assert target["thread"] == []
    (send,) = DeliveryAttempt.objects.filter(item__target_id=target["id"])
    assert (send.state, send.item.kind) == ("published", ThreadItemKind.COMMENT)


@pytest.mark.parametrize("platform", ["tiktok", "pinterest"])
def test_a_network_without_comments_refuses_a_first_comment_in_validate_and_create(
    api, owner, accounts, sandbox, upload, platform
):
    account = getattr(accounts, platform)
    settings = {"first_comment": "Hello", **({"boardId": PINTEREST_BOARD_ID} if platform == "pinterest" else {})}
    body = {
        "content": "A post",
        "media_ids": [upload(owner.team, kind="jpeg")],
        "targets": [{"account_id": str(account.pk), "platform_settings": settings}],
    }

    checked = api.as_(owner.key).post("/api/v1/publishes/validate", body, format="json")
    created = create(api, owner.key, body)

    assert checked.status_code == 200, checked.json()
    assert (checked.json()["data"]["valid"], checked.json()["data"]["error"]["code"]) == (
        False,
        "FIRST_COMMENT_UNSUPPORTED",
    )
    assert created.status_code == 400
    assert error_of(created)["code"] == "FIRST_COMMENT_UNSUPPORTED"
    assert "first_comment" in error_of(created)["message"]
    assert sandbox.posts(platform) == []


def test_a_first_comment_too_long_for_the_network_is_a_400_naming_it(api, owner, accounts, sandbox, upload):
    created = create(api, owner.key, _body(accounts.linkedin, upload, owner, comment="c" * 1251))

    assert created.status_code == 400
    assert "FIRST_COMMENT_TOO_LONG" in str(error_of(created))
    assert sandbox.posts("linkedin") == []


@pytest.mark.parametrize("platform", ["x", "facebook"])
def test_a_refused_first_comment_leaves_the_post_published_and_a_retry_sends_it(
    api, owner, accounts, sandbox, upload, platform
):
    sandbox.outcomes(platform, "ok", "error")  # the post goes, its comment is refused
    publish_id = create(api, owner.key, _body(getattr(accounts, platform), upload, owner)).json()["data"]["id"]

    publish = fetch(api, owner.key, publish_id)
    target = target_of(publish, platform)
    assert (publish["status"], target["status"]) == ("published", "published")
    assert target["error"]["code"] == "FIRST_COMMENT_FAILED"
    assert target["first_comment"]["status"] == "failed"
    assert _sent_comments(sandbox, platform) == []

    retried = api.as_(owner.key).post(f"/api/v1/publishes/{publish_id}/retry", {}, format="json")

    assert retried.status_code in (200, 202), retried.json()
    target = target_of(fetch(api, owner.key, publish_id), platform)
    assert (target["status"], target["error"], target["first_comment"]["status"]) == ("published", None, "published")
    assert _sent_comments(sandbox, platform) == [(target["platform_post_id"], COMMENT)]
    assert len([p for p in sandbox.posts(platform) if not p.get("reply_to")]) == 1  # the post was not sent again
    item = ThreadItem.objects.get(target_id=target["id"], kind=ThreadItemKind.COMMENT)
    sends = DeliveryAttempt.objects.filter(item=item).order_by("number")
    assert [(a.number, a.state) for a in sends] == [(1, "failed"), (2, "published")]


def test_a_published_publish_with_nothing_failed_still_cannot_be_retried(api, owner, accounts, sandbox, upload):
    publish_id = create(api, owner.key, _body(accounts.x, upload, owner)).json()["data"]["id"]

    retried = api.as_(owner.key).post(f"/api/v1/publishes/{publish_id}/retry", {}, format="json")

    assert retried.status_code == 400
    assert error_of(retried)["code"] == "NOT_RETRYABLE"


def test_a_first_comment_whose_answer_was_lost_is_read_back_never_sent_twice(api, owner, accounts, sandbox, upload):
    sandbox.outcomes("x", "ok", "timeout")  # the reply is made, its answer lost
    publish_id = create(api, owner.key, _body(accounts.x, upload, owner)).json()["data"]["id"]
    assert target_of(fetch(api, owner.key, publish_id), "x")["first_comment"]["status"] == "unknown"

    reconcile(now=_later(minutes=1))

    target = target_of(fetch(api, owner.key, publish_id), "x")
    assert target["first_comment"]["status"] == "published"
    assert _sent_comments(sandbox, "x") == [(target["platform_post_id"], COMMENT)]
    reconcile(now=_later(hours=1))
    assert len(sandbox.posts("x")) == 2


def test_a_first_comment_answers_the_post_beside_its_thread_and_its_failure_breaks_nothing(
    api, owner, accounts, sandbox, upload
):
    sandbox.outcomes("x", "ok", "error")  # the comment (sent first) is refused, the replies go
    thread = [{"content": "Second"}, {"content": "Third"}]
    publish_id = create(api, owner.key, _body(accounts.x, upload, owner, thread=thread)).json()["data"]["id"]

    target = target_of(fetch(api, owner.key, publish_id), "x")

    assert [(item["content"], item["status"]) for item in target["thread"]] == [
        ("Second", "published"),
        ("Third", "published"),
    ]
    assert target["first_comment"]["status"] == "failed"
    assert (target["status"], target["error"]["code"]) == ("published", "FIRST_COMMENT_FAILED")
    posts = sandbox.posts("x")
    assert [(p["text"], p["reply_to"]) for p in posts] == [
        ("The post itself", None),
        ("Second", posts[0]["id"]),
        ("Third", posts[1]["id"]),
    ]


def test_editing_a_draft_changes_or_drops_its_first_comment(api, owner, accounts, sandbox, upload):
    body = _body(accounts.x, upload, owner) | {"publish_mode": "draft"}
    publish_id = create(api, owner.key, body).json()["data"]["id"]
    account_id = str(accounts.x.pk)
    assert target_of(fetch(api, owner.key, publish_id), "x")["first_comment"]["status"] == "pending"

    def patch(settings: dict[str, Any]) -> Any:
        targets = [{"account_id": account_id, "platform_settings": settings}]
        return api.as_(owner.key).patch(f"/api/v1/publishes/{publish_id}", {"targets": targets}, format="json")

    assert patch({"first_comment": "A better comment"}).status_code == 200
    assert target_of(fetch(api, owner.key, publish_id), "x")["first_comment"]["text"] == "A better comment"
    assert patch({}).status_code == 200
    assert target_of(fetch(api, owner.key, publish_id), "x")["first_comment"] is None
    assert ThreadItem.objects.filter(target__publish_id=publish_id).count() == 0
    assert sandbox.posts("x") == []

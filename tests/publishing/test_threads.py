"""Threads: a target's later posts go out after its own post as a chain of replies, each
tracked on its own, and the safety rules hold item by item. The platforms are the sandbox
over real HTTP; its stored posts are the ground truth for what was sent, and to what."""

from __future__ import annotations

import datetime as dt
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests
from django.db import connection
from django.utils import timezone

from publishing import checks, delivery, inputs
from publishing.models import DeliveryAttempt, DeliveryJob, JobState, Target, ThreadItem
from publishing.readback import reconcile
from publishing.release import relay
from publishing.sending import job_run
from tests.media import files
from tests.publishing.safety_support import broker_down, create, error_of, fetch, queued_publish, target_of

pytestmark = pytest.mark.django_db

ITEMS = ["Second, replying to the first", "Third, replying to the second", "Fourth, the last"]


def _later(**delta: float) -> dt.datetime:
    return timezone.now() + dt.timedelta(**delta)


def _body(account: Any, texts: list[str], content: str = "First: the target's own post") -> dict[str, Any]:
    thread = [{"content": text} for text in texts]
    return {"content": content, "targets": [{"account_id": str(account.pk), "thread": thread}]}


def _parent_of(post: Any) -> str | None:
    """The id of the post a stored sandbox post replies to, in each platform's own shape."""
    if post.platform == "x":
        return (post.extra["request"].get("reply") or {}).get("in_reply_to_tweet_id")
    if post.platform == "bluesky":
        return ((post.extra["record"].get("reply") or {}).get("parent") or {}).get("uri")
    return post.extra["params"].get("reply_to_id")


def _texts(sandbox: Any, platform: str) -> list[str]:
    return [post.text for post in sandbox.state.posts_of(platform)]


def _waiting_job(target: Target) -> str:
    """The id of the target's job no worker took yet: its own, or its next reply's."""
    return str(DeliveryJob.objects.get(target=target, state=JobState.PENDING).pk)


@pytest.mark.parametrize("platform", ["x", "bluesky", "threads"])
def test_a_thread_publishes_in_order_as_a_chain_of_replies(api, owner, accounts, sandbox, platform):
    account = getattr(accounts, platform)
    created = create(api, owner.key, _body(account, ITEMS))
    assert created.status_code == 201, created.json()

    publish = fetch(api, owner.key, created.json()["data"]["id"])
    target = target_of(publish, platform)
    assert (publish["status"], target["status"]) == ("published", "published")
    posts = sandbox.state.posts_of(platform)
    assert [p.text for p in posts] == ["First: the target's own post", *ITEMS]
    assert [_parent_of(p) for p in posts] == [None, *(p.id for p in posts[:-1])]
    if platform == "bluesky":  # every reply names the thread's first post as its root
        assert {p.extra["record"]["reply"]["root"]["uri"] for p in posts[1:]} == {posts[0].id}
    assert target["platform_post_id"] == posts[0].id
    thread = target["thread"]
    assert [item["position"] for item in thread] == [1, 2, 3]
    assert [item["content"] for item in thread] == ITEMS
    assert {item["status"] for item in thread} == {"published"}
    assert [item["platform_post_id"] for item in thread] == [p.id for p in posts[1:]]
    assert all(item["platform_post_url"].startswith("https://") for item in thread)
    assert {item["error"] is None for item in thread} == {True}
    # Each reply went out as a unit of its own: one job and one attempt, with its evidence.
    sends = DeliveryAttempt.objects.filter(item__target_id=target["id"]).order_by("item__position")
    assert [(a.number, a.state, a.request["text"], a.response["post_id"]) for a in sends] == [
        (1, "published", text, p.id) for text, p in zip(ITEMS, posts[1:], strict=True)
    ]
    jobs = DeliveryJob.objects.filter(item__target_id=target["id"]).order_by("item__position")
    assert [(j.dispatch_id, j.state) for j in jobs] == [(f"reply:{a.item_id}:1", "done") for a in sends]
    assert [a["number"] for a in target["attempts"]] == [1]  # the target's own attempts only


def test_a_target_without_a_thread_shows_an_empty_one(api, owner, accounts, sandbox):
    body = {"content": "Alone", "targets": [{"account_id": str(accounts.linkedin.pk)}]}
    created = create(api, owner.key, body)
    assert created.status_code == 201, created.json()
    assert target_of(created.json()["data"], "linkedin")["thread"] == []
    assert target_of(fetch(api, owner.key, created.json()["data"]["id"]), "linkedin")["thread"] == []


@pytest.mark.parametrize("platform", ["x", "bluesky", "threads"])
def test_a_lost_answer_on_the_third_item_is_read_back_and_the_thread_goes_on(api, owner, accounts, sandbox, platform):
    # The target and two items go through; the third is made, then its answer is held past the
    # client's timeout.
    sandbox.outcomes(platform, "ok", "ok", "ok", "timeout")
    texts = ["Two", "Three", "Four: its answer is lost", "Five"]
    created = create(api, owner.key, _body(getattr(accounts, platform), texts, content="One"))
    assert created.status_code == 201, created.json()
    publish_id = created.json()["data"]["id"]

    lost = target_of(fetch(api, owner.key, publish_id), platform)
    assert lost["status"] == "published"  # the target is published when its own post is
    assert [item["status"] for item in lost["thread"]] == ["published", "published", "unknown", "pending"]
    assert _texts(sandbox, platform) == ["One", "Two", "Three", "Four: its answer is lost"]
    # Nothing more goes out while the third item is unknown: not even when the sweep runs early.
    assert reconcile(now=_later(seconds=1)) == 0
    assert len(_texts(sandbox, platform)) == 4

    reconcile(now=_later(minutes=1))

    settled = target_of(fetch(api, owner.key, publish_id), platform)
    posts = sandbox.state.posts_of(platform)
    assert [p.text for p in posts] == ["One", *texts]  # each sent once, the first items never again
    assert [item["status"] for item in settled["thread"]] == ["published"] * 4
    assert [item["platform_post_id"] for item in settled["thread"]] == [p.id for p in posts[1:]]
    assert _parent_of(posts[4]) == posts[3].id
    assert ThreadItem.objects.get(target_id=settled["id"], position=3).attempts == 1
    reconcile(now=_later(hours=1))
    assert len(sandbox.state.posts_of(platform)) == 5


def test_an_item_whose_worker_died_before_sending_is_sent_again_once_surely_absent(
    api, owner, accounts, sandbox, settings
):
    settings.DISPATCH_STALE_SECONDS = 1
    settings.RECONCILE_ABSENT_AFTER_SECONDS = 30
    publish = queued_publish(owner, accounts.x, content="Root")
    target = Target.objects.get(publish=publish)
    ThreadItem.objects.bulk_create(
        [ThreadItem(target=target, position=n, content=text) for n, text in enumerate(["A", "B", "C"], start=1)]
    )
    with broker_down():  # every hand-over of the thread is refused: the steps run here, one by one
        for _ in range(3):  # the target, then the first two replies
            job_run(job_id=_waiting_job(target))
    job = DeliveryJob.objects.get(pk=_waiting_job(target))  # item 3's: claimed and started, then the worker is gone
    DeliveryJob.objects.filter(pk=job.pk).update(state=JobState.RUNNING, claimed_at=timezone.now(), runs=1)
    assert delivery.attempt_start(job=DeliveryJob.objects.select_related("target", "item").get(pk=job.pk))
    assert _texts(sandbox, "x") == ["Root", "A", "B"]

    reconcile(now=_later(seconds=2))
    reconcile(now=_later(seconds=10))  # not found yet, but too soon to believe it absent
    early = target_of(fetch(api, owner.key, str(publish.pk)), "x")
    assert [item["status"] for item in early["thread"]] == ["published", "published", "unknown"]
    assert _texts(sandbox, "x") == ["Root", "A", "B"]

    reconcile(now=_later(minutes=5))

    settled = target_of(fetch(api, owner.key, str(publish.pk)), "x")
    assert [item["status"] for item in settled["thread"]] == ["published"] * 3
    posts = sandbox.state.posts_of("x")
    assert [p.text for p in posts] == ["Root", "A", "B", "C"]
    assert _parent_of(posts[3]) == posts[2].id
    assert ThreadItem.objects.get(target=target, position=3).attempts == 2
    sends = DeliveryAttempt.objects.filter(item__target=target, item__position=3).order_by("number")
    assert [(a.number, a.state, a.error_code) for a in sends] == [(1, "failed", "NOT_FOUND"), (2, "published", "")]
    reconcile(now=_later(hours=1))
    assert len(sandbox.state.posts_of("x")) == 4


def test_a_reply_the_broker_did_not_take_is_sent_by_the_relay(api, owner, accounts, sandbox):
    publish = queued_publish(owner, accounts.bluesky, content="Root post")
    target = Target.objects.get(publish=publish)
    ThreadItem.objects.create(target=target, position=1, content="Its reply")
    with broker_down():  # the worker published the target; its reply's job was refused
        job_run(job_id=str(DeliveryJob.objects.get(target=target).pk))
    assert _texts(sandbox, "bluesky") == ["Root post"]
    assert DeliveryJob.objects.get(item__target=target).dispatch_id.startswith("reply:")

    relay()

    assert _texts(sandbox, "bluesky") == ["Root post", "Its reply"]
    assert target_of(fetch(api, owner.key, str(publish.pk)), "bluesky")["thread"][0]["status"] == "published"


def test_a_rate_limited_reply_is_tried_again_in_the_same_attempt(api, owner, accounts, sandbox):
    sandbox.outcomes("x", "ok", "rate_limited")
    publish_id = create(api, owner.key, _body(accounts.x, ITEMS[:2])).json()["data"]["id"]
    waiting = target_of(fetch(api, owner.key, publish_id), "x")
    assert [item["status"] for item in waiting["thread"]] == ["pending", "pending"]
    item = ThreadItem.objects.get(target_id=waiting["id"], position=1)
    (send,) = DeliveryAttempt.objects.filter(item=item)
    assert (send.state, send.http_status) == ("not_sent", 429)
    job = DeliveryJob.objects.get(item=item)
    assert (job.state, job.not_before > _later(seconds=60)) == (JobState.PENDING, True)
    assert relay(now=_later(minutes=5)) == 0  # not before its pause

    DeliveryJob.objects.filter(pk=job.pk).update(not_before=timezone.now())  # the pause has passed
    relay(now=_later(minutes=20))

    settled = target_of(fetch(api, owner.key, publish_id), "x")
    assert [item["status"] for item in settled["thread"]] == ["published", "published"]
    assert _texts(sandbox, "x") == ["First: the target's own post", *ITEMS[:2]]
    (send,) = DeliveryAttempt.objects.filter(item=item)
    assert (send.number, send.state, send.tries) == (1, "published", 2)


def test_a_refused_item_fails_and_the_items_after_it_are_never_sent(api, owner, accounts, sandbox):
    sandbox.outcomes("x", "ok", "ok", "error")
    created = create(api, owner.key, _body(accounts.x, ITEMS))
    assert created.status_code == 201, created.json()

    target = target_of(fetch(api, owner.key, created.json()["data"]["id"]), "x")
    assert target["status"] == "published"
    assert [item["status"] for item in target["thread"]] == ["published", "failed", "failed"]
    assert target["thread"][1]["error"]["code"]
    assert target["thread"][2]["error"]["code"] == "THREAD_BROKEN"
    assert _texts(sandbox, "x") == ["First: the target's own post", ITEMS[0]]


def test_the_items_of_a_failed_target_wait_and_go_out_after_its_retry(api, owner, accounts, sandbox):
    sandbox.outcomes("x", "error")
    created = create(api, owner.key, _body(accounts.x, ITEMS[:1]))
    publish_id = created.json()["data"]["id"]
    failed = target_of(fetch(api, owner.key, publish_id), "x")
    assert (failed["status"], failed["thread"][0]["status"]) == ("failed", "pending")
    assert sandbox.state.posts_of("x") == []

    retried = api.as_(owner.key).post(f"/api/v1/publishes/{publish_id}/retry", {}, format="json")

    assert retried.status_code == 200, retried.json()
    assert _texts(sandbox, "x") == ["First: the target's own post", ITEMS[0]]
    assert target_of(fetch(api, owner.key, publish_id), "x")["thread"][0]["status"] == "published"


# --- validation --------------------------------------------------------------------------------


def test_an_item_too_long_for_the_platform_is_a_400_naming_it(api, owner, accounts, sandbox):
    created = create(api, owner.key, _body(accounts.x, ["fine", "x" * 281]))

    assert created.status_code == 400, created.json()
    error = error_of(created)
    assert error["code"] == "TEXT_TOO_LONG"
    (problem,) = error["details"]["targets"][0]["problems"]
    assert (problem["field"], problem["code"]) == ("thread[1].text", "TEXT_TOO_LONG")
    assert sandbox.state.posts_of("x") == []


def test_an_empty_item_is_a_400(api, owner, accounts, sandbox):
    created = create(api, owner.key, _body(accounts.bluesky, [""]))

    assert created.status_code == 400, created.json()
    assert error_of(created)["details"]["targets"][0]["problems"][0]["field"] == "thread[0].text"


def test_a_thread_on_a_platform_without_threads_is_a_400(api, owner, accounts, sandbox):
    created = create(api, owner.key, _body(accounts.linkedin, ["no"]))

    assert created.status_code == 400, created.json()
    error = error_of(created)
    assert error["code"] == "THREAD_UNSUPPORTED"
    assert error["details"]["targets"][0]["index"] == 0
    assert "targets[0]" in error["message"]


def test_a_thread_longer_than_the_limit_is_a_400(api, owner, accounts, sandbox):
    created = create(api, owner.key, _body(accounts.threads, [f"item {n}" for n in range(26)]))

    assert created.status_code == 400, created.json()
    assert error_of(created)["code"] == "THREAD_TOO_LONG"


def test_the_dry_run_check_reports_the_same_item_problems(owner, accounts):
    thread = [inputs.ThreadItemInput(content="x" * 281)]
    found = checks.publish_check(
        team=owner.team,
        caller=inputs.Caller(user=owner.user),
        content="ok",
        media_ids=[],
        targets=[
            inputs.TargetInput(account_id=str(accounts.x.pk), thread=thread),
            inputs.TargetInput(account_id=str(accounts.linkedin.pk), thread=thread),
        ],
        publish_mode="immediate",
        scheduled_at=None,
    )

    assert not found.ok
    assert [(p.field, p.code) for p in found.targets[0].problems] == [("thread[0].text", "TEXT_TOO_LONG")]
    assert [(p.field, p.code) for p in found.targets[1].problems] == [("thread", "THREAD_UNSUPPORTED")]


def test_a_patch_of_a_draft_replaces_its_thread(api, owner, accounts, sandbox):
    body = {**_body(accounts.x, ["old"]), "publish_mode": "draft"}
    publish_id = create(api, owner.key, body).json()["data"]["id"]
    patch = {"targets": [{"account_id": str(accounts.x.pk), "thread": [{"content": "new"}, {"content": "newer"}]}]}

    patched = api.as_(owner.key).patch(f"/api/v1/publishes/{publish_id}", patch, format="json")

    assert patched.status_code == 200, patched.json()
    assert [i["content"] for i in target_of(patched.json()["data"], "x")["thread"]] == ["new", "newer"]
    kept = api.as_(owner.key).patch(f"/api/v1/publishes/{publish_id}", {"content": "edited"}, format="json")
    assert [i["content"] for i in target_of(kept.json()["data"], "x")["thread"]] == ["new", "newer"]


def test_a_retry_may_give_a_failed_target_a_new_thread(api, owner, accounts, sandbox):
    sandbox.outcomes("threads", "error")
    publish_id = create(api, owner.key, _body(accounts.threads, ["old reply"])).json()["data"]["id"]
    edit = {"account_id": str(accounts.threads.pk), "thread": [{"content": "new reply"}, {"content": "and more"}]}

    retried = api.as_(owner.key).post(f"/api/v1/publishes/{publish_id}/retry", {"targets": [edit]}, format="json")

    assert retried.status_code == 200, retried.json()
    assert _texts(sandbox, "threads") == ["First: the target's own post", "new reply", "and more"]
    thread = target_of(fetch(api, owner.key, publish_id), "threads")["thread"]
    assert [(i["content"], i["status"]) for i in thread] == [("new reply", "published"), ("and more", "published")]


def test_a_retry_edit_of_a_thread_is_checked_like_a_create(api, owner, accounts, sandbox):
    sandbox.outcomes("x", "error")
    publish_id = create(api, owner.key, _body(accounts.x, ["old reply"])).json()["data"]["id"]
    edit = {"account_id": str(accounts.x.pk), "thread": [{"content": "x" * 300}]}

    refused = api.as_(owner.key).post(f"/api/v1/publishes/{publish_id}/retry", {"targets": [edit]}, format="json")

    assert refused.status_code == 400, refused.json()
    assert error_of(refused)["details"]["targets"][0]["problems"][0]["field"] == "thread[0].text"
    assert [i["content"] for i in target_of(fetch(api, owner.key, publish_id), "x")["thread"]] == ["old reply"]


def test_a_target_settled_by_reconciliation_then_sends_its_thread(api, owner, accounts, sandbox):
    sandbox.outcomes("x", "timeout")  # the target's own post is made, its answer lost
    publish_id = create(api, owner.key, _body(accounts.x, ITEMS[:2])).json()["data"]["id"]
    unknown = target_of(fetch(api, owner.key, publish_id), "x")
    assert (unknown["outcome"], [i["status"] for i in unknown["thread"]]) == ("unknown", ["pending", "pending"])
    assert _texts(sandbox, "x") == ["First: the target's own post"]

    reconcile(now=_later(minutes=1))

    settled = target_of(fetch(api, owner.key, publish_id), "x")
    assert settled["status"] == "published"
    assert [i["status"] for i in settled["thread"]] == ["published", "published"]
    assert _texts(sandbox, "x") == ["First: the target's own post", *ITEMS[:2]]


def test_an_item_with_its_own_image_is_sent_with_it(api, owner, accounts, sandbox, settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    image = files.stored_upload(owner.team, files.image(), "image/png", "reply.png")
    body = _body(accounts.bluesky, [])
    body["targets"][0]["thread"] = [{"content": "With a picture", "media_ids": [image]}]

    created = create(api, owner.key, body)

    assert created.status_code == 201, created.json()
    [root, reply] = sandbox.state.posts_of("bluesky")
    assert (reply.text, reply.media_count, _parent_of(reply)) == ("With a picture", 1, root.id)
    assert target_of(fetch(api, owner.key, created.json()["data"]["id"]), "bluesky")["thread"][0]["media_ids"] == [
        image
    ]


def test_a_thread_cannot_hang_off_a_target_that_is_itself_a_reply(api, owner, accounts, sandbox):
    body = _body(accounts.x, ["a reply"])
    body["targets"][0]["platform_settings"] = {"reply_to": "12345"}

    refused = create(api, owner.key, body)

    assert refused.status_code == 400, refused.json()
    assert error_of(refused)["details"]["targets"][0]["problems"][0]["field"] == "thread"
    assert error_of(refused)["code"] == "INVALID_COMBINATION"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_parallel_runs_of_one_thread_send_each_item_once(owner, accounts, sandbox):
    publish = queued_publish(owner, accounts.x, content="Root")
    target = Target.objects.get(publish=publish)
    texts = ["A", "B", "C"]
    ThreadItem.objects.bulk_create(
        [ThreadItem(target=target, position=n, content=text) for n, text in enumerate(texts, start=1)]
    )
    with broker_down():  # the target goes out; its first reply's job waits for the runs below
        job_run(job_id=str(DeliveryJob.objects.get(target=target).pk))
    first_reply = _waiting_job(target)
    # Slow answers, so that the runs overlap while a call is out.
    requests.post(f"{sandbox.url}/_sandbox/latency", json={"seconds": 0.3}, timeout=5)
    start = threading.Barrier(6)

    def run(_: int) -> None:  # six messages for one job (a duplicate, a redelivery, relays)
        try:
            start.wait(timeout=30)
            job_run(job_id=first_reply)
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=6) as pool:
        list(pool.map(run, range(6)))

    assert _texts(sandbox, "x") == ["Root", *texts]
    assert list(ThreadItem.objects.filter(target=target).values_list("state", "attempts")) == [("published", 1)] * 3

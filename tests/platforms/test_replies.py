"""A post given `reply_to` goes out as a reply in each platform's own shape, a reply to a post
that does not exist is refused where the platform refuses it, and a reply is read back in its
own thread: the same text elsewhere is not it."""

from __future__ import annotations

import datetime as dt

from accounts.platforms import bluesky, threads, x
from accounts.platforms.base import OutcomeKind, Post, ReplyTo
from tests.platforms import bluesky_helpers, threads_helpers, x_helpers


def _since() -> dt.datetime:
    return dt.datetime.now(dt.UTC) - dt.timedelta(minutes=1)


def _to(parent: str, root: str | None = None) -> ReplyTo:
    return ReplyTo(parent_id=parent, root_id=root or parent)


def test_an_x_reply_is_found_in_its_own_thread_only(sandbox):
    client, conn, since = x.Client(), x_helpers.connection(), _since()
    first = client.publish(conn, Post(text="first"))
    other = client.publish(conn, Post(text="another thread"))
    elsewhere = client.publish(conn, Post(text="same words", reply_to=_to(other.post_id)))
    mine = client.publish(conn, Post(text="same words", reply_to=_to(first.post_id)))

    found = client.find_recent(conn, Post(text="same words", reply_to=_to(first.post_id)), since)

    assert (found.kind, found.post_id) == (OutcomeKind.PUBLISHED, mine.post_id)
    assert found.post_id != elsewhere.post_id
    stored = sandbox.state.find_post("x", mine.post_id)
    assert stored.extra["request"]["reply"] == {"in_reply_to_tweet_id": first.post_id}


def test_an_x_reply_to_a_missing_post_is_refused(sandbox):
    refused = x.Client().publish(x_helpers.connection(), Post(text="to nothing", reply_to=_to("12345")))

    assert (refused.kind, refused.http_status) == (OutcomeKind.FAILED, 403)
    assert sandbox.state.posts_of("x") == []


def test_a_bluesky_reply_carries_strong_references_and_is_read_back_among_replies(sandbox):
    client = bluesky.Client()
    conn = bluesky_helpers.connection()
    root = client.publish(conn, Post(text="root"))
    to = ReplyTo(parent_id=root.post_id, root_id=root.post_id, parent_cid=root.ref["cid"], root_cid=root.ref["cid"])
    client.publish(conn, Post(text="same words"))  # not a reply: not it
    reply = client.publish(conn, Post(text="same words", reply_to=to))

    found = client.find_recent(conn, Post(text="same words", reply_to=to), _since())

    assert (found.kind, found.post_id) == (OutcomeKind.PUBLISHED, reply.post_id)
    record = sandbox.state.find_post("bluesky", reply.post_id).extra["record"]
    strong = {"uri": root.post_id, "cid": root.ref["cid"]}
    assert record["reply"] == {"root": strong, "parent": strong}


def test_a_threads_reply_names_its_parent_and_is_read_back_from_the_parents_replies(sandbox):
    client = threads.Client()
    client.poll_seconds = 0
    conn, since = threads_helpers.connection(), _since()
    parent = client.publish(conn, Post(text="parent"))
    client.publish(conn, Post(text="same words"))  # a thread of its own: not it
    reply = client.publish(conn, Post(text="same words", reply_to=_to(parent.post_id)))

    found = client.find_recent(conn, Post(text="same words", reply_to=_to(parent.post_id)), since)

    assert (found.kind, found.post_id) == (OutcomeKind.PUBLISHED, reply.post_id)
    assert found.url.startswith("https://www.threads.net/")
    assert reply.ref["reply_to_id"] == parent.post_id
    assert sandbox.state.find_post("threads", reply.post_id).extra["params"]["reply_to_id"] == parent.post_id


def test_a_threads_reply_to_a_missing_thread_is_refused_before_anything_is_made(sandbox):
    client = threads.Client()
    refused = client.publish(threads_helpers.connection(), Post(text="to nothing", reply_to=_to("999")))

    assert refused.kind is OutcomeKind.FAILED
    assert refused.error_code == "100/33"
    assert sandbox.state.posts_of("threads") == []

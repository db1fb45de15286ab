"""The sandbox's post viewer, over HTTP: a page showing one post as the stand-in stored it, which
the dashboard's live link of a sandbox account's post opens."""

from __future__ import annotations

import datetime as dt
import html
from urllib.parse import quote

import requests

from sandbox import tokens

DID = "did:plc:viewertest0000000000000"


def _view(sandbox, platform, post_id):
    return requests.get(f"{sandbox.url}/_sandbox/posts/{platform}/{quote(post_id, safe='')}", timeout=5)


def _tweet(sandbox, text, **body):
    token = tokens.issue("x", "x-viewer")
    response = requests.post(
        f"{sandbox.url}/api.x.com/2/tweets",
        json={"text": text, **body},
        headers={"Authorization": f"Bearer {token}"},
        timeout=5,
    )
    assert response.status_code == 201, response.text
    return response.json()["data"]["id"]


def _skeet(sandbox, text, **record):
    now = dt.datetime.now(dt.UTC).isoformat().replace("+00:00", "Z")
    response = requests.post(
        f"{sandbox.url}/bsky.social/xrpc/com.atproto.repo.createRecord",
        json={
            "repo": DID,
            "collection": "app.bsky.feed.post",
            "record": {"$type": "app.bsky.feed.post", "text": text, "createdAt": now, **record},
        },
        headers={"Authorization": f"Bearer {tokens.issue('bluesky', DID)}"},
        timeout=5,
    )
    assert response.status_code == 200, response.text
    return response.json()


def test_a_post_is_shown_as_the_stand_in_stored_it_with_its_metrics_and_replies(sandbox):
    post_id = _tweet(sandbox, "Launch day")
    _tweet(sandbox, "And a reply", reply={"in_reply_to_tweet_id": post_id})
    requests.post(
        f"{sandbox.url}/_sandbox/metrics",
        json={"platform": "x", "post_id": post_id, "views": 42, "likes": 7},
        timeout=5,
    )

    response = _view(sandbox, "x", post_id)

    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/html")
    page = response.text
    assert '<div class="text" id="post-text">Launch day</div>' in page
    assert "x-viewer" in page  # the account
    assert post_id in page
    assert "<dt>Views</dt><dd>42</dd>" in page
    assert "<dt>Likes</dt><dd>7</dd>" in page
    assert "And a reply" in page
    [post] = [p for p in sandbox.posts("x") if p["id"] == post_id]
    assert post["created_at"] in page


def test_an_id_that_is_a_uri_reaches_its_post_and_a_first_comment_is_listed(sandbox):
    created = _skeet(sandbox, "Hello from Bluesky")
    ref = {"uri": created["uri"], "cid": created["cid"]}
    _skeet(sandbox, "The first comment", reply={"root": ref, "parent": ref})

    response = _view(sandbox, "bluesky", created["uri"])  # at://did:plc:.../app.bsky.feed.post/...

    assert response.status_code == 200
    assert "Hello from Bluesky" in response.text
    assert "The first comment" in response.text


def test_media_are_counted_with_their_kinds(sandbox):
    sandbox.state.add_post("instagram", "ig-1", "A carousel", 3, media_type="CAROUSEL_ALBUM")
    [post] = sandbox.posts("instagram")
    sandbox.state.add_comment("instagram", post["id"], "ig-1", "Hi!")

    page = _view(sandbox, "instagram", post["id"]).text

    assert "<dt>Media</dt><dd>3 (carousel_album)</dd>" in page
    assert "Hi!" in page


def test_everything_shown_is_escaped(sandbox):
    sandbox.state.add_post("x", "<b>acct</b>", "<script>alert(1)</script>", 0, request={"note": "<img src=x>"})
    [post] = sandbox.posts("x")

    page = _view(sandbox, "x", post["id"]).text

    assert "<script>alert(1)</script>" not in page
    assert html.escape("<script>alert(1)</script>") in page
    assert "<b>acct</b>" not in page
    assert "<img src=x>" not in page


def test_an_unknown_post_or_platform_is_a_404_page(sandbox):
    for platform, post_id in (("x", "404404"), ("myspace", "1"), ("x", "<script>")):
        response = _view(sandbox, platform, post_id)
        assert response.status_code == 404
        assert response.headers["Content-Type"].startswith("text/html")
        assert "Not found" in response.text
        assert "<script>" not in response.text


def test_viewing_a_post_is_not_recorded_as_a_platform_request(sandbox):
    post_id = _tweet(sandbox, "Counted once")
    before = len(sandbox.state.requests)

    _view(sandbox, "x", post_id)

    assert len(sandbox.state.requests) == before

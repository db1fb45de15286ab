"""The sandbox control API exactly as CONTRACT.md specifies it, over HTTP."""

from __future__ import annotations

import time

import pytest
import requests

from sandbox import tokens
from sandbox.state import OUTCOMES, PLATFORMS


def _post(sandbox, path, body):
    return requests.post(f"{sandbox.url}/_sandbox/{path}", json=body, timeout=5)


def test_outcomes_are_queued_per_platform_in_order_then_ok(sandbox):
    response = _post(sandbox, "outcomes", {"platform": "x", "outcomes": ["error", "rate_limited"]})

    assert response.status_code == 200
    assert [sandbox.state.take_outcome("x") for _ in range(3)] == ["error", "rate_limited", "ok"]
    assert sandbox.state.take_outcome("bluesky") == "ok"


@pytest.mark.parametrize(
    "body",
    [
        {"platform": "myspace", "outcomes": ["ok"]},
        {"platform": "x", "outcomes": ["explode"]},
        {"platform": "x", "outcomes": "ok"},
        {"outcomes": ["ok"]},
    ],
)
def test_bad_outcome_requests_are_refused(sandbox, body):
    assert _post(sandbox, "outcomes", body).status_code == 400


def test_every_contract_outcome_and_platform_is_known():
    assert set(OUTCOMES) == {"ok", "error", "rate_limited", "timeout", "processing"}
    assert len(PLATFORMS) == 9


def test_posts_are_listed_oldest_first_with_the_contract_fields(sandbox):
    sandbox.state.add_post("x", "acct-1", "first", 0)
    sandbox.state.add_post("bluesky", "did:plc:abc", "second", 2)

    everything = requests.get(f"{sandbox.url}/_sandbox/posts", timeout=5).json()["posts"]
    only_x = sandbox.posts("x")

    assert [p["text"] for p in everything] == ["first", "second"]
    assert set(everything[0]) == {"id", "platform", "account", "text", "media_count", "created_at", "reply_to"}
    assert everything[0]["reply_to"] is None
    assert [p["text"] for p in only_x] == ["first"]
    assert everything[1]["media_count"] == 2


def test_metrics_are_set_per_post(sandbox):
    response = _post(sandbox, "metrics", {"platform": "x", "post_id": "123", "views": 10, "likes": 3})

    assert response.status_code == 200
    assert sandbox.state.metrics_of("x", "123") == {"views": 10, "likes": 3, "comments": 0, "shares": 0}
    assert _post(sandbox, "metrics", {"platform": "x", "post_id": "1", "likes": -1}).status_code == 400


def test_reset_forgets_posts_outcomes_and_metrics(sandbox):
    sandbox.state.add_post("x", "a", "text", 0)
    sandbox.outcomes("x", "error")
    _post(sandbox, "metrics", {"platform": "x", "post_id": "1", "views": 1})

    assert _post(sandbox, "reset", {}).status_code == 200

    assert sandbox.posts() == []
    assert sandbox.state.take_outcome("x") == "ok"
    assert sandbox.state.metrics_of("x", "1")["views"] == 0


def test_unknown_paths_answer_404_in_json(sandbox):
    response = requests.get(f"{sandbox.url}/nowhere.example/thing", timeout=5)

    assert response.status_code == 404
    assert response.headers["Content-Type"] == "application/json"


def test_tokens_name_their_platform_account_and_expiry():
    token = tokens.issue("x", "x-123", lifetime_seconds=60)
    stale = tokens.issue("x", "x-123", lifetime_seconds=-1)

    info = tokens.parse(token)
    assert (info.platform, info.account, info.expired) == ("x", "x-123", False)
    assert tokens.parse(stale).expired
    assert tokens.parse("sbx.x.???.1.a") is None
    assert tokens.parse(token, kind="sbr") is None


def test_latency_holds_every_platform_answer_after_the_post_is_made(sandbox):
    token = tokens.issue("x", "x-123", lifetime_seconds=60)
    tweet = {"url": f"{sandbox.url}/api.x.com/2/tweets", "headers": {"Authorization": f"Bearer {token}"}}
    assert _post(sandbox, "latency", {"seconds": 2}).json() == {"seconds": 2.0, "upload_bytes_per_second": None}

    with pytest.raises(requests.ReadTimeout):
        requests.post(**tweet, json={"text": "slow"}, timeout=0.5)
    assert [p["text"] for p in sandbox.posts("x")] == ["slow"]  # control calls are not held

    assert _post(sandbox, "latency", {"seconds": 0}).status_code == 200
    assert requests.post(**tweet, json={"text": "fast"}, timeout=0.5).status_code == 201


@pytest.mark.parametrize("seconds", [-1, 121, "3", True, None])
def test_bad_latency_is_refused(sandbox, seconds):
    assert _post(sandbox, "latency", {"seconds": seconds}).status_code == 400
    assert sandbox.state.latency_seconds == 0


def _x_append_seconds(sandbox, size):
    """Seconds an X media append of `size` bytes takes to be answered."""
    headers = {"Authorization": f"Bearer {tokens.issue('x', 'x-123', lifetime_seconds=60)}"}
    upload = f"{sandbox.url}/api.x.com/2/media/upload"
    init = {"media_type": "video/mp4", "total_bytes": size, "media_category": "tweet_video"}
    media_id = requests.post(f"{upload}/initialize", json=init, headers=headers, timeout=5).json()["data"]["id"]
    started = time.monotonic()
    answer = requests.post(
        f"{upload}/{media_id}/append",
        files={"media": ("chunk", b"\0" * size, "application/octet-stream")},
        data={"segment_index": "0"},
        headers=headers,
        timeout=10,
    )
    assert answer.status_code == 200, answer.text
    return time.monotonic() - started


def test_upload_rate_reads_media_bodies_no_faster_than_asked(sandbox):
    two_mb = 2 * 1024 * 1024
    answer = _post(sandbox, "latency", {"seconds": 0, "upload_bytes_per_second": two_mb})
    assert answer.json() == {"seconds": 0.0, "upload_bytes_per_second": float(two_mb)}

    assert _x_append_seconds(sandbox, 3 * 1024 * 1024) >= 1.5  # 3 MB at 2 MB a second
    tweet = {"Authorization": f"Bearer {tokens.issue('x', 'x-123', lifetime_seconds=60)}"}
    started = time.monotonic()
    requests.post(f"{sandbox.url}/api.x.com/2/tweets", json={"text": "x" * 200}, headers=tweet, timeout=5)
    assert time.monotonic() - started < 1  # a post's JSON is not an upload

    assert _post(sandbox, "latency", {"seconds": 0}).json()["upload_bytes_per_second"] is None
    assert sandbox.state.upload_bytes_per_second is None


@pytest.mark.parametrize("rate", [0, -1, "10", True])
def test_bad_upload_rate_is_refused(sandbox, rate):
    assert _post(sandbox, "latency", {"seconds": 1, "upload_bytes_per_second": rate}).status_code == 400
    assert sandbox.state.upload_bytes_per_second is None


def test_boards_added_to_a_pinterest_account_are_listed_page_by_page(sandbox):
    token = tokens.issue("pinterest", "pin-1")
    added = _post(sandbox, "pinterest/boards", {"account": "pin-1", "names": ["Recipes", "Travel"]}).json()["boards"]
    boards = f"{sandbox.url}/api.pinterest.com/v5/boards"
    headers = {"Authorization": f"Bearer {token}"}

    first = requests.get(boards, params={"page_size": 2}, headers=headers, timeout=5).json()
    second = requests.get(boards, params={"page_size": 2, "bookmark": first["bookmark"]}, headers=headers, timeout=5)
    others = requests.get(boards, headers={"Authorization": f"Bearer {tokens.issue('pinterest', 'pin-2')}"}, timeout=5)

    assert [b["name"] for b in first["items"]] == ["Demo board", "Recipes"]
    assert second.json() == {"items": [added[1]], "bookmark": None}
    assert [b["name"] for b in others.json()["items"]] == ["Demo board"]
    bad = requests.get(boards, params={"bookmark": "nope"}, headers=headers, timeout=5)
    assert bad.status_code == 400


@pytest.mark.parametrize(
    "body",
    [{"names": ["A"]}, {"account": "a", "names": []}, {"account": "a", "names": [""]}, {"account": "a", "names": "A"}],
)
def test_bad_board_requests_are_refused(sandbox, body):
    assert _post(sandbox, "pinterest/boards", body).status_code == 400


def test_a_tiktok_creator_offered_fewer_levels_is_refused_the_others(sandbox):
    token = tokens.issue("tiktok", "tt-1")
    settings = {"account": "tt-1", "privacy_level_options": ["SELF_ONLY"], "comment_disabled": True}
    api = f"{sandbox.url}/open.tiktokapis.com/v2/post/publish"
    headers = {"Authorization": f"Bearer {token}"}

    assert _post(sandbox, "tiktok/creator", settings).status_code == 200
    creator = requests.post(f"{api}/creator_info/query/", headers=headers, timeout=5).json()["data"]
    source = {"source": "FILE_UPLOAD", "video_size": 1000, "chunk_size": 1000, "total_chunk_count": 1}
    body = {"post_info": {"title": "t", "privacy_level": "PUBLIC_TO_EVERYONE"}, "source_info": source}
    refused = requests.post(f"{api}/video/init/", json=body, headers=headers, timeout=5)

    assert creator["privacy_level_options"] == ["SELF_ONLY"]
    assert creator["comment_disabled"] is True
    assert creator["duet_disabled"] is False
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "privacy_level_option_mismatch"


@pytest.mark.parametrize(
    "body",
    [
        {"privacy_level_options": ["SELF_ONLY"]},
        {"account": "a", "privacy_level_options": []},
        {"account": "a", "privacy_level_options": ["EVERYONE"]},
        {"account": "a", "comment_disabled": "yes"},
        {"account": "a", "max_video_post_duration_sec": 0},
        {"account": "a", "creator_nickname": "x"},
    ],
)
def test_bad_creator_requests_are_refused(sandbox, body):
    assert _post(sandbox, "tiktok/creator", body).status_code == 400


def test_comments_are_listed_with_the_contract_fields_and_filtered_by_platform(sandbox):
    post = sandbox.state.add_post("facebook", "page-1", "a post", 0)
    sandbox.state.add_comment("facebook", post.id, "page-1", "first!")
    sandbox.state.add_comment("youtube", "vid-1", "chan-1", "hello")

    everything = requests.get(f"{sandbox.url}/_sandbox/comments", timeout=5).json()["comments"]
    facebook = requests.get(f"{sandbox.url}/_sandbox/comments?platform=facebook", timeout=5).json()["comments"]

    assert [c["text"] for c in everything] == ["first!", "hello"]
    assert set(everything[0]) == {"id", "platform", "post_id", "account", "text", "created_at"}
    assert [(c["post_id"], c["account"], c["text"]) for c in facebook] == [(post.id, "page-1", "first!")]
    assert requests.get(f"{sandbox.url}/_sandbox/comments?platform=myspace", timeout=5).status_code == 400


def test_a_post_removed_as_its_owner_would_is_gone_with_its_comments_and_a_reply_stays(sandbox):
    post = sandbox.state.add_post("x", "acct-1", "root", 0)
    reply = sandbox.state.add_post("x", "acct-1", "reply", 0, reply_to=post.id)
    sandbox.state.add_comment("x", post.id, "acct-1", "a comment")

    response = _post(sandbox, "posts/remove", {"platform": "x", "id": post.id})

    assert response.status_code == 200
    assert response.json() == {"platform": "x", "id": post.id, "removed": True}
    left = sandbox.posts("x")
    assert [(p["id"], p["reply_to"]) for p in left] == [(reply.id, post.id)]
    assert sandbox.state.find_post("x", post.id) is None
    assert sandbox.state.comments_of("x") == []
    assert _post(sandbox, "posts/remove", {"platform": "x", "id": post.id}).status_code == 404


@pytest.mark.parametrize("body", [{"platform": "x"}, {"id": "1"}, {"platform": "myspace", "id": "1"}, []])
def test_bad_remove_requests_are_refused(sandbox, body):
    assert _post(sandbox, "posts/remove", body).status_code == 400

"""The long run's checker finds each kind of damage it exists for, on rows shaped as the
database and the sandbox give them. Fast and without the stack: it runs in `make test`, so a
change to the checker cannot quietly make the long suites unable to fail."""

from __future__ import annotations

from typing import Any

from tests.long.checker import Report, check_attempts, check_creates, check_posts, check_statuses, check_webhooks
from tests.long.stack import Arrival


def _target(target_id: str, state: str, post_id: str = "", platform: str = "x", publish: str = "p1") -> dict[str, Any]:
    return {"id": target_id, "publish_id": publish, "platform": platform, "state": state, "platform_post_id": post_id}


def _post(post_id: str, platform: str = "x") -> dict[str, Any]:
    return {"id": post_id, "platform": platform}


def _kinds(report: Report) -> list[str]:
    return [problem.split(":")[0] for problem in report.problems]


def test_a_publish_whose_status_its_targets_do_not_justify_is_wrong() -> None:
    report = Report()
    targets = [_target("t1", "published", "1"), _target("t2", "failed")]
    check_statuses([{"id": "p1", "status": "published"}], targets, report)
    assert _kinds(report) == ["wrong"]
    assert "partial" in report.problems[0]


def test_a_status_its_targets_derive_passes() -> None:
    report = Report()
    targets = [_target("t1", "published", "1"), _target("t2", "failed")]
    check_statuses([{"id": "p1", "status": "partial"}], targets, report)
    assert report.problems == []


def test_a_published_target_without_its_post_is_lost() -> None:
    report = Report()
    check_posts([_target("t1", "published", "1")], [], report)
    assert _kinds(report) == ["lost"]


def test_a_post_made_twice_or_for_no_target_is_duplicated() -> None:
    report = Report()
    targets = [_target("t1", "published", "1"), _target("t2", "failed")]
    check_posts(targets, [_post("1"), _post("1"), _post("2")], report)
    assert sorted(_kinds(report)) == ["duplicated", "duplicated"]


def test_a_bluesky_post_is_matched_by_the_record_key_of_its_uri() -> None:
    report = Report()
    uri = "at://did:plc:abc/app.bsky.feed.post/3n36himlgtyfd"
    check_posts([_target("t1", "published", uri, platform="bluesky")], [_post("3n36himlgtyfd", "bluesky")], report)
    assert report.problems == []


def test_a_target_sent_again_after_an_unknown_outcome_is_duplicated() -> None:
    # Reconciliation rewrote attempt 1 to failed, but it was seen unknown while the load ran.
    attempts = [
        {"id": "a1", "target_id": "t1", "number": 1, "state": "failed"},
        {"id": "a2", "target_id": "t1", "number": 2, "state": "published"},
    ]
    report = Report()
    check_attempts(attempts, {"a1"}, report)
    assert _kinds(report) == ["duplicated"]


def test_a_retry_after_a_platform_refusal_is_allowed() -> None:
    attempts = [
        {"id": "a1", "target_id": "t1", "number": 1, "state": "failed"},
        {"id": "a2", "target_id": "t1", "number": 2, "state": "published"},
    ]
    report = Report()
    check_attempts(attempts, set(), report)
    assert report.problems == []


def test_webhook_events_missing_undelivered_or_arriving_too_often_are_found() -> None:
    matched = [
        {"event_id": "e1", "type": "post.published", "state": "succeeded", "attempts": 1},
        {"event_id": "e2", "type": "post.failed", "state": None, "attempts": None},
        {"event_id": "e3", "type": "post.failed", "state": "pending", "attempts": 1},
    ]
    arrivals = {
        "e1": [Arrival("e1", "post.published", "acme", 200), Arrival("e1", "post.published", "acme", 200)],
        "e9": [Arrival("e9", "post.published", "acme", 200)],
    }
    report = Report()
    check_webhooks(matched, arrivals, report)
    assert sorted(_kinds(report)) == ["duplicated", "duplicated", "lost", "lost"]


def test_a_retried_webhook_within_its_attempts_passes() -> None:
    matched = [{"event_id": "e1", "type": "post.published", "state": "succeeded", "attempts": 2}]
    arrivals = {"e1": [Arrival("e1", "post.published", "acme", 503), Arrival("e1", "post.published", "acme", 200)]}
    report = Report()
    check_webhooks(matched, arrivals, report)
    assert report.problems == []


def test_a_create_answered_201_but_not_there_is_lost_and_one_made_twice_is_duplicated() -> None:
    creates = [
        {"content": "Load a", "status": 201, "publish_id": "p1", "tries": 1},
        {"content": "Load b", "status": 201, "publish_id": "p2", "tries": 3},  # sent again after 503s
        {"content": "Load c", "status": 503, "publish_id": None, "tries": 12},
    ]
    publishes = [
        {"id": "p2", "content": "Load b"},
        {"id": "p3", "content": "Load c"},
        {"id": "p4", "content": "Load c"},
    ]
    report = Report()
    check_creates(creates, publishes, report)
    assert sorted(_kinds(report)) == ["duplicated", "lost"]


def test_a_create_given_up_after_503s_may_exist_once() -> None:
    creates = [{"content": "Load c", "status": 503, "publish_id": None, "tries": 12}]
    report = Report()
    check_creates(creates, [{"id": "p3", "content": "Load c"}], report)
    assert report.problems == []


def test_a_webhook_whose_history_was_purged_is_not_counted_against_the_run() -> None:
    arrivals = {
        "e8": [
            Arrival("e8", "post.published", "acme", 503, at=100.0),
            Arrival("e8", "post.published", "acme", 200, at=700.0),
        ],
        "e9": [Arrival("e9", "post.published", "acme", 200, at=900.0)],
    }
    report = Report()
    check_webhooks([], arrivals, report, purged_before=500.0)
    assert _kinds(report) == ["duplicated"]  # e9 arrived after the purge horizon: it must be there
    assert report.counts["webhook events purged"] == 1


def test_a_retry_after_the_read_back_found_no_post_is_allowed() -> None:
    attempts = [
        {"id": "a1", "target_id": "t1", "number": 1, "state": "failed", "error_code": "NOT_FOUND"},
        {"id": "a2", "target_id": "t1", "number": 2, "state": "published", "error_code": ""},
    ]
    report = Report()
    check_attempts(attempts, {"a1"}, report)
    assert report.problems == []

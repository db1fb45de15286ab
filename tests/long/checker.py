"""What a long run must leave behind, read from the database (SQL on the run's database) and
the sandbox, after the queues have drained:

- every publish's status is what its targets' states derive (`publishing.status.derive_status`);
- every published target has exactly one post on its platform, found by its platform_post_id;
- no sandbox post exists twice or without a published target behind it;
- no target was sent again after an outcome that may have made a post: an attempt that was seen
  `unknown` while the load ran (sampled by `UnknownWatch`) is its target's last unless the
  read-back settled it as absent (failed, NOT_FOUND), and one that ended anything but failed
  or not sent is its target's last;
- every webhook event a subscription matched has a delivery, that delivery succeeded, the
  receiver got it at least once (by webhook-id) and no more often than the delivery's attempts
  (but for the subscriptions a suite left out: a receiver it took down);
- every create a client was answered 201 is there with the id it was given, and no create was
  made twice, however often its client sent it again (each create's content is its own).

`check()` returns the counts and every problem found; lost and duplicated are counted apart.
"""

from __future__ import annotations

import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg.rows import dict_row

from publishing.models import DeliveryAttempt, DeliveryJob, Publish, Target
from publishing.status import derive_status
from tests.long.stack import Arrival
from webhooks.models import Delivery, Event, Subscription

UNSETTLED = ("queued", "sending", "processing", "unknown")
SETTLED_ATTEMPTS = ("failed", "not_sent")  # a later attempt may follow only these
ABSENT = "NOT_FOUND"  # the read-back's evidence that an unknown attempt made no post

PUBLISHES, TARGETS, ATTEMPTS, JOBS = (m._meta.db_table for m in (Publish, Target, DeliveryAttempt, DeliveryJob))
EVENTS, DELIVERIES, SUBSCRIPTIONS = (m._meta.db_table for m in (Event, Delivery, Subscription))


# The checker's own connections carry this name, so a fault that kills the service's database
# connections can leave them alone.
APPLICATION_NAME = "long-run-checker"


def connect(database_url: str, **options: Any) -> psycopg.Connection[Any]:
    return psycopg.connect(database_url, application_name=APPLICATION_NAME, **options)


def _rows(database_url: str, query: str, *params: Any) -> list[dict[str, Any]]:
    with connect(database_url, row_factory=dict_row) as conn:
        return conn.execute(query, params).fetchall()  # type: ignore[arg-type]


def unsettled(database_url: str) -> dict[str, int]:
    """What is still moving: targets in flight or being checked, scheduled publishes past due
    (and not waiting for approval), webhook deliveries not final."""
    targets = _rows(
        database_url,
        f"SELECT state, count(*) AS n FROM {TARGETS} WHERE state = ANY(%s) GROUP BY state",  # noqa: S608
        list(UNSETTLED),
    )
    overdue = _rows(
        database_url,
        f"SELECT count(*) AS n FROM {PUBLISHES} WHERE status = 'scheduled'"  # noqa: S608
        " AND scheduled_at < now() - interval '3 seconds'"
        " AND approval_status IS DISTINCT FROM 'pending_approval'",
    )
    deliveries = _rows(database_url, f"SELECT count(*) AS n FROM {DELIVERIES} WHERE state IN ('pending', 'sending')")  # noqa: S608
    found = {row["state"]: row["n"] for row in targets}
    found["overdue scheduled publishes"] = overdue[0]["n"]
    found["webhook deliveries"] = deliveries[0]["n"]
    return {what: n for what, n in found.items() if n}


def drain(database_url: str, *, timeout: float) -> dict[str, int]:
    """Poll until nothing is unsettled or `timeout` passes; what is still unsettled then."""
    deadline = time.monotonic() + timeout
    while (left := unsettled(database_url)) and time.monotonic() < deadline:
        time.sleep(0.5)
    return left


def stuck(database_url: str, limit: int = 10) -> list[dict[str, Any]]:
    """The first unsettled targets with their last job and attempt, for a failure message."""
    return _rows(
        database_url,
        f"SELECT t.id, t.platform, t.state, t.attempt_count, t.error_code, t.checks, t.next_check_at, j.state AS job,"  # noqa: S608
        f" j.runs, j.not_before, j.enqueued_at, a.state AS attempt, a.tries, a.error_code AS attempt_error"
        f" FROM {TARGETS} t LEFT JOIN {JOBS} j ON j.target_id = t.id AND j.number = t.attempt_count"
        f" LEFT JOIN {ATTEMPTS} a ON a.target_id = t.id AND a.number = t.attempt_count"
        f" WHERE t.state = ANY(%s) LIMIT {limit:d}",
        list(UNSETTLED),
    )


@dataclass
class UnknownWatch:
    """Samples, while the load runs, every attempt whose outcome is unknown: reconciliation may
    later rewrite the attempt's state, but such an attempt must stay its target's last."""

    database_url: str
    seen: set[str] = field(default_factory=set)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def __enter__(self) -> UnknownWatch:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        with connect(self.database_url, autocommit=True) as conn:
            while not self._stop.wait(0.25):
                rows = conn.execute(f"SELECT id FROM {ATTEMPTS} WHERE state = 'unknown'").fetchall()  # noqa: S608
                self.seen.update(str(row[0]) for row in rows)


@dataclass
class Report:
    counts: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)

    def problem(self, kind: str, text: str) -> None:
        """`kind` is "lost", "duplicated" or "wrong"."""
        self.counts[kind] += 1
        if len(self.problems) < 50:
            self.problems.append(f"{kind}: {text}")


def check(
    database_url: str,
    posts: list[dict[str, Any]],
    arrivals: dict[str, list[Arrival]],
    unknown_seen: set[str],
    creates: list[dict[str, Any]],
    *,
    leave_out: frozenset[str] = frozenset(),
    purged_before: float | None = None,
) -> Report:
    """`leave_out`: ids of subscriptions whose deliveries are not judged here; `purged_before`:
    when the webhook history's retention ran during the load, the time before which it may be gone."""
    report = Report()
    report.counts.update(lost=0, duplicated=0, wrong=0)
    targets = _rows(database_url, f"SELECT id, publish_id, platform, state, platform_post_id FROM {TARGETS}")  # noqa: S608
    publishes = _rows(database_url, f"SELECT id, status, content FROM {PUBLISHES}")  # noqa: S608
    check_statuses(publishes, targets, report)
    check_creates(creates, publishes, report)
    check_posts(targets, posts, report)
    attempts = _rows(
        database_url,
        f"SELECT id, target_id, number, state, error_code FROM {ATTEMPTS} ORDER BY target_id, number",  # noqa: S608
    )
    check_attempts(attempts, unknown_seen, report)
    matched = [row for row in _matched_events(database_url) if str(row["subscription_id"]) not in leave_out]
    check_webhooks(matched, arrivals, report, purged_before)
    return report


def _matched_events(database_url: str) -> list[dict[str, Any]]:
    """Every event a subscription matched, with that subscription's delivery (None if missing)."""
    return _rows(
        database_url,
        f"SELECT e.id AS event_id, e.type, s.id AS subscription_id, d.state, d.attempts"  # noqa: S608
        f" FROM {EVENTS} e JOIN {SUBSCRIPTIONS} s"
        f" ON s.team_id = e.team_id AND s.events ? e.type AND e.created_at >= s.created_at"
        f" LEFT JOIN {DELIVERIES} d ON d.event_id = e.id AND d.subscription_id = s.id",
    )


def check_creates(creates: list[dict[str, Any]], publishes: list[dict[str, Any]], report: Report) -> None:
    """`creates` as the load's clients recorded them: content, final status, publish id."""
    by_content: dict[str, list[str]] = defaultdict(list)
    for publish in publishes:
        by_content[publish["content"]].append(str(publish["id"]))
    report.counts["creates"] = len(creates)
    for create in creates:
        made = by_content.get(create["content"], [])
        if len(made) > 1:
            report.problem("duplicated", f"create {create['content']!r} made {len(made)} publishes: {made}")
        if create["status"] == 201 and made != [create["publish_id"]]:
            report.problem("lost", f"create {create['content']!r} was answered {create['publish_id']}, found {made}")


def check_statuses(publishes: list[dict[str, Any]], targets: list[dict[str, Any]], report: Report) -> None:
    states: dict[Any, list[str]] = defaultdict(list)
    for target in targets:
        states[target["publish_id"]].append(target["state"])
    for publish in publishes:
        report.counts["publishes"] += 1
        report.counts[f"publishes {publish['status']}"] += 1
        derived = derive_status(states[publish["id"]])
        if publish["status"] != derived:
            report.problem("wrong", f"publish {publish['id']} is {publish['status']}, its targets say {derived}")
    report.counts["targets"] = len(targets)
    report.counts.update(f"targets {t['state']}" for t in targets)


def _post_key(platform: str, post_id: str) -> tuple[str, str]:
    # Bluesky's post id is the record's at:// URI; the sandbox lists the record key.
    return platform, post_id.rsplit("/", 1)[-1]


def check_posts(targets: list[dict[str, Any]], posts: list[dict[str, Any]], report: Report) -> None:
    on_platform = Counter(_post_key(p["platform"], str(p["id"])) for p in posts)
    report.counts["sandbox posts"] = len(posts)
    published: set[tuple[str, str]] = set()
    for target in targets:
        if target["state"] != "published":
            continue
        key = _post_key(target["platform"], target["platform_post_id"])
        published.add(key)
        if on_platform[key] == 0:
            report.problem("lost", f"target {target['id']} is published as {key} but the platform has no such post")
    for key, copies in on_platform.items():
        if copies > 1:
            report.problem("duplicated", f"post {key} exists {copies} times on the platform")
        if key not in published:
            report.problem("duplicated", f"post {key} is on the platform but no published target names it")


def check_attempts(attempts: list[dict[str, Any]], unknown_seen: set[str], report: Report) -> None:
    """`attempts` in order of target and number."""
    by_target: dict[Any, list[dict[str, Any]]] = defaultdict(list)
    for attempt in attempts:
        by_target[attempt["target_id"]].append(attempt)
    report.counts["delivery attempts"] = len(attempts)
    report.counts.update(f"attempts {a['state']}" for a in attempts)
    report.counts["attempts seen unknown"] = len(unknown_seen)
    for target_id, rows in by_target.items():
        for attempt in rows[:-1]:
            # An unknown attempt may be followed only once the read-back settled it as absent.
            absent = attempt["state"] == "failed" and attempt.get("error_code") == ABSENT
            if (str(attempt["id"]) in unknown_seen and not absent) or attempt["state"] not in SETTLED_ATTEMPTS:
                report.problem(
                    "duplicated",
                    f"target {target_id} was sent again (attempt {rows[-1]['number']}) after attempt "
                    f"{attempt['number']} ended {attempt['state']}"
                    f"{' (seen unknown)' if str(attempt['id']) in unknown_seen else ''}",
                )


def check_webhooks(
    matched: list[dict[str, Any]],
    arrivals: dict[str, list[Arrival]],
    report: Report,
    purged_before: float | None = None,
) -> None:
    """`purged_before` (a time.time()): events that arrived before it may have been purged."""
    report.counts["webhook events"] = len(matched)
    report.counts["webhook arrivals"] = sum(len(a) for a in arrivals.values())
    report.counts["webhook retries"] = sum(1 for a in arrivals.values() for x in a if x.status >= 300)
    known = {str(row["event_id"]) for row in matched}
    for row in matched:
        event_id, got = str(row["event_id"]), arrivals.get(str(row["event_id"]), [])
        if row["state"] is None:
            report.problem("lost", f"event {event_id} ({row['type']}) has no delivery")
        elif row["state"] != "succeeded" or not any(a.status < 300 for a in got):
            report.problem("lost", f"event {event_id} ({row['type']}): delivery {row['state']}, {len(got)} arrivals")
        elif len(got) > row["attempts"]:
            report.problem("duplicated", f"event {event_id} arrived {len(got)} times in {row['attempts']} attempts")
        if any(a.type != row["type"] for a in got):
            report.problem("wrong", f"event {event_id} is {row['type']} but arrived as {[a.type for a in got]}")
    for event_id in set(arrivals) - known:
        # An event is made moments before it first arrives; a purge takes events made before its horizon.
        if purged_before is not None and min(a.at for a in arrivals[event_id]) < purged_before + 30:
            report.counts["webhook events purged"] += 1  # the retention rule removed its history
            continue
        report.problem("duplicated", f"webhook {event_id} arrived but no subscribed event has that id")

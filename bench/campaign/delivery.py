"""A campaign due in one second (issue 33): three figures of one run.

PUBLISHES scheduled publishes, each with one target on X, Bluesky, LinkedIn, Facebook and
Threads (accounts taken in turn from ACCOUNTS_PER_PLATFORM sandbox accounts of each), are
written as a create writes them and made due at the same second a few seconds ahead, while
every platform answers 1 s after its work is done. The service runs as `make run` starts it
(every Celery worker of the Procfile and beat; the web server is not needed). Polled once a
second: targets published; sampled once a second: the dispatch process's PostgreSQL connections
and resident memory (its whole process tree).

1. seconds from the due second to the last target's `published_at`; when the run is cut short
   at CAMPAIGN_CAP, the time extrapolated at the rate reached;
2. the most PostgreSQL connections the dispatch process held;
3. the most resident memory of the dispatch process.

Afterwards the sandbox must hold exactly one post per published target (none lost, none sent
twice): when cut short, a post may exist for a target still sending, never two for one target.
"""

from __future__ import annotations

import math
import secrets
import sys
import time
from collections import Counter
from typing import Any

from bench.campaign.stack import MB, PLATFORMS, QUICK, Run, Sampler, Sizes, dispatch_sampler, open_run, start_service
from bench.common import Figure, Stack
from bench.workers.stack import quit_now

LATENCY_SECONDS = 1
LEAD_SECONDS = 3  # the due second is this far ahead when the processes are ready
# Before issue 33's work (commit a44d996, 2 cores, DISPATCH_THREADS 4), the full sizes: cut short
# at 600 s with 1,472 of 10,000 published (2.45 targets/s), 4 connections, 154 MB.
BEFORE = {"all_published_s": 4076.1, "connections": 4, "rss_mb": 153.9}


def figures(sizes: Sizes) -> list[Figure]:
    with open_run("delivery") as run:
        tag = f"campaign {secrets.token_hex(3)}"
        accounts = run.helper("make_accounts", team=run.team, platforms=PLATFORMS, each=sizes.accounts_per_platform)
        total = run.helper("make_campaign", tag=tag, n=sizes.publishes, accounts=accounts)
        run.sandbox("latency", {"seconds": LATENCY_SECONDS})
        stack = Stack(logs=run.logs, env=run.env)
        try:
            start_service(run, stack, web=False)
            due = math.ceil(time.time()) + LEAD_SECONDS
            run.helper("set_due", tag=tag, at=due)
            with dispatch_sampler(run, stack).running() as sampler:
                done_at = _watch(run, stack, tag, total, due + sizes.campaign_cap)
            quit_now(stack)  # published, or cut short: nothing in flight is worth a graceful stop
        finally:
            stack.stop()
        report = run.helper("campaign_report", tag=tag)
        posts = _check_posts(run, tag, report)
    return _figures(sizes, total, due, done_at, report, posts, sampler)


def _published(run: Run, tag: str) -> int:
    row = run.sql(
        "SELECT count(*) FROM publishing_target t JOIN publishing_publish p ON p.id = t.publish_id "
        "WHERE p.content LIKE %s AND t.state = 'published'",
        f"Bench {tag}: %",
    )
    return int(row[0])


def _watch(run: Run, stack: Stack, tag: str, total: int, deadline: float) -> float | None:
    """Poll once a second until every target is published (the time then) or `deadline`."""
    while time.time() < deadline:
        stack.check_alive()
        published = _published(run, tag)
        print(f"bench.campaign: {published} of {total} published", file=sys.stderr, flush=True)
        if published >= total:
            return time.time()
        time.sleep(1)
    return None


def _check_posts(run: Run, tag: str, report: dict[str, Any]) -> int:
    """One sandbox post per published target; a target still sending may have one too."""
    posts = [p for p in run.sandbox("posts")["posts"] if p["text"].startswith(f"Bench {tag}: ")]
    copies = Counter((p["platform"], p["text"]) for p in posts)
    states = report["states"]
    published, in_flight = states.get("published", 0), states.get("sending", 0) + states.get("unknown", 0)
    if max(copies.values(), default=1) > 1 or not published <= len(posts) <= published + in_flight:
        raise RuntimeError(
            f"the sandbox holds {len(posts)} posts ({len(copies)} distinct) for {published} published targets "
            f"and {in_flight} in flight"
        )
    if report["attempts_over_one"]:
        raise RuntimeError(f"{report['attempts_over_one']} targets were attempted more than once")
    return len(posts)


def _figures(
    sizes: Sizes, total: int, due: float, done_at: float | None, report: dict[str, Any], posts: int, sampler: Sampler
) -> list[Figure]:
    stamps = report["published_at"]
    finished = done_at is not None and len(stamps) == total
    elapsed = (stamps[-1] - due) if finished else (sizes.campaign_cap)
    rate = len(stamps) / elapsed if elapsed > 0 else 0.0
    seconds = elapsed if finished else (total / rate if rate else math.inf)
    accounts = sizes.accounts_per_platform * len(PLATFORMS)
    shared = {"quick": sizes is QUICK, "targets": total, "accounts": accounts}
    timing = {
        **shared,
        "published": len(stamps),
        "finished": finished,
        "cut_short_at_s": None if finished else sizes.campaign_cap,
        "targets_per_s": round(rate, 2),
        "first_published_after_due_s": round(stamps[0] - due, 2) if stamps else None,
        "states": report["states"],
        "errors": report["errors"],
        "still_scheduled": report["waiting"],
        "sandbox_posts": posts,
        "value_note": "seconds from the due second to the last published_at, or extrapolated at the rate reached",
        "before": BEFORE["all_published_s"],
    }
    connections = max(sampler.connections, default=0)
    rss_mb = max(sampler.rss, default=0) / MB
    name = f"campaign: {total:,} targets over {accounts} accounts due in one second, 1 s platform latency"
    return [
        Figure(name=name, value=round(seconds, 1), unit="s", goal="all published <= 120 s", met=seconds <= 120,
               extra=timing),
        Figure(name="campaign: PostgreSQL connections held by the dispatch process", value=connections, unit="",
               goal="<= 10", met=connections <= 10,
               extra={**shared, "samples": len(sampler.connections), "before": BEFORE["connections"]}),
        Figure(name="campaign: dispatch process RSS", value=round(rss_mb, 1), unit="MB", goal="<= 400 MB",
               met=rss_mb <= 400, extra={**shared, "samples": len(sampler.rss), "before": BEFORE["rss_mb"]}),
    ]  # fmt: skip

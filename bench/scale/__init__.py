"""Data-scale figures: what every list and page costs as one team's history grows.

One team (the demo team `acme`, on a scratch PostgreSQL database of its own) is grown to each
size in turn (`bench.scale.helper`: copies of real-shaped publishes in bulk SQL, spread over two
years, two targets each, with attempts, metrics and samples in proportion). At each size the web
server of the Procfile (warm: each page asked twice first) is asked for every API list, with
each filter and sort the spec names, on its first and its last page, for the analytics lists and
for every dashboard page; the figure is the median of REPEATS asks, with the size of the answer.

Each figure is the time at the largest size against its goal (API lists and analytics
<= 100 ms, dashboard pages <= 150 ms, each at most twice its time at the smallest size); its
`extra` holds the time and bytes at every size and the growth. Dashboard pages also report
their HTML size against 300 KB.

    .venv/bin/python -m bench.run --only scale            # 10k, 100k and 1M publishes
    .venv/bin/python -m bench.run --only scale --quick    # 1k and 10k (CI)

A run is broken (RuntimeError) when a page does not answer 200.
"""

from __future__ import annotations

import contextlib
import re
import statistics
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import requests

from bench.campaign.stack import Run, open_run, procfile_argv
from bench.common import Figure, Stack, http_ok, wait_for
from bench.scale.helper import SCALE_HELPER

FULL = (10_000, 100_000, 1_000_000)
QUICK = (1_000, 10_000)
REPEATS = 5
API_GOAL_MS, PAGE_GOAL_MS, PAGE_GOAL_KB = 100.0, 150.0, 300.0


@dataclass(frozen=True)
class Ask:
    """One page to time: its name in the table, its path (with {placeholders}), and whether it
    is a dashboard page (signed in) or an API call (the key)."""

    name: str
    path: str
    dashboard: bool = False
    last_page: bool = False  # ask the first page, then the last one its pagination names


ASKS = (
    Ask("GET /api/v1/publishes", "/api/v1/publishes?page_size=20"),
    Ask("GET /api/v1/publishes, last page", "/api/v1/publishes?page_size=20", last_page=True),
    Ask(
        "GET /api/v1/publishes?created_before (a year ago)",
        "/api/v1/publishes?page_size=20&created_before={year_ago}",
    ),
    Ask("GET /api/v1/publishes?status=published", "/api/v1/publishes?page_size=20&status=published"),
    Ask("GET /api/v1/publishes?status=scheduled", "/api/v1/publishes?page_size=20&status=scheduled"),
    Ask("GET /api/v1/publishes?platform=x", "/api/v1/publishes?page_size=20&platform=x"),
    Ask("GET /api/v1/publishes?account_id", "/api/v1/publishes?page_size=20&account_id={account}"),
    Ask("GET /api/v1/publishes?created_after (30 days)", "/api/v1/publishes?page_size=20&created_after={month_ago}"),
    Ask("GET /api/v1/publishes/{id}", "/api/v1/publishes/{publish}"),
    Ask("GET /api/v1/analytics/posts", "/api/v1/analytics/posts?page_size=20"),
    Ask("GET /api/v1/analytics/posts, last page", "/api/v1/analytics/posts?page_size=20", last_page=True),
    Ask("GET /api/v1/analytics/posts?sort=total_views", "/api/v1/analytics/posts?page_size=20&sort=total_views"),
    Ask("GET /api/v1/analytics/posts?platform=x", "/api/v1/analytics/posts?page_size=20&platform=x"),
    Ask("GET /api/v1/analytics/posts/{id}", "/api/v1/analytics/posts/{publish}"),
    Ask("GET /api/v1/approvals", "/api/v1/approvals?page_size=20"),
    Ask("dashboard home", "/dashboard/home/?team={team}", dashboard=True),
    Ask("dashboard publishes", "/dashboard/publishes/?team={team}", dashboard=True),
    Ask("dashboard publishes, last page", "/dashboard/publishes/?team={team}", dashboard=True, last_page=True),
    Ask("dashboard calendar, week", "/dashboard/calendar/?team={team}&view=week", dashboard=True),
    Ask("dashboard calendar, month", "/dashboard/calendar/?team={team}&view=month", dashboard=True),
    Ask("dashboard analytics", "/dashboard/analytics/?team={team}", dashboard=True),
    Ask("dashboard publish page", "/dashboard/publishes/{publish}/?team={team}", dashboard=True),
)


@dataclass
class Answer:
    ms: float
    kb: float


def measure(quick: bool) -> list[Figure]:
    sizes = QUICK if quick else FULL
    seen: dict[str, dict[int, Answer]] = {ask.name: {} for ask in ASKS}
    with open_run("scale", script=SCALE_HELPER) as run, _web(run) as (api, dashboard):
        acme = run.seed["accounts"]["acme"]
        accounts = {"x": acme["x"], "bluesky": acme["bluesky"]}
        now = time.time()
        # The API allows a key 120 requests a minute: each ask has a key of its own.
        keys = iter(run.helper("make_keys", team=run.team, n=len(ASKS) * len(sizes)))
        for size in sizes:
            grown = run.helper("grow", team=run.team, accounts=accounts, size=size, now=now)
            print(
                f"bench.scale: {size:,} publishes copied in {grown['seconds']:.1f} s: {grown['rows']}", file=sys.stderr
            )
            ids = {
                **run.helper("sample_ids", team=run.team),
                "team": run.team,
                "month_ago": _ago(now, days=30),
                "year_ago": _ago(now, days=365),
            }
            for ask in ASKS:
                api.headers["Authorization"] = f"Bearer {next(keys)}"
                seen[ask.name][size] = _timed(dashboard if ask.dashboard else api, run.web_port, ask, ids)
                answer = seen[ask.name][size]
                print(f"bench.scale: {size:>9,} {ask.name}: {answer.ms:.1f} ms, {answer.kb:.0f} KB", file=sys.stderr)
    return [figure for ask in ASKS for figure in _figures(ask, seen[ask.name], sizes)]


def _ago(now: float, *, days: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now - days * 86400))


def _timed(session: requests.Session, port: int, ask: Ask, ids: dict[str, str]) -> Answer:
    """The median time and the size of the page, asked twice first to warm it."""
    url = f"http://127.0.0.1:{port}{ask.path.format(**ids)}"
    if ask.last_page:
        url = _last_page(session, url, dashboard=ask.dashboard)
    times, size = [], 0
    for n in range(2 + REPEATS):
        started = time.perf_counter()
        answer = session.get(url, timeout=120)
        elapsed = (time.perf_counter() - started) * 1000
        if answer.status_code != 200:
            raise RuntimeError(f"{ask.name}: {answer.status_code} {answer.text[:300]}")
        size = len(answer.content)
        if n >= 2:
            times.append(elapsed)
    return Answer(ms=statistics.median(times), kb=size / 1024)


def _last_page(session: requests.Session, url: str, *, dashboard: bool) -> str:
    """The list's last page: the last that has items, or past the count's limit the last its
    pages reach (the API's `total_pages`, the pager's "of 500+")."""
    first = session.get(url, timeout=120)
    if dashboard:
        pages = re.search(r"Page \d+ of (\d+)", first.text)  # the pager's words
        return f"{url}&page={pages.group(1) if pages else 1}"
    return f"{url}&page={max(first.json()['pagination']['total_pages'], 1)}"


def _figures(ask: Ask, seen: dict[int, Answer], sizes: tuple[int, ...]) -> Iterator[Figure]:
    smallest, largest = seen[sizes[0]], seen[sizes[-1]]
    growth = largest.ms / smallest.ms if smallest.ms else None
    extra: dict[str, Any] = {
        "ms": {str(size): round(seen[size].ms, 1) for size in sizes},
        "kb": {str(size): round(seen[size].kb, 1) for size in sizes},
        "growth": None if growth is None else round(growth, 2),
    }
    goal_ms = PAGE_GOAL_MS if ask.dashboard else API_GOAL_MS
    at = f"at {sizes[-1]:,} publishes"
    grew = f"{growth:.1f}x" if growth is not None else "-"
    yield Figure(
        f"{ask.name} {at} ({grew} from {sizes[0]:,})",
        round(largest.ms, 1),
        "ms",
        f"<= {goal_ms:.0f} ms, growth <= 2x",
        largest.ms <= goal_ms and (growth or 0) <= 2,
        extra=extra,
    )
    if ask.dashboard:
        goal = f"<= {PAGE_GOAL_KB:.0f} KB"
        yield Figure(f"{ask.name} HTML {at}", round(largest.kb), "KB", goal, largest.kb <= PAGE_GOAL_KB)


def _signed_in(port: int, username: str) -> requests.Session:
    """A browser's session of the demo owner, signed in through the login form."""
    session = requests.Session()
    login = f"http://127.0.0.1:{port}/login/"
    page = session.get(login, timeout=30)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
    if token is None:
        raise RuntimeError("the login page has no CSRF token")
    form = {"csrfmiddlewaretoken": token.group(1), "username": username, "password": "demo-password"}
    answer = session.post(login, data=form, headers={"Referer": login}, timeout=30, allow_redirects=False)
    if answer.status_code != 302:
        raise RuntimeError(f"signing in answered {answer.status_code}")
    return session


@contextlib.contextmanager
def _web(run: Run) -> Iterator[tuple[requests.Session, requests.Session]]:
    """The Procfile's web server on the run's database, and an API session (without its key)
    and a signed-in dashboard session to ask it."""
    stack = Stack(logs=run.logs, env=run.env)
    try:
        stack.start("web", procfile_argv("web", run))
        wait_for(stack, "web server", lambda: http_ok(run.web_port, "/healthz"))
        yield requests.Session(), _signed_in(run.web_port, run.helper("owner_username", team=run.team))
    finally:
        stack.stop()

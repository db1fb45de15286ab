"""source_url fetches on their lane: a minimum throughput, and a share of the lane per team, so
one team's slow sources cannot hold every fetch slot. The sources are real HTTP servers on
loopback; a trickling one sends a byte a second until the test ends."""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from celery.signals import before_task_publish
from django.db import connections

from config import lanes
from media import services, storage
from media.models import FetchStatus, MediaUpload
from tests.media import files

PNG = files.image("PNG", (40, 30))
TOO_SLOW = "FETCH_TOO_SLOW: The source sent less than 1 KB/s; host it somewhere faster or upload the file directly."


class Origin(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        self.done = threading.Event()  # ends every trickle
        self.trickling = 0
        super().__init__(("127.0.0.1", 0), _Handler)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}{path}"


class _Handler(BaseHTTPRequestHandler):
    server: Origin

    def do_GET(self) -> None:
        if self.path.startswith("/fast"):
            self._headers(len(PNG))
            self.wfile.write(PNG)
            return
        self._headers(10_000)
        self.server.trickling += 1
        try:
            while not self.server.done.wait(1):  # a byte a second
                self.wfile.write(b"x")
                self.wfile.flush()
        except OSError:
            pass  # the fetch gave up on us
        finally:
            self.server.trickling -= 1

    def _headers(self, length: int) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", str(length))
        self.end_headers()
        self.wfile.flush()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def origin(settings: Any) -> Iterator[Origin]:
    settings.SSRF_ALLOW_PRIVATE = True
    server = Origin()
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield server
    server.done.set()
    server.shutdown()
    server.server_close()


@pytest.fixture
def published() -> Iterator[list[tuple[str, list[Any], bool]]]:
    """Task messages handed to the broker: (task name, args, whether it has a countdown)."""
    sent: list[tuple[str, list[Any], bool]] = []

    def record(sender: str | None = None, body: Any = None, headers: Any = None, **kwargs: Any) -> None:
        sent.append((str(sender), list(body[0]), bool((headers or {}).get("eta"))))

    before_task_publish.connect(record, weak=False)
    yield sent
    before_task_publish.disconnect(record)


def _create(api: Any, key: str, url: str) -> str:
    body = {"filename": "remote.png", "content_type": "image/png", "source_url": url}
    response = api.as_(key).post("/api/v1/media/uploads", body, format="json")
    assert response.status_code == 201, response.json()
    return str(response.json()["data"]["media_id"])


def _poll(
    condition: Callable[[], bool], *, what: str, timeout: float = 30.0, runs: Sequence[Future[None]] = ()
) -> None:
    ends, tick = time.monotonic() + timeout, threading.Event()
    while not condition():
        if time.monotonic() > ends:
            failed = [run.exception() for run in runs if run.done() and run.exception()]
            raise AssertionError(f"gave up waiting for {what}" + (f"; the workers raised {failed}" if failed else ""))
        tick.wait(0.05)


def _status(upload_id: str) -> str:
    return str(MediaUpload.objects.values_list("fetch_status", flat=True).get(pk=upload_id))


# --- Minimum throughput -------------------------------------------------------------------


@pytest.fixture
def one_kb_a_second(settings: Any) -> None:
    settings.MEDIA_FETCH_MIN_BYTES_PER_SECOND = 1024
    settings.MEDIA_FETCH_MIN_RATE_AFTER_SECONDS = 0.5


@pytest.mark.django_db
@pytest.mark.usefixtures("one_kb_a_second")
def test_a_source_sending_below_the_minimum_rate_fails_as_too_slow(api, owner, origin):
    media_id = _create(api, owner.key, origin.url("/slow.png"))

    services.media_fetch_source(upload_id=media_id)

    shown = api.get(f"/api/v1/media/uploads/{media_id}").json()["data"]
    assert (shown["fetch_status"], shown["fetch_error"]) == ("failed", TOO_SLOW)
    assert not storage.exists(MediaUpload.objects.get(pk=media_id).storage_key)
    confirmed = api.post(f"/api/v1/media/uploads/{media_id}/confirm", format="json")
    assert confirmed.json()["error"]["code"] == "FETCH_FAILED"


@pytest.mark.django_db
@pytest.mark.usefixtures("one_kb_a_second")
def test_a_fast_source_is_fetched_under_the_same_minimum(api, owner, origin):
    media_id = _create(api, owner.key, origin.url("/fast.png"))

    services.media_fetch_source(upload_id=media_id)

    shown = api.get(f"/api/v1/media/uploads/{media_id}").json()["data"]
    assert (shown["fetch_status"], shown["size_bytes"]) == ("done", len(PNG))


# --- A team's share of the lane -----------------------------------------------------------


@pytest.mark.django_db
def test_a_team_over_its_share_waits_pending_while_another_teams_fetch_runs(
    api, owner, outsider, origin, settings, published, django_capture_on_commit_callbacks
):
    settings.LANE_TEAM_SHARES = {**settings.LANE_TEAM_SHARES, "fetch": 1}
    waiting = _create(api, owner.key, origin.url("/fast.png"))
    other = _create(api, outsider.key, origin.url("/fast.png"))

    with lanes.team_share("fetch", owner.team.pk, lease_seconds=60) as held:  # the team's one fetch under way
        assert held
        with django_capture_on_commit_callbacks(execute=True):
            services.media_fetch_source(upload_id=waiting)
            services.media_fetch_source(upload_id=other)

    upload = MediaUpload.objects.get(pk=waiting)
    assert (upload.fetch_status, upload.fetch_attempts, upload.fetch_error) == (FetchStatus.PENDING, 0, "")
    assert published == [("media.fetch_source", [waiting], True)]  # handed back, for a little later
    assert _status(other) == FetchStatus.DONE
    assert lanes.held("fetch", owner.team.pk) == 0

    services.media_fetch_source(upload_id=waiting)  # the message, back once the share is free

    assert _status(waiting) == FetchStatus.DONE


@pytest.mark.django_db
def test_a_duplicate_message_of_a_waiting_fetch_is_not_handed_back_twice(
    api, owner, origin, settings, published, django_capture_on_commit_callbacks
):
    settings.LANE_TEAM_SHARES = {**settings.LANE_TEAM_SHARES, "fetch": 1}
    waiting = _create(api, owner.key, origin.url("/fast.png"))

    with lanes.team_share("fetch", owner.team.pk, lease_seconds=60), django_capture_on_commit_callbacks(execute=True):
        services.media_fetch_source(upload_id=waiting)
        services.media_fetch_source(upload_id=waiting)

    assert published == [("media.fetch_source", [waiting], True)]


@pytest.mark.django_db
def test_a_fetch_waiting_for_its_share_costs_no_attempt_and_the_sweep_leaves_it_to_its_message(
    api, owner, origin, settings, django_capture_on_commit_callbacks
):
    settings.LANE_TEAM_SHARES = {**settings.LANE_TEAM_SHARES, "fetch": 1}
    settings.LANE_RETRY_SECONDS = 0  # each round comes back at once
    long_ago = dt.datetime.now(dt.UTC) - dt.timedelta(hours=1)
    waiting = _create(api, owner.key, origin.url("/fast.png"))
    MediaUpload.objects.filter(pk=waiting).update(created_at=long_ago)
    with lanes.team_share("fetch", owner.team.pk, lease_seconds=60):
        with django_capture_on_commit_callbacks(execute=True):
            for _ in range(services.MAX_FETCH_ATTEMPTS + 1):
                services.media_fetch_source(upload_id=waiting)

        resent_while_going_round = services.media_sweep_fetches()
        MediaUpload.objects.filter(pk=waiting).update(fetch_started_at=long_ago)  # its message was lost
        resent_once_lost = services.media_sweep_fetches()

    upload = MediaUpload.objects.get(pk=waiting)
    assert (upload.fetch_status, upload.fetch_attempts) == (FetchStatus.PENDING, 0)
    assert (resent_while_going_round, resent_once_lost) == (0, 1)


@pytest.mark.postgres  # SQLite's shared in-memory test database refuses concurrent writers
@pytest.mark.django_db(transaction=True)
def test_one_teams_slow_sources_do_not_hold_up_another_teams_fetch(api, owner, outsider, origin, settings):
    """The fetch lane's worker, as four threads taking its messages in order: six of team A's
    fetches from a source trickling a byte a second, then one of team B's."""
    settings.MEDIA_FETCH_MIN_RATE_AFTER_SECONDS = 600  # A's fetches keep going until the test ends them
    slow = [_create(api, owner.key, origin.url(f"/slow-{n}.png")) for n in range(6)]
    fast = _create(api, outsider.key, origin.url("/fast.png"))

    def fetch(upload_id: str) -> None:
        try:
            services.media_fetch_source(upload_id=upload_id)
        finally:
            connections.close_all()

    lane = ThreadPoolExecutor(max_workers=4)
    try:
        runs = [lane.submit(fetch, upload_id) for upload_id in [*slow, fast]]
        _poll(lambda: _status(fast) == FetchStatus.DONE, what="team B's fetch", runs=runs)
        statuses = [_status(upload_id) for upload_id in slow]
        trickling = origin.trickling
    finally:
        origin.done.set()  # the trickles end, and with them A's fetches
        lane.shutdown()

    assert sorted(statuses) == [FetchStatus.FETCHING] * 2 + [FetchStatus.PENDING] * 4
    assert trickling == 2
    assert MediaUpload.objects.filter(pk__in=slow, fetch_attempts=0).count() == 4

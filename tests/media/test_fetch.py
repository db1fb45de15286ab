"""Uploads the service fetches itself from source_url, from a real HTTP server on loopback."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from media import services, storage
from media.models import FetchStatus, MediaUpload
from tests.media import files

pytestmark = pytest.mark.django_db

PNG = files.image("PNG", (40, 30))


class _Handler(BaseHTTPRequestHandler):
    routes: dict[str, tuple[int, dict[str, str], bytes]] = {}
    hits: list[str] = []

    def do_GET(self) -> None:
        self.hits.append(self.path)
        status, headers, body = self.routes.get(self.path, (404, {}, b"not here"))
        self.send_response(status)
        for name, value in {"Content-Length": str(len(body)), **headers}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def _serve(host: str) -> Iterator[tuple[ThreadingHTTPServer, str]]:
    handler = type("Handler", (_Handler,), {"routes": {}, "hits": []})
    server = ThreadingHTTPServer((host, 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server, f"http://{host}:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def origin(settings):
    """A file server on 127.0.0.1, reachable because private addresses are allowed (as in demos)."""
    settings.SSRF_ALLOW_PRIVATE = True
    with _serve("127.0.0.1") as served:
        yield served


def _create(api, key, url, **fields):
    body = {"filename": "remote.png", "content_type": "image/png", "source_url": url, **fields}
    return api.as_(key).post("/api/v1/media/uploads", body, format="json")


def test_a_source_url_is_fetched_and_then_confirmed(
    api, owner, origin, django_capture_on_commit_callbacks, eager_tasks
):
    server, base = origin
    server.RequestHandlerClass.routes["/photo.png"] = (200, {"Content-Type": "image/png"}, PNG)

    with django_capture_on_commit_callbacks(execute=True):
        created = _create(api, owner.key, f"{base}/photo.png")

    assert created.status_code == 201
    data = created.json()["data"]
    assert data["upload_url"] is None
    assert data["headers"] == {}
    shown = api.get(f"/api/v1/media/uploads/{data['media_id']}").json()["data"]
    assert shown["fetch_status"] == "done"
    assert shown["size_bytes"] == len(PNG)
    confirmed = api.post(f"/api/v1/media/uploads/{data['media_id']}/confirm", format="json")
    assert confirmed.status_code == 200
    assert (confirmed.json()["data"]["width"], confirmed.json()["data"]["height"]) == (40, 30)


def test_confirm_while_the_fetch_is_pending_says_so(api, owner, origin):
    _, base = origin
    media_id = _create(api, owner.key, f"{base}/photo.png").json()["data"]["media_id"]

    shown = api.get(f"/api/v1/media/uploads/{media_id}").json()["data"]
    response = api.post(f"/api/v1/media/uploads/{media_id}/confirm", format="json")

    assert shown["fetch_status"] == "pending"
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "FETCH_IN_PROGRESS"


def test_a_failed_fetch_shows_why_and_confirm_refuses_it(api, owner, origin):
    _, base = origin
    media_id = _create(api, owner.key, f"{base}/gone.png").json()["data"]["media_id"]

    services.media_fetch_source(upload_id=media_id)

    shown = api.get(f"/api/v1/media/uploads/{media_id}").json()["data"]
    assert shown["fetch_status"] == "failed"
    assert shown["fetch_error"].startswith("HTTP_404")
    response = api.post(f"/api/v1/media/uploads/{media_id}/confirm", format="json")
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "FETCH_FAILED"


def test_a_body_larger_than_size_bytes_is_cut_off_and_nothing_kept(api, owner, origin):
    server, base = origin
    server.RequestHandlerClass.routes["/big.png"] = (200, {}, PNG + b"\x00" * 5000)
    media_id = _create(api, owner.key, f"{base}/big.png", size_bytes=len(PNG)).json()["data"]["media_id"]

    services.media_fetch_source(upload_id=media_id)

    upload = MediaUpload.objects.get(pk=media_id)
    assert upload.fetch_status == FetchStatus.FAILED
    assert "TOO_LARGE" in upload.fetch_error
    assert not storage.exists(upload.storage_key)


def test_a_fetched_file_that_is_not_what_it_claims_is_rejected_at_confirm(api, owner, origin):
    server, base = origin
    server.RequestHandlerClass.routes["/fake.png"] = (200, {"Content-Type": "image/png"}, b"GIF89a" + b"\x00" * 100)
    media_id = _create(api, owner.key, f"{base}/fake.png").json()["data"]["media_id"]
    services.media_fetch_source(upload_id=media_id)

    response = api.post(f"/api/v1/media/uploads/{media_id}/confirm", format="json")

    assert response.status_code == 422
    assert response.json()["error"]["code"] == "CONTENT_TYPE_MISMATCH"


def test_a_duplicate_fetch_message_does_nothing(api, owner, origin):
    server, base = origin
    server.RequestHandlerClass.routes["/photo.png"] = (200, {}, PNG)
    media_id = _create(api, owner.key, f"{base}/photo.png").json()["data"]["media_id"]

    services.media_fetch_source(upload_id=media_id)
    services.media_fetch_source(upload_id=media_id)

    assert server.RequestHandlerClass.hits == ["/photo.png"]


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/photo.png",
        "http://localhost:8000/photo.png",
        "http://10.1.2.3/photo.png",
        "http://192.168.0.10/photo.png",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/photo.png",
    ],
)
def test_private_destinations_are_refused_at_create(api, owner, url):
    response = _create(api, owner.key, url)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "INVALID_SOURCE_URL"
    assert not MediaUpload.objects.exists()


def test_a_redirect_to_a_private_address_is_refused_during_the_fetch(api, owner, settings):
    """The allowed origin on 127.0.0.2 redirects to 127.0.0.1, which is not allowed."""
    settings.SSRF_ALLOWED_NETWORKS = ["127.0.0.2/32"]
    with _serve("127.0.0.1") as (inner, inner_base), _serve("127.0.0.2") as (outer, outer_base):
        inner.RequestHandlerClass.routes["/secret"] = (200, {}, PNG)
        outer.RequestHandlerClass.routes["/photo.png"] = (302, {"Location": f"{inner_base}/secret"}, b"")
        media_id = _create(api, owner.key, f"{outer_base}/photo.png").json()["data"]["media_id"]
        services.media_fetch_source(upload_id=media_id)

    upload = MediaUpload.objects.get(pk=media_id)
    assert upload.fetch_status == FetchStatus.FAILED
    assert "BLOCKED" in upload.fetch_error
    assert inner.RequestHandlerClass.hits == []


def test_the_sweeper_resends_lost_fetches_and_takes_back_dead_ones(api, owner, origin, eager_tasks):
    server, base = origin
    server.RequestHandlerClass.routes["/photo.png"] = (200, {}, PNG)
    lost_message = _create(api, owner.key, f"{base}/photo.png").json()["data"]["media_id"]
    dead_worker = _create(api, owner.key, f"{base}/photo.png").json()["data"]["media_id"]
    long_ago = dt.datetime.now(dt.UTC) - dt.timedelta(hours=1)
    MediaUpload.objects.filter(pk=lost_message).update(created_at=long_ago)
    MediaUpload.objects.filter(pk=dead_worker).update(
        created_at=long_ago, fetch_status=FetchStatus.FETCHING, fetch_started_at=long_ago, fetch_attempts=1
    )

    resent = services.media_sweep_fetches()

    assert resent == 2
    statuses = set(MediaUpload.objects.values_list("fetch_status", flat=True))
    assert statuses == {FetchStatus.DONE}


def test_a_fetch_that_keeps_dying_ends_as_failed(api, owner, origin):
    _, base = origin
    media_id = _create(api, owner.key, f"{base}/photo.png").json()["data"]["media_id"]
    long_ago = dt.datetime.now(dt.UTC) - dt.timedelta(hours=1)
    MediaUpload.objects.filter(pk=media_id).update(
        fetch_status=FetchStatus.FETCHING, fetch_started_at=long_ago, fetch_attempts=services.MAX_FETCH_ATTEMPTS
    )

    services.media_sweep_fetches()

    upload = MediaUpload.objects.get(pk=media_id)
    assert upload.fetch_status == FetchStatus.FAILED
    assert upload.fetch_error.startswith("WORKER_LOST")

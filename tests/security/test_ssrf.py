"""Every URL a user hands the API - a webhook's `url` (POST /webhooks) and an upload's
`source_url` (POST /media/uploads) - pointed at the service's own network: loopback in every
spelling, the private ranges, the cloud metadata address, IPv6 forms, a name that resolves
inward (now, or only later when the service connects) and a public-looking server that
redirects inward.

Where the inner address is on this machine, a listening socket sits on it: a connection the
service opened would wait in its accept queue, so `Inner.connections()` proves none was made.
Names are scripted with `fake_dns` (tests/config/test_outbound.py), which replaces only the
stdlib resolver. The "public" redirecting server is a loopback one the operator allow-list
(`SSRF_ALLOWED_NETWORKS`) lets through explicitly; the address it redirects to is not on it.
"""

from __future__ import annotations

import socket
import ssl
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.db import transaction

from config.outbound import close_idle_connections
from media.models import FetchStatus, MediaUpload
from tests.config.test_outbound import Server, _ca_certificate, _server_certificate, redirect
from tests.conftest import Api, Persona
from webhooks import services as webhook_services
from webhooks.models import Delivery, DeliveryState, Subscription

pytestmark = pytest.mark.django_db

DnsAnswers = dict[str, list[list[str]]]


class Inner:
    """A listening socket on an inner address that nothing is allowed to reach."""

    def __init__(self, host: str, family: socket.AddressFamily) -> None:
        self.socket = socket.socket(family, socket.SOCK_STREAM)
        self.socket.bind((host, 0))
        self.socket.listen(16)
        self.socket.setblocking(False)
        self.port = int(self.socket.getsockname()[1])

    def connections(self) -> int:
        """Connections made to it so far (the kernel queues them whether or not we accept)."""
        count = 0
        while True:
            try:
                accepted, _ = self.socket.accept()
            except BlockingIOError:
                return count
            accepted.close()
            count += 1

    def close(self) -> None:
        self.socket.close()


@pytest.fixture
def inner() -> Iterator[Inner]:
    listener = Inner("127.0.0.1", socket.AF_INET)
    yield listener
    listener.close()


@pytest.fixture
def inner6() -> Iterator[Inner]:
    try:
        listener = Inner("::1", socket.AF_INET6)
    except OSError:
        pytest.skip("this machine has no IPv6 loopback")
    yield listener
    listener.close()


@pytest.fixture(autouse=True)
def _public_addresses_only(settings: Any) -> None:
    settings.SSRF_ALLOW_PRIVATE = False
    settings.SSRF_ALLOWED_NETWORKS = []


# (name, URL after the scheme with {port} the inner listener's port, what refuses it: the
# address policy, or the field's URL syntax check, which already turns down numeric hosts in
# the ambiguous forms resolvers read as 127.0.0.1)
LOOPBACK = "address"
AMBIGUOUS = "syntax"
ATTEMPTS = [
    ("loopback 127.0.0.1", "127.0.0.1:{port}/file.png", LOOPBACK),
    ("loopback 127.1", "127.1:{port}/file.png", AMBIGUOUS),
    ("loopback 0x7f000001", "0x7f000001:{port}/file.png", AMBIGUOUS),
    ("loopback 2130706433", "2130706433:{port}/file.png", AMBIGUOUS),
    ("loopback localhost", "localhost:{port}/file.png", LOOPBACK),
    ("loopback [::ffff:127.0.0.1]", "[::ffff:127.0.0.1]:{port}/file.png", LOOPBACK),
    ("private 10/8", "10.0.0.1/file.png", LOOPBACK),
    ("private 172.16/12", "172.16.0.1/file.png", LOOPBACK),
    ("private 172.16/12 top", "172.31.255.254/file.png", LOOPBACK),
    ("private 192.168/16", "192.168.1.1/file.png", LOOPBACK),
    ("metadata 169.254.169.254", "169.254.169.254/latest/meta-data/", LOOPBACK),
    ("metadata [::ffff:169.254.169.254]", "[::ffff:a9fe:a9fe]/latest/meta-data/", LOOPBACK),
    ("unique local [fd00::1]", "[fd00::1]/file.png", LOOPBACK),
    ("link local [fe80::1]", "[fe80::1]/file.png", LOOPBACK),
    ("a name resolving to loopback", "inward.test:{port}/file.png", LOOPBACK),
    ("a name resolving to the metadata address", "metadata.test/latest/meta-data/", LOOPBACK),
    ("a name with a public and a private address", "split.test/file.png", LOOPBACK),
]


def _webhook(url: str) -> dict[str, Any]:
    return {"url": url, "events": ["post.failed"]}


def _upload(url: str) -> dict[str, Any]:
    return {"filename": "file.png", "content_type": "image/png", "source_url": url}


# The API's user-supplied URLs: path, body, the error code of a refused address, the field's
# name and the scheme it accepts (webhooks need https, so that the address check, not the
# scheme rule, is what refuses).
FIELDS: dict[str, tuple[str, Callable[[str], dict[str, Any]], str, str, str]] = {
    "webhook url": ("/api/v1/webhooks", _webhook, "INVALID_WEBHOOK_URL", "url", "https"),
    "media source_url": ("/api/v1/media/uploads", _upload, "INVALID_SOURCE_URL", "source_url", "http"),
}


def _assert_refused(response: Any, field: str, refusal: str) -> None:
    _, _, code, name, _ = FIELDS[field]
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    if refusal == LOOPBACK:
        assert (error["type"], error["code"]) == ("invalid_request", code)
        assert "resolves to a non-public address" in error["message"]
    else:
        assert (error["type"], error["code"]) == ("invalid_request", "VALIDATION_ERROR")
        assert list(error["details"]) == [name]


def _stored(team: Any) -> list[Any]:
    return [*Subscription.objects.filter(team=team), *MediaUpload.objects.filter(team=team)]


@pytest.mark.parametrize("field", list(FIELDS))
@pytest.mark.parametrize(("attempt", "address", "reason"), ATTEMPTS, ids=[a[0] for a in ATTEMPTS])
def test_a_url_into_private_space_is_refused_when_given(
    api: Api,
    owner: Persona,
    inner: Inner,
    fake_dns: DnsAnswers,
    django_capture_on_commit_callbacks: Any,
    eager_tasks: None,
    field: str,
    attempt: str,
    address: str,
    reason: str,
) -> None:
    fake_dns.update(
        {
            "inward.test": [["127.0.0.1"]],
            "metadata.test": [["169.254.169.254"]],
            "split.test": [["8.8.8.8", "10.1.2.3"]],
        }
    )
    path, body, _, _, scheme = FIELDS[field]

    # Were it accepted, the commit would run the source_url fetch at once (Celery is eager).
    with django_capture_on_commit_callbacks(execute=True):
        response = api.as_(owner.key).post(path, body(f"{scheme}://{address.format(port=inner.port)}"), format="json")

    _assert_refused(response, field, reason)
    assert _stored(owner.team) == []
    assert inner.connections() == 0


@pytest.mark.parametrize("field", list(FIELDS))
def test_ipv6_loopback_is_refused_when_given(
    api: Api, owner: Persona, inner6: Inner, django_capture_on_commit_callbacks: Any, eager_tasks: None, field: str
) -> None:
    path, body, _, _, scheme = FIELDS[field]

    with django_capture_on_commit_callbacks(execute=True):
        response = api.as_(owner.key).post(path, body(f"{scheme}://[::1]:{inner6.port}/file.png"), format="json")

    _assert_refused(response, field, LOOPBACK)
    assert _stored(owner.team) == []
    assert inner6.connections() == 0


# --- A name that turns inward after the check ----------------------------------------------------


def test_a_source_url_whose_name_turns_inward_before_the_fetch_is_not_fetched(
    api: Api, owner: Persona, fake_dns: DnsAnswers, django_capture_on_commit_callbacks: Any, eager_tasks: None
) -> None:
    fake_dns["rebind.test"] = [["93.184.216.34"], ["127.0.0.1"]]  # public when given, loopback when fetched

    with django_capture_on_commit_callbacks(execute=True):
        created = api.as_(owner.key).post(
            "/api/v1/media/uploads", _upload("http://rebind.test/file.png"), format="json"
        )

    assert created.status_code == 201, created.content
    upload = api.get(f"/api/v1/media/uploads/{created.json()['data']['id']}").json()["data"]
    assert upload["fetch_status"] == FetchStatus.FAILED
    # Refused before connecting: a connection attempt would have failed as CONNECTION_FAILED.
    assert upload["fetch_error"].startswith("BLOCKED_ADDRESS")


def _deliver_one_event(team: Any) -> Delivery:
    with transaction.atomic():
        event = webhook_services.emit(team=team, event_type="post.failed", data={"publish_id": "p-1"})
    delivery = Delivery.objects.get(event=event)
    webhook_services.delivery_attempt(delivery_id=str(delivery.pk))
    return Delivery.objects.get(pk=delivery.pk)


def test_a_webhook_whose_name_turns_inward_before_a_delivery_is_not_sent(
    api: Api, owner: Persona, fake_dns: DnsAnswers
) -> None:
    fake_dns["rebind.test"] = [["93.184.216.34"], ["127.0.0.1"]]

    created = api.as_(owner.key).post("/api/v1/webhooks", _webhook("https://rebind.test/hook"), format="json")
    assert created.status_code == 201, created.content
    delivery = _deliver_one_event(owner.team)

    assert (delivery.state, delivery.delivered_at) == (DeliveryState.PENDING, None)  # to be retried, not sent
    assert delivery.last_error.startswith("BLOCKED_ADDRESS")


# --- A redirect inward ---------------------------------------------------------------------------


@pytest.fixture
def outer(settings: Any) -> Iterator[Callable[..., Server]]:
    """Start "public" servers on 127.0.0.2, the one address the allow-list lets through."""
    settings.SSRF_ALLOWED_NETWORKS = ["127.0.0.2/32"]
    servers: list[Server] = []

    def start(routes: dict[str, Any], tls: ssl.SSLContext | None = None) -> Server:
        server = Server("127.0.0.2", 0, routes)
        if tls is not None:
            server.socket = tls.wrap_socket(server.socket, server_side=True)
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        servers.append(server)
        return server

    yield start
    close_idle_connections()  # so the servers' keep-alive handlers end too
    for server in servers:
        server.shutdown()
        server.server_close()


INWARD = [
    "http://127.0.0.1:{port}/secret",
    "http://localhost:{port}/secret",
    "http://169.254.169.254/latest/meta-data/",
]


@pytest.mark.parametrize("location", INWARD)
def test_a_source_url_redirecting_inward_is_not_followed(
    api: Api,
    owner: Persona,
    inner: Inner,
    outer: Callable[..., Server],
    django_capture_on_commit_callbacks: Any,
    eager_tasks: None,
    location: str,
) -> None:
    server = outer({"/file.png": redirect(location.format(port=inner.port))})

    with django_capture_on_commit_callbacks(execute=True):
        created = api.as_(owner.key).post("/api/v1/media/uploads", _upload(server.url("/file.png")), format="json")

    assert created.status_code == 201, created.content
    upload = api.get(f"/api/v1/media/uploads/{created.json()['data']['id']}").json()["data"]
    assert upload["fetch_status"] == FetchStatus.FAILED
    assert upload["fetch_error"].startswith("BLOCKED_ADDRESS")
    assert server.paths() == ["/file.png"]
    assert inner.connections() == 0


@pytest.fixture
def https_context(settings: Any, tmp_path: Path) -> ssl.SSLContext:
    """A server context for `hooks.test`, signed by a private CA the outbound client trusts."""
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca, cert, private = tmp_path / "ca.pem", tmp_path / "cert.pem", tmp_path / "key.pem"
    ca.write_bytes(_ca_certificate(ca_key).public_bytes(serialization.Encoding.PEM))
    cert.write_bytes(_server_certificate("hooks.test", key, ca_key))
    encoding, pkcs8 = serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8
    private.write_bytes(key.private_bytes(encoding, pkcs8, serialization.NoEncryption()))
    settings.OUTBOUND_CA_BUNDLE = str(ca)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, private)
    return context


@pytest.mark.parametrize("location", INWARD)
def test_a_webhook_redirecting_inward_is_not_followed(
    api: Api,
    owner: Persona,
    inner: Inner,
    outer: Callable[..., Server],
    https_context: ssl.SSLContext,
    fake_dns: DnsAnswers,
    location: str,
) -> None:
    server = outer({"/hook": redirect(location.format(port=inner.port), 307)}, tls=https_context)
    fake_dns["hooks.test"] = [["127.0.0.2"]]

    created = api.as_(owner.key).post(
        "/api/v1/webhooks", _webhook(f"https://hooks.test:{server.port}/hook"), format="json"
    )
    assert created.status_code == 201, created.content
    delivery = _deliver_one_event(owner.team)

    # A POST is never redirected: the 307 is the receiver's answer, a failed attempt.
    assert (delivery.state, delivery.delivered_at, delivery.last_error) == (DeliveryState.PENDING, None, "HTTP 307")
    assert [(seen.method, seen.path) for seen in server.seen] == [("POST", "/hook")]
    assert inner.connections() == 0

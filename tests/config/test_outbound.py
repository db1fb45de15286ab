"""config.outbound over real HTTP on loopback: refusals, pinning, redirects, byte cap, deadline,
keep-alive connection reuse.

Servers are `ThreadingHTTPServer`s on 127.0.0.1 / 127.0.0.2. Only the DNS-rebinding, failover,
DNS-failure and hanging-resolver tests replace `socket.getaddrinfo` (the stdlib resolver, not
project code) to script answers for made-up names; every other name goes to the machine's real
resolver.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from django.core.exceptions import ImproperlyConfigured

from config.outbound import (
    USER_AGENT,
    BlockedDestination,
    OutboundConnectionError,
    OutboundError,
    OutboundTimeout,
    ResponseTooLarge,
    check_url,
    close_idle_connections,
    request,
    stream,
)
from config.outbound.pool import IDLE_SECONDS, POOL

# --- Test servers -------------------------------------------------------------------------


@dataclass(frozen=True)
class Seen:
    method: str
    path: str
    headers: dict[str, str]  # lower-case names
    body: bytes
    client_port: int  # one per TCP connection


Route = Callable[["Handler"], None]


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, host: str, port: int, routes: dict[str, Route]) -> None:
        self.routes = routes
        self.seen: list[Seen] = []
        self.release = threading.Event()  # lets handlers that hold a response open finish
        self.closed = threading.Semaphore(0)  # released each time the server closes a connection
        super().__init__((host, port), Handler)

    def shutdown_request(self, request: Any) -> None:
        super().shutdown_request(request)
        self.closed.release()

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def url(self, path: str = "/", *, host: str | None = None, scheme: str = "http") -> str:
        return f"{scheme}://{host or self.server_address[0]}:{self.port}{path}"

    def paths(self) -> list[str]:
        return [seen.path for seen in self.seen]

    def connections(self) -> list[int]:
        """The connection of each request, numbered from 1 in order of first use."""
        numbers: dict[int, int] = {}
        return [numbers.setdefault(seen.client_port, len(numbers) + 1) for seen in self.seen]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Server

    def do_GET(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        headers = {name.lower(): value for name, value in self.headers.items()}
        self.server.seen.append(Seen(self.command, self.path, headers, body, self.client_address[1]))
        route = self.server.routes.get(self.path.split("?")[0], reply(b"not found", status=404))
        try:
            route(self)
        except OSError:
            self.close_connection = True  # the client hung up on purpose (size and deadline tests)

    def do_POST(self) -> None:
        self.do_GET()

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output quiet


def reply(body: bytes = b"ok", *, status: int = 200, headers: dict[str, str] | None = None) -> Route:
    def route(handler: Handler) -> None:
        handler.send_response(status)
        for name, value in (headers or {}).items():
            handler.send_header(name, value)
        handler.send_header("Content-Type", "application/octet-stream")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    return route


def redirect(location: str, status: int = 302) -> Route:
    return reply(b"", status=status, headers={"Location": location})


def chunked(parts: list[bytes]) -> Route:
    def route(handler: Handler) -> None:
        handler.send_response(200)
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        for part in parts:
            handler.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
        handler.wfile.write(b"0\r\n\r\n")

    return route


def reply_and_close(handler: Handler) -> None:
    """Answer, then close the connection without a `Connection: close` header."""
    reply()(handler)
    handler.close_connection = True


def drop(handler: Handler) -> None:
    """Read the request, then close the connection without answering."""
    handler.close_connection = True


def declared_but_never_sent(handler: Handler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Length", str(10**9))
    handler.end_headers()
    handler.server.release.wait(10)  # a client that waited for the body would hang here


def trickle(framing: str) -> Route:
    """One byte every 0.2 s for 10 s, in the headers or in a body framed as asked."""

    def route(handler: Handler) -> None:
        handler.close_connection = True
        handler.wfile.write(b"HTTP/1.1 200 OK\r\n")
        if framing == "headers":
            _drip(handler, b"X-Slow: " + b"a" * 50)
        handler.wfile.write(_trickle_headers(framing) + b"\r\n")
        _drip(handler, b"%x\r\n" % 50 + b"x" * 50 if framing == "chunked" else b"x" * 50)

    return route


def _trickle_headers(framing: str) -> bytes:
    headers = {
        "content-length": b"Content-Length: 50\r\n",
        "chunked": b"Transfer-Encoding: chunked\r\n",
        "until-close": b"Connection: close\r\n",
    }
    return headers.get(framing, b"")


def _drip(handler: Handler, data: bytes) -> None:
    for index in range(len(data)):
        handler.wfile.write(data[index : index + 1])
        time.sleep(0.2)


@pytest.fixture
def serve() -> Iterator[Callable[..., Server]]:
    servers: list[Server] = []

    def start(
        routes: dict[str, Route] | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        tls: ssl.SSLContext | None = None,
    ) -> Server:
        server = Server(host, port, routes if routes is not None else {"/": reply()})
        if tls is not None:
            server.socket = tls.wrap_socket(server.socket, server_side=True)
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        servers.append(server)
        return server

    yield start
    close_idle_connections()  # so the servers' keep-alive handlers end too
    for server in servers:
        server.release.set()
        server.shutdown()
        server.server_close()


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that completes TCP handshakes (the kernel's backlog) but never answers."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    yield listener.getsockname()[1]
    listener.close()


@pytest.fixture
def closed_port() -> int:
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    probe.bind(("127.0.0.1", 0))
    port = int(probe.getsockname()[1])
    probe.close()
    return port


@pytest.fixture
def fake_dns(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[list[str]]]:
    """Scripted answers for made-up names: each lookup takes the next answer (the last one
    repeats); an empty answer is NXDOMAIN. Other names go to the real resolver."""
    answers: dict[str, list[list[str]]] = {}
    real_getaddrinfo = socket.getaddrinfo

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host not in answers:
            return real_getaddrinfo(host, port, *args, **kwargs)
        queue = answers[host]
        addresses = queue.pop(0) if len(queue) > 1 else queue[0]
        if not addresses:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port)) for address in addresses]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return answers


@pytest.fixture
def private_off(settings: Any) -> Any:
    settings.SSRF_ALLOW_PRIVATE = False
    settings.SSRF_ALLOWED_NETWORKS = []
    return settings


@pytest.fixture
def private_on(settings: Any) -> Any:
    settings.SSRF_ALLOW_PRIVATE = True
    settings.SSRF_ALLOWED_NETWORKS = []
    return settings


@pytest.fixture
def allow_127_0_0_2(settings: Any) -> Any:
    settings.SSRF_ALLOW_PRIVATE = False
    settings.SSRF_ALLOWED_NETWORKS = ["127.0.0.2/32"]
    return settings


# --- Refusals -----------------------------------------------------------------------------

BLOCKED = [
    ("http://127.0.0.1:{port}/", "BLOCKED_ADDRESS"),
    ("http://localhost:{port}/", "BLOCKED_ADDRESS"),
    ("http://localhost/", "BLOCKED_ADDRESS"),
    ("http://[::1]/", "BLOCKED_ADDRESS"),
    ("http://[::1]:{port}/", "BLOCKED_ADDRESS"),
    ("http://10.0.0.1/", "BLOCKED_ADDRESS"),
    ("http://192.168.1.1/", "BLOCKED_ADDRESS"),
    ("http://172.16.0.1/", "BLOCKED_ADDRESS"),
    ("http://169.254.169.254/latest/meta-data", "BLOCKED_ADDRESS"),
    ("http://100.64.0.1/", "BLOCKED_ADDRESS"),
    ("http://0.0.0.0:{port}/", "BLOCKED_ADDRESS"),
    ("http://[::]:{port}/", "BLOCKED_ADDRESS"),
    ("http://[::ffff:127.0.0.1]:{port}/", "BLOCKED_ADDRESS"),
    ("http://[::ffff:a9fe:a9fe]/", "BLOCKED_ADDRESS"),
    ("http://[::127.0.0.1]/", "BLOCKED_ADDRESS"),
    ("http://[64:ff9b::7f00:1]/", "BLOCKED_ADDRESS"),
    ("http://[2002:7f00:1::]/", "BLOCKED_ADDRESS"),
    ("http://[fe80::1]/", "BLOCKED_ADDRESS"),
    ("http://[fd00:ec2::254]/", "BLOCKED_ADDRESS"),
    ("http://[fec0::1]/", "BLOCKED_ADDRESS"),
    ("http://[ff02::1]/", "BLOCKED_ADDRESS"),
    ("http://224.0.0.1/", "BLOCKED_ADDRESS"),
    ("http://240.0.0.1/", "BLOCKED_ADDRESS"),
    ("http://255.255.255.255/", "BLOCKED_ADDRESS"),
    ("http://192.0.0.9/", "BLOCKED_ADDRESS"),
    ("http://2130706433:{port}/", "INVALID_URL"),
    ("http://0x7f000001:{port}/", "INVALID_URL"),
    ("http://017700000001:{port}/", "INVALID_URL"),
    ("http://0177.0.0.1:{port}/", "INVALID_URL"),
    ("http://127.1:{port}/", "INVALID_URL"),
    ("http://127.0.0.1.:{port}/", "INVALID_URL"),
    ("http://[fe80::1%25lo]:{port}/", "INVALID_URL"),
    ("http:///etc/passwd", "INVALID_URL"),
    ("http://[::1/", "INVALID_URL"),
    ("http://127.0.0.1:99999/", "INVALID_URL"),
    ("http://127.0.0.1:{port}/a b", "INVALID_URL"),
    ("http://127.0.0.1:{port}/\r\nX-Injected: 1", "INVALID_URL"),
    ("file:///etc/passwd", "BLOCKED_SCHEME"),
    ("ftp://127.0.0.1:{port}/", "BLOCKED_SCHEME"),
    ("gopher://127.0.0.1:{port}/_GET%20/", "BLOCKED_SCHEME"),
    ("//127.0.0.1:{port}/", "BLOCKED_SCHEME"),
    ("http://user:pass@127.0.0.1:{port}/", "BLOCKED_USERINFO"),
    ("http://8.8.8.8@127.0.0.1:{port}/", "BLOCKED_USERINFO"),
    ("http://8.8.8.8:8080/", "BLOCKED_PORT"),
    ("https://1.1.1.1:8443/", "BLOCKED_PORT"),
    ("http://[2001:4860:4860::8888]:22/", "BLOCKED_PORT"),
    ("http://[::ffff:8.8.8.8]:25/", "BLOCKED_PORT"),
    ("http://[64:ff9b::808:808]:6379/", "BLOCKED_PORT"),
]


@pytest.mark.usefixtures("private_off")
@pytest.mark.parametrize(("template", "code"), BLOCKED)
def test_refused_before_any_connection(serve: Callable[..., Server], template: str, code: str) -> None:
    server = serve()
    url = template.format(port=server.port)

    for attempt in (lambda: request(url, method="GET"), lambda: check_url(url), lambda: _stream_all(url)):
        with pytest.raises(BlockedDestination) as refused:
            attempt()
        assert (refused.value.code, refused.value.sent) == (code, False)
    assert server.seen == []


def _stream_all(url: str) -> bytes:
    with stream(url, max_bytes=1024) as response:
        return b"".join(response.iter_bytes())


@pytest.mark.usefixtures("private_on")
@pytest.mark.parametrize(
    ("template", "code"),
    [
        ("http://user:pass@127.0.0.1:{port}/", "BLOCKED_USERINFO"),
        ("ftp://127.0.0.1:{port}/", "BLOCKED_SCHEME"),
        ("http://2130706433:{port}/", "INVALID_URL"),
    ],
)
def test_allow_private_still_refuses_bad_urls(serve: Callable[..., Server], template: str, code: str) -> None:
    server = serve()

    with pytest.raises(BlockedDestination) as refused:
        request(template.format(port=server.port), method="GET")

    assert refused.value.code == code
    assert server.seen == []


@pytest.mark.usefixtures("private_off")
@pytest.mark.parametrize(
    "url",
    [
        "http://8.8.8.8/",
        "https://1.1.1.1/dns-query?name=example.com",
        "https://[2001:4860:4860::8888]:443/",
        "http://[::ffff:8.8.8.8]/",
        "http://[64:ff9b::808:808]/",
    ],
)
def test_check_url_passes_public_addresses_without_connecting(url: str) -> None:
    check_url(url)


def test_check_url_passes_what_the_settings_allow(
    serve: Callable[..., Server], settings: Any, fake_dns: dict[str, list[list[str]]]
) -> None:
    server = serve()
    settings.SSRF_ALLOW_PRIVATE = True
    check_url(server.url("/hook"))
    check_url(server.url("/hook", host="localhost"))
    settings.SSRF_ALLOW_PRIVATE = False
    settings.SSRF_ALLOWED_NETWORKS = ["127.0.0.0/30"]
    fake_dns["internal.test"] = [["127.0.0.2"]]
    check_url("http://internal.test:8080/hook")
    assert server.seen == []


@pytest.mark.usefixtures("private_off")
def test_every_resolved_address_must_be_allowed(fake_dns: dict[str, list[list[str]]]) -> None:
    fake_dns["public.test"] = [["8.8.8.8", "1.1.1.1"]]
    fake_dns["mixed.test"] = [["8.8.8.8", "10.0.0.1"]]

    check_url("https://public.test/")
    with pytest.raises(BlockedDestination) as refused:
        check_url("https://mixed.test/")

    assert refused.value.code == "BLOCKED_ADDRESS"


@pytest.mark.usefixtures("allow_127_0_0_2")
def test_ports_are_free_only_for_allowed_addresses(fake_dns: dict[str, list[list[str]]]) -> None:
    fake_dns["split.test"] = [["127.0.0.2", "8.8.8.8"]]

    check_url("http://split.test/")
    with pytest.raises(BlockedDestination) as refused:
        check_url("http://split.test:8080/")

    assert refused.value.code == "BLOCKED_PORT"


@pytest.mark.usefixtures("private_off")
def test_unresolvable_host_is_a_connection_error(fake_dns: dict[str, list[list[str]]]) -> None:
    fake_dns["gone.test"] = [[]]

    with pytest.raises(OutboundConnectionError) as failed:
        request("https://gone.test/hook", body=b"{}")

    assert (failed.value.code, failed.value.sent) == ("DNS_FAILED", False)


def test_error_hierarchy() -> None:
    for error in (BlockedDestination, ResponseTooLarge, OutboundTimeout, OutboundConnectionError):
        assert issubclass(error, OutboundError)
    assert BlockedDestination("x").code == "BLOCKED_ADDRESS"
    assert OutboundTimeout("x", sent=True).sent is True


# --- Allowed destinations -----------------------------------------------------------------


@pytest.mark.usefixtures("private_on")
def test_get_streams_the_body(serve: Callable[..., Server]) -> None:
    body = bytes(range(256)) * 1000
    server = serve({"/file.bin": reply(body)})
    url = server.url("/file.bin?v=1")

    with stream(url, max_bytes=len(body)) as response:
        chunks = list(response.iter_bytes(chunk_size=16384))

    assert (response.status_code, response.url) == (200, url)
    assert response.headers["CONTENT-LENGTH"] == str(len(body))
    assert b"".join(chunks) == body
    assert len(chunks) > 1
    seen = server.seen[0]
    assert (seen.method, seen.path) == ("GET", "/file.bin?v=1")
    assert seen.headers["user-agent"] == USER_AGENT
    assert seen.headers["host"] == f"127.0.0.1:{server.port}"


@pytest.mark.usefixtures("private_on")
def test_post_sends_body_and_headers_exactly(serve: Callable[..., Server]) -> None:
    server = serve({"/hook": reply(b'{"ok":true}', status=202, headers={"X-Reply": "yes"})})
    body = b'{"event":"post.published","id":"p_1"}'
    headers = {"Content-Type": "application/json", "X-Signature": "sha256=abc123", "Host": "evil.example"}

    response = request(server.url("/hook"), body=body, headers=headers)

    assert (response.status_code, response.content, response.url) == (202, b'{"ok":true}', server.url("/hook"))
    assert response.headers["x-reply"] == "yes"
    seen = server.seen[0]
    assert (seen.method, seen.body) == ("POST", body)
    assert seen.headers["content-type"] == "application/json"
    assert seen.headers["x-signature"] == "sha256=abc123"
    assert seen.headers["content-length"] == str(len(body))
    assert seen.headers["host"] == f"127.0.0.1:{server.port}"  # a caller cannot pick the Host
    assert seen.headers["user-agent"] == USER_AGENT


@pytest.mark.usefixtures("private_on")
def test_caller_may_set_the_user_agent(serve: Callable[..., Server]) -> None:
    server = serve()

    request(server.url(), method="GET", headers={"user-agent": "Custom/2"})

    assert server.seen[0].headers["user-agent"] == "Custom/2"


@pytest.mark.usefixtures("private_on")
@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_get_follows_a_redirect_and_reports_the_final_url(serve: Callable[..., Server], status: int) -> None:
    server = serve({"/media/start": redirect("next?x=1", status), "/media/next": reply(b"done")})

    with stream(server.url("/media/start"), max_bytes=100) as response:
        content = b"".join(response.iter_bytes())

    assert (response.status_code, content, response.url) == (200, b"done", server.url("/media/next?x=1"))
    assert server.paths() == ["/media/start", "/media/next?x=1"]


@pytest.mark.usefixtures("private_on")
def test_post_is_never_redirected(serve: Callable[..., Server]) -> None:
    server = serve({"/hook": redirect("/elsewhere", 307), "/elsewhere": reply()})

    response = request(server.url("/hook"), body=b"{}", max_redirects=3)

    assert (response.status_code, response.headers["location"]) == (307, "/elsewhere")
    assert server.paths() == ["/hook"]


@pytest.mark.usefixtures("private_on")
def test_credentials_are_dropped_when_a_redirect_leaves_the_origin(serve: Callable[..., Server]) -> None:
    other = serve({"/": reply()}, host="127.0.0.2")
    server = serve({"/same": redirect("/cross"), "/cross": redirect(other.url("/"))})
    headers = {"Authorization": "Bearer secret", "X-Trace": "t1"}

    request(server.url("/same"), method="GET", headers=headers, max_redirects=2)

    assert server.seen[1].headers["authorization"] == "Bearer secret"
    assert "authorization" not in other.seen[0].headers
    assert other.seen[0].headers["x-trace"] == "t1"


# --- Operator allow-list and redirect hops ------------------------------------------------


@pytest.mark.usefixtures("allow_127_0_0_2")
def test_allow_listed_network_is_reachable_on_any_port(serve: Callable[..., Server]) -> None:
    server = serve({"/": reply(b"internal")}, host="127.0.0.2")

    response = request(server.url(), method="GET")

    assert (response.status_code, response.content) == (200, b"internal")


def _allow_prefix(settings: Any, server: Server, path: str = "/inbox/") -> None:
    settings.SSRF_ALLOW_PRIVATE = False
    settings.SSRF_ALLOWED_NETWORKS = []
    settings.SSRF_ALLOWED_URL_PREFIXES = [server.url(path)]


def test_an_allowed_url_prefix_opens_that_path_of_that_origin_only(serve: Callable[..., Server], settings: Any) -> None:
    server = serve({"/inbox/dev": reply(b"kept"), "/admin": reply(b"secret")})
    _allow_prefix(settings, server)

    response = request(server.url("/inbox/dev"), body=b"{}")

    assert (response.status_code, response.content) == (200, b"kept")
    for outside in ("/admin", "/inbox/../admin", "/inbox/%2e%2e/admin", "/inboxes"):
        with pytest.raises(BlockedDestination) as refused:
            request(server.url(outside), method="GET")
        assert refused.value.code == "BLOCKED_ADDRESS"
    assert server.paths() == ["/inbox/dev"]


def test_an_allowed_url_prefix_does_not_open_another_port_or_a_redirect_out_of_it(
    serve: Callable[..., Server], settings: Any
) -> None:
    other = serve({"/inbox/dev": reply()})
    server = serve({"/inbox/away": redirect(server_url := other.url("/inbox/dev"))})
    _allow_prefix(settings, server)

    with pytest.raises(BlockedDestination):
        request(server_url, method="GET")
    with pytest.raises(BlockedDestination):
        request(server.url("/inbox/away"), method="GET", max_redirects=2)
    assert other.seen == []


def test_a_prefix_that_is_not_a_path_ending_in_a_slash_is_a_configuration_error(settings: Any) -> None:
    settings.SSRF_ALLOWED_URL_PREFIXES = ["http://127.0.0.1:8100/_sandbox/inbox"]

    with pytest.raises(ImproperlyConfigured):
        request("http://127.0.0.1:8100/_sandbox/inbox/dev", method="GET")


@pytest.mark.usefixtures("allow_127_0_0_2")
@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_redirect_out_of_the_allow_list_is_refused(serve: Callable[..., Server], host: str) -> None:
    target = serve()
    server = serve({"/": redirect(target.url(host=host))}, host="127.0.0.2")

    with pytest.raises(BlockedDestination) as refused:
        request(server.url(), method="GET", max_redirects=3)

    assert (refused.value.code, refused.value.sent) == ("BLOCKED_ADDRESS", True)
    assert server.paths() == ["/"]
    assert target.seen == []


@pytest.mark.usefixtures("allow_127_0_0_2")
@pytest.mark.parametrize("location", ["file:///etc/passwd", "http://user:pw@127.0.0.2/", "http://2130706433/"])
def test_every_rule_applies_to_redirect_hops(serve: Callable[..., Server], location: str) -> None:
    server = serve({"/": redirect(location)}, host="127.0.0.2")

    with pytest.raises(BlockedDestination):
        request(server.url(), method="GET", max_redirects=3)


@pytest.mark.usefixtures("allow_127_0_0_2")
def test_redirects_beyond_max_redirects_are_refused(serve: Callable[..., Server]) -> None:
    server = serve(
        {"/r3": redirect("/r2"), "/r2": redirect("/r1"), "/r1": redirect("/r0"), "/r0": reply(b"end")}, host="127.0.0.2"
    )

    with pytest.raises(BlockedDestination) as refused:
        request(server.url("/r3"), method="GET", max_redirects=2)
    assert (refused.value.code, refused.value.sent) == ("TOO_MANY_REDIRECTS", True)
    assert server.paths() == ["/r3", "/r2", "/r1"]

    assert request(server.url("/r3"), method="GET", max_redirects=3).content == b"end"


@pytest.mark.usefixtures("allow_127_0_0_2")
def test_max_redirects_zero_returns_the_redirect(serve: Callable[..., Server]) -> None:
    server = serve({"/": redirect("http://127.0.0.1/")}, host="127.0.0.2")

    response = request(server.url(), method="GET", max_redirects=0)

    assert (response.status_code, response.headers["Location"], response.content) == (302, "http://127.0.0.1/", b"")


# --- Pinning ------------------------------------------------------------------------------


@pytest.mark.usefixtures("private_on")
def test_connects_to_the_checked_address_and_keeps_the_host_name(serve: Callable[..., Server]) -> None:
    server = serve()  # bound on 127.0.0.1 only
    url = server.url(host="localhost")

    with stream(url, max_bytes=10) as response:
        assert b"".join(response.iter_bytes()) == b"ok"

    assert server.seen[0].headers["host"] == f"localhost:{server.port}"


@pytest.mark.usefixtures("allow_127_0_0_2")
def test_dns_rebinding_after_the_check_cannot_redirect_the_connection(
    serve: Callable[..., Server], fake_dns: dict[str, list[list[str]]]
) -> None:
    checked = serve({"/": reply(b"checked")}, host="127.0.0.2")
    rebound = serve({"/": reply(b"rebound")}, host="127.0.0.1", port=checked.port)
    # First lookup passes the check; any later lookup would point at a forbidden address.
    fake_dns["rebind.test"] = [["127.0.0.2"], ["127.0.0.1"]]

    response = request(f"http://rebind.test:{checked.port}/", method="GET")

    assert response.content == b"checked"
    assert rebound.seen == []
    assert checked.seen[0].headers["host"] == f"rebind.test:{checked.port}"


@pytest.mark.usefixtures("private_on")
def test_tries_the_next_checked_address_when_one_refuses(
    serve: Callable[..., Server], fake_dns: dict[str, list[list[str]]]
) -> None:
    server = serve()
    fake_dns["twice.test"] = [["127.0.0.3", "127.0.0.1"]]  # nothing listens on 127.0.0.3

    assert request(f"http://twice.test:{server.port}/", method="GET").content == b"ok"


# --- TLS ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class TlsFiles:
    ca: Path
    cert: Path
    key: Path


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _builder(subject: str, issuer: str, public_key: Any) -> x509.CertificateBuilder:
    now = dt.datetime.now(dt.UTC)
    return (
        x509.CertificateBuilder()
        .subject_name(_name(subject))
        .issuer_name(_name(issuer))
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
    )


def _ca_certificate(ca_key: ec.EllipticCurvePrivateKey) -> x509.Certificate:
    usage = x509.KeyUsage(False, False, False, False, False, True, True, False, False)  # certificate + CRL signing
    return (
        _builder("outbound test CA", "outbound test CA", ca_key.public_key())
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(usage, critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )


def _server_certificate(name: str, key: ec.EllipticCurvePrivateKey, ca_key: ec.EllipticCurvePrivateKey) -> bytes:
    certificate = (
        _builder(name, "outbound test CA", key.public_key())
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    return certificate.public_bytes(serialization.Encoding.PEM)


@pytest.fixture
def tls_files(tmp_path: Path) -> TlsFiles:
    """A private CA and a certificate for `localhost` only (no IP address in it)."""
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    files = TlsFiles(tmp_path / "ca.pem", tmp_path / "cert.pem", tmp_path / "key.pem")
    files.ca.write_bytes(_ca_certificate(ca_key).public_bytes(serialization.Encoding.PEM))
    files.cert.write_bytes(_server_certificate("localhost", key, ca_key))
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    files.key.write_bytes(private)
    return files


@pytest.fixture
def tls_server(serve: Callable[..., Server], tls_files: TlsFiles, private_on: Any) -> tuple[Server, list[str | None]]:
    private_on.OUTBOUND_CA_BUNDLE = str(tls_files.ca)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tls_files.cert, tls_files.key)
    server_names: list[str | None] = []
    context.sni_callback = lambda _sock, name, _context: server_names.append(name)
    return serve(tls=context), server_names


def test_https_is_pinned_but_verified_against_the_host_name(tls_server: tuple[Server, list[str | None]]) -> None:
    server, server_names = tls_server

    response = request(server.url("/", host="localhost", scheme="https"), method="GET")

    assert (response.status_code, response.content) == (200, b"ok")
    assert server_names == ["localhost"]
    assert server.seen[0].headers["host"] == f"localhost:{server.port}"


def test_https_certificate_must_match_the_url_host(tls_server: tuple[Server, list[str | None]]) -> None:
    server, _server_names = tls_server

    with pytest.raises(OutboundConnectionError) as failed:
        request(server.url("/", scheme="https"), method="GET")  # https://127.0.0.1: not in the certificate

    assert (failed.value.code, failed.value.sent) == ("TLS_FAILED", False)
    assert server.seen == []


# --- Byte cap -----------------------------------------------------------------------------


@pytest.mark.usefixtures("private_on")
def test_declared_length_over_the_cap_is_refused_before_reading(serve: Callable[..., Server]) -> None:
    server = serve({"/": declared_but_never_sent})

    started = time.monotonic()
    with pytest.raises(ResponseTooLarge) as refused, stream(server.url(), max_bytes=10_000, read_timeout=5):
        pytest.fail("the body must not be offered")

    assert time.monotonic() - started < 2
    assert (refused.value.code, refused.value.sent) == ("TOO_LARGE", True)


@pytest.mark.usefixtures("private_on")
def test_chunked_body_over_the_cap_aborts_while_streaming(serve: Callable[..., Server]) -> None:
    server = serve({"/": chunked([b"x" * 1000] * 10)})
    received: list[bytes] = []

    with pytest.raises(ResponseTooLarge), stream(server.url(), max_bytes=4500) as response:
        received.extend(response.iter_bytes(chunk_size=1000))

    assert sum(map(len, received)) <= 4500
    with pytest.raises(ResponseTooLarge):
        request(server.url(), method="GET", max_bytes=9999)


@pytest.mark.usefixtures("private_on")
@pytest.mark.parametrize("route", [reply(b"y" * 5000), chunked([b"y" * 1000] * 5)], ids=["length", "chunked"])
def test_body_exactly_at_the_cap_passes(serve: Callable[..., Server], route: Route) -> None:
    server = serve({"/": route})

    assert request(server.url(), method="GET", max_bytes=5000).content == b"y" * 5000


# --- Time limits and connection failures --------------------------------------------------


@pytest.mark.usefixtures("private_on")
@pytest.mark.parametrize("framing", ["content-length", "chunked", "until-close", "headers"])
def test_trickling_server_is_cut_off_at_the_deadline(serve: Callable[..., Server], framing: str) -> None:
    server = serve({"/": trickle(framing)})

    started = time.monotonic()
    with pytest.raises(OutboundTimeout) as timed_out:
        request(server.url(), method="GET", read_timeout=5, deadline_seconds=1)

    assert time.monotonic() - started < 3
    assert (timed_out.value.code, timed_out.value.sent) == ("TIMEOUT", True)


SLOW = {"min_bytes_per_second": 1000, "min_rate_after_seconds": 0.5}


@pytest.mark.usefixtures("private_on")
@pytest.mark.parametrize("framing", ["content-length", "chunked", "until-close", "headers"])
def test_a_server_below_the_minimum_throughput_is_cut_off_as_too_slow(
    serve: Callable[..., Server], framing: str
) -> None:
    server = serve({"/": trickle(framing)})  # 5 bytes a second, where 1000 are asked for

    with pytest.raises(OutboundTimeout) as too_slow:
        request(server.url(), method="GET", read_timeout=60, deadline_seconds=60, **SLOW)

    assert (too_slow.value.code, too_slow.value.sent) == ("TOO_SLOW", True)


def _read_into(received: bytearray, url: str, **options: Any) -> None:
    with stream(url, **options) as response:
        for chunk in response.iter_bytes():
            received += chunk


def sends_then_stalls(sent: bytes) -> Route:
    def route(handler: Handler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Length", str(10**9))
        handler.end_headers()
        handler.wfile.write(sent)
        handler.wfile.flush()
        handler.server.release.wait(30)

    return route


@pytest.mark.usefixtures("private_on")
@pytest.mark.parametrize("sent", [b"", b"s" * 3000], ids=["nothing", "a first part"])
def test_a_server_that_stops_sending_is_cut_off_once_it_falls_behind(serve: Callable[..., Server], sent: bytes) -> None:
    """A read blocked on a silent socket is woken too; bytes that came earlier earn their time."""
    server = serve({"/": sends_then_stalls(sent)})
    received = bytearray()

    with pytest.raises(OutboundTimeout) as too_slow:
        _read_into(received, server.url(), max_bytes=10**10, read_timeout=60, deadline_seconds=60, **SLOW)

    assert too_slow.value.code == "TOO_SLOW"
    assert received == sent


def steady(pieces: int, piece: bytes, interval: float) -> Route:
    def route(handler: Handler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Length", str(pieces * len(piece)))
        handler.end_headers()
        for _ in range(pieces):
            handler.wfile.write(piece)
            handler.wfile.flush()
            time.sleep(interval)

    return route


@pytest.mark.usefixtures("private_on")
@pytest.mark.parametrize(
    ("route", "size"),
    [(reply(b"f" * 300_000), 300_000), (steady(20, b"s" * 500, 0.05), 10_000)],
    ids=["fast", "steady"],
)
def test_a_server_above_the_minimum_throughput_is_read_to_the_end(
    serve: Callable[..., Server], route: Route, size: int
) -> None:
    server = serve({"/": route})  # "steady": 10 kB a second, where 1000 bytes are asked for

    response = request(server.url(), method="GET", max_bytes=10**6, deadline_seconds=60, **SLOW)

    assert len(response.content) == size


@pytest.fixture
def hanging_resolver(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """`hang.test` is looked up for 30 s, then fails; other names go to the real resolver."""
    answer = threading.Event()
    real_getaddrinfo = socket.getaddrinfo

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host != "hang.test":
            return real_getaddrinfo(host, port, *args, **kwargs)
        answer.wait(30)
        raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    yield
    answer.set()


@pytest.mark.usefixtures("private_on", "hanging_resolver")
@pytest.mark.parametrize(
    "call",
    [
        lambda: request("http://hang.test/hook", body=b"{}", deadline_seconds=1),
        lambda: request(
            "http://hang.test/", method="GET", deadline_seconds=60, min_rate_after_seconds=1, min_bytes_per_second=1
        ),
        lambda: check_url("http://hang.test/hook", deadline_seconds=1),
    ],
    ids=["request", "minimum-throughput", "check_url"],
)
def test_a_resolver_that_hangs_is_given_up_on_at_the_deadline(call: Callable[[], object]) -> None:
    started = time.monotonic()
    with pytest.raises(OutboundTimeout) as timed_out:
        call()

    assert time.monotonic() - started < 10  # the resolver would answer after 30 s
    assert (timed_out.value.code, timed_out.value.sent) == ("TIMEOUT", False)


@pytest.mark.usefixtures("private_on")
def test_server_that_never_answers_hits_the_read_timeout(silent_port: int) -> None:
    started = time.monotonic()
    with pytest.raises(OutboundTimeout) as timed_out:
        request(f"http://127.0.0.1:{silent_port}/hook", body=b"{}", read_timeout=0.5, deadline_seconds=30)

    assert time.monotonic() - started < 3
    assert (timed_out.value.code, timed_out.value.sent) == ("TIMEOUT", True)


@pytest.mark.usefixtures("private_on")
def test_deadline_also_cuts_a_stalled_tls_handshake(silent_port: int) -> None:
    started = time.monotonic()
    with pytest.raises(OutboundTimeout) as timed_out:
        request(f"https://127.0.0.1:{silent_port}/", connect_timeout=5, read_timeout=5, deadline_seconds=1)

    assert time.monotonic() - started < 3
    assert timed_out.value.sent is False  # the request itself was never written


@pytest.mark.usefixtures("private_on")
def test_connection_refused_was_not_sent(closed_port: int) -> None:
    with pytest.raises(OutboundConnectionError) as failed:
        request(f"http://127.0.0.1:{closed_port}/hook", body=b"{}")

    assert (failed.value.code, failed.value.sent) == ("CONNECTION_FAILED", False)


# --- Keep-alive ---------------------------------------------------------------------------


@pytest.fixture
def allow_127_0_0_2_and_3(settings: Any) -> Any:
    settings.SSRF_ALLOW_PRIVATE = False
    settings.SSRF_ALLOWED_NETWORKS = ["127.0.0.2/32", "127.0.0.3/32"]
    return settings


@pytest.mark.usefixtures("private_on")
def test_keep_alive_carries_many_requests_on_one_connection(serve: Callable[..., Server]) -> None:
    server = serve()

    answers = [request(server.url(), body=b"{}", keep_alive=True).content for _ in range(3)]

    assert answers == [b"ok"] * 3
    assert server.connections() == [1, 1, 1]
    assert "connection" not in server.seen[0].headers


@pytest.mark.usefixtures("private_on")
def test_without_keep_alive_every_request_has_its_own_connection(serve: Callable[..., Server]) -> None:
    server = serve()

    for _ in range(2):
        request(server.url(), body=b"{}")

    assert server.connections() == [1, 2]
    assert server.seen[0].headers["connection"] == "close"


@pytest.mark.usefixtures("private_on")
def test_a_connection_the_server_said_it_would_close_is_not_reused(serve: Callable[..., Server]) -> None:
    server = serve({"/": reply(headers={"Connection": "close"})})

    for _ in range(2):
        assert request(server.url(), body=b"{}", keep_alive=True).content == b"ok"

    assert server.connections() == [1, 2]


@pytest.mark.usefixtures("allow_127_0_0_2")
def test_a_changed_dns_answer_is_checked_before_a_pooled_connection_is_used(
    serve: Callable[..., Server], fake_dns: dict[str, list[list[str]]]
) -> None:
    server = serve(host="127.0.0.2")
    fake_dns["pool.test"] = [["127.0.0.2"], ["127.0.0.1"]]  # then a forbidden address
    url = f"http://pool.test:{server.port}/"
    assert request(url, body=b"{}", keep_alive=True).content == b"ok"  # leaves a pooled connection

    with pytest.raises(BlockedDestination) as refused:
        request(url, body=b"{}", keep_alive=True)

    assert refused.value.sent is False
    assert len(server.seen) == 1


@pytest.mark.usefixtures("allow_127_0_0_2_and_3")
def test_a_pooled_connection_is_never_used_for_another_address(
    serve: Callable[..., Server], fake_dns: dict[str, list[list[str]]]
) -> None:
    before = serve({"/": reply(b"before")}, host="127.0.0.2")
    after = serve({"/": reply(b"after")}, host="127.0.0.3", port=before.port)
    fake_dns["moved.test"] = [["127.0.0.2"], ["127.0.0.3"]]  # both allowed
    url = f"http://moved.test:{before.port}/"

    answers = [request(url, body=b"{}", keep_alive=True).content for _ in range(2)]

    assert answers == [b"before", b"after"]
    assert (len(before.seen), len(after.seen)) == (1, 1)


def test_a_pooled_tls_connection_serves_only_the_name_it_was_verified_for(
    tls_server: tuple[Server, list[str | None]],
) -> None:
    server, server_names = tls_server
    named = server.url("/", host="localhost", scheme="https")

    for _ in range(2):
        assert request(named, method="GET", keep_alive=True).content == b"ok"
    with pytest.raises(OutboundConnectionError) as failed:
        request(server.url("/", scheme="https"), method="GET", keep_alive=True)  # same address, other name

    # One handshake for both requests to localhost, and a new one (no SNI for an IP address)
    # whose certificate check fails for the other name.
    assert server_names == ["localhost", None]
    assert server.connections() == [1, 1]
    assert failed.value.code == "TLS_FAILED"


@pytest.mark.usefixtures("private_on")
def test_an_idle_connection_the_server_closed_is_replaced_before_sending(serve: Callable[..., Server]) -> None:
    server = serve({"/": reply_and_close})
    assert request(server.url(), method="GET", keep_alive=True).content == b"ok"
    assert server.closed.acquire(timeout=5)

    # A GET goes out in one write, which a closed connection would still accept.
    assert request(server.url(), method="GET", keep_alive=True).content == b"ok"

    assert server.connections() == [1, 2]


@pytest.mark.usefixtures("private_on")
def test_a_request_the_server_read_but_never_answered_is_not_sent_again(serve: Callable[..., Server]) -> None:
    server = serve({"/": reply(), "/drop": drop})
    request(server.url(), body=b"{}", keep_alive=True)

    with pytest.raises(OutboundConnectionError) as failed:
        request(server.url("/drop"), body=b"{}", keep_alive=True)

    assert (failed.value.code, failed.value.sent) == ("CONNECTION_FAILED", True)
    assert server.paths() == ["/", "/drop"]
    assert server.connections() == [1, 1]


@pytest.mark.usefixtures("private_on")
def test_a_connection_idle_too_long_is_not_reused(serve: Callable[..., Server]) -> None:
    server = serve()
    request(server.url(), body=b"{}", keep_alive=True)
    time.sleep(IDLE_SECONDS + 0.1)

    request(server.url(), body=b"{}", keep_alive=True)

    assert server.connections() == [1, 2]


@pytest.mark.usefixtures("private_on")
def test_an_unread_body_is_drained_when_small_else_its_connection_is_closed(serve: Callable[..., Server]) -> None:
    server = serve({"/small": reply(b"s" * 100), "/large": reply(b"l" * 200_000)})

    for path in ("/small", "/small", "/large", "/small"):
        with stream(server.url(path), method="GET", max_bytes=10**6, keep_alive=True) as response:
            assert response.status_code == 200  # the body is left unread

    assert server.connections() == [1, 1, 1, 2]


@pytest.mark.usefixtures("private_on")
def test_a_connection_cut_by_the_deadline_is_not_reused(serve: Callable[..., Server]) -> None:
    server = serve({"/": reply(), "/slow": trickle("content-length")})
    with pytest.raises(OutboundTimeout):
        request(server.url("/slow"), method="GET", deadline_seconds=0.5, keep_alive=True)

    assert request(server.url(), method="GET", keep_alive=True).content == b"ok"

    assert server.connections() == [1, 2]


def _in_a_forked_child(check: Callable[[], bool]) -> bool:
    """Run `check` in a forked child process (as Celery's prefork pool does) and return its answer."""
    pid = os.fork()
    if pid == 0:  # the child: answer through the exit code, skipping pytest's clean-up
        try:
            os._exit(0 if check() else 1)
        finally:
            os._exit(2)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


@pytest.mark.usefixtures("private_on")
def test_a_forked_child_starts_with_no_pooled_connection_and_a_working_deadline(
    serve: Callable[..., Server],
) -> None:
    server = serve({"/": reply(), "/slow": trickle("content-length")})
    request(server.url(), body=b"{}", keep_alive=True)  # the parent has a pooled connection and a watchdog

    def child() -> bool:
        inherited = POOL.idle_count()
        started = time.monotonic()
        with contextlib.suppress(OutboundTimeout):
            request(server.url("/slow"), method="GET", deadline_seconds=0.5, keep_alive=True)
        return inherited == 0 and time.monotonic() - started < 3

    assert _in_a_forked_child(child)
    request(server.url(), body=b"{}", keep_alive=True)  # the parent still has its own
    assert server.paths() == ["/", "/slow", "/"]
    assert server.connections() == [1, 2, 1]

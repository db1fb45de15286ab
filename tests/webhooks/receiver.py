"""A real HTTP/1.1 receiver on 127.0.0.1 that records what each request carried (method, path, the
raw body bytes, the headers, the TCP connection) and answers from a configurable sequence of
answers. Connections are kept alive, as real receivers do, unless an answer closes them."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Answer:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    delay: float = 0.0  # seconds to wait before answering (cut short when the receiver stops)
    before: Callable[[], None] | None = None  # run in the server thread before answering
    close: bool = False  # close the connection after answering, without saying so in a header
    drop: bool = False  # close the connection after reading the request, without answering


@dataclass(frozen=True)
class Received:
    method: str
    path: str
    body: bytes  # exactly the bytes on the wire
    headers: dict[str, str]  # names lower-cased
    connection: int  # the TCP connection it came on, numbered from 1 in order of arrival


class _Server(ThreadingHTTPServer):
    block_on_close = False
    receiver: Receiver

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a client that gave up (timeout test) makes the write fail: expected, not noise

    def shutdown_request(self, request: Any) -> None:
        super().shutdown_request(request)
        self.receiver._closed()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    receiver: Receiver
    number: int

    def setup(self) -> None:
        super().setup()
        self.number = self.receiver._connected()

    def do_POST(self) -> None:
        self._answer()

    def do_GET(self) -> None:
        self._answer()

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        headers = {name.lower(): value for name, value in self.headers.items()}
        # Recorded before answering, so it is visible once the sender has its response.
        answer = self.receiver._record(Received(self.command, self.path, body, headers, self.number))
        if answer.before is not None:
            answer.before()
        if answer.delay:
            self.receiver._stopping.wait(answer.delay)
        self.close_connection = answer.close or answer.drop
        if answer.drop:
            return
        self.send_response(answer.status)
        for name, value in {"Content-Length": str(len(answer.body)), **answer.headers}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(answer.body)

    def log_message(self, *args: object) -> None:
        pass


class Receiver:
    """Bound to a free port at once; `start()` makes it listen. Until then, connections to
    its port are refused, which is a receiver that is down."""

    def __init__(self) -> None:
        self.requests: list[Received] = []
        self.connections = 0  # TCP connections accepted so far
        self.closed = threading.Semaphore(0)  # released each time the receiver closes one
        self.default = Answer()
        self._answers: deque[Answer] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        handler = type("Handler", (_Handler,), {"receiver": self})
        self._server = _Server(("127.0.0.1", 0), handler, bind_and_activate=False)
        self._server.receiver = self
        self._server.server_bind()
        self.port: int = self._server.server_port
        self.base = f"http://127.0.0.1:{self.port}"
        self.url = f"{self.base}/hook"

    def start(self) -> Receiver:
        self._server.server_activate()
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join(timeout=5)
        self._server.server_close()

    def answer(self, *answers: int | Answer) -> None:
        """Queue the next answers; once they are used up, `default` answers."""
        with self._lock:
            self._answers.extend(Answer(a) if isinstance(a, int) else a for a in answers)

    def always(self, answer: int | Answer) -> None:
        with self._lock:
            self._answers.clear()
            self.default = Answer(answer) if isinstance(answer, int) else answer

    @property
    def posts(self) -> list[Received]:
        with self._lock:
            return [r for r in self.requests if r.method == "POST"]

    def wait_closed(self, timeout: float = 5.0) -> bool:
        """Wait until the receiver has closed one more connection."""
        return self.closed.acquire(timeout=timeout)

    def _connected(self) -> int:
        with self._lock:
            self.connections += 1
            return self.connections

    def _closed(self) -> None:
        self.closed.release()

    def _record(self, received: Received) -> Answer:
        with self._lock:
            self.requests.append(received)
            return self._answers.popleft() if self._answers else self.default

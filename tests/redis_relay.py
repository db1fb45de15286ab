"""A TCP relay in front of Redis for tests that count round trips: how many connections a
client made, and, with `hold` set, how long it waited on the server's answers."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit


class Relay:
    """A TCP relay in front of Redis that counts the connections made through it and, once
    `hold` is set, holds every answer of the server for HOLD seconds: a client that waits for
    each command takes that long per command, one that sends everything at once about once."""

    HOLD = 0.2

    def __init__(self, host: str, port: int) -> None:
        self.upstream = (host, port)
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.server.getsockname()[1])
        self.connections = 0
        self.hold = False
        self._sockets: list[socket.socket] = [self.server]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.upstream)
            self.connections += 1
            self._sockets += [client, upstream]
            threading.Thread(target=self._pump, args=(client, upstream, False), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, True), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, answers: bool) -> None:
        try:
            while data := source.recv(1 << 20):
                if answers and self.hold:
                    time.sleep(self.HOLD)
                sink.sendall(data)
        except OSError:
            pass

    def close(self) -> None:
        for sock in self._sockets:
            sock.close()


@contextmanager
def broker_relayed(app: Any) -> Iterator[Relay]:
    """The app's broker reached through a Relay while the block runs (its own connection pool:
    kept per broker URL)."""
    conf = app.conf
    real = urlsplit(conf.broker_url)
    relay = Relay(real.hostname or "127.0.0.1", real.port or 6379)
    saved = conf.broker_url, conf.broker_write_url
    conf.broker_url = conf.broker_write_url = urlunsplit(real._replace(netloc=f"127.0.0.1:{relay.port}"))
    try:
        yield relay
    finally:
        conf.broker_url, conf.broker_write_url = saved
        relay.close()

"""The broker of development without Redis (config.folder_transport): a consumer never finds a
message file that is not yet whole, so a worker cannot read an empty message and stop."""

from __future__ import annotations

import os
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest
from kombu import Connection, Exchange, Queue

from config.celery import app

TRANSPORT = "config.folder_transport:Transport"


@pytest.fixture
def folder(tmp_path: Path) -> dict[str, Any]:
    (tmp_path / "control").mkdir()
    (tmp_path / "data").mkdir()
    data = str(tmp_path / "data")
    return {"data_folder_in": data, "data_folder_out": data, "control_folder": str(tmp_path / "control")}


def _connection(options: dict[str, Any]) -> Connection:
    return Connection("filesystem://localhost/", transport=TRANSPORT, transport_options=options)


@pytest.fixture
def name() -> str:
    # kombu remembers bindings per transport class, across connections and folders: a name of
    # the test's own keeps them to the test's folder.
    return f"work-{uuid.uuid4().hex}"


def _queue(name: str) -> Queue:
    return Queue(name, Exchange(name), name)  # a new one per connection: kombu binds it


def test_the_workers_use_it_without_redis(settings: Any) -> None:
    if settings.REDIS_URL:
        pytest.skip("with Redis the workers use config.broker_transport")
    assert app.conf.broker_transport == TRANSPORT


def test_a_message_appears_under_its_name_only_once_written(
    folder: dict[str, Any], name: str, monkeypatch: Any
) -> None:
    seen_at_rename: list[list[str]] = []
    replace = os.replace

    def watching(source: str, target: str) -> None:
        seen_at_rename.append(sorted(os.listdir(folder["data_folder_out"])))
        assert Path(source).read_bytes()  # whole before it is renamed
        replace(source, target)

    monkeypatch.setattr(os, "replace", watching)
    with _connection(folder) as conn:
        queue = _queue(name)
        conn.Producer().publish({"n": 1}, exchange=queue.exchange, routing_key=name, declare=[queue])

    ((listed,),) = seen_at_rename
    assert listed.endswith(f".{name}.msg.part")  # no consumer takes this name


def test_messages_written_while_a_consumer_reads_all_arrive_whole(folder: dict[str, Any], name: str) -> None:
    sent = 200
    with _connection(folder) as conn:
        _queue(name).bind(conn.default_channel).declare()

    def produce() -> None:
        with _connection(folder) as conn:
            producer, exchange = conn.Producer(), _queue(name).exchange
            for n in range(sent):
                producer.publish({"n": n}, exchange=exchange, routing_key=name)

    writer = threading.Thread(target=produce)
    writer.start()
    received: list[int] = []
    with _connection(folder) as conn:
        channel = conn.default_channel
        while len(received) < sent and (writer.is_alive() or os.listdir(folder["data_folder_in"])):
            message = channel.basic_get(name, no_ack=True)
            if message is not None:
                received.append(message.payload["n"])
    writer.join()

    assert sorted(received) == list(range(sent))

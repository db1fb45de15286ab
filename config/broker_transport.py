"""kombu's Redis transport, with one repair: a worker that loses Redis keeps running.

When the broker connection drops, Celery's consumer collects the connection (which detaches the
transport from its client) and then closes it; closing the channel puts back the messages the
worker had received but not acknowledged (the `deliver` task acknowledges late), and to do so
kombu builds a Redis client from the detached transport. That raises AttributeError, which
Celery does not count as a connection error, so the worker stops with "Unrecoverable error"
instead of reconnecting (kombu 5.7, Celery 5.7; seen with Redis restarted under load).

The same detached channel then fails the acknowledgement of a task that ran through the outage
and finished after the worker reconnected, and that too stops the worker.

Here the put-back, the acknowledgement and the rejection are skipped on a detached channel:
they could not reach Redis anyway.
The messages stay in Redis's unacked set (a Redis that kept its data gives them back after the
visibility timeout), and the database holds the truth regardless: the relay hands over again a
job no worker claimed, and the reconciler settles one whose worker was lost (DESIGN §4.4).
"""

from __future__ import annotations

import logging
from typing import Any

from kombu.transport import redis

logger = logging.getLogger(__name__)


class QoS(redis.QoS):
    @property
    def _held(self) -> Any:
        """The delivered, unacknowledged messages by delivery tag (kombu types it Optional)."""
        return self._delivered if self._delivered is not None else {}

    def _detached(self) -> bool:
        """Whether this channel's connection was closed after it was lost: a Redis client can
        no longer be built from it."""
        transport = self.channel.connection
        return transport is None or transport.client is None

    def restore_unacked(self, client: Any = None) -> Any:
        if client is None and self._detached():
            logger.warning(
                "Broker connection lost: %d unacknowledged message(s) left to Redis's visibility timeout",
                len(self._held),
            )
            self._held.clear()
            return None
        return super().restore_unacked(client)

    def ack(self, delivery_tag: Any) -> None:
        # A task that ran through the outage finishes after the worker reconnected, on a new
        # channel: its message belonged to the lost one and cannot be acknowledged any more.
        if self._detached():
            logger.info("Message %s of a lost broker connection is not acknowledged", delivery_tag)
            self._held.pop(delivery_tag, None)
            return
        super().ack(delivery_tag)

    def reject(self, delivery_tag: Any, requeue: bool = False) -> None:
        if self._detached():
            logger.info("Message %s of a lost broker connection is not rejected", delivery_tag)
            self._held.pop(delivery_tag, None)
            return
        super().reject(delivery_tag, requeue=requeue)


class Channel(redis.Channel):
    QoS = QoS


class Transport(redis.Transport):
    Channel = Channel

"""Handing a transition's jobs to the broker once its transaction has committed, and what a
caller learns when the broker refuses them: the transition stands, its jobs stay pending for
the relay (`publishing.dispatch.relay`), and PublishDispatchUncertain carries the publish as
committed, which the API answers with a 503 naming it."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction

from publishing import dispatch, outbox
from publishing.dispatch import DispatchUncertain
from publishing.models import DeliveryJob, Id, Publish
from publishing.selectors import publishes_for
from publishing.status import locked
from teams.models import Team


class PublishDispatchUncertain(DispatchUncertain):
    """A transition committed, but the broker did not take the jobs it wrote: they stay
    pending, marked refused, and the relay sends them. `publish` is the publish as committed,
    for the caller's answer (the API's 503 names it)."""

    def __init__(self, publish: Publish) -> None:
        super().__init__(f"The broker did not take the jobs of publish {publish.pk}.")
        self.publish = publish


def publish_send_jobs(*, team: Team, publish_id: Id) -> Publish:
    """Hand over again the publish's jobs that never reached the broker: a create repeated
    with its Idempotency-Key after a 503, or staff's resend. Writes nothing; jobs the broker
    took, running ones and ones waiting out a pause are left to the worker and the relay."""
    with transaction.atomic(durable=True):
        publish = locked(team, publish_id)
        jobs = outbox.unsent(publish)
    return handed_over(committed(publish), jobs)


def committed(publish: Publish) -> Publish:
    """The publish read back with its targets and their attempts, before its jobs are handed
    over: once they are, a worker may change it, and the caller answers with what the
    transition did."""
    return publishes_for().get(pk=publish.pk)


def handed_over(publish: Publish, jobs: Sequence[DeliveryJob]) -> Publish:
    """`publish`, once the jobs its transition wrote are handed to the broker. Called after
    the transition's durable block, so never inside a transaction: a worker could claim a job
    not yet visible, or one then rolled back. Raises PublishDispatchUncertain when the broker
    refuses them."""
    try:
        dispatch.send_after_commit(jobs)
    except DispatchUncertain as exc:
        raise PublishDispatchUncertain(publish) from exc
    return publish

"""A transition that writes delivery jobs hands them to the broker itself, once its transaction
has committed (DESIGN §4.2, §4.3): called alone, with no view around it, its jobs run (tasks
are eager here, over HTTP to the sandbox); when the broker refuses them, the transition has
committed, its jobs stay pending and marked refused for the relay, and it raises
PublishDispatchUncertain naming the publish. It never runs inside a transaction, where its
hand-over would come before the commit."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db import transaction

from publishing import approval, handover, inputs, lifecycle
from publishing.models import DeliveryJob, JobState, Publish, PublishStatus
from publishing.release import relay
from tests.publishing.safety_support import broker_down

pytestmark = pytest.mark.django_db

Transition = Callable[[], Any]


def _caller(persona: Any, *, can_approve: bool = True) -> inputs.Caller:
    return inputs.Caller(user=persona.user, can_approve=can_approve)


def _create(persona: Any, account: Any, *, mode: str = "immediate", can_approve: bool = True) -> Publish:
    return lifecycle.publish_create(
        team=persona.team,
        caller=_caller(persona, can_approve=can_approve),
        content=f"Sent by a {mode} create",
        media_ids=[],
        targets=[inputs.TargetInput(account_id=str(account.pk))],
        publish_mode=mode,
        scheduled_at=None,
    )


def _creating(owner: Any, member: Any, accounts: Any, sandbox: Any) -> Transition:
    return lambda: _create(owner, accounts.x)


def _confirming(owner: Any, member: Any, accounts: Any, sandbox: Any) -> Transition:
    draft = _create(owner, accounts.x, mode="draft")
    return lambda: lifecycle.publish_confirm(team=owner.team, publish_id=draft.pk, caller=_caller(owner))


def _approving(owner: Any, member: Any, accounts: Any, sandbox: Any) -> Transition:
    owner.team.approval_required = True
    owner.team.save(update_fields=["approval_required"])
    waiting = _create(member, accounts.x, can_approve=False)
    return lambda: approval.publish_approve(team=owner.team, publish_id=waiting.pk, caller=_caller(owner))[0]


def _retrying(owner: Any, member: Any, accounts: Any, sandbox: Any) -> Transition:
    sandbox.outcomes("x", "error")
    failed = _create(owner, accounts.x)
    assert Publish.objects.get(pk=failed.pk).status == PublishStatus.FAILED
    return lambda: lifecycle.publish_retry(team=owner.team, publish_id=failed.pk, caller=_caller(owner))


TRANSITIONS = {"create": _creating, "confirm": _confirming, "approve": _approving, "retry": _retrying}


@pytest.fixture(params=sorted(TRANSITIONS))
def transition(request: Any, owner: Any, member: Any, accounts: Any, sandbox: Any) -> Transition:
    """A transition that releases one X target, ready to be called."""
    return TRANSITIONS[request.param](owner, member, accounts, sandbox)


def test_a_transition_called_alone_has_its_jobs_run(transition, sandbox):
    publish = transition()

    assert Publish.objects.get(pk=publish.pk).status == PublishStatus.PUBLISHED
    assert not DeliveryJob.objects.filter(target__publish=publish).exclude(state=JobState.DONE).exists()
    assert len(sandbox.posts("x")) == 1


def test_a_transition_whose_jobs_the_broker_refuses_commits_and_leaves_them_to_the_relay(transition, sandbox):
    posts = len(sandbox.posts("x"))

    with broker_down(), pytest.raises(handover.PublishDispatchUncertain) as refused:
        transition()

    publish = refused.value.publish
    assert Publish.objects.get(pk=publish.pk).status == PublishStatus.PUBLISHING  # committed
    pending = DeliveryJob.objects.filter(target__publish=publish, state=JobState.PENDING)
    assert [(job.enqueued_at, job.refused_at is not None) for job in pending] == [(None, True)]
    assert len(sandbox.posts("x")) == posts
    assert relay() == 1
    assert Publish.objects.get(pk=publish.pk).status == PublishStatus.PUBLISHED
    assert len(sandbox.posts("x")) == posts + 1


def test_a_transition_refuses_to_run_inside_a_transaction(transition):
    with pytest.raises(RuntimeError), transaction.atomic():
        transition()

    assert not DeliveryJob.objects.filter(state=JobState.PENDING).exists()

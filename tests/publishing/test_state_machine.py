"""A Hypothesis state machine over the publish lifecycle (spec §3 and §4, DESIGN §4).

Random sequences of create, patch, confirm, reschedule, unschedule, approve, reject, retry,
discard, scheduler ticks, reconciliation and relays run through the real API (one team with
an owner, an admin and a member key; approval required or not per example) and the real
sandbox over HTTP, with platform outcomes queued through the sandbox control API and Celery
eager, so dispatch runs in-process. A model says what every publish should be; invariants
compare it, the database and the sandbox after every step.

Time is simulated: one clock (the wall clock plus an offset that only grows) is what the
service reads (`django.utils.timezone.now`), what the scheduler tick, the relay and the
reconciler are handed as `now`, and what the sandbox stamps its posts with, so a rate-limit
pause of a day or a schedule hours ahead takes no real time and every party agrees on it.
Each example runs inside a transaction that is rolled back, the one a Django TestCase wraps a
test in (the lifecycle's durable transactions run inside it as in production); the sandbox is
reset after it.
"""

from __future__ import annotations

import datetime as dt
import itertools
import sys
import types
from collections import Counter, defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
import requests
from django.test import TestCase
from django.utils import timezone
from hypothesis import HealthCheck, note, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

import sandbox.platforms.linkedin as sandbox_linkedin
import sandbox.state as sandbox_state
from accounts.platforms.threads import Client as ThreadsClient
from demo.seed import sandbox_account
from publishing import policy, readback, release, status
from publishing.models import DeliveryJob, JobState
from publishing.selectors import publishes_for
from publishing.serializers import PublishSerializer
from teams import services
from teams.models import SCOPES, Role
from tests.factories import UserFactory
from webhooks.models import Event

pytestmark = pytest.mark.django_db

PLATFORMS = ("x", "bluesky", "linkedin", "threads")  # text platforms: no media needed
ROLES = ("owner", "admin", "member")
APPROVERS = frozenset({"owner", "admin"})
EVENT_TYPES = ("post.published", "post.failed", "post.pending_approval", "post.approved", "post.rejected")
COMMON_OUTCOMES = ("error", "ok", "processing", "rate_limited")
# One answer queued for a target before a request: "-" queues none (the sandbox then answers ok).
ANSWERS = ("-", "error", "-", "processing", "rate_limited", "ok", "error", "timeout")
OPEN = frozenset({"processing", "unknown"})
# Calls of one attempt that the platform refused with "not sent" before the target fails.
MAX_TRIES = policy.TARGET.max_tries

# Arguments of a create: persona, mode, target platforms, minutes ahead, and one answer queued
# per target platform before the request ("-" queues none).
CREATE_ARGS = st.tuples(
    st.sampled_from(("member", *ROLES)),
    st.sampled_from(["immediate", "immediate", "scheduled", "draft", "draft_at", "past"]),
    st.lists(st.sampled_from(PLATFORMS), min_size=1, max_size=3, unique=True),
    st.integers(1, 240),
    st.lists(st.sampled_from(ANSWERS), min_size=3, max_size=3),
)
# Which publish a rule acts on: an index, and whether to prefer one the action applies to.
PICK = st.integers(0, 1000)
APT = st.sampled_from([True, True, True, False])
TICK_STEPS = [
    dt.timedelta(hours=1),
    dt.timedelta(minutes=5),
    dt.timedelta(days=1),
    dt.timedelta(seconds=30),
    dt.timedelta(0),
]


# --- the simulated clock ------------------------------------------------------------------------


class SimClock:
    """The wall clock plus an offset that only grows."""

    def __init__(self) -> None:
        self.offset = dt.timedelta(0)

    def now(self) -> dt.datetime:
        return dt.datetime.now(dt.UTC) + self.offset

    def advance(self, delta: dt.timedelta) -> dt.datetime:
        assert delta >= dt.timedelta(0)
        self.offset += delta
        return self.now()


CLOCK = SimClock()


class _SandboxDatetime(dt.datetime):
    """`datetime` for the sandbox's post stamps: the simulated clock."""

    @classmethod
    def now(cls, tz: dt.tzinfo | None = None) -> Any:  # type: ignore[override]
        moment = CLOCK.now()
        return moment.astimezone(tz) if tz is not None else moment.replace(tzinfo=None)


@pytest.fixture
def simulated_clock(monkeypatch: pytest.MonkeyPatch) -> SimClock:
    monkeypatch.setattr(timezone, "now", CLOCK.now)
    monkeypatch.setattr(sandbox_state, "dt", types.SimpleNamespace(datetime=_SandboxDatetime, UTC=dt.UTC))
    monkeypatch.setattr(sandbox_linkedin, "_now_ms", lambda: int(CLOCK.now().timestamp() * 1000))
    # Threads waits between container status checks; the sandbox needs no real pause.
    monkeypatch.setattr(ThreadsClient, "poll_seconds", 0.0)
    return CLOCK


# --- the model ----------------------------------------------------------------------------------


def expected_status(states: list[str]) -> str:
    """The publish status the spec and DESIGN §4.1 give for these target states."""
    found = set(states)
    if found <= {"draft", "scheduled"}:
        return "scheduled" if "scheduled" in found else "draft"
    if found & {"draft", "scheduled", "queued", "sending"}:
        return "publishing"
    if "failed" in found:
        return "partial" if "published" in found else "failed"
    if found & OPEN:
        return "processing"
    return "published"


@dataclass
class TargetModel:
    platform: str
    account_id: str
    state: str  # the target's delivery state (its `outcome` field)
    attempts: int = 0
    tries: int = 0  # platform calls in the current attempt
    job_seq: int = 0  # creation order of its current delivery job
    waiting_retry: bool = False  # refused as not sent (429): the relay sends it again
    could_create: int = 0  # attempts whose call may have created a post
    posts: int = 0  # sandbox posts it must have
    post_on_check: bool = False  # a Threads container still processing: the check publishes it


@dataclass
class PublishModel:
    handle: int
    id: str
    creator: str
    content: str
    targets: dict[str, TargetModel]
    mode: str
    scheduled_at: dt.datetime | None
    confirmed: bool
    approval: str | None
    waiting: bool  # a scheduled publish not yet sent (in the schedule queue)
    status: str
    discarded: bool = False
    events: Counter[str] = field(default_factory=Counter)
    reasons: list[str | None] = field(default_factory=list)

    @property
    def editable(self) -> bool:
        return (self.status == "draft" and not self.confirmed) or (self.status == "scheduled" and self.waiting)


def _when(moment: dt.datetime) -> str:
    return moment.isoformat()


def _parse(value: str | None) -> dt.datetime | None:
    return None if value is None else dt.datetime.fromisoformat(value.replace("Z", "+00:00"))


@dataclass
class Env:
    sandbox: Any = None
    api: Any = None


class PublishLifecycle(RuleBasedStateMachine):
    env = Env()

    def __init__(self) -> None:
        super().__init__()
        CLOCK.offset = dt.timedelta(0)
        self._atomics = TestCase._enter_atomics()
        self.api = self.env.api
        self.sandbox = self.env.sandbox
        self.team: Any = None
        self.keys: dict[str, str] = {}
        self.users: dict[str, Any] = {}
        self.accounts: dict[str, str] = {}
        self.pubs: list[PublishModel] = []
        self.queues: dict[str, deque[str]] = defaultdict(deque)
        self.texts: dict[str, int] = {}  # every text sent or sendable -> its publish's handle
        self.counter = itertools.count(1)
        self.job_seq = itertools.count(1)
        self.timeouts = 0
        self.approval_required = False

    def teardown(self) -> None:
        try:
            requests.post(f"{self.sandbox.url}/_sandbox/reset", timeout=5)
        finally:
            TestCase._rollback_atomics(self._atomics)

    # --- helpers -------------------------------------------------------------------------------

    def _text(self) -> str:
        return f"lifecycle note {next(self.counter)} {self.team.pk.hex[:8]}"

    def _call(self, who: str, method: str, path: str, body: Any = None) -> Any:
        self.api.credentials(HTTP_AUTHORIZATION=f"Bearer {self.keys[who]}")
        send = getattr(self.api, method)
        return send(path, body, format="json") if body is not None else send(path)

    @staticmethod
    def _expect(response: Any, status: int, *, code: str | None = None) -> dict[str, Any]:
        body = response.json() if response.content else {}
        assert response.status_code == status, (response.status_code, status, body)
        if status >= 400:
            error = body["error"]
            kind = {400: "invalid_request", 404: "not_found"}.get(status)
            if kind:
                assert error["type"] == kind, body
            if code:
                assert error["code"] == code, body
        return body

    def _check_record(self, body: dict[str, Any], pub: PublishModel) -> None:
        """A publish answer: the same id, and the status and approval the model has now."""
        data = body["data"]
        assert data["id"] == pub.id, (data["id"], pub.id)
        assert data["status"] == pub.status, (data["status"], pub.status, data)
        assert data["approval_status"] == pub.approval, data
        assert sorted(t["platform"] for t in data["targets"]) == sorted(pub.targets), data

    def _choose(self, pick: int, apt: bool, fits: Callable[[PublishModel], bool]) -> PublishModel:
        """Mostly a publish the action applies to (`apt`), otherwise any, discarded ones included."""
        fitting = [p for p in self.pubs if fits(p)] if apt else []
        pub = (fitting or self.pubs)[pick % len(fitting or self.pubs)]
        note(f"publish #{pub.handle}: {pub.status}, approval {pub.approval}, discarded {pub.discarded}")
        return pub

    def _gated(self, who: str) -> bool:
        return self.approval_required and who not in APPROVERS

    def _settle(self, pub: PublishModel) -> None:
        new = expected_status([t.state for t in pub.targets.values()])
        if new != pub.status:
            if new in ("published", "partial"):
                pub.events["post.published"] += 1
            elif new == "failed":
                pub.events["post.failed"] += 1
        pub.status = new

    def _ask_approval(self, pub: PublishModel) -> None:
        pub.approval = "pending_approval"
        pub.events["post.pending_approval"] += 1

    def _release(self, pub: PublishModel, targets: list[TargetModel]) -> None:
        for target in targets:
            target.attempts += 1
            target.tries = 0
            target.state = "queued"
            target.waiting_retry = False
            target.job_seq = next(self.job_seq)
        pub.waiting = False
        self._settle(pub)

    def _send(self, target: TargetModel) -> None:
        """One platform call for a queued target: it takes the next queued outcome."""
        queue = self.queues[target.platform]
        outcome = queue.popleft() if queue else "ok"
        target.tries += 1
        target.waiting_retry = False
        if outcome == "rate_limited":
            if target.tries < MAX_TRIES:
                target.waiting_retry = True  # nothing sent: the same attempt tries again later
            else:
                target.state = "failed"
            return
        if outcome == "error":
            target.state = "failed"
            return
        target.could_create += 1
        if outcome == "timeout":
            target.state, target.posts = "unknown", target.posts + 1  # the post exists; the answer is lost
        elif outcome == "processing" and target.platform == "threads":
            target.state, target.post_on_check = "processing", True  # a container still processing
        else:  # ok, and `processing` where a text post needs no processing
            target.state, target.posts = "published", target.posts + 1

    def _dispatch(self, pub: PublishModel, targets: list[TargetModel]) -> None:
        for target in targets:
            self._send(target)
        self._settle(pub)

    def _new_targets(self, platforms: list[str], state: str) -> dict[str, TargetModel]:
        return {p: TargetModel(platform=p, account_id=self.accounts[p], state=state) for p in platforms}

    def _future(self, minutes: int) -> dt.datetime:
        # Whole minutes plus 15 s and a unique microsecond: off the ticks' steps, never tied.
        return CLOCK.now() + dt.timedelta(minutes=minutes, seconds=15, microseconds=next(self.counter))

    def _queue(self, platform: str, outcomes: list[str]) -> None:
        self.sandbox.outcomes(platform, *outcomes)
        self.queues[platform].extend(outcomes)

    def _queue_answer(self, platform: str, answer: str) -> None:
        """Queue one outcome ("-": none); a timeout costs the client's 1 s read timeout, so one per example."""
        if answer == "timeout":
            if self.timeouts >= 1:
                return
            self.timeouts += 1
        if answer != "-":
            self._queue(platform, [answer])

    # --- setup ---------------------------------------------------------------------------------

    @initialize(approval=st.sampled_from([True, False]), seeds=st.lists(CREATE_ARGS, min_size=1, max_size=3))
    def setup_team(self, approval: bool, seeds: list[tuple[Any, ...]]) -> None:
        owner = UserFactory(username="sm-owner")
        self.team = services.team_create(name="Lifecycle", owner=owner, approval_required=approval)
        self.approval_required = approval
        admin, member = UserFactory(username="sm-admin"), UserFactory(username="sm-member")
        self.users = {"owner": owner, "admin": admin, "member": member}
        services.membership_add(team=self.team, user=admin, role=Role.ADMIN)
        services.membership_add(team=self.team, user=member, role=Role.MEMBER)
        for role, user in self.users.items():
            _, self.keys[role] = services.api_key_create(user=user, name=role, scopes=SCOPES, team=self.team)
        self.accounts = {p: str(sandbox_account(self.team, p).pk) for p in PLATFORMS}
        for seed in seeds:
            self._create(*seed)

    # --- platform outcomes ---------------------------------------------------------------------

    @rule(
        platform=st.sampled_from(PLATFORMS),
        outcomes=st.lists(st.sampled_from(COMMON_OUTCOMES), min_size=1, max_size=3),
    )
    def queue_outcomes(self, platform: str, outcomes: list[str]) -> None:
        self._queue(platform, outcomes)

    # --- create --------------------------------------------------------------------------------

    @rule(args=CREATE_ARGS)
    def create(self, args: tuple[Any, ...]) -> None:
        self._create(*args)

    def _create(self, who: str, mode: str, platforms: list[str], minutes: int, answers: list[str]) -> None:
        """POST /publishes; `answers` are queued first, one per target platform."""
        for platform, answer in zip(platforms, answers, strict=False):
            self._queue_answer(platform, answer)
        content = self._text()
        body: dict[str, Any] = {
            "content": content,
            "targets": [{"account_id": self.accounts[p]} for p in platforms],
            "publish_mode": {"draft_at": "draft", "past": "scheduled"}.get(mode, mode),
        }
        at = None
        if mode in ("scheduled", "draft_at"):
            at = self._future(minutes)
            body["scheduled_at"] = _when(at)
        if mode == "past":
            body["scheduled_at"] = _when(CLOCK.now() - dt.timedelta(minutes=minutes))
            before = publishes_for(team=self.team).count()
            self._expect(self._call(who, "post", "/api/v1/publishes", body), 400)
            assert publishes_for(team=self.team).count() == before, "a refused create left a record"
            return
        data = self._expect(self._call(who, "post", "/api/v1/publishes", body), 201)["data"]
        gated = self._gated(who) and mode in ("immediate", "scheduled")
        pub = PublishModel(
            handle=len(self.pubs),
            id=data["id"],
            creator=who,
            content=content,
            targets=self._new_targets(platforms, "scheduled" if mode == "scheduled" else "draft"),
            mode=body["publish_mode"],
            scheduled_at=at,
            confirmed=mode in ("immediate", "scheduled"),
            approval=None,
            waiting=mode == "scheduled",
            status="scheduled" if mode == "scheduled" else "draft",
        )
        self.pubs.append(pub)
        self.texts[content] = pub.handle
        note(f"created publish #{pub.handle} ({mode}, {', '.join(platforms)}) as {who}")
        if gated:
            self._ask_approval(pub)
        elif mode == "immediate":
            self._release(pub, list(pub.targets.values()))
        self._check_record({"data": data}, pub)
        if mode == "immediate":
            assert data["status"] == ("draft" if gated else "publishing"), data  # spec §4 create rule 4
        if at is not None:
            assert _parse(data["scheduled_at"]) == at, data
        if mode == "immediate" and not gated:
            self._dispatch(pub, list(pub.targets.values()))

    # --- reading -------------------------------------------------------------------------------

    @precondition(lambda self: self.pubs)
    @rule(pick=PICK, who=st.sampled_from(ROLES))
    def get(self, pick: int, who: str) -> None:
        """GET the publish, and the approval queue as this caller sees it."""
        pub = self._choose(pick, False, lambda p: True)
        response = self._call(who, "get", f"/api/v1/publishes/{pub.id}")
        if pub.discarded:
            self._expect(response, 404)
        else:
            self._check_record(self._expect(response, 200), pub)
        body = self._expect(self._call(who, "get", "/api/v1/approvals?page_size=100"), 200)
        seen = {p["id"] for p in body["data"]}
        pending = {p.id for p in self.pubs if not p.discarded and p.approval == "pending_approval"}
        if who in APPROVERS:
            assert seen == pending, (seen, pending)
        else:  # members see those they submitted
            own = {p.id for p in self.pubs if p.id in pending and p.creator == who}
            assert own <= seen <= pending, (own, seen, pending)

    # --- edit, discard -------------------------------------------------------------------------

    @precondition(lambda self: self.pubs)
    @rule(
        pick=PICK,
        apt=APT,
        who=st.sampled_from(ROLES),
        change=st.sampled_from(["content", "targets", "both", "nothing"]),
        platforms=st.lists(st.sampled_from(PLATFORMS), min_size=1, max_size=3, unique=True),
    )
    def patch(self, pick: int, apt: bool, who: str, change: str, platforms: list[str]) -> None:
        pub = self._choose(pick, apt, lambda p: p.editable and not p.discarded)
        body: dict[str, Any] = {}
        content = self._text()
        if change in ("content", "both"):
            body["content"] = content
        if change in ("targets", "both"):
            body["targets"] = [{"account_id": self.accounts[p]} for p in platforms]
        response = self._call(who, "patch", f"/api/v1/publishes/{pub.id}", body)
        if pub.discarded:
            self._expect(response, 404)
            return
        if not pub.editable:
            if change == "nothing":  # both 400 (nothing to change) and 422 (not editable) apply
                assert response.status_code in (400, 422), response.json()
            else:
                self._expect(response, 422, code="NOT_EDITABLE")
            return
        if change == "nothing":
            self._expect(response, 400)
            return
        data = self._expect(response, 200)
        if "content" in body:
            pub.content = content
            self.texts[content] = pub.handle
        if "targets" in body:
            state = "scheduled" if pub.status == "scheduled" else "draft"
            kept = {p: t for p, t in pub.targets.items() if p in platforms}
            pub.targets = {p: kept.get(p) or self._new_targets([p], state)[p] for p in platforms}
        if pub.approval != "pending_approval" and pub.confirmed and self._gated(who):
            self._ask_approval(pub)  # a member's edit of a submitted publish waits for approval again
        self._check_record(data, pub)
        assert data["data"]["content"] == pub.content
        if pub.status == "scheduled":  # a scheduled publish keeps its time
            assert _parse(data["data"]["scheduled_at"]) == pub.scheduled_at, data

    @precondition(lambda self: self.pubs)
    @rule(pick=PICK, apt=st.booleans(), who=st.sampled_from(ROLES))
    def discard(self, pick: int, apt: bool, who: str) -> None:
        pub = self._choose(pick, apt, lambda p: p.status == "draft" and not p.confirmed and not p.discarded)
        response = self._call(who, "delete", f"/api/v1/publishes/{pub.id}")
        if pub.discarded:
            self._expect(response, 404)
            return
        if not (pub.status == "draft" and not pub.confirmed):
            self._expect(response, 422)
            return
        data = self._expect(response, 200)["data"]
        assert data["id"] == pub.id, data
        pub.discarded = True
        self._expect(self._call(who, "get", f"/api/v1/publishes/{pub.id}"), 404)

    # --- confirm, schedule ---------------------------------------------------------------------

    @precondition(lambda self: self.pubs)
    @rule(
        pick=PICK,
        apt=APT,
        who=st.sampled_from(ROLES),
        when=st.sampled_from(["none", "none", "future", "past"]),
        minutes=st.integers(1, 240),
    )
    def confirm(self, pick: int, apt: bool, who: str, when: str, minutes: int) -> None:
        pub = self._choose(pick, apt, lambda p: p.status == "draft" and not p.confirmed and not p.discarded)
        if pub.scheduled_at is not None and abs(pub.scheduled_at - CLOCK.now()) < dt.timedelta(seconds=10):
            CLOCK.advance(dt.timedelta(seconds=20))  # step off the boundary of the draft's own time
        body: dict[str, Any] = {}
        at = None
        if when == "future":
            at = self._future(minutes)
            body["scheduled_at"] = _when(at)
        elif when == "past":
            body["scheduled_at"] = _when(CLOCK.now() - dt.timedelta(minutes=minutes))
        response = self._call(who, "post", f"/api/v1/publishes/{pub.id}/confirm", body)
        if pub.discarded:
            self._expect(response, 404)
            return
        if not (pub.status == "draft" and not pub.confirmed):
            if when == "past":  # both 400 (bad time) and 422 (not a draft) apply
                assert response.status_code in (400, 422), response.json()
            else:
                self._expect(response, 422)
            return
        due = at or (None if when == "past" else pub.scheduled_at)
        if when == "past" or (due is not None and due <= CLOCK.now()):
            self._expect(response, 400)
            return
        data = self._expect(response, 200)
        pub.confirmed = True
        if due is not None:
            pub.scheduled_at, pub.mode, pub.waiting = due, "scheduled", True
            for target in pub.targets.values():
                target.state = "scheduled"
            self._settle(pub)
        if self._gated(who):
            self._ask_approval(pub)
        elif due is None:
            self._release(pub, list(pub.targets.values()))
        self._check_record(data, pub)
        if due is None and not self._gated(who):
            self._dispatch(pub, list(pub.targets.values()))

    @precondition(lambda self: self.pubs)
    @rule(
        pick=PICK,
        apt=APT,
        who=st.sampled_from(ROLES),
        when=st.sampled_from(["future", "future", "past"]),
        minutes=st.integers(1, 240),
    )
    def reschedule(self, pick: int, apt: bool, who: str, when: str, minutes: int) -> None:
        pub = self._choose(pick, apt, lambda p: p.status == "scheduled" and p.waiting and not p.discarded)
        at = self._future(minutes) if when == "future" else CLOCK.now() - dt.timedelta(minutes=minutes)
        response = self._call(who, "post", f"/api/v1/publishes/{pub.id}/reschedule", {"scheduled_at": _when(at)})
        if pub.discarded:
            self._expect(response, 404)
            return
        if not (pub.status == "scheduled" and pub.waiting):
            if when == "past":
                assert response.status_code in (400, 422), response.json()
            else:
                self._expect(response, 422)
            return
        if when == "past":
            self._expect(response, 400)
            return
        data = self._expect(response, 200)
        moved, pub.scheduled_at = at != pub.scheduled_at, at
        if moved and pub.approval != "pending_approval" and pub.confirmed and self._gated(who):
            self._ask_approval(pub)  # its time is part of what was approved
        self._check_record(data, pub)
        assert _parse(data["data"]["scheduled_at"]) == at, data

    @precondition(lambda self: self.pubs)
    @rule(pick=PICK, apt=st.booleans(), who=st.sampled_from(ROLES))
    def unschedule(self, pick: int, apt: bool, who: str) -> None:
        pub = self._choose(pick, apt, lambda p: p.status == "scheduled" and p.waiting and not p.discarded)
        response = self._call(who, "post", f"/api/v1/publishes/{pub.id}/unschedule")
        if pub.discarded:
            self._expect(response, 404)
            return
        if not (pub.status == "scheduled" and pub.waiting):
            self._expect(response, 422)
            return
        data = self._expect(response, 200)
        pub.waiting, pub.confirmed, pub.scheduled_at, pub.mode = False, False, None, "draft"
        pub.approval = None  # pending or given, withdrawn: confirming again decides afresh
        for target in pub.targets.values():
            target.state = "draft"
        self._settle(pub)
        self._check_record(data, pub)
        assert data["data"]["content"] == pub.content

    # --- approval ------------------------------------------------------------------------------

    @precondition(lambda self: self.pubs)
    @rule(pick=PICK, apt=APT, who=st.sampled_from(ROLES))
    def approve(self, pick: int, apt: bool, who: str) -> None:
        pub = self._choose(pick, apt, lambda p: p.approval == "pending_approval" and not p.discarded)
        response = self._call(who, "post", f"/api/v1/publishes/{pub.id}/approve")
        if pub.discarded or who not in APPROVERS:
            self._expect(response, 404)
            return
        if pub.approval == "approved":
            data = self._expect(response, 200)
            assert data["data"]["already_approved"] is True, data
            self._check_record(data, pub)
            return
        if pub.approval != "pending_approval":
            self._expect(response, 400)
            return
        data = self._expect(response, 200)
        assert data["data"]["already_approved"] is False, data
        pub.approval = "approved"
        pub.events["post.approved"] += 1
        # Released now unless it waits for its time; only what was never sent goes out, and the
        # failed targets of an edited retry that waited for this approval.
        released = [t for t in pub.targets.values() if t.state in ("draft", "failed")]
        unsent = released if pub.confirmed and not pub.waiting else []
        if unsent:
            self._release(pub, unsent)
        self._check_record(data, pub)
        assert data["data"]["approved_by"]["id"] == self.users[who].pk, data
        assert data["data"]["approved_at"], data
        if unsent:
            self._dispatch(pub, unsent)

    @precondition(lambda self: self.pubs)
    @rule(pick=PICK, apt=st.booleans(), who=st.sampled_from(ROLES), reason=st.sampled_from([None, "", "off brand"]))
    def reject(self, pick: int, apt: bool, who: str, reason: str | None) -> None:
        pub = self._choose(pick, apt, lambda p: p.approval == "pending_approval" and not p.discarded)
        body = {} if reason is None else {"reason": reason}
        response = self._call(who, "post", f"/api/v1/publishes/{pub.id}/reject", body)
        if pub.discarded or who not in APPROVERS:
            self._expect(response, 404)
            return
        if pub.approval != "pending_approval":
            self._expect(response, 400)
            return
        data = self._expect(response, 200)
        pub.approval, pub.waiting = "rejected", False
        # What waited is never sent; a rejected retry keeps its targets' outcomes (failed stays failed).
        for target in pub.targets.values():
            if target.state == "scheduled":
                target.state = "draft"
        self._settle(pub)
        pub.events["post.rejected"] += 1
        pub.reasons.append(reason or None)
        self._check_record(data, pub)
        assert data["data"]["rejection_reason"] == (reason or ""), data

    # --- retry ---------------------------------------------------------------------------------

    @precondition(lambda self: self.pubs)
    @rule(
        pick=PICK,
        apt=APT,
        who=st.sampled_from(ROLES),
        edit=st.sampled_from(["none", "none", "failed", "not_failed"]),
        answer=st.sampled_from(ANSWERS),
    )
    def retry(self, pick: int, apt: bool, who: str, edit: str, answer: str) -> None:
        """POST /retry; `answer` is queued first for the platform of a failed target."""
        pub = self._choose(pick, apt, lambda p: p.status in ("failed", "partial") and not p.discarded)
        failed = [t for t in pub.targets.values() if t.state == "failed"]
        others = [t for t in pub.targets.values() if t.state != "failed"]
        if failed:
            self._queue_answer(failed[-1].platform, answer)
        body: dict[str, Any] = {}
        text = self._text()
        if edit == "failed" and failed:
            body["targets"] = [{"account_id": failed[0].account_id, "content": text}]
        elif edit == "not_failed" and others:
            body["targets"] = [{"account_id": others[0].account_id, "content": text}]
        response = self._call(who, "post", f"/api/v1/publishes/{pub.id}/retry", body)
        if pub.discarded:
            self._expect(response, 404)
            return
        if pub.status not in ("failed", "partial") or pub.approval in ("pending_approval", "rejected"):
            self._expect(response, 400)  # an edited retry waiting for approval, or rejected: not again
            return
        if edit == "not_failed" and others:
            self._expect(response, 400)  # spec §4 retry rule 3
            return
        data = self._expect(response, 200)
        if "targets" in body:
            self.texts[text] = pub.handle
            if self._gated(who):
                # An edit by someone who cannot approve waits for approval; its targets stay failed.
                self._ask_approval(pub)
                self._check_record(data, pub)
                return
        self._release(pub, failed)
        self._check_record(data, pub)
        self._dispatch(pub, failed)

    # --- the same actions on a publish they apply to, offered whenever there is one ---------------

    @precondition(lambda self: any(p.approval == "pending_approval" and not p.discarded for p in self.pubs))
    @rule(pick=PICK, who=st.sampled_from(ROLES), reject=st.sampled_from([False, False, True]))
    def decide_pending(self, pick: int, who: str, reject: bool) -> None:
        if reject:
            self.reject(pick, True, who, "off brand")
        else:
            self.approve(pick, True, who)

    @precondition(lambda self: any(p.status in ("failed", "partial") and not p.discarded for p in self.pubs))
    @rule(pick=PICK, who=st.sampled_from(ROLES), answer=st.sampled_from(ANSWERS))
    def retry_failed(self, pick: int, who: str, answer: str) -> None:
        self.retry(pick, True, who, "none", answer)

    @precondition(lambda self: any(p.status == "draft" and not p.confirmed and not p.discarded for p in self.pubs))
    @rule(pick=PICK, who=st.sampled_from(ROLES), when=st.sampled_from(["none", "future"]))
    def confirm_draft(self, pick: int, who: str, when: str) -> None:
        self.confirm(pick, True, who, when, 30)

    # --- time passes: the scheduler tick, the relay, reconciliation ------------------------------

    @rule(delta=st.sampled_from(TICK_STEPS))
    def tick(self, delta: dt.timedelta) -> None:
        now = CLOCK.advance(delta)
        due = sorted(
            (
                p
                for p in self.pubs
                if not p.discarded
                and p.waiting
                and p.approval not in ("pending_approval", "rejected")
                and p.scheduled_at is not None
                and p.scheduled_at <= now
            ),
            key=lambda p: p.scheduled_at or now,
        )
        released = release.release_due(now=now)
        assert released == len(due), (released, [p.handle for p in due])
        for pub in due:
            self._release(pub, [t for t in pub.targets.values() if t.state == "scheduled"])
        for pub in due:
            self._dispatch(pub, [t for t in pub.targets.values() if t.state == "queued"])

    @precondition(lambda self: any(t.waiting_retry for p in self.pubs for t in p.targets.values()))
    @rule()
    def relay(self) -> None:
        # Long enough for every backoff: X's 15-minute window, LinkedIn's wait for midnight UTC.
        now = CLOCK.advance(dt.timedelta(hours=25))
        # The relay sends in `not_before` order. Two targets of one platform can be due at
        # nearly the same moment (a wait computed from the platform's clock, then added to
        # ours), so which takes the platform's next queued answer is read from the jobs.
        due = DeliveryJob.objects.filter(target__publish__team=self.team, state=JobState.PENDING, not_before__lte=now)
        order = {
            (str(publish_id), platform): n
            for n, (publish_id, platform) in enumerate(
                due.order_by("not_before", "pk").values_list("target__publish_id", "target__platform")
            )
        }
        waiting = sorted(
            ((p, t) for p in self.pubs for t in p.targets.values() if t.waiting_retry),
            key=lambda pt: order.get((pt[0].id, pt[1].platform), len(order) + pt[1].job_seq),
        )
        sent = release.relay(now=now)
        assert sent == len(waiting), (sent, len(waiting))
        for _, target in waiting:
            self._send(target)
        for pub in {id(p): p for p, _ in waiting}.values():
            self._settle(pub)

    @precondition(lambda self: any(t.state in OPEN for p in self.pubs for t in p.targets.values()))
    @rule(delta=st.sampled_from([dt.timedelta(seconds=10), dt.timedelta(minutes=5)]))
    def reconcile(self, delta: dt.timedelta) -> None:
        now = CLOCK.advance(delta)  # past every open target's first check (5 s after its answer)
        open_targets = [(p, t) for p in self.pubs if not p.discarded for t in p.targets.values() if t.state in OPEN]
        checked = readback.reconcile(now=now)
        assert checked == len(open_targets), (checked, len(open_targets))
        for pub, target in open_targets:
            if target.post_on_check:
                target.posts += 1
                target.post_on_check = False
            target.state = "published"
            self._settle(pub)

    # --- invariants ----------------------------------------------------------------------------

    def _live(self) -> list[PublishModel]:
        return [p for p in self.pubs if not p.discarded]

    @invariant()
    def statuses_follow_targets(self) -> None:
        if self.team is None:
            return
        rows = {str(p.pk): p for p in publishes_for(team=self.team)}
        assert set(rows) == {p.id for p in self._live()}, "records differ from the model (made, lost or discarded)"
        for pub in self._live():
            row = rows[pub.id]
            targets = list(row.targets.all())
            states = [t.state for t in targets]
            assert row.status == status.derive_status(states), (row.status, states)
            assert row.status == pub.status, (pub.handle, row.status, pub.status, states)
            assert row.approval_status == pub.approval, (pub.handle, row.approval_status, pub.approval)
            by_platform = {t.platform: t for t in targets}
            assert set(by_platform) == set(pub.targets), (pub.handle, sorted(by_platform), sorted(pub.targets))
            for platform, model in pub.targets.items():
                target = by_platform[platform]
                assert target.state == model.state, (pub.handle, platform, target.state, model.state)
                assert target.attempt_count == model.attempts, (pub.handle, platform, target.attempt_count)
            self._check_meaning(PublishSerializer(row).data)

    @invariant()
    def pending_approval_is_not_sent(self) -> None:
        """Spec §3: a publish waiting for approval is not sent until approved (what an edited
        retry waits with was sent before: its failed targets and their published siblings)."""
        if self.team is None:
            return
        for row in publishes_for(team=self.team).filter(approval_status="pending_approval"):
            states = sorted(t.state for t in row.targets.all())
            assert not {"queued", "sending"} & set(states), (str(row.pk), row.status, states)
            assert row.status != "publishing", (str(row.pk), row.status)

    @staticmethod
    def _check_meaning(data: dict[str, Any]) -> None:
        """What spec §3 says each status means, on the API representation."""
        targets = data["targets"]
        statuses = [t["status"] for t in targets]
        assert "partial" not in statuses, data
        for target in targets:
            if target["outcome"] == "unknown":
                assert target["status"] == "processing", target  # unknown shows processing, never failed
            if target["status"] == "published":
                assert target["platform_post_id"], target
            if target["status"] == "failed":
                assert target["error"], target  # failure needs evidence
                assert target["error"]["code"], target
        status = data["status"]
        if status == "published":
            assert all(t["status"] == "published" and t["platform_post_id"] for t in targets), data
        if status == "failed":
            assert any(t["status"] == "failed" and t["error"] for t in targets), data
            assert "published" not in statuses, data
        if status == "partial":
            assert "published" in statuses, data
            assert "failed" in statuses, data
        if status in ("draft", "scheduled"):
            assert set(statuses) <= {"draft", "scheduled"}, data

    @invariant()
    def each_target_sent_once_per_attempt(self) -> None:
        if self.team is None:
            return
        found: dict[tuple[int, str], list[dict[str, Any]]] = defaultdict(list)
        for post in self.sandbox.posts():
            handle = self.texts.get(post["text"])
            assert handle is not None, f"a sandbox post no publish sent: {post}"
            found[(handle, post["platform"])].append(post)
        rows = {str(p.pk): p for p in publishes_for(team=self.team)}
        for pub in self.pubs:
            for platform, model in pub.targets.items():
                posts = found.pop((pub.handle, platform), [])
                assert len(posts) <= model.could_create, (pub.handle, platform, posts)
                assert len(posts) <= model.attempts, (pub.handle, platform, posts)
                assert len(posts) == model.posts, (pub.handle, platform, len(posts), model.posts)
                if pub.discarded:
                    continue
                target = next(t for t in rows[pub.id].targets.all() if t.platform == platform)
                if target.state == "published":
                    matching = [p for p in posts if p["id"] == target.platform_post_id]
                    where = (pub.handle, platform, target.platform_post_id, posts)
                    assert len(posts) == 1, where
                    assert len(matching) == 1, where
        assert not found, f"sandbox posts of targets that were never sent: {dict(found)}"

    @invariant()
    def events_match_transitions(self) -> None:
        if self.team is None:
            return
        counts: Counter[tuple[str, str]] = Counter()
        reasons: dict[str, list[str | None]] = defaultdict(list)
        for event in Event.objects.filter(team=self.team).order_by("created_at", "id"):
            publish_id = str(event.data.get("publish_id"))
            counts[(publish_id, event.type)] += 1
            if event.type == "post.rejected":
                reasons[publish_id].append(event.data.get("reason"))
            if event.type == "post.approved":
                assert event.data.get("approved_by"), event.data
        known = {p.id for p in self.pubs}
        assert {pid for pid, _ in counts} <= known, "an event about an unknown publish"
        for pub in self.pubs:
            for kind in EVENT_TYPES:
                assert counts[(pub.id, kind)] == pub.events[kind], (
                    pub.handle,
                    kind,
                    counts[(pub.id, kind)],
                    pub.events,
                )
            assert reasons[pub.id] == pub.reasons, (pub.handle, reasons[pub.id], pub.reasons)


def test_publish_lifecycle_state_machine(db: None, api: Any, sandbox: Any, simulated_clock: SimClock) -> None:
    PublishLifecycle.env = Env(sandbox=sandbox, api=api)
    run_state_machine_as_test(
        PublishLifecycle,
        settings=settings(
            max_examples=40,
            stateful_step_count=20,
            deadline=None,
            database=None,
            suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
        ),
    )


def test_publishes_due_at_one_tick_take_the_platforms_answers_in_due_order(
    db: None, api: Any, sandbox: Any, simulated_clock: SimClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A case the machine found: a draft confirmed for later and a publish scheduled sooner fall
    due at one tick; the one due first must meet the platform's next answer first."""
    monkeypatch.setattr(sys.modules[__name__], "note", lambda _text: None)  # outside Hypothesis
    PublishLifecycle.env = Env(sandbox=sandbox, api=api)
    state = PublishLifecycle()
    seeds = [
        ("member", "immediate", ["threads"], 1, ["rate_limited", "-", "-"]),
        ("member", "draft", ["threads"], 1, ["processing", "-", "-"]),
        ("member", "scheduled", ["threads"], 1, ["error", "-", "-"]),
    ]
    state.setup_team(approval=False, seeds=seeds)
    state.relay()
    state.create(args=("member", "draft", ["x", "bluesky", "threads"], 1, ["-", "-", "-"]))
    state.confirm_draft(pick=1, when="future", who="owner")
    state.confirm_draft(pick=0, when="future", who="owner")
    state.tick(delta=dt.timedelta(seconds=3600))
    state.each_target_sent_once_per_attempt()
    state.statuses_follow_targets()
    state.teardown()

"""The Django process every worker figure talks to: a `manage.py shell` on the scratch database
that answers one JSON call a line, so that seeding, bulk rows and reports cost no process start.

Its calls write rows in bulk (`make_jobs`, `make_scheduled`), stand in for beat (`tick`,
`relay_drain`) and read what a figure reports (`claims_report`, `release_report`, `watch`).
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import IO, Any

from bench.common import ROOT

# The end of every helper script: one JSON request a line on stdin, answered by the function of
# CALLS it names, one answer a line on stdout.
SERVE = r"""
import json, sys, traceback
for line in sys.stdin:
    request = json.loads(line)
    try:
        answer = {"ok": CALLS[request["call"]](**request["args"])}
    except Exception:
        answer = {"error": traceback.format_exc()}
    sys.stdout.write("@@" + json.dumps(answer) + "\n")
    sys.stdout.flush()
"""

# The calls of the workers' figures, as a script that defines CALLS (other helpers extend it).
CALLS_SCRIPT = r'''
import datetime as dt, json, sys, time, traceback
from django.conf import settings
from django.db.models import Count
from django.utils import timezone
from accounts.models import SocialAccount
from publishing import handover, release
from publishing.models import DeliveryAttempt, DeliveryJob, Publish, ScheduledRelease, Target
from teams.models import Team

CHUNK = 2000

def _rows(tag, n, accounts, state, due=None):
    """n publishes of one target each (accounts taken in turn), written in bulk."""
    team = SocialAccount.objects.get(pk=accounts[0]).team
    owned = {str(a.pk): a for a in SocialAccount.objects.filter(pk__in=accounts)}
    now = timezone.now()
    made = []
    for start in range(0, n, CHUNK):
        publishes, targets, extra = [], [], []
        for i in range(start, min(n, start + CHUNK)):
            account = owned[accounts[i % len(accounts)]]
            publish = Publish(
                team=team, content=f"Bench {tag}: {i}", confirmed=True,
                publish_mode="scheduled" if state == "scheduled" else "immediate",
                status="scheduled" if state == "scheduled" else "publishing",
                scheduled_at=due, released_at=None if state == "scheduled" else now,
            )
            publishes.append(publish)
            targets.append(Target(
                publish=publish, account=account, platform=account.platform, state=state,
                attempt_count=0 if state == "scheduled" else 1,
            ))
        Publish.objects.bulk_create(publishes)
        Target.objects.bulk_create(targets)
        if state == "scheduled":
            ScheduledRelease.objects.bulk_create([ScheduledRelease(publish=p, due_at=due) for p in publishes])
        else:
            claimable = now - dt.timedelta(seconds=1)
            jobs = [
                DeliveryJob(target=t, number=1, dispatch_id=f"deliver:{t.pk}:1", not_before=claimable) for t in targets
            ]
            made += [str(j.pk) for j in DeliveryJob.objects.bulk_create(jobs)]
    return made

def seed():
    import io
    from django.core.management import call_command
    out = io.StringIO()
    call_command("seed_demo", "--fresh", "--json", stdout=out)
    return json.loads(out.getvalue())

def make_keys(team, n):
    from teams import services
    from teams.models import SCOPES, Membership, Role
    owner = Membership.objects.select_related("team", "user").get(team_id=team, role=Role.OWNER)
    return [
        services.api_key_create(user=owner.user, name=f"bench {k}", scopes=SCOPES, team=owner.team)[1]
        for k in range(n)
    ]

def make_jobs(tag, n, accounts, enqueue):
    ids = _rows(tag, n, accounts, "queued")
    started = time.perf_counter()
    if enqueue:
        for start in range(0, len(ids), 500):
            handover.send_jobs(ids[start:start + 500])
    return {"jobs": len(ids), "enqueue_seconds": time.perf_counter() - started}

def make_scheduled(tag, n, accounts):
    far = timezone.now() + dt.timedelta(days=1)
    _rows(tag, n, accounts, "scheduled", due=far)
    return n

def settle_leftovers():
    return DeliveryJob.objects.exclude(state="done").update(state="done")

def tick_seconds():
    return float(settings.SCHEDULER_TICK_SECONDS)

def tick():
    from publishing.tasks import release_due
    release_due.delay()

def set_due(tag, at):
    due = dt.datetime.fromtimestamp(at, dt.timezone.utc)
    Publish.objects.filter(content__startswith=f"Bench {tag}: ").update(scheduled_at=due)
    return ScheduledRelease.objects.filter(publish__content__startswith=f"Bench {tag}: ").update(due_at=due)

def relay_drain(tag, max_calls):
    jobs = DeliveryJob.objects.filter(target__publish__content__startswith=f"Bench {tag}: ")
    calls, seconds = [], []
    while len(calls) < max_calls and jobs.filter(enqueued_at__isnull=True).exists():
        started = time.perf_counter()
        calls.append(release.relay())
        seconds.append(time.perf_counter() - started)
    return {"calls": calls, "seconds": seconds, "left": jobs.filter(enqueued_at__isnull=True).count(),
            "interval": float(settings.CELERY_BEAT_SCHEDULE["publishing-relay"]["schedule"])}

def claims_report(tag):
    jobs = DeliveryJob.objects.filter(target__publish__content__startswith=f"Bench {tag}: ")
    attempts = DeliveryAttempt.objects.filter(target__publish__content__startswith=f"Bench {tag}: ")
    stamp = lambda m: None if m is None else m.timestamp()
    claimed = sorted(stamp(c) for c in jobs.exclude(claimed_at=None).values_list("claimed_at", flat=True))
    finished = sorted(stamp(f) for f in attempts.exclude(finished_at=None).values_list("finished_at", flat=True))
    return {
        "jobs": dict(jobs.values_list("state").annotate(n=Count("id")).values_list("state", "n")),
        "runs_over_one": jobs.filter(runs__gt=1).count(),
        "attempts": attempts.count(),
        "published": Target.objects.filter(publish__content__startswith=f"Bench {tag}: ", state="published").count(),
        "claimed": claimed, "finished": finished,
    }

def release_report(tag):
    stamp = lambda m: None if m is None else m.timestamp()
    publishes = Publish.objects.filter(content__startswith=f"Bench {tag}: ")
    jobs = DeliveryJob.objects.filter(target__publish__in=publishes)
    handed = {str(p): stamp(e) for p, e in jobs.values_list("target__publish_id", "enqueued_at")}
    released = {str(p): stamp(r) for p, r in publishes.values_list("id", "released_at")}
    due = {str(p): stamp(d) for p, d in publishes.values_list("id", "scheduled_at")}
    return {"due": due, "released": released, "handed": handed,
            "waiting": ScheduledRelease.objects.filter(publish__in=publishes).count(),
            "jobs": DeliveryJob.objects.filter(target__publish__in=publishes).count(),
            "tick": float(settings.SCHEDULER_TICK_SECONDS)}

def watch(ids, wait):
    deadline = time.monotonic() + wait
    while Publish.objects.filter(pk__in=ids).exclude(status__in=FINAL).exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    stamp = lambda m: None if m is None else m.timestamp()
    rows = {str(p.pk): {"status": p.status, "targets": []} for p in Publish.objects.filter(pk__in=ids)}
    for t in Target.objects.filter(publish_id__in=ids).prefetch_related("attempts"):
        rows[str(t.publish_id)]["targets"].append({
            "platform": t.platform, "state": t.state, "published_at": stamp(t.published_at),
            "error": f"{t.error_code} {t.error_message}".strip(), "attempts": t.attempts.count(),
        })
    return rows

FINAL = ("published", "failed", "partial")
CALLS = {
    f.__name__: f
    for f in (
        seed, make_keys, make_jobs, make_scheduled, settle_leftovers, tick_seconds, tick, set_due, relay_drain,
        claims_report, release_report, watch,
    )
}
'''
# Runs in `manage.py shell`.
HELPER = CALLS_SCRIPT + SERVE


class Helper:
    """A `manage.py shell` process on the scratch database that answers the calls of `script`
    (HELPER, or another script ending with SERVE)."""

    def __init__(self, env: dict[str, str], log: IO[bytes], script: str = HELPER) -> None:
        self.log = log
        self.proc = subprocess.Popen(  # noqa: S603 - our own interpreter running our own code
            [sys.executable, "manage.py", "shell", "-v0", "-c", script],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            start_new_session=True,
        )

    def __call__(self, call: str, **args: Any) -> Any:
        assert self.proc.stdin is not None  # pipes were asked for
        assert self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"call": call, "args": args}) + "\n")
        self.proc.stdin.flush()
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"the helper process exited during {call}")
            if line.startswith("@@"):
                answer = json.loads(line[2:])
                if "error" in answer:
                    raise RuntimeError(f"helper call {call} failed:\n{answer['error']}")
                return answer["ok"]

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()

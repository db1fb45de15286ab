"""What differs between the kinds of unit sent to a platform once, as data beside the one
path they share (`sending.job_run`, `publishing.delivery`: claim, start, call, finish, read
back): a target's own post, and a reply in its thread. Each kind has its outbox job and its
attempt rows, and its states in `publishing.transitions`; what follows a reply's or a target's
answer in its thread is `publishing.threads`' (the next reply's job, written with the answer).

- `max_tries`: sends of one unit that a not-sent answer (nothing was created: a refused
  connection, a 429 before any write) may take, with a growing pause between them, before the
  unit fails with that answer; for a reply, also the sends a read-back's proof of absence may
  add.
- the read-back of a unit whose outcome is open (processing, or unknown: sent without a clear
  answer): first asked `first_check` after the send, then at a doubling pause capped at
  `max_check_pause`, `max_checks` times at most (the unit then stays visibly open).
- `absent`: what a read-back that does not find the post means once RECONCILE_ABSENT_AFTER_SECONDS
  have passed since the send: `FAIL` for a target (it fails with that evidence; a retry is the
  user's call), `SEND_AGAIN` for a reply (proven absent, it is sent anew, a new attempt and
  job, within `max_tries`: the only unit ever sent again, and never before the read-back
  proved it absent).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

FAIL, SEND_AGAIN = "fail", "send again"
# What a client's check() answers for a ref it cannot follow: the post is then looked for
# among the account's recent posts instead (find_recent).
NO_REF = "NO_REF"


@dataclass(frozen=True)
class Policy:
    kind: str
    max_tries: int
    first_check: dt.timedelta
    max_check_pause: dt.timedelta
    max_checks: int
    absent: str

    def backoff(self, tries: int, retry_after: float | None) -> dt.timedelta:
        """The pause before the next send after `tries` not-sent answers: doubling, or longer
        when the platform said how long to wait."""
        return dt.timedelta(seconds=max(retry_after or 0.0, 2.0**tries))

    def next_check(self, now: dt.datetime, checks: int) -> dt.datetime | None:
        """When to read an open unit back again after `checks` read-backs; None once asked enough."""
        if checks >= self.max_checks:
            return None
        pause: dt.timedelta = min(self.first_check * 2 ** min(checks, 10), self.max_check_pause)
        return now + pause


TARGET = Policy(
    kind="target",
    max_tries=5,
    first_check=dt.timedelta(seconds=5),
    max_check_pause=dt.timedelta(minutes=10),
    max_checks=200,
    absent=FAIL,
)
REPLY = Policy(
    kind="reply",
    max_tries=5,
    first_check=dt.timedelta(seconds=5),
    max_check_pause=dt.timedelta(minutes=10),
    max_checks=200,
    absent=SEND_AGAIN,
)
# A job claimed this many times without an answer (its workers lost before sending)
# fails: a delivery that kills its worker again and again must end, not loop.
MAX_RUNS = TARGET.max_tries + 3

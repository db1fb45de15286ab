"""What merging one account into its twin asks of the apps above accounts.

Deleting a team merges each of its accounts that the receiving team already has (same
platform identity) into the receiver's row. Rows of other apps point at accounts (publishing's
targets do, and protect the account from deletion), so before the duplicate goes, every app
that points at accounts re-points its rows to the twin. Those apps register a repointer here in
their `AppConfig.ready()`; `repoint` runs them all, inside the caller's transaction.
"""

from __future__ import annotations

from typing import Protocol

from accounts.models import SocialAccount
from config.registry import Registry


class Repointer(Protocol):
    def __call__(self, *, duplicate: SocialAccount, twin: SocialAccount) -> None: ...


repointers: Registry[Repointer] = Registry()


def register(repointer: Repointer) -> None:
    repointers.register(repointer)


def repoint(*, duplicate: SocialAccount, twin: SocialAccount) -> None:
    for repointer in repointers:
        repointer(duplicate=duplicate, twin=twin)

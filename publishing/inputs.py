"""What a caller hands a publish transition (`publishing.lifecycle`, `publishing.approval`):
who asks, and the targets and thread items of a create or an edit, as parsed from the API, the
dashboard or the admin."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import User

from publishing.models import Target, ThreadItem
from teams.models import ApiKey


@dataclass
class Caller:
    """Who asks for a transition: the user, the key (None in the dashboard and admin) and
    whether they may approve in the publish's team (owner or admin)."""

    user: User | None
    key: ApiKey | None = None
    can_approve: bool = False


@dataclass(frozen=True)
class ThreadItemInput:
    """One later post of a target's thread: its own text and media (nothing is inherited)."""

    content: str = ""
    media_ids: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class TargetInput:
    """One target of a request. Fields left None are inherited (create) or kept (PATCH)."""

    account_id: str
    content: str | None = None
    media_ids: list[str] | None = None
    platform_settings: dict[str, Any] | None = None
    fields: frozenset[str] = field(default_factory=frozenset)  # which of the four were supplied
    thread: list[ThreadItemInput] | None = None  # None: none (create) or the stored one (PATCH)


def with_thread(target: Target, entry: TargetInput) -> Target:
    """`target` carrying the thread `entry` gives (unsaved items, positions from 1)."""
    if entry.thread is not None:
        target.thread = [
            ThreadItem(target=target, position=j, content=item.content, media_ids=list(item.media_ids))
            for j, item in enumerate(entry.thread, start=1)
        ]
    return target

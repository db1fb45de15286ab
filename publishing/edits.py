"""The edits a request makes to a publish's targets, applied in memory before a transition
checks and writes them: a PATCH's complete new set of targets, and a retry's changes to the
targets that failed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from accounts.models import SocialAccount
from config.errors import InvalidRequest
from publishing.models import Publish, PublishStatus, Target, TargetState, ThreadItem, ThreadItemKind

if TYPE_CHECKING:
    from publishing.inputs import TargetInput

_SENT_FIELDS = ("content", "media_ids", "platform_settings")


def patched_targets(
    publish: Publish,
    existing: Mapping[str, Target],
    wanted: Sequence[TargetInput],
    *,
    accounts: Mapping[str, SocialAccount],
    media_changed: bool,
) -> list[Target]:
    """The publish's new set of targets: a kept one (same account) takes the fields given and
    keeps the others, a new one starts as the publish stands (draft or scheduled). New top-level
    media replace a kept target's own unless its entry gives them."""
    from publishing.inputs import with_thread  # the lifecycle imports this module

    rows = []
    for entry in wanted:
        target = existing.get(entry.account_id) or Target(
            publish=publish,
            account=accounts[entry.account_id],
            platform=accounts[entry.account_id].platform,
            state=TargetState.SCHEDULED if publish.status == PublishStatus.SCHEDULED else TargetState.DRAFT,
        )
        if "content" in entry.fields:
            target.content = entry.content
        if "media_ids" in entry.fields:
            target.media_ids = entry.media_ids
        elif media_changed:
            target.media_ids = None  # the new top-level media replaces it
        if "platform_settings" in entry.fields:
            target.platform_settings = entry.platform_settings or {}
        rows.append(with_thread(target, entry))
    return rows


def apply_retry_edits(publish: Publish, targets: Sequence[Target], edits: Sequence[Mapping[str, Any]]) -> bool:
    """Apply a retry's edits to the failed targets they name; whether any changes what a
    target sends (an edit that repeats what is sent changes nothing)."""
    edited = False
    for index, edit in enumerate(edits):
        target = _target_of(targets, edit, index)
        if target.state != TargetState.FAILED:
            raise InvalidRequest(
                f"targets[{index}]: only a failed target can be edited and re-sent; this one is {target.status}.",
                code="TARGET_NOT_FAILED",
                details={"index": index, "target_id": str(target.pk)},
            )
        for name in _SENT_FIELDS:
            if name in edit:
                value = edit[name] if name != "platform_settings" else edit[name] or {}
                edited = edited or _sent_value(publish, target, name) != _sent_value(publish, target, name, value)
                setattr(target, name, value)
        if "thread" in edit:
            edited = _thread_edited(target, edit["thread"]) or edited
    return edited


def _thread_edited(target: Target, thread: Sequence[Any]) -> bool:
    """Give the failed target the thread of a retry's edit; whether it differs from the stored one."""
    from publishing.inputs import TargetInput, with_thread  # the lifecycle imports this module

    stored = [
        (i.content, list(i.media_ids)) for i in ThreadItem.objects.filter(target=target, kind=ThreadItemKind.REPLY)
    ]
    with_thread(target, TargetInput(account_id=str(target.account_id), thread=list(thread)))
    return stored != [(item.content, list(item.media_ids)) for item in target.thread or ()]


def _sent_value(publish: Publish, target: Target, name: str, value: Any = ...) -> Any:
    """What the target sends for `name` (its own value, else the publish's), with `value` as
    its own value when given: an edit that names what is sent already changes nothing."""
    own = getattr(target, name) if value is ... else value
    return getattr(publish, name, None) if own is None and name != "platform_settings" else own


def _target_of(targets: Sequence[Target], edit: Mapping[str, Any], index: int) -> Target:
    key, value = (
        ("target_id", edit.get("target_id")) if edit.get("target_id") else ("account_id", edit.get("account_id"))
    )
    if not value:
        raise InvalidRequest(f"targets[{index}] needs target_id or account_id.", code="TARGET_REQUIRED")
    for target in targets:
        if str(target.pk if key == "target_id" else target.account_id) == str(value):
            return target
    raise InvalidRequest(
        f"targets[{index}]: this publish has no target with {key} {value}.",
        code="TARGET_NOT_FOUND",
        details={"index": index, key: str(value)},
    )

"""A publish copied into a new draft of the same team (the dashboard's "Duplicate", and the way
on from a rejected publish, which stays rejected): its text and media, and each target's own
text, media, settings and thread, for the accounts that can still publish. Media no longer
ready in the team are left out. The copy is made by `lifecycle.publish_create`, so it is
checked as any new draft is; it has no time, and is the caller's."""

from __future__ import annotations

from accounts.models import AccountStatus
from config.errors import InvalidRequest, NotFound
from media.selectors import ready_media_by_ids
from publishing import lifecycle
from publishing.inputs import Caller, TargetInput, ThreadItemInput
from publishing.models import Id, Publish, PublishMode, Target, ThreadItemKind
from teams.models import Team


def publish_duplicate(*, team: Team, publish_id: Id, caller: Caller) -> Publish:
    """A new draft with what the team's publish `publish_id` sends; 404 for another team's."""
    related = ("targets__account", "targets__thread_items")
    original = Publish.objects.filter(team=team, pk=publish_id).prefetch_related(*related).first()
    if original is None:
        raise NotFound("No such publish.", code="PUBLISH_NOT_FOUND")
    targets = [t for t in original.targets.all() if _can_publish(t)]
    if not targets:
        raise InvalidRequest(
            "None of this post's accounts is connected any more, so there is nothing to copy it to. "
            "Write a new post on the Compose page.",
            code="TARGETS_REQUIRED",
        )
    ready = _ready(team, original, targets)
    return lifecycle.publish_create(
        team=team,
        caller=caller,
        content=original.content,
        media_ids=[i for i in original.media_ids if i in ready],
        targets=[_copy(t, ready) for t in targets],
        publish_mode=PublishMode.DRAFT,
        scheduled_at=None,
    )


def _can_publish(target: Target) -> bool:
    return target.account.status == AccountStatus.ACTIVE


def _ready(team: Team, publish: Publish, targets: list[Target]) -> set[str]:
    """The ids among those the publish names that are still ready uploads of the team."""
    named = [str(i) for i in publish.media_ids]
    for target in targets:
        named += [str(i) for i in target.media_ids or ()]
        named += [str(i) for item in target.thread_items.all() for i in item.media_ids]
    found, _ = ready_media_by_ids(team=team, media_ids=list(dict.fromkeys(named)))
    return {str(upload.pk) for upload in found}


def _copy(target: Target, ready: set[str]) -> TargetInput:
    replies = [item for item in target.thread_items.all() if item.kind == ThreadItemKind.REPLY]
    items = sorted(replies, key=lambda item: item.position)
    return TargetInput(
        account_id=str(target.account_id),
        content=target.content,
        media_ids=None if target.media_ids is None else [str(i) for i in target.media_ids if str(i) in ready],
        platform_settings=dict(target.platform_settings or {}),
        thread=[ThreadItemInput(item.content, [str(i) for i in item.media_ids if str(i) in ready]) for item in items]
        or None,
    )

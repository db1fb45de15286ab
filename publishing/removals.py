"""Published posts found gone from their platform: deleted by their owner there, or removed by
moderation.

Only the platform's own word counts: `client.exists()` answering False (a 404, "does not
exist"). A read that fails (a timeout, a 5xx, a 429, a refused token) says nothing about the
post, so `target_check_removed` then leaves the target as it is, to be asked again later.

`target_removed_on_platform` records it with a conditional update (a published target not
removed yet), so however many syncs or read-backs find the same post gone, the target is marked
once and `post.removed` is emitted once, in the same transaction as the mark. The target stays
`published` (it was); `removed_at` and `removed_by` say what became of it, and a removed target
is not read again (`analytics.services` skips it).
"""

from __future__ import annotations

import datetime as dt
import logging

from django.db import transaction
from django.utils import timezone

from accounts.platforms.base import Connection, PlatformClient, PlatformError
from accounts.platforms.registry import NoClient
from accounts.services import platform_call
from publishing import delivery
from publishing.models import Id, RemovedBy, Target, TargetState
from publishing.status import event_data
from webhooks.models import EventType
from webhooks.services import emit

logger = logging.getLogger(__name__)


def target_removed_on_platform(*, target_id: Id, now: dt.datetime | None = None) -> bool:
    """Mark the published target removed by its platform and emit `post.removed`, once:
    False when it is not published or was marked removed already."""
    now = now or timezone.now()
    with transaction.atomic():
        claimed = Target.objects.filter(pk=target_id, state=TargetState.PUBLISHED, removed_at__isnull=True).update(
            removed_at=now, removed_by=RemovedBy.PLATFORM, updated_at=now
        )
        if not claimed:
            return False
        target = Target.objects.select_related("publish__team").get(pk=target_id)
        data = event_data(target.publish, targets=[target], removed_by=RemovedBy.PLATFORM.value)
        emit(team=target.publish.team, event_type=EventType.POST_REMOVED, data=data)
    return True


def target_check_removed(*, target: Target, now: dt.datetime | None = None) -> bool:
    """Ask the platform whether the published target's post is still there, and record its
    removal when the platform says it is gone. True when the target is (now) marked removed;
    False when the post is there or the platform could not say (that is logged)."""
    attempt = delivery.last_attempt(target)
    ref = dict(attempt.ref) if attempt is not None else {}

    def ask(client: PlatformClient, conn: Connection) -> bool:
        return client.exists(conn, target.platform_post_id, ref)

    try:
        there = platform_call(account=target.account, call=ask)
    except (PlatformError, NotImplementedError, NoClient) as exc:
        logger.info("Could not tell whether target %s is still on %s: %r", target.pk, target.platform, exc)
        return False
    if there:
        return False
    target_removed_on_platform(target_id=target.pk, now=now)  # False: a parallel run marked it
    return True

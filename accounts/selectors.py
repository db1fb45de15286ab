from __future__ import annotations

from collections.abc import Sequence

from django.db.models import Q, QuerySet

from accounts.models import GONE_STATUSES, AccountStatus, PostingSchedule, SocialAccount
from teams.models import Team


def accounts_for_team(
    *, team: Team, platforms: Sequence[str] = (), statuses: Sequence[str] = ()
) -> QuerySet[SocialAccount]:
    """The team's accounts, oldest first. Disconnected ones are left out unless `statuses`
    names that status: their history stays, but they are no longer the team's to publish to."""
    accounts = SocialAccount.objects.filter(team=team)
    if platforms:
        accounts = accounts.filter(platform__in=platforms)
    chosen = Q(status__in=statuses) if statuses else ~Q(status=AccountStatus.DISCONNECTED)
    accounts = accounts.filter(chosen)
    return accounts.order_by("created_at", "id")


def accounts_counted(*, team: Team) -> int:
    """The team's accounts that count against its plan: every one not disabled or disconnected."""
    return SocialAccount.objects.filter(team=team).exclude(status__in=GONE_STATUSES).count()


def accounts_to_reconnect(*, team: Team) -> QuerySet[SocialAccount]:
    """The team's accounts whose authorization expired or was revoked: they publish nothing
    until an owner or admin re-authorizes them."""
    return accounts_for_team(team=team, statuses=[AccountStatus.EXPIRED]).defer("access_token", "refresh_token")


def posting_schedule_of(*, account: SocialAccount) -> PostingSchedule:
    """The account's posting schedule; an unsaved empty one in UTC when it has none."""
    schedule = PostingSchedule.objects.filter(account=account).first()
    return schedule or PostingSchedule(account=account)


def posting_schedules_for_team(*, team: Team) -> list[PostingSchedule]:
    """The schedules with slots of the team's accounts still connected (not disconnected), each
    with its account, in one query."""
    found = (
        PostingSchedule.objects.filter(account__team=team)
        .exclude(account__status__in=GONE_STATUSES)
        .select_related("account")
        .defer("account__access_token", "account__refresh_token")
        .order_by("account__created_at", "account__id")
    )
    return [schedule for schedule in found if schedule.slots]

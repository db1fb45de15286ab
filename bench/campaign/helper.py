"""The calls the campaign figures add to the workers' helper (`bench.workers.helper`): many
sandbox accounts in one team, a campaign of scheduled publishes written as a create writes
them, what became of it, and the removal of the stored media files.
"""

from __future__ import annotations

from bench.workers.helper import CALLS_SCRIPT, SERVE

CAMPAIGN_CALLS = r'''
from accounts.models import SocialAccount
from demo.seed import sandbox_account
from media import storage
from media.models import MediaUpload
from teams.models import Membership, Role

def make_accounts(team, platforms, each):
    """`each` sandbox accounts of every platform in the team: {platform: [ids]}."""
    team = Team.objects.get(pk=team)
    made = {}
    for platform in platforms:
        accounts = [sandbox_account(team, platform, suffix=f"_c{n}") for n in range(each)]
        # sandbox_account words a suffixed account as needing re-authorization; these are active.
        SocialAccount.objects.filter(pk__in=[a.pk for a in accounts]).update(status_reason="")
        made[platform] = [str(a.pk) for a in accounts]
    return made

def make_campaign(tag, n, accounts):
    """n scheduled publishes, each with one target on every platform of `accounts` (accounts
    taken in turn), due in a day: the rows publish_create writes for publish_mode scheduled
    (publish scheduled and confirmed, targets scheduled without an attempt, one release row)."""
    first = SocialAccount.objects.get(pk=next(iter(accounts.values()))[0])
    owner = Membership.objects.select_related("user").get(team_id=first.team_id, role=Role.OWNER).user
    owned = SocialAccount.objects.in_bulk([a for ids in accounts.values() for a in ids], field_name="pk")
    owned = {str(pk): account for pk, account in owned.items()}
    due = timezone.now() + dt.timedelta(days=1)
    for start in range(0, n, CHUNK):
        publishes = [
            Publish(
                team_id=first.team_id, created_by=owner, content=f"Bench {tag}: {i}", media_ids=[],
                publish_mode="scheduled", scheduled_at=due, status="scheduled", confirmed=True,
            )
            for i in range(start, min(n, start + CHUNK))
        ]
        targets = [
            Target(
                publish=publish, account=owned[ids[i % len(ids)]], platform=owned[ids[i % len(ids)]].platform,
                content=None, media_ids=None, platform_settings={}, state="scheduled", attempt_count=0,
            )
            for i, publish in zip(range(start, n), publishes)
            for ids in accounts.values()
        ]
        Publish.objects.bulk_create(publishes)
        Target.objects.bulk_create(targets)
        ScheduledRelease.objects.bulk_create([ScheduledRelease(publish=p, due_at=due) for p in publishes])
    return Target.objects.filter(publish__content__startswith=f"Bench {tag}: ").count()

def campaign_report(tag):
    targets = Target.objects.filter(publish__content__startswith=f"Bench {tag}: ")
    stamp = lambda m: None if m is None else m.timestamp()
    published = targets.exclude(published_at=None).values_list("published_at", flat=True)
    return {
        "states": dict(targets.values_list("state").annotate(n=Count("id")).values_list("state", "n")),
        "attempts_over_one": targets.annotate(n=Count("attempts")).filter(n__gt=1).count(),
        "errors": list(targets.exclude(error_code="").values_list("platform", "error_code", "error_message")[:5]),
        "published_at": sorted(stamp(p) for p in published),
        "waiting": ScheduledRelease.objects.filter(publish__content__startswith=f"Bench {tag}: ").count(),
    }

def drop_media(team):
    """Remove the team's stored media files (the rows stay): a bench's videos are gigabytes."""
    pairs = MediaUpload.objects.filter(team_id=team).values_list("storage_key", "content_key")
    keys = [key for pair in pairs for key in pair]
    for key in filter(None, keys):
        storage.delete(key)
    return len(keys)

CALLS.update({f.__name__: f for f in (make_accounts, make_campaign, campaign_report, drop_media)})
'''

CAMPAIGN_HELPER = CALLS_SCRIPT + CAMPAIGN_CALLS + SERVE

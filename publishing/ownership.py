"""Publishing's part when a team is deleted and its content moves to another team.

`move_to_team` hands the team's publishes over (`teams.moves`); everything else publishing
keeps (targets, attempts, outbox jobs, schedule rows, analytics) hangs off a publish and moves
with it. `targets_repoint` follows an account merged into the receiving team's twin
(`accounts.merges`). Both run inside the deletion's transaction, which holds both team rows.
"""

from __future__ import annotations

from django.utils import timezone

from accounts.models import SocialAccount
from publishing.models import Publish, Target
from teams.models import Team


def move_to_team(*, source: Team, target: Team) -> dict[str, int]:
    # Workers lock a publish row and re-read it before changing it, so a delivery in flight
    # finishes in the target team and its events go to the target's webhooks.
    moved = Publish.objects.filter(team=source).update(team=target, updated_at=timezone.now())
    return {"moved_publishes": moved}


def targets_repoint(*, duplicate: SocialAccount, twin: SocialAccount) -> None:
    # A publish targets accounts of its own team only, so no publish gets two targets here.
    Target.objects.filter(account=duplicate).update(account=twin, updated_at=timezone.now())

"""Deleting a team reaches the rows of the apps above teams only through what they register:
the movers of `teams.moves`, the account repointers of `accounts.merges` and the usage
counters of `teams.usage`. A missing registration must fail a deletion, not lose rows."""

from __future__ import annotations

import pytest
from django.utils import timezone

from accounts import merges
from accounts import selectors as account_selectors
from accounts import services as account_services
from accounts.models import SocialAccount
from analytics import totals
from analytics.models import PostTotals
from analytics.selectors import analytics_platform_totals, analytics_posts
from config.registry import Registry
from demo.seed import sandbox_account
from media import services as media_services
from publishing import ownership
from publishing.models import Publish, Target
from teams import moves, services, usage
from teams.models import ApiKey, Team
from webhooks import services as webhook_services


def test_the_five_apps_register_their_movers_in_the_order_deletion_runs_them():
    assert list(moves.movers) == [
        account_services.move_to_team,
        ownership.move_to_team,
        totals.move_to_team,
        media_services.move_to_team,
        webhook_services.move_to_team,
    ]


@pytest.mark.django_db
def test_post_totals_follow_their_publishes_into_the_team_they_move_to(owner):
    second = services.team_create(name="Acme Two", owner=owner.user)
    now = timezone.now()
    published = []
    for team in (owner.team, second):  # each with a post on X
        publish = Publish.objects.create(
            team=team, content="Moved", publish_mode="immediate", status="published", confirmed=True, published_at=now
        )
        Target.objects.create(
            publish=publish,
            account=sandbox_account(team, "x"),
            platform="x",
            state="published",
            platform_post_id=str(publish.pk),
            published_at=now,
        )
        published.append(publish.pk)
    totals.refresh(published)

    moves.move_to_team(source=owner.team, target=second)

    assert set(PostTotals.objects.values_list("team_id", flat=True)) == {second.pk}
    assert {p.pk for p in analytics_posts(team=second)} == set(published)
    assert list(analytics_posts(team=owner.team)) == []
    assert [(row["platform"], row["posts"]) for row in analytics_platform_totals(team=second)] == [("x", 2)]
    assert analytics_platform_totals(team=owner.team) == []


def test_publishing_follows_a_merged_account_to_its_twin():
    assert list(merges.repointers) == [ownership.targets_repoint]


def test_accounts_and_media_register_the_usage_they_count():
    assert dict(usage.counters) == {
        "social_accounts": account_selectors.accounts_counted,
        "media_storage_bytes": media_services.storage_used,
    }


def test_registering_a_mover_again_runs_it_once():
    registry: Registry[str] = Registry()
    registry.register("b", order=20)
    registry.register("a", order=10)
    registry.register("b", order=5)

    assert list(registry) == ["a", "b"]


@pytest.mark.django_db
def test_a_deletion_missing_an_apps_mover_fails_and_changes_nothing(owner, monkeypatch):
    second = services.team_create(name="Acme Two", owner=owner.user)
    account = sandbox_account(owner.team, "x")
    without_media: Registry[moves.TeamMover] = Registry()
    for mover in moves.movers:
        if mover is not media_services.move_to_team:
            without_media.register(mover)
    monkeypatch.setattr(moves, "movers", without_media)
    source_id, used_key = owner.team.pk, ApiKey.objects.filter(team=owner.team).first()

    with pytest.raises(KeyError, match="moved_media"):
        services.team_delete(
            user=owner.user, team=owner.team, destination_id=second.pk, confirmation_name="Acme", used_key=used_key
        )

    assert Team.objects.filter(pk=source_id).exists()
    assert SocialAccount.objects.get(pk=account.pk).team_id == source_id

from __future__ import annotations

import datetime as dt

import pytest

from accounts.models import AccountStatus
from config.errors import QuotaExceeded
from teams import services
from teams.models import MonthlyUsage
from tests.factories import PlanFactory, SocialAccountFactory

pytestmark = pytest.mark.django_db


def _usage(api, key):
    response = api.as_(key).get("/api/v1/usage")
    assert response.status_code == 200
    return response.json()["data"]


def test_unlimited_plan_reports_null_limits(api, owner):
    body = _usage(api, owner.key)

    assert body["can_publish"] is True
    assert body["limits"] == {"posts_per_month": None, "social_accounts": None, "media_storage_gb": None}
    assert body["usage"]["posts_this_month"] == 0


def test_reports_the_plan_limits(api, owner):
    owner.team.plan = PlanFactory(posts_per_month=2, social_accounts=5, media_storage_gb=10)
    owner.team.save()

    body = _usage(api, owner.key)

    assert body["limits"] == {"posts_per_month": 2, "social_accounts": 5, "media_storage_gb": 10}


def test_counts_connected_accounts_but_not_disabled_ones(api, owner, outsider):
    SocialAccountFactory(team=owner.team)
    SocialAccountFactory(team=owner.team, status=AccountStatus.EXPIRED)
    SocialAccountFactory(team=owner.team, status=AccountStatus.DISABLED)
    SocialAccountFactory(team=outsider.team)

    assert _usage(api, owner.key)["usage"]["social_accounts"] == 2


def test_consuming_the_quota_shows_in_usage_and_stops_publishing(api, owner):
    owner.team.plan = PlanFactory(posts_per_month=2)
    owner.team.save()

    services.quota_consume(team=owner.team)
    services.quota_consume(team=owner.team)

    body = _usage(api, owner.key)
    assert body["usage"]["posts_this_month"] == 2
    assert body["can_publish"] is False
    with pytest.raises(QuotaExceeded):
        services.quota_consume(team=owner.team)
    assert MonthlyUsage.objects.get(team=owner.team).posts == 2


def test_a_refused_batch_takes_nothing(owner):
    owner.team.plan = PlanFactory(posts_per_month=2)
    owner.team.save()
    services.quota_consume(team=owner.team)

    with pytest.raises(QuotaExceeded) as refused:
        services.quota_consume(team=owner.team, posts=2)

    assert refused.value.status_code == 429
    assert refused.value.type == "quota_exceeded"
    assert MonthlyUsage.objects.get(team=owner.team).posts == 1


def test_last_months_posts_do_not_count(api, owner):
    owner.team.plan = PlanFactory(posts_per_month=1)
    owner.team.save()
    last_month = services.month_start() - dt.timedelta(days=1)
    MonthlyUsage.objects.create(team=owner.team, month=last_month.replace(day=1), posts=1)

    body = _usage(api, owner.key)

    assert body["usage"]["posts_this_month"] == 0
    assert body["can_publish"] is True


def test_the_period_is_the_current_utc_month(api, owner):
    body = _usage(api, owner.key)

    start = dt.date.fromisoformat(body["period"]["start"])
    end = dt.date.fromisoformat(body["period"]["end"])
    assert start.day == 1
    assert (end + dt.timedelta(days=1)).day == 1
    assert start <= dt.datetime.now(dt.UTC).date() <= end


def test_usage_is_the_key_teams(api, owner, outsider):
    outsider.team.plan = PlanFactory(posts_per_month=7)
    outsider.team.save()

    assert _usage(api, owner.key)["limits"]["posts_per_month"] is None
    assert _usage(api, outsider.key)["limits"]["posts_per_month"] == 7


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_creates_never_overrun_the_quota():
    """Ten transactions race for a plan of 2 posts: exactly two win, and the count says 2."""
    import threading

    from django.db import connection, transaction

    from teams.models import Team
    from tests.factories import UserFactory

    team = services.team_create(name="Racers", owner=UserFactory(), plan=PlanFactory(posts_per_month=2))
    barrier = threading.Barrier(10)
    outcomes: list[str] = []

    def create_one() -> None:
        try:
            barrier.wait()
            with transaction.atomic():
                services.quota_consume(team=Team.objects.get(pk=team.pk))
            outcomes.append("ok")
        except QuotaExceeded:
            outcomes.append("refused")
        finally:
            connection.close()

    threads = [threading.Thread(target=create_one) for _ in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(outcomes) == ["ok", "ok"] + ["refused"] * 8
    assert MonthlyUsage.objects.get(team=team).posts == 2

"""`checks.publish_check`: the create's own rules, run without creating, counting or sending
anything, reporting every problem of every target where the create stops at the first."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from accounts.models import AccountStatus
from config.errors import ApplicationError
from demo.seed import sandbox_account
from publishing import checks, inputs, lifecycle
from publishing.models import Publish, PublishMode
from teams.models import MonthlyUsage
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

NO_SUCH_ACCOUNT = "01900000-0000-7000-8000-000000000000"


def _request(team, user, *targets, can_approve=True, **overrides):
    return {
        "team": team,
        "caller": inputs.Caller(user=user, can_approve=can_approve),
        "content": "Hello",
        "media_ids": [],
        "targets": [t if isinstance(t, inputs.TargetInput) else inputs.TargetInput(account_id=t) for t in targets],
        "publish_mode": PublishMode.IMMEDIATE,
        "scheduled_at": None,
        **overrides,
    }


def _codes(problems):
    return [p.code for p in problems]


def test_a_request_the_create_accepts_checks_ok_and_nothing_is_written(owner, accounts):
    request = _request(owner.team, owner.user, str(accounts.x.pk), str(accounts.bluesky.pk))

    result = checks.publish_check(**request)

    assert result.ok
    assert [(t.platform, t.length, t.limit) for t in result.targets] == [("x", 5, 280), ("bluesky", 5, 300)]
    assert Publish.objects.count() == 0
    assert MonthlyUsage.objects.count() == 0
    lifecycle.publish_create(**request)  # and the create takes it


def test_every_targets_problem_is_reported_where_the_create_stops_at_the_first(owner, accounts):
    expired = sandbox_account(owner.team, "x", suffix="_expired", status=AccountStatus.EXPIRED)
    targets = (str(expired.pk), NO_SUCH_ACCOUNT, str(accounts.x.pk), str(accounts.pinterest.pk))
    request = _request(owner.team, owner.user, *targets, content="a" * 300)

    with pytest.raises(ApplicationError) as raised:
        lifecycle.publish_create(**request)
    result = checks.publish_check(**request)

    assert raised.value.code == "ACCOUNT_EXPIRED"
    expired_check, missing, x, pinterest = result.targets
    assert _codes(expired_check.problems) == ["ACCOUNT_EXPIRED"]
    assert (missing.platform, _codes(missing.problems)) == (None, ["ACCOUNT_NOT_FOUND"])
    assert (x.length, _codes(x.problems)) == (300, ["TEXT_TOO_LONG"])
    assert {"MEDIA_REQUIRED", "BOARD_REQUIRED"} <= set(_codes(pinterest.problems))
    assert not result.ok


@pytest.mark.parametrize(
    ("overrides", "field", "code"),
    [
        ({"targets": []}, "targets", "TARGETS_REQUIRED"),
        ({"publish_mode": PublishMode.SCHEDULED}, "scheduled_at", "SCHEDULED_AT_REQUIRED"),
        (
            {"publish_mode": PublishMode.SCHEDULED, "scheduled_at": dt.datetime(2000, 1, 1, tzinfo=dt.UTC)},
            "scheduled_at",
            "SCHEDULED_AT_NOT_FUTURE",
        ),
        ({"scheduled_at": timezone.now() + dt.timedelta(days=1)}, "scheduled_at", "SCHEDULED_AT_NOT_ALLOWED"),
        ({"media_ids": [NO_SUCH_ACCOUNT]}, "media_ids", "MEDIA_NOT_FOUND"),
    ],
)
def test_a_problem_of_the_request_is_the_creates_own(owner, accounts, overrides, field, code):
    request = _request(owner.team, owner.user, str(accounts.x.pk), **overrides)

    with pytest.raises(ApplicationError) as raised:
        lifecycle.publish_create(**request)
    result = checks.publish_check(**request)

    assert raised.value.code == code
    assert [(p.field, p.code) for p in result.problems] == [(field, code)]
    assert Publish.objects.count() == 0


def test_an_account_named_twice_is_a_problem_of_the_request(owner, accounts):
    result = checks.publish_check(**_request(owner.team, owner.user, str(accounts.x.pk), str(accounts.x.pk)))

    assert [(p.field, p.code) for p in result.problems] == [("targets", "DUPLICATE_TARGET")]


def test_a_targets_own_text_is_what_is_counted(owner, accounts):
    own = inputs.TargetInput(account_id=str(accounts.x.pk), content="b" * 281)

    [x] = checks.publish_check(**_request(owner.team, owner.user, own)).targets

    assert (x.length, _codes(x.problems)) == (281, ["TEXT_TOO_LONG"])


def test_it_says_who_waits_for_approval(team, accounts):
    team.approval_required = True
    team.save()
    user = UserFactory()

    def waits(**kwargs):
        return checks.publish_check(**_request(team, user, str(accounts.x.pk), **kwargs)).waits_for_approval

    assert waits(can_approve=False) is True
    assert waits(can_approve=False, publish_mode=PublishMode.DRAFT) is False
    assert waits(can_approve=True) is False


def test_its_answer_is_plain_data(owner, accounts):
    result = checks.publish_check(**_request(owner.team, owner.user, str(accounts.x.pk), content="a" * 281))

    assert result.as_dict() == {
        "ok": False,
        "waits_for_approval": False,
        "problems": [],
        "targets": [
            {
                "account_id": str(accounts.x.pk),
                "platform": "x",
                "length": 281,
                "limit": 280,
                "problems": [
                    {
                        "field": "text",
                        "code": "TEXT_TOO_LONG",
                        "message": "Text counts 281 of X's 280 weighted characters.",
                    }
                ],
            }
        ],
        "warnings": [],
    }


def test_a_used_up_quota_is_a_problem_of_the_request_but_not_for_a_draft(team, owner, accounts):
    team.plan.posts_per_month = 1
    team.plan.save()
    lifecycle.publish_create(**_request(team, owner.user, str(accounts.x.pk)))

    result = checks.publish_check(**_request(team, owner.user, str(accounts.bluesky.pk)))

    [problem] = result.problems
    assert (problem.field, problem.code) == ("quota", "QUOTA_EXCEEDED")
    assert problem.message == "The plan allows 1 posts a month and 1 are used."
    assert MonthlyUsage.objects.get().posts == 1  # checking counted nothing
    draft = _request(team, owner.user, str(accounts.bluesky.pk), publish_mode=PublishMode.DRAFT)
    assert checks.publish_check(**draft).ok

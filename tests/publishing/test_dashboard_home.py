"""The home page (/dashboard/home/) and the approvals count in the navigation, through Django's
test client: what each section shows, and that nothing of a team the user is not in, nor an
approval they cannot give, reaches them."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import AccountStatus
from demo.seed import sandbox_account
from publishing import inputs, lifecycle
from publishing.models import Publish, PublishMode, PublishStatus
from publishing.views import home
from teams import services
from teams.models import Role
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

HOME = "/dashboard/home/"


def _create(user, accounts, content, *, mode=PublishMode.DRAFT, at=None, can_approve=True):
    return lifecycle.publish_create(
        team=accounts[0].team,
        caller=inputs.Caller(user=user, can_approve=can_approve),
        content=content,
        media_ids=[],
        targets=[inputs.TargetInput(account_id=str(a.pk)) for a in accounts],
        publish_mode=mode,
        scheduled_at=at,
    )


def _submit(user, account, content):
    """`user` (a member) submits an immediate publish in a team that requires approval."""
    team = account.team
    team.approval_required = True
    team.save()
    return _create(user, [account], content, mode=PublishMode.IMMEDIATE, can_approve=False)


def _in(hours):
    return timezone.now() + dt.timedelta(hours=hours)


def _get(client, persona, **params):
    client.force_login(persona.user)
    response = client.get(HOME, params)
    assert response.status_code == 200
    return response.content.decode()


def _section(page, name):
    match = re.search(rf'<section class="card" id="{name}".*?</section>', page, re.S)
    assert match, f"no {name} section"
    return match.group(0)


def _tally(section):
    return int(re.search(r'<span class="tally[^"]*">(\d+)</span>', section).group(1))


def _nav(page):
    return re.search(r'<nav aria-label="Main">.*?</nav>', page, re.S).group(0)


# --- where a user lands ------------------------------------------------------------------------


def test_the_login_and_the_site_root_lead_to_the_home_page(client, owner):
    owner.user.set_password("a long demo password")
    owner.user.save()

    login = client.post("/login/", {"username": owner.user.username, "password": "a long demo password"})

    assert login["Location"] == HOME
    assert client.get("/")["Location"] == HOME
    assert client.get(HOME).status_code == 200


def test_home_is_first_in_the_navigation_and_marked_current(client, owner):
    nav = _nav(_get(client, owner))

    links = re.findall(r"<a [^>]*>([^<]+)", nav)
    assert links[0] == "Home"
    assert f'href="{HOME}?team={owner.team.pk}" aria-current="page">Home' in nav


def test_the_home_page_needs_a_login(client):
    response = client.get(HOME)

    assert response.status_code == 302
    assert response["Location"].startswith("/login/")


# --- upcoming ----------------------------------------------------------------------------------


def test_upcoming_shows_the_next_seven_days_scheduled_posts_soonest_first(client, owner, accounts):
    both = [accounts.x, accounts.bluesky]
    later = _create(owner.user, both, "Later this week", mode=PublishMode.SCHEDULED, at=_in(100))
    soon = _create(owner.user, [accounts.x], "Tomorrow morning", mode=PublishMode.SCHEDULED, at=_in(20))
    _create(owner.user, [accounts.x], "Next month", mode=PublishMode.SCHEDULED, at=_in(24 * 9))
    _create(owner.user, [accounts.x], "Just a draft", at=_in(30))

    section = _section(_get(client, owner), "upcoming")

    assert _tally(section) == 2
    assert section.index("Tomorrow morning") < section.index("Later this week")
    assert "Next month" not in section
    assert "Just a draft" not in section
    assert f'href="/dashboard/publishes/{soon.pk}/?team={owner.team.pk}"' in section
    assert re.search(rf'id="upcoming-{later.pk}".*?X, Bluesky', section, re.S)


def test_upcoming_shows_ten_and_leads_to_the_calendar_for_the_rest(client, owner, accounts):
    for n in range(home.LIST_SIZE + 2):
        _create(owner.user, [accounts.x], f"Post {n}", mode=PublishMode.SCHEDULED, at=_in(2 + n))

    section = _section(_get(client, owner), "upcoming")

    assert _tally(section) == home.LIST_SIZE + 2
    assert section.count('<li id="upcoming-') == home.LIST_SIZE
    assert f'href="/dashboard/calendar/?team={owner.team.pk}">See all 12 in the calendar' in section


def test_an_empty_week_says_so_and_offers_compose(client, owner):
    section = _section(_get(client, owner), "upcoming")

    assert _tally(section) == 0
    assert "Nothing is scheduled for the next 7 days." in section
    assert f'href="/dashboard/compose/?team={owner.team.pk}"' in section


def test_another_teams_posts_are_not_shown(client, owner, outsider):
    theirs = sandbox_account(outsider.team, "x")
    _create(outsider.user, [theirs], "Their secret launch", mode=PublishMode.SCHEDULED, at=_in(5))

    page = _get(client, owner)

    assert "Their secret launch" not in page
    assert _tally(_section(page, "upcoming")) == 0


# --- failures ----------------------------------------------------------------------------------


def test_a_partial_publish_is_listed_with_a_link_to_its_retry(client, owner, accounts, sandbox):
    sandbox.outcomes("bluesky", "error")
    partial = _create(owner.user, [accounts.x, accounts.bluesky], "Half went out", mode=PublishMode.IMMEDIATE)
    partial.refresh_from_db()
    assert partial.status == PublishStatus.PARTIAL

    section = _section(_get(client, owner), "retry")

    assert _tally(section) == 1
    assert f'href="/dashboard/publishes/{partial.pk}/?team={owner.team.pk}#retry-form"' in section
    assert re.search(r"Bluesky\s*failed", section)
    assert "status=failed&amp;status=partial" in section


def test_old_failures_and_rejected_ones_are_not_asked_to_be_retried(client, owner, accounts):
    old = _create(owner.user, [accounts.x], "Failed long ago")
    rejected = _create(owner.user, [accounts.x], "Rejected and failed")
    recent = _create(owner.user, [accounts.x], "Failed this morning")
    # test setup: how each ended
    Publish.objects.filter(pk=old.pk).update(status=PublishStatus.FAILED, completed_at=_in(-24 * 8))
    Publish.objects.filter(pk=rejected.pk).update(
        status=PublishStatus.FAILED, completed_at=_in(-1), approval_status="rejected"
    )
    Publish.objects.filter(pk=recent.pk).update(status=PublishStatus.FAILED, completed_at=_in(-1))

    section = _section(_get(client, owner), "retry")

    assert _tally(section) == 1
    assert "Failed this morning" in section
    assert "Failed long ago" not in section
    assert "Rejected and failed" not in section


def test_no_failure_says_so(client, owner):
    assert "Nothing failed in the last 7 days." in _section(_get(client, owner), "retry")


# --- approvals ---------------------------------------------------------------------------------


@pytest.fixture
def second_team(owner):
    """A second team where the owner persona is an admin, with a member who submits."""
    other_owner = UserFactory(username="second-owner")
    team = services.team_create(name="Second shop", owner=other_owner)
    services.membership_add(team=team, user=owner.user, role=Role.ADMIN)
    submitter = UserFactory(username="second-member")
    services.membership_add(team=team, user=submitter, role=Role.MEMBER)
    return team, submitter


def test_approvals_waiting_in_every_team_the_user_approves_in_are_listed_by_team(
    client, owner, member, accounts, second_team
):
    team, submitter = second_team
    here = _submit(member.user, accounts.x, "Approve me here")
    there = _submit(submitter, sandbox_account(team, "x"), "Approve me there")

    section = _section(_get(client, owner), "approvals")

    assert _tally(section) == 2
    assert f'href="/dashboard/publishes/{here.pk}/?team={owner.team.pk}"' in section
    assert f'href="/dashboard/publishes/{there.pk}/?team={team.pk}"' in section
    assert re.search(rf'id="approval-{there.pk}">\s*<span class="team-label">Second shop', section)
    assert f'href="/dashboard/publishes/approvals/?team={team.pk}">Second shop: 1 waiting' in section
    assert f'href="/dashboard/publishes/approvals/?team={owner.team.pk}">Acme: 1 waiting' in section


def test_an_approval_in_a_team_where_the_user_is_only_a_member_is_not_counted(client, owner, member, accounts):
    elsewhere = services.team_create(name="Where I only help", owner=UserFactory(username="boss"))
    services.membership_add(team=elsewhere, user=owner.user, role=Role.MEMBER)
    colleague = UserFactory(username="colleague")
    services.membership_add(team=elsewhere, user=colleague, role=Role.MEMBER)
    _submit(colleague, sandbox_account(elsewhere, "x"), "Not yours to approve")
    _submit(member.user, accounts.x, "Yours to approve")

    page = _get(client, owner)

    assert _tally(_section(page, "approvals")) == 1
    assert "Not yours to approve" not in page
    assert 'aria-label="Approvals, 1 waiting"' in _nav(page)


def test_a_member_sees_only_their_own_submissions_waiting(client, owner, member, admin, accounts):
    another = UserFactory(username="another")
    services.membership_add(team=owner.team, user=another, role=Role.MEMBER)
    mine = _submit(member.user, accounts.x, "My own submission")
    _submit(another, accounts.bluesky, "Someone else's")

    page = _get(client, member)
    section = _section(page, "approvals")

    assert "Waiting for your approval" not in section
    assert "Yours, waiting for approval" in section
    assert f'id="own-{mine.pk}"' in section
    assert "Someone else" not in section
    assert _tally(section) == 1
    assert "Approvals, " not in _nav(page)  # nothing waits for a member to approve


def test_nothing_waiting_says_so(client, owner):
    section = _section(_get(client, owner), "approvals")

    assert "Nothing waits for your approval in any of your teams." in section
    assert _tally(section) == 0


# --- the count in the navigation ---------------------------------------------------------------


def test_every_dashboard_page_shows_the_count_of_approvals_waiting(client, owner, member, accounts):
    _submit(member.user, accounts.x, "One")
    _submit(member.user, accounts.x, "Two")
    client.force_login(owner.user)

    for path in ("/dashboard/", "/dashboard/publishes/", "/dashboard/calendar/", "/dashboard/settings/", HOME):
        nav = _nav(client.get(path).content.decode())
        badge = 'aria-label="Approvals, 2 waiting">Approvals <span class="count" aria-hidden="true">2</span>'
        assert badge in nav, path


def test_the_count_leads_to_a_team_that_has_approvals_waiting(client, owner, second_team):
    team, submitter = second_team
    _submit(submitter, sandbox_account(team, "x"), "In the second team")

    nav = _nav(_get(client, owner))

    assert f'href="/dashboard/publishes/approvals/?team={team.pk}" id="nav-approvals"' in nav
    assert 'aria-label="Approvals, 1 waiting"' in nav


def test_without_approvals_waiting_the_navigation_shows_no_count(client, owner):
    nav = _nav(_get(client, owner))

    assert f'href="/dashboard/publishes/approvals/?team={owner.team.pk}" id="nav-approvals">Approvals</a>' in nav


def test_the_count_costs_one_query_however_many_teams_and_approvals(client, owner, member, accounts, second_team):
    client.force_login(owner.user)
    client.get("/dashboard/")  # a first request settles the session

    def queries():
        with CaptureQueriesContext(connection) as context:
            assert client.get("/dashboard/").status_code == 200
        return [q["sql"] for q in context.captured_queries]

    before = queries()
    team, submitter = second_team
    for n in range(5):
        _submit(member.user, accounts.x, f"Here {n}")
        _submit(submitter, sandbox_account(team, "x", suffix=f"_{n}"), f"There {n}")
    after = queries()

    assert len(after) == len(before)
    assert sum("approval_status" in sql for sql in after) == 1


# --- accounts and usage ------------------------------------------------------------------------


def test_expired_accounts_are_listed_with_re_authorize_for_a_manager(client, owner, member):
    expired = sandbox_account(owner.team, "x", status=AccountStatus.EXPIRED)
    sandbox_account(owner.team, "bluesky")

    section = _section(_get(client, owner), "reconnect")
    as_member = _section(_get(client, member), "reconnect")

    assert _tally(section) == 1
    assert f'action="/dashboard/accounts/{expired.pk}/reauthorize/"' in section
    assert "Re-authorize" in section
    assert "Bluesky" not in section
    assert "reauthorize" not in as_member
    assert "An owner or admin re-authorizes it." in as_member


def test_working_accounts_need_nothing(client, owner):
    sandbox_account(owner.team, "x")

    assert "Every connected account is working." in _section(_get(client, owner), "reconnect")


def test_usage_summarises_the_month_and_leads_to_the_usage_page(client, owner, accounts):
    _create(owner.user, [accounts.x], "Counts against the month", mode=PublishMode.SCHEDULED, at=_in(3))
    limit = owner.team.plan.posts_per_month

    section = _section(_get(client, owner), "usage")

    posts = re.search(r'id="home-usage-posts"><dt>Posts this month</dt><dd>([^<]+)', section).group(1)
    assert posts.strip() == (f"1 of {limit}" if limit is not None else "1")
    assert f'href="/dashboard/settings/usage/?team={owner.team.pk}"' in section


def test_the_page_shows_the_team_named_in_the_query(client, owner, second_team):
    team, _ = second_team

    page = _get(client, owner, team=str(team.pk))

    assert "Second shop · times are in UTC" in page


def test_the_home_page_takes_the_same_queries_for_one_or_many_items(client, owner, member, accounts, second_team):
    team, submitter = second_team

    def fill(n):
        _create(owner.user, [accounts.x, accounts.bluesky], f"Soon {n}", mode=PublishMode.SCHEDULED, at=_in(2 + n))
        _submit(member.user, accounts.x, f"Here {n}")
        _submit(submitter, sandbox_account(team, "x", suffix=f"_{n}"), f"There {n}")
        sandbox_account(owner.team, "linkedin", suffix=f"_{n}", status=AccountStatus.EXPIRED)

    def queries():
        with CaptureQueriesContext(connection) as context:
            page = _get(client, owner)
        return len(context), page

    fill(0)
    _get(client, owner)  # a first request settles the session
    one, _ = queries()
    for n in range(1, home.LIST_SIZE + 3):
        fill(n)
    many, page = queries()

    assert many == one
    assert page.count('<li id="upcoming-') == home.LIST_SIZE
    assert page.count('<li id="approval-') == home.LIST_SIZE
    assert page.count('<li id="reconnect-') == home.LIST_SIZE

"""The publishes list's filters, search and pagination, and the approvals list's links, through
Django's test client: what a user of /dashboard/publishes/ would notice."""

from __future__ import annotations

import datetime as dt
import html
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from config import pagination
from demo.seed import sandbox_account
from publishing import inputs, lifecycle
from publishing.models import Publish, PublishMode
from publishing.selectors import publishes_matching
from publishing.views import lists
from teams import services
from teams.models import Role
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

LIST = "/dashboard/publishes/"


def _create(user, accounts, content="Hello", *, mode=PublishMode.DRAFT, overrides=None, when=None, can_approve=True):
    """A publish of `accounts`' team (a draft unless told), `overrides` giving per-account text."""
    overrides = overrides or {}
    publish = lifecycle.publish_create(
        team=accounts[0].team,
        caller=inputs.Caller(user=user, can_approve=can_approve),
        content=content,
        media_ids=[],
        targets=[
            inputs.TargetInput(
                account_id=str(a.pk),
                content=overrides.get(a.platform),
                fields=frozenset({"content"}) if a.platform in overrides else frozenset(),
            )
            for a in accounts
        ],
        publish_mode=mode,
        scheduled_at=timezone.now() + dt.timedelta(days=2) if mode == PublishMode.SCHEDULED else None,
    )
    if when:  # test setup: the moment it was created
        Publish.objects.filter(pk=publish.pk).update(created_at=when)
    return publish


def _page(client, persona, **params):
    client.force_login(persona.user)
    response = client.get(LIST, params)
    assert response.status_code == 200
    return response.content.decode()


def _rows(page):
    return set(re.findall(r'<tr id="publish-([0-9a-f-]+)"', page))


def _ids(*publishes):
    return {str(p.pk) for p in publishes}


@pytest.fixture
def three(owner, accounts):
    """A draft on X, a scheduled publish on Bluesky and an older LinkedIn draft with an override."""
    alpha = _create(owner.user, [accounts.x], "Alpha announcement")
    beta = _create(owner.user, [accounts.bluesky], "Beta launch", mode=PublishMode.SCHEDULED)
    gamma = _create(
        owner.user,
        [accounts.linkedin, accounts.threads],
        "Gamma story",
        overrides={"linkedin": "A LinkedIn-only OVERRIDE about hiring"},
        when=dt.datetime(2024, 1, 10, 12, 0, tzinfo=dt.UTC),
    )
    return alpha, beta, gamma


# --- the form ----------------------------------------------------------------------------------


def test_the_form_offers_seven_statuses_nine_platforms_and_the_teams_accounts(client, owner, accounts, outsider):
    accounts.x, accounts.bluesky  # noqa: B018 - connect two accounts
    theirs = sandbox_account(outsider.team, "tiktok")

    page = _page(client, owner)

    for status in ("draft", "scheduled", "publishing", "processing", "published", "failed", "partial"):
        assert f'name="status" value="{status}"' in page
    for platform in ("x", "instagram", "tiktok", "youtube", "facebook", "linkedin", "pinterest", "threads", "bluesky"):
        assert f'name="platform" value="{platform}"' in page
    assert f'<option value="{accounts.x.pk}">X · ' in page
    assert f'<option value="{accounts.bluesky.pk}">Bluesky · ' in page
    assert str(theirs.pk) not in page
    # Every input has a label: checkboxes inside theirs, the others by for=.
    for name in ("account", "created_from", "created_to", "q"):
        assert f'<label for="id_{name}">' in page
    assert 'type="date"' in page
    assert 'type="search"' in page


# --- each filter narrows -----------------------------------------------------------------------


def test_without_filters_every_publish_of_the_team_is_listed(client, owner, three):
    assert _rows(_page(client, owner)) == _ids(*three)


def test_status_narrows_to_any_of_the_checked_statuses(client, owner, three):
    alpha, beta, gamma = three

    assert _rows(_page(client, owner, status="scheduled")) == _ids(beta)
    assert _rows(_page(client, owner, status=["scheduled", "draft"])) == _ids(alpha, beta, gamma)
    assert _rows(_page(client, owner, status="failed")) == set()


def test_platform_narrows_to_publishes_with_a_target_there(client, owner, three):
    alpha, beta, gamma = three

    assert _rows(_page(client, owner, platform="bluesky")) == _ids(beta)
    assert _rows(_page(client, owner, platform=["x", "threads"])) == _ids(alpha, gamma)
    assert _rows(_page(client, owner, platform="youtube")) == set()


def test_account_narrows_to_publishes_with_a_target_on_it(client, owner, accounts, three):
    _, _, gamma = three

    page = _page(client, owner, account=str(accounts.threads.pk))

    assert _rows(page) == _ids(gamma)
    assert f'<option value="{accounts.threads.pk}" selected>' in page


def test_the_date_range_includes_both_whole_utc_days(client, owner, accounts):
    def at(*moment):
        return _create(owner.user, [accounts.x], f"at {moment}", when=dt.datetime(*moment, tzinfo=dt.UTC))

    before = at(2024, 2, 29, 23, 59, 59)
    first = at(2024, 3, 1, 0, 0, 0)
    last = at(2024, 3, 31, 23, 59, 59)
    after = at(2024, 4, 1, 0, 0, 0)

    assert _rows(_page(client, owner, created_from="2024-03-01", created_to="2024-03-31")) == _ids(first, last)
    assert _rows(_page(client, owner, created_from="2024-03-01")) == _ids(first, last, after)
    assert _rows(_page(client, owner, created_to="2024-02-29")) == _ids(before)


def test_filters_combine(client, owner, three):
    alpha, _, gamma = three

    assert _rows(_page(client, owner, status="draft", platform="x")) == _ids(alpha)
    assert _rows(_page(client, owner, status="draft", created_to="2024-01-31")) == _ids(gamma)


# --- search ------------------------------------------------------------------------------------


def test_search_finds_the_content_case_insensitively(client, owner, three):
    alpha, _, _ = three

    page = _page(client, owner, q="alpha ANNOUNCE")

    assert _rows(page) == _ids(alpha)
    assert 'value="alpha ANNOUNCE"' in page


def test_search_finds_text_only_in_a_targets_override(client, owner, three):
    _, _, gamma = three

    assert _rows(_page(client, owner, q="override about HIRING")) == _ids(gamma)


def test_search_takes_percent_and_underscore_literally(client, owner, accounts):
    sale = _create(owner.user, [accounts.x], "Everything 50% off")
    _create(owner.user, [accounts.x], "Nothing special here")

    assert _rows(_page(client, owner, q="50%")) == _ids(sale)
    assert _rows(_page(client, owner, q="%")) == _ids(sale)
    assert _rows(_page(client, owner, q="_")) == set()


def test_a_search_that_finds_nothing_says_so(client, owner, three):
    page = _page(client, owner, q="no such words")

    assert _rows(page) == set()
    assert "No publishes match these filters." in page
    assert "Clear filters" in page


# --- invalid input: a problem beside its field, never a 500 ----------------------------------


def _problem(page, field):
    found = re.search(rf'<div class="field-problem" id="{field}-problem">([^<]*)</div>', page)
    return html.unescape(found.group(1)) if found else None


def test_a_bad_date_is_shown_beside_its_field_and_the_other_filters_still_apply(client, owner, three):
    _, beta, _ = three

    page = _page(client, owner, created_from="2024-13-45", status="scheduled")

    assert _problem(page, "created_from") == "Enter a valid date."
    assert 'aria-invalid="true"' in page
    assert 'aria-describedby="created_from-problem"' in page
    assert 'value="2024-13-45"' in page  # what was typed stays to be corrected
    assert _rows(page) == _ids(beta)


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("created_to", "9999-12-31", "Pick a date before the year 9999."),
        ("created_from", "9999-01-01", "Pick a date before the year 9999."),
        ("created_from", "0001-01-01", "That date is out of range."),
    ],
)
def test_a_date_at_the_end_of_the_calendar_is_shown_beside_its_field(client, owner, three, field, value, problem):
    page = _page(client, owner, **{field: value})

    assert _problem(page, field) == problem
    assert _rows(page) == _ids(*three)


def test_an_end_before_the_start_is_refused_beside_the_end(client, owner, three):
    alpha, beta, _ = three  # gamma was created in January 2024

    page = _page(client, owner, created_from="2024-05-02", created_to="2024-05-01")

    assert _problem(page, "created_to") == "The end date is before the start date."
    assert _rows(page) == _ids(alpha, beta)  # the start still applies


@pytest.mark.parametrize(
    ("field", "value"),
    [("status", "lost"), ("platform", "myspace"), ("account", "not-a-uuid"), ("q", "x" * 201)],
)
def test_invalid_values_are_shown_beside_their_field(client, owner, three, field, value):
    page = _page(client, owner, **{field: value})

    assert _problem(page, field)
    assert _rows(page) == _ids(*three)  # the invalid filter is left out


def test_another_teams_account_is_not_a_choice(client, owner, outsider, three):
    theirs = sandbox_account(outsider.team, "x")

    page = _page(client, owner, account=str(theirs.pk))

    assert "Select a valid choice" in _problem(page, "account")


# --- pagination keeps the filters --------------------------------------------------------------


def test_pagination_links_keep_the_filters(client, owner, accounts):
    for number in range(21):
        _create(owner.user, [accounts.x], f"Draft number {number:02d}")
    _create(owner.user, [accounts.bluesky], "Draft number on bluesky")

    first = _page(client, owner, status="draft", platform="x", q="number")
    [link] = re.findall(r'<a rel="next" href="\?([^"]+)"', first)
    query = html.unescape(link)
    second = client.get(f"{LIST}?{query}").content.decode()

    assert first.count("Draft number") == 20
    assert "21 publishes match" in first  # not the one on Bluesky
    assert set(query.split("&")) == {"status=draft", "platform=x", "q=number", f"team={owner.team.pk}", "page=2"}
    assert second.count("Draft number") == 1
    assert "Draft number 00" in second
    [back] = re.findall(r'<a rel="prev" href="\?([^"]+)"', second)
    assert "page=1" in html.unescape(back)
    assert "q=number" in html.unescape(back)


# --- whose publishes ---------------------------------------------------------------------------


def test_another_teams_publishes_never_appear(client, owner, outsider, three):
    their_account = sandbox_account(outsider.team, "x")
    _create(outsider.user, [their_account], "Alpha announcement from elsewhere")

    for params in ({}, {"q": "elsewhere"}, {"platform": "x"}, {"account": str(their_account.pk)}):
        page = _page(client, owner, **params)
        assert "elsewhere" not in page.replace('value="elsewhere"', "")


def test_naming_another_team_is_not_found(client, owner, outsider):
    client.force_login(owner.user)

    assert client.get(LIST, {"team": str(outsider.team.pk)}).status_code == 404


def test_a_member_sees_every_publish_of_the_team_as_the_api_does(client, api, member, three):
    page = _page(client, member)
    listed = api.as_(member.key).get("/api/v1/publishes").json()["data"]

    assert _rows(page) == _ids(*three) == {p["id"] for p in listed}


def test_each_row_links_to_the_publish_detail_page(client, owner, three):
    page = _page(client, owner)

    for publish in three:
        assert f'href="/dashboard/publishes/{publish.pk}/?team={owner.team.pk}"' in page


def test_approvals_rows_link_to_the_publish_detail_page(client, owner, member, accounts):
    owner.team.approval_required = True
    owner.team.save()
    pending = _create(member.user, [accounts.x], "Please approve", mode=PublishMode.IMMEDIATE, can_approve=False)
    client.force_login(owner.user)

    page = client.get("/dashboard/publishes/approvals/").content.decode()

    assert f'href="/dashboard/publishes/{pending.pk}/?team={owner.team.pk}"' in page
    assert 'class="stack"' in page


# --- the selector, as the API keeps using it ---------------------------------------------------


def test_the_selectors_new_arguments_are_optional_and_exclusive(owner, accounts):
    noon = dt.datetime(2024, 6, 1, 12, 0, tzinfo=dt.UTC)
    publish = _create(owner.user, [accounts.x], "Selector text", when=noon)

    def matching(**filters):
        return set(publishes_matching(team=owner.team, **filters))

    assert matching() == {publish}
    assert matching(created_before=noon) == set()
    assert matching(created_before=noon + dt.timedelta(microseconds=1)) == {publish}
    assert matching(search="SELECTOR") == {publish}
    assert matching(search="absent") == set()


# --- query counts ------------------------------------------------------------------------------


def _queries(client, path, **params):
    with CaptureQueriesContext(connection) as context:
        response = client.get(path, params)
    assert response.status_code == 200
    return len(context)


@pytest.fixture
def a_hundred_a_page(monkeypatch):
    monkeypatch.setattr(lists, "PAGE_SIZE", 100)


def test_the_publishes_list_takes_the_same_queries_for_1_or_100_rows(client, owner, admin, accounts, a_hundred_a_page):
    filters = {"status": ["draft"], "platform": ["x", "bluesky"], "q": "row", "created_from": "2000-01-01"}
    _create(owner.user, [accounts.x, accounts.bluesky], "row 0", overrides={"x": "an override"})
    client.force_login(owner.user)
    one = _queries(client, LIST, **filters)

    for number in range(1, 100):
        author = owner if number % 2 else admin
        _create(author.user, [accounts.x, accounts.bluesky], f"row {number}", overrides={"x": "an override"})
    hundred = _queries(client, LIST, **filters)

    assert len(_rows(client.get(LIST, filters).content.decode())) == 100
    assert one == hundred


def test_the_approvals_list_takes_the_same_queries_for_1_or_100_rows(client, owner, accounts, a_hundred_a_page):
    owner.team.approval_required = True
    owner.team.save()
    submitters = [UserFactory(username=f"submitter{n}") for n in range(3)]
    for user in submitters:
        services.membership_add(team=owner.team, user=user, role=Role.MEMBER)

    def submit(number):
        user = submitters[number % 3]
        _create(
            user, [accounts.x, accounts.bluesky], f"pending {number}", mode=PublishMode.IMMEDIATE, can_approve=False
        )

    submit(0)
    client.force_login(owner.user)
    one = _queries(client, "/dashboard/publishes/approvals/")
    for number in range(1, 100):
        submit(number)
    hundred = _queries(client, "/dashboard/publishes/approvals/")

    assert client.get("/dashboard/publishes/approvals/").content.decode().count(">Approve</button>") == 100
    assert one == hundred


def test_a_list_past_the_exact_count_pages_through_its_first_items_and_says_so(client, owner, accounts, monkeypatch):
    """A list longer than EXACT_COUNT_LIMIT is counted no further: the pager says "of 2+" and
    reaches the first EXACT_COUNT_LIMIT items; the filters narrow the rest."""
    monkeypatch.setattr(pagination, "EXACT_COUNT_LIMIT", 4)
    monkeypatch.setattr(lists, "PAGE_SIZE", 2)
    for n in range(6):
        _create(owner.user, [accounts.x], f"post {n}")
    client.force_login(owner.user)

    first = client.get(LIST).content.decode()
    beyond = client.get(LIST, {"page": 9}).content.decode()

    assert "Page 1 of 2+" in first
    assert "Page 2 of 2+" in beyond  # the last page it counted
    assert "post 5" in first
    assert "post 2" in beyond
    monkeypatch.setattr(pagination, "EXACT_COUNT_LIMIT", 6)
    assert "Page 1 of 3</span>" in client.get(LIST).content.decode()

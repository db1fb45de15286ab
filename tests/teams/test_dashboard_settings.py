"""The settings pages of the dashboard (team, API keys, usage) through Django's test client:
what each role sees and may do, that each form changes state through the service the API
uses, and that refusals are shown beside the field they concern."""

from __future__ import annotations

import datetime as dt
import html
import json
import re

import pytest
from django.contrib.sessions.models import Session
from django.test import Client
from django.utils import timezone

from accounts.models import SocialAccount
from demo.seed import sandbox_account
from media import services as media_services
from publishing import inputs, lifecycle
from publishing.models import Publish, PublishMode
from teams import services
from teams.models import ApiKey, ApiKeyKind, Membership, Role, Team
from teams.views.keys import NEW_KEY
from tests.factories import PlanFactory, SocialAccountFactory, UserFactory

pytestmark = pytest.mark.django_db

TEAM_PAGE, KEYS_PAGE, USAGE_PAGE = "/dashboard/settings/", "/dashboard/settings/keys/", "/dashboard/settings/usage/"


def _as(client, persona):
    client.force_login(persona.user)
    return client


def _get(client, persona, url, team=None):
    return _as(client, persona).get(url, {"team": str((team or persona.team).pk)})


def _post(client, persona, url, team=None, **data):
    return _as(client, persona).post(url, {"team": str((team or persona.team).pk), **data})


def _text(response, status=200):
    assert response.status_code == status, response.content.decode()[-2000:]
    return html.unescape(response.content.decode())


def _problem(page, problem_id):
    """The text of the field problem with this id (what aria-describedby points to)."""
    match = re.search(rf'<p class="field-problem" id="{problem_id}"[^>]*>(.*?)</p>', page, re.S)
    assert match, f"no #{problem_id} on the page"
    return match.group(1).strip()


def _followed_message(response):
    return " ".join(str(m) for m in response.context["messages"])


@pytest.fixture
def second(owner):
    """Another team of the owner."""
    return services.team_create(name="Acme Two", owner=owner.user)


# --- the team page: who sees what ---------------------------------------------------------------


def test_every_member_sees_the_team_and_its_members_with_roles(client, owner, admin, member):
    page = _text(_get(client, member, TEAM_PAGE))

    for persona, role in ((owner, "owner"), (admin, "admin"), (member, "member")):
        row = re.search(rf'<tr id="member-[^"]+">\s*<td data-label="User">{persona.user.username}.*?</tr>', page, re.S)
        assert row, persona.user.username
        assert persona.user.email in row.group(0)
        assert f'<span class="role">{role}</span>' in row.group(0)


def test_a_member_gets_a_read_only_page(client, member):
    page = _text(_get(client, member, TEAM_PAGE))

    assert "Only the team's owner or an admin changes these settings." in page
    for action in ("rename/", "approval/", "default/", "members/", "delete/"):
        assert f'action="/dashboard/settings/{action}"' not in page
    assert "Change role" not in page
    assert ">API keys<" not in page  # the settings navigation hides what a member cannot open


def test_an_admin_may_rename_and_gate_but_not_manage_members_default_or_deletion(client, admin):
    page = _text(_get(client, admin, TEAM_PAGE))

    assert 'action="/dashboard/settings/rename/"' in page
    assert 'action="/dashboard/settings/approval/"' in page
    for owner_only in ("default/", "members/", "delete/"):
        assert f'action="/dashboard/settings/{owner_only}"' not in page
    assert "Delete this team" not in page


def test_the_owner_gets_every_action_each_with_a_csrf_token(client, owner, member, second):
    page = _text(_get(client, owner, TEAM_PAGE))

    forms = re.findall(r'<form method="post".*?</form>', page, re.S)
    actions = {re.search(r'action="([^"]+)"', form).group(1) for form in forms}
    assert {
        "/dashboard/settings/rename/",
        "/dashboard/settings/approval/",
        "/dashboard/settings/members/",
        "/dashboard/settings/delete/",
        f"/dashboard/settings/members/{member.user.memberships.get().pk}/remove/",
    } <= actions
    assert all("csrfmiddlewaretoken" in form for form in forms)


def test_a_team_the_user_is_not_in_is_404(client, owner, outsider):
    assert _get(client, owner, TEAM_PAGE, team=outsider.team).status_code == 404
    assert _post(client, owner, "/dashboard/settings/rename/", team=outsider.team, name="Mine").status_code == 404
    outsider.team.refresh_from_db()
    assert outsider.team.name == "Other Inc"


@pytest.mark.parametrize("url", [TEAM_PAGE, KEYS_PAGE, USAGE_PAGE])
def test_the_pages_need_a_signed_in_user(client, url):
    response = client.get(url)

    assert response.status_code == 302
    assert response.url.startswith("/login/")


def test_the_team_switcher_on_a_page_showing_form_errors_goes_to_that_teams_page(client, owner, second):
    _text(_post(client, owner, "/dashboard/settings/rename/", name=""), status=400)

    # The switcher submits ?team= to the URL the errors were shown at, the form's action.
    response = _get(client, owner, "/dashboard/settings/rename/", team=second)

    assert response.status_code == 302
    assert response.url == f"{TEAM_PAGE}?team={second.pk}"


def test_a_post_without_the_csrf_token_is_refused(owner):
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner.user)

    response = client.post("/dashboard/settings/rename/", {"team": str(owner.team.pk), "name": "Forged"})

    assert response.status_code == 403
    owner.team.refresh_from_db()
    assert owner.team.name == "Acme"


# --- rename and approval ---------------------------------------------------------------------------


@pytest.mark.parametrize("persona", ["owner", "admin"])
def test_owners_and_admins_rename_the_team(client, request, persona):
    who = request.getfixturevalue(persona)

    response = _post(client, who, "/dashboard/settings/rename/", name="  Acme Studio ")

    assert response.status_code == 302
    assert response.url == f"{TEAM_PAGE}?team={who.team.pk}"
    who.team.refresh_from_db()
    assert who.team.name == "Acme Studio"
    assert "now called “Acme Studio”" in _followed_message(client.get(response.url))


def test_a_member_cannot_rename(client, member):
    page = _text(_post(client, member, "/dashboard/settings/rename/", name="Hijacked"), status=403)

    assert "Only the team's owner or an admin" in page
    member.team.refresh_from_db()
    assert member.team.name == "Acme"


def test_an_empty_name_is_refused_beside_the_name_field(client, owner):
    page = _text(_post(client, owner, "/dashboard/settings/rename/", name="   "), status=400)

    assert _problem(page, "team-name-problem") == "A team name has 1 to 200 characters."
    assert 'aria-describedby="team-name-problem"' in page
    owner.team.refresh_from_db()
    assert owner.team.name == "Acme"


def test_an_admin_turns_approval_on_and_off(client, admin):
    _post(client, admin, "/dashboard/settings/approval/", approval_required="on")
    admin.team.refresh_from_db()
    assert admin.team.approval_required is True

    _post(client, admin, "/dashboard/settings/approval/")
    admin.team.refresh_from_db()
    assert admin.team.approval_required is False


def test_a_member_cannot_change_approval(client, member):
    assert _post(client, member, "/dashboard/settings/approval/", approval_required="on").status_code == 403
    member.team.refresh_from_db()
    assert member.team.approval_required is False


# --- duplicate posts -------------------------------------------------------------------------------


def test_an_admin_turns_refusing_duplicate_posts_on_and_off_with_its_window(client, admin):
    page = _text(_get(client, admin, TEAM_PAGE))
    assert "Refuse duplicate posts" in page
    assert 'name="duplicate_window_hours"' in page
    assert 'value="72"' in page

    response = _post(
        client, admin, "/dashboard/settings/duplicates/", block_duplicates="on", duplicate_window_hours="48"
    )
    admin.team.refresh_from_db()
    assert (admin.team.block_duplicates, admin.team.duplicate_window_hours) == (True, 48)
    assert "text an account already got within 48 hours are now refused" in _followed_message(client.get(response.url))

    _post(client, admin, "/dashboard/settings/duplicates/", duplicate_window_hours="48")
    admin.team.refresh_from_db()
    assert admin.team.block_duplicates is False


def test_the_api_key_of_a_team_sees_its_duplicate_setting_at_once(api, client, owner):
    _post(client, owner, "/dashboard/settings/duplicates/", block_duplicates="on", duplicate_window_hours="24")

    [team] = api.as_(owner.key).get("/api/v1/teams").json()["data"]

    assert (team["block_duplicates"], team["duplicate_window_hours"]) == (True, 24)


@pytest.mark.parametrize(
    ("hours", "problem"),
    [
        ("soon", "Give the window as a whole number of hours, such as 72."),
        ("0", "The duplicate window is 1 to 8760 hours."),
        ("9000", "The duplicate window is 1 to 8760 hours."),
    ],
)
def test_a_bad_duplicate_window_is_refused_beside_its_field(client, owner, hours, problem):
    page = _text(
        _post(client, owner, "/dashboard/settings/duplicates/", block_duplicates="on", duplicate_window_hours=hours),
        status=400,
    )

    assert re.search(r'id="duplicate-window-problem"[^>]*>' + re.escape(problem), page)
    assert f'value="{hours}"' in page  # what was typed stays
    owner.team.refresh_from_db()
    assert (owner.team.block_duplicates, owner.team.duplicate_window_hours) == (False, 72)


def test_a_member_cannot_change_the_duplicate_setting_but_sees_it(client, member):
    refused = _post(
        client, member, "/dashboard/settings/duplicates/", block_duplicates="on", duplicate_window_hours="5"
    )

    assert refused.status_code == 403
    member.team.refresh_from_db()
    assert member.team.block_duplicates is False
    assert "Sent with a warning when an account got the same text within 72 hours" in _text(
        _get(client, member, TEAM_PAGE)
    )


# --- the time zone ---------------------------------------------------------------------------------


@pytest.mark.parametrize("persona", ["owner", "admin"])
def test_owners_and_admins_set_the_time_zone(client, request, persona):
    who = request.getfixturevalue(persona)
    assert 'value="UTC"' in _text(_get(client, who, TEAM_PAGE))  # the default

    response = _post(client, who, "/dashboard/settings/time-zone/", time_zone=" Europe/Paris ")

    assert response.status_code == 302
    who.team.refresh_from_db()
    assert who.team.time_zone == "Europe/Paris"
    assert "shows and reads times in Europe/Paris" in _followed_message(client.get(response.url))
    assert '<option value="America/New_York">' in _text(_get(client, who, TEAM_PAGE))


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        (
            "Mars/Olympus",
            "“Mars/Olympus” is not a time zone name. Pick one from the list, such as Europe/Paris or America/New_York.",
        ),
        ("", "Pick a time zone."),
        ("x" * 300, "That is not a time zone name. Pick one from the list, such as Europe/Paris or America/New_York."),
    ],
)
def test_a_name_that_is_no_time_zone_is_refused_beside_the_field(client, owner, name, problem):
    page = _text(_post(client, owner, "/dashboard/settings/time-zone/", time_zone=name), status=400)

    assert _problem(page, "time-zone-problem") == problem
    assert f'value="{name}"' in page  # what was typed stays in the field
    owner.team.refresh_from_db()
    assert owner.team.time_zone == "UTC"


def test_a_member_cannot_set_the_time_zone_but_sees_it(client, member):
    page = _text(_post(client, member, "/dashboard/settings/time-zone/", time_zone="Asia/Tokyo"), status=403)

    assert "Only the team's owner or an admin" in page
    member.team.refresh_from_db()
    assert member.team.time_zone == "UTC"
    assert re.search(r'<dd id="time-zone-shown">UTC</dd>', _text(_get(client, member, TEAM_PAGE)))


def test_key_times_are_shown_and_read_in_the_team_zone(client, owner):
    owner.team.time_zone = "Asia/Tokyo"
    owner.team.save()

    _create_key(client, owner, expires_at="2099-01-01T09:00")

    key = ApiKey.objects.get(name="Script")
    assert key.expires_at == dt.datetime(2099, 1, 1, 0, 0, tzinfo=dt.UTC)  # 09:00 in Tokyo
    page = _text(_get(client, owner, KEYS_PAGE))
    assert "Expires (Asia/Tokyo)" in page
    assert "2099-01-01 09:00" in page


# --- the default team ------------------------------------------------------------------------------


def test_the_owner_makes_the_team_their_default(client, owner, second):
    response = _post(client, owner, "/dashboard/settings/default/", team=second)

    assert response.status_code == 302
    assert Membership.objects.get(user=owner.user, is_default=True).team == second
    assert "“Acme Two” is now your default team." in _followed_message(client.get(response.url))
    assert "This is your default team" in _text(_get(client, owner, TEAM_PAGE, team=second))


def test_an_admin_cannot_make_the_team_a_default(client, admin):
    page = _text(_post(client, admin, "/dashboard/settings/default/"), status=403)

    assert "Only the team's owner" in page
    assert not Membership.objects.filter(user=admin.user, is_default=True).exists()
    assert 'action="/dashboard/settings/default/"' not in _text(_get(client, admin, TEAM_PAGE))


# --- members ------------------------------------------------------------------------------------------


def test_the_owner_adds_a_member_by_username_with_a_role(client, owner):
    newcomer = UserFactory(username="newcomer")

    response = _post(client, owner, "/dashboard/settings/members/", username="newcomer", role="admin")

    assert response.status_code == 302
    assert Membership.objects.get(team=owner.team, user=newcomer).role == Role.ADMIN
    assert "Added newcomer as admin." in _followed_message(client.get(response.url))


def test_an_unknown_username_is_refused_beside_the_username_field(client, owner):
    page = _text(_post(client, owner, "/dashboard/settings/members/", username="nobody", role="member"), status=400)

    assert _problem(page, "member-username-problem") == "No user is named “nobody”."
    assert 'value="nobody"' in page  # what was typed stays in the field


@pytest.mark.parametrize(
    ("username", "problem"),
    [("", "Enter the username of the person to add."), ("x" * 300, "No username is that long: check what you typed.")],
)
def test_a_blank_or_overlong_username_is_refused_in_words_beside_the_field(client, owner, username, problem):
    page = _text(_post(client, owner, "/dashboard/settings/members/", username=username, role="member"), status=400)

    assert _problem(page, "member-username-problem") == problem
    assert 'aria-describedby="member-username-problem"' in page
    assert f'value="{username}"' in page


def test_adding_someone_already_in_the_team_is_refused(client, owner, member):
    page = _text(_post(client, owner, "/dashboard/settings/members/", username="member", role="admin"), status=400)

    assert _problem(page, "member-username-problem") == "“member” is already a member of this team."
    assert member.user.memberships.get().role == Role.MEMBER


def test_the_owner_role_cannot_be_given(client, owner):
    UserFactory(username="usurper")

    page = _text(_post(client, owner, "/dashboard/settings/members/", username="usurper", role="owner"), status=400)

    assert _problem(page, "member-role-problem") == "A member's role is admin or member."
    assert not Membership.objects.filter(user__username="usurper").exists()


@pytest.mark.parametrize("persona", ["admin", "member"])
def test_only_the_owner_adds_members(client, request, persona):
    UserFactory(username="friend")

    response = _post(client, request.getfixturevalue(persona), "/dashboard/settings/members/", username="friend")

    assert response.status_code == 403
    assert not Membership.objects.filter(user__username="friend").exists()


def test_the_owner_changes_a_members_role(client, owner, member):
    membership = member.user.memberships.get()

    response = _post(client, owner, f"/dashboard/settings/members/{membership.pk}/role/", role="admin")

    assert response.status_code == 302
    membership.refresh_from_db()
    assert membership.role == Role.ADMIN
    assert "member is now admin." in _followed_message(client.get(response.url))


def test_the_owners_own_role_never_changes(client, owner):
    own = owner.user.memberships.get()

    page = _text(_post(client, owner, f"/dashboard/settings/members/{own.pk}/role/", role="member"), status=403)

    assert "The owner's role cannot change." in page
    own.refresh_from_db()
    assert own.role == Role.OWNER


def test_an_admin_cannot_change_roles(client, admin, member):
    membership = member.user.memberships.get()

    assert _post(client, admin, f"/dashboard/settings/members/{membership.pk}/role/", role="admin").status_code == 403
    membership.refresh_from_db()
    assert membership.role == Role.MEMBER


def test_a_membership_of_another_team_is_404(client, owner, outsider):
    theirs = outsider.user.memberships.get()

    assert _post(client, owner, f"/dashboard/settings/members/{theirs.pk}/role/", role="admin").status_code == 404
    assert _post(client, owner, f"/dashboard/settings/members/{theirs.pk}/remove/").status_code == 404
    assert Membership.objects.filter(pk=theirs.pk, role=Role.OWNER).exists()


def test_the_owner_removes_a_member_whose_team_key_stops_working(client, api, owner, member):
    membership = member.user.memberships.get()
    assert api.as_(member.key).get("/api/v1/accounts").status_code == 200  # and its caller is cached

    response = _post(client, owner, f"/dashboard/settings/members/{membership.pk}/remove/")

    assert response.status_code == 302
    assert not Membership.objects.filter(pk=membership.pk).exists()
    assert "Removed member from the team." in _followed_message(client.get(response.url))
    assert api.as_(member.key).get("/api/v1/accounts").status_code == 401
    assert ApiKey.objects.get(user=member.user, team=owner.team).revoked_at is not None


def test_the_owner_cannot_be_removed(client, owner, admin):
    own = owner.user.memberships.get()

    assert _post(client, admin, f"/dashboard/settings/members/{own.pk}/remove/").status_code == 403
    page = _text(_post(client, owner, f"/dashboard/settings/members/{own.pk}/remove/"), status=403)
    assert "The owner cannot be removed from the team." in page
    assert Membership.objects.filter(pk=own.pk).exists()


# --- deleting the team ---------------------------------------------------------------------------------


@pytest.fixture
def doomed(owner, second):
    """The owner's default is `second`; the team Acme, with an account and a publish, is the
    one to delete."""
    services.team_set_default(user=owner.user, team=second)
    account = sandbox_account(owner.team, "x")
    lifecycle.publish_create(
        team=owner.team,
        caller=inputs.Caller(user=owner.user, can_approve=True),
        content="Moves with the team",
        media_ids=[],
        targets=[inputs.TargetInput(account_id=str(account.pk))],
        publish_mode=PublishMode.DRAFT,
        scheduled_at=None,
    )
    return owner.team


def test_the_delete_form_preselects_the_default_team_as_destination(client, owner, doomed, second):
    services.team_create(name="Acme Three", owner=owner.user)

    page = _text(_get(client, owner, TEAM_PAGE))

    assert re.search(rf'<option value="{second.pk}" selected>Acme Two \(your default team\)</option>', page)
    assert "Acme Three</option>" in page
    assert f'<option value="{doomed.pk}"' not in page.split('id="destination"')[1].split("</select>")[0]


def test_the_owner_deletes_a_team_and_its_content_moves(client, owner, doomed, second):
    response = _post(
        client,
        owner,
        "/dashboard/settings/delete/",
        destination_team_id=str(second.pk),
        confirmation_name="Acme",
    )

    assert response.status_code == 302
    assert response.url == f"{TEAM_PAGE}?team={second.pk}"
    assert not Team.objects.filter(pk=doomed.pk).exists()
    assert Publish.objects.get(content="Moves with the team").team == second
    assert SocialAccount.objects.filter(team=second).count() == 1
    message = _followed_message(client.get(response.url))
    assert message.startswith("Deleted “Acme”. Moved to “Acme Two”: 1 account, 1 publish, 0 media files.")


def test_the_name_must_be_typed_exactly(client, owner, doomed, second):
    body = {"destination_team_id": str(second.pk), "confirmation_name": "acme"}

    page = _text(_post(client, owner, "/dashboard/settings/delete/", **body), status=400)

    assert _problem(page, "confirmation-problem") == (
        "Type the team's name exactly as it is written above, to confirm that this team is the one to delete."
    )
    assert 'aria-describedby="confirmation-problem"' in page
    assert 'value="acme"' in page  # what was typed stays in the field
    assert Team.objects.filter(pk=doomed.pk).exists()
    assert Publish.objects.get(content="Moves with the team").team == doomed


def test_the_default_team_is_protected(client, owner, second):
    body = {"destination_team_id": str(second.pk), "confirmation_name": "Acme"}
    services.team_set_default(user=owner.user, team=owner.team)

    page = _text(_post(client, owner, "/dashboard/settings/delete/", **body), status=403)

    assert _problem(page, "delete-problem").startswith("This is your default team, which is protected.")
    assert Team.objects.filter(pk=owner.team.pk).exists()


def test_a_team_of_someone_else_is_no_destination(client, owner, doomed, outsider):
    body = {"destination_team_id": str(outsider.team.pk), "confirmation_name": "Acme"}

    page = _text(_post(client, owner, "/dashboard/settings/delete/", **body), status=400)

    assert _problem(page, "destination-problem") == "Choose another team you own to receive the content."
    assert 'aria-describedby="destination-problem"' in page
    assert Team.objects.filter(pk=doomed.pk).exists()


def test_an_admin_cannot_delete_the_team(client, admin, owner, doomed, second):
    body = {"destination_team_id": str(second.pk), "confirmation_name": "Acme"}

    assert _post(client, admin, "/dashboard/settings/delete/", **body).status_code == 403
    assert Team.objects.filter(pk=doomed.pk).exists()


def _stored_session(client) -> str:
    """The signed-in session as the store keeps it (the django_session row), decoded."""
    row = Session.objects.get(session_key=client.session.session_key)
    return json.dumps(row.get_decoded()) + row.session_data


# --- API keys ------------------------------------------------------------------------------------------


def _create_key(client, persona, **data):
    body = {"name": "Script", "kind": "team", "scopes": ["accounts:read"], **data}
    return _post(client, persona, "/dashboard/settings/keys/new/", **body)


def _plaintext(page):
    match = re.search(r'<code class="secret" id="new-key-plaintext">(sk_[^<]+)</code>', page)
    assert match, "no plaintext on the page"
    return match.group(1)


def test_a_member_cannot_open_the_keys_page(client, member):
    page = _text(_get(client, member, KEYS_PAGE), status=403)

    assert "Only the team's owner or admins manage API keys." in page
    assert _create_key(client, member).status_code == 403
    assert not ApiKey.objects.filter(user=member.user, name="Script").exists()


def test_a_created_key_is_shown_once_and_authenticates(client, api, owner):
    response = _create_key(client, owner, scopes=["accounts:read", "posts:read"])

    assert response.status_code == 302
    page = _text(client.get(response.url))
    plaintext = _plaintext(page)
    assert api.as_(plaintext).get("/api/v1/accounts").status_code == 200
    key = ApiKey.objects.get(name="Script")
    assert (key.kind, key.team, key.scopes) == (ApiKeyKind.TEAM, owner.team, ["accounts:read", "posts:read"])
    # Gone from the session and from the page once shown.
    assert NEW_KEY not in client.session
    reloaded = _text(client.get(response.url))
    assert plaintext not in reloaded
    assert f"sk_{key.prefix}_…" in reloaded
    assert "no-store" in client.get(response.url)["Cache-Control"]


def test_the_stored_session_never_holds_the_plaintext(client, owner):
    response = _create_key(client, owner)
    key = ApiKey.objects.get(name="Script")

    waiting = _stored_session(client)  # between the create and the page that shows it
    plaintext = _plaintext(_text(client.get(response.url)))

    assert plaintext.startswith(f"sk_{key.prefix}_")
    assert plaintext not in waiting
    assert plaintext.split("_")[-1] not in waiting
    assert NEW_KEY not in _stored_session(client)


def test_a_user_key_acts_in_the_page_team(client, api, owner, second):
    response = _create_key(client, owner, team=second, kind="user", scopes=["billing:read"])

    plaintext = _plaintext(_text(client.get(response.url)))
    key = ApiKey.objects.get(name="Script")
    assert (key.kind, key.team, key.active_team) == (ApiKeyKind.USER, None, second)
    assert api.as_(plaintext).get("/api/v1/usage").status_code == 200


def test_a_key_has_only_the_scopes_chosen(client, api, owner):
    response = _create_key(client, owner, scopes=["posts:read"])
    plaintext = _plaintext(_text(client.get(response.url)))

    assert api.as_(plaintext).get("/api/v1/publishes").status_code == 200
    refused = api.as_(plaintext).post("/api/v1/publishes", {}, format="json")
    assert refused.status_code == 403
    assert api.as_(plaintext).get("/api/v1/accounts").status_code == 403


def test_a_key_with_an_expiry_read_as_utc(client, owner):
    later = (timezone.now() + dt.timedelta(days=30)).replace(second=0, microsecond=0)

    _create_key(client, owner, expires_at=later.strftime("%Y-%m-%dT%H:%M"))

    assert ApiKey.objects.get(name="Script").expires_at == later


def test_key_form_problems_are_shown_beside_their_fields(client, owner):
    past = (timezone.now() - dt.timedelta(days=1)).strftime("%Y-%m-%dT%H:%M")

    page = _text(_create_key(client, owner, name="", scopes=[], expires_at=past), status=400)

    assert _problem(page, "key-name-problem") == "Give the key a name, such as the script that uses it."
    assert _problem(page, "key-scopes-problem") == "Choose at least one scope."
    assert _problem(page, "key-expires-problem") == "The expiry must be in the future."
    assert not ApiKey.objects.filter(user=owner.user, name="").exists()


@pytest.mark.parametrize(
    ("body", "problem_id", "problem"),
    [
        ({"name": "x" * 300}, "key-name-problem", "A key's name has at most 100 characters."),
        ({"name": "   "}, "key-name-problem", "Give the key a name, such as the script that uses it."),
        ({"kind": "boss"}, "key-kind-problem", "Choose a team key or a user key."),
        (
            {"scopes": ["posts:read", "everything"]},
            "key-scopes-problem",
            "Choose the scopes from the list: “everything” is not one of them.",
        ),
    ],
)
def test_key_form_problems_are_said_in_words_beside_their_fields(client, owner, body, problem_id, problem):
    page = _text(_create_key(client, owner, **body), status=400)

    assert _problem(page, problem_id) == problem
    assert f'aria-describedby="{problem_id}"' in page
    assert not ApiKey.objects.filter(name=body.get("name", "Script")).exists()


def test_a_refused_key_form_keeps_what_was_typed(client, owner):
    page = _text(_create_key(client, owner, name="Nightly export", kind="user", scopes=[]), status=400)

    assert 'value="Nightly export"' in page
    assert re.search(r'<input type="radio" id="kind-user" name="kind" value="user" checked>', page)


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("9999-12-31T23:00-05:00", "Pick a date before the year 9999."),
        ("9999-12-31T23:59", "Pick a date before the year 9999."),
        ("0001-01-01T00:00+05:00", "That date is out of range."),
    ],
)
def test_an_expiry_out_of_range_is_shown_beside_the_field(client, owner, value, problem):
    page = _text(_create_key(client, owner, expires_at=value), status=400)

    assert _problem(page, "key-expires-problem") == problem
    assert not ApiKey.objects.filter(name="Script").exists()


def test_a_revoked_key_answers_401(client, api, owner):
    plaintext = _plaintext(_text(client.get(_create_key(client, owner).url)))
    key = ApiKey.objects.get(name="Script")

    response = _post(client, owner, f"/dashboard/settings/keys/{key.pk}/revoke/")

    assert response.status_code == 302
    assert api.as_(plaintext).get("/api/v1/accounts").status_code == 401
    page = _text(client.get(response.url))
    assert "Revoked the key “Script”" in page
    assert re.search(rf'<tr id="key-{key.pk}">.*?revoked \d{{4}}-', page, re.S)


def test_an_admin_sees_own_keys_and_the_teams_team_keys_only(client, owner, admin, member, second):
    owners_user_key, _ = services.api_key_create(
        user=owner.user, name="Owner personal", scopes=["posts:read"], active_team=owner.team
    )
    owners_other_team_key, _ = services.api_key_create(
        user=owner.user, name="Elsewhere", scopes=["posts:read"], team=second
    )

    page = _text(_get(client, admin, KEYS_PAGE))

    shown = set(re.findall(r'<tr id="key-([^"]+)">', page))
    team_keys = {str(k.pk) for k in ApiKey.objects.filter(team=admin.team)}  # the personas' keys
    assert shown == team_keys
    assert str(owners_user_key.pk) not in shown
    assert str(owners_other_team_key.pk) not in shown
    assert "by owner" in page


def test_an_admin_revokes_a_team_key_but_not_someone_elses_user_key(client, api, owner, admin):
    owners_user_key, _ = services.api_key_create(
        user=owner.user, name="Owner personal", scopes=["posts:read"], active_team=owner.team
    )
    owners_team_key = ApiKey.objects.get(user=owner.user, team=owner.team)

    assert _post(client, admin, f"/dashboard/settings/keys/{owners_user_key.pk}/revoke/").status_code == 404
    assert _post(client, admin, f"/dashboard/settings/keys/{owners_team_key.pk}/revoke/").status_code == 302

    owners_user_key.refresh_from_db()
    owners_team_key.refresh_from_db()
    assert owners_user_key.revoked_at is None
    assert owners_team_key.revoked_at is not None
    assert api.as_(owner.key).get("/api/v1/accounts").status_code == 401


def test_a_key_of_another_team_cannot_be_revoked(client, owner, outsider):
    theirs = ApiKey.objects.get(user=outsider.user)

    assert _post(client, owner, f"/dashboard/settings/keys/{theirs.pk}/revoke/").status_code == 404
    theirs.refresh_from_db()
    assert theirs.revoked_at is None


def test_user_keys_without_an_active_team_show_in_the_team_they_act_in(client, owner, second):
    floating, _ = services.api_key_create(user=owner.user, name="Floating", scopes=["posts:read"])
    services.team_set_default(user=owner.user, team=second)

    assert f'id="key-{floating.pk}"' in _text(_get(client, owner, KEYS_PAGE, team=second))
    assert f'id="key-{floating.pk}"' not in _text(_get(client, owner, KEYS_PAGE))


# --- usage ------------------------------------------------------------------------------------------------


def test_usage_shows_the_numbers_the_api_answers(client, api, owner, member):
    owner.team.plan = PlanFactory(name="Starter", posts_per_month=10, social_accounts=4, media_storage_gb=1)
    owner.team.save()
    SocialAccountFactory(team=owner.team)
    SocialAccountFactory(team=owner.team)
    services.quota_consume(team=owner.team, posts=3)
    media_services.media_create(
        team=owner.team, user=owner.user, filename="a.png", content_type="image/png", size_bytes=5 * 1024**2
    )
    answer = api.as_(owner.key).get("/api/v1/usage").json()["data"]

    page = _text(_get(client, member, USAGE_PAGE))  # anyone in the team reads it

    counters, limits = answer["usage"], answer["limits"]
    for key, used, limit in (
        ("posts", counters["posts_this_month"], limits["posts_per_month"]),
        ("accounts", counters["social_accounts"], limits["social_accounts"]),
        ("storage", counters["media_storage_bytes"], limits["media_storage_gb"] * 1024**3),
    ):
        assert f'id="usage-{key}" data-used="{used}" data-limit="{limit}"' in page
        assert f'aria-valuenow="{used}"' in page
    assert "3 of 10" in page
    assert "2 of 4" in page
    assert "5.0 MB of 1 GB" in page.replace("\xa0", " ")
    assert "Can publish" in page
    assert answer["can_publish"] is True


def test_usage_says_unlimited_and_when_publishing_stops(client, owner):
    page = _text(_get(client, owner, USAGE_PAGE))
    assert page.count("· unlimited") == 3
    assert 'role="progressbar"' not in page

    owner.team.plan = PlanFactory(posts_per_month=1)
    owner.team.save()
    services.quota_consume(team=owner.team)
    page = _text(_get(client, owner, USAGE_PAGE))
    assert "Quota used up" in page
    assert "limit reached" in page


# --- queries do not grow with the rows shown ----------------------------------------------------------


def _queries_of(client, persona, url):
    """Queries of one page view, after a first view has loaded what a session loads once."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    _text(_get(client, persona, url))
    with CaptureQueriesContext(connection) as captured:
        _text(_get(client, persona, url))
    return len(captured.captured_queries)


def test_the_members_list_costs_the_same_queries_for_1_or_100_members(client, owner, django_assert_num_queries):
    one = _queries_of(client, owner, TEAM_PAGE)
    for n in range(99):
        services.membership_add(team=owner.team, user=UserFactory(username=f"crowd{n}"), role=Role.MEMBER)

    with django_assert_num_queries(one):
        page = _text(_get(client, owner, TEAM_PAGE))

    assert page.count('<tr id="member-') == 100


def test_the_keys_list_costs_the_same_queries_for_1_or_100_keys(client, admin, django_assert_num_queries):
    one = _queries_of(client, admin, KEYS_PAGE)  # the admin's own team key
    for n in range(33):
        maker = UserFactory(username=f"maker{n}")
        services.membership_add(team=admin.team, user=maker, role=Role.MEMBER)
        services.api_key_create(user=maker, name=f"theirs {n}", scopes=["posts:read"], team=admin.team)
        services.api_key_create(user=admin.user, name=f"team {n}", scopes=["posts:read"], team=admin.team)
        services.api_key_create(user=admin.user, name=f"mine {n}", scopes=["posts:read"], active_team=admin.team)

    with django_assert_num_queries(one):
        page = _text(_get(client, admin, KEYS_PAGE))

    assert page.count('<tr id="key-') == 100
    assert "by maker32" in page

"""The notifications settings page: every member chooses their own mails."""

from __future__ import annotations

import pytest

from notifications.models import Preference

pytestmark = pytest.mark.django_db

PAGE = "/dashboard/settings/notifications/"


def _checked(html: str, kind: str) -> bool:
    start = html.index(f'id="notify-{kind}"')
    return " checked" in html[start : html.index(">", start)]


def test_every_kind_is_on_until_turned_off(client, member):
    client.force_login(member.user)

    response = client.get(PAGE)

    assert response.status_code == 200
    html = response.content.decode()
    assert all(_checked(html, kind) for kind in ("approval_requested", "approval_decided", "delivery_failed"))
    assert "Mails go to <strong>member@example.com</strong>" in html
    assert f'href="{PAGE}?team={member.team.pk}" aria-current="page">Notifications</a>' in html


def test_a_member_saves_their_own_choices(client, member, owner):
    client.force_login(member.user)

    response = client.post(f"{PAGE}save/", {"team": str(member.team.pk), "approval_decided": "on"}, follow=True)

    assert "Your notification choices are saved." in response.content.decode()
    saved = Preference.objects.get(user=member.user)
    assert (saved.approval_decided, saved.delivery_failed, saved.approval_requested) == (True, False, False)
    assert not Preference.objects.filter(user=owner.user).exists()
    html = client.get(PAGE).content.decode()
    assert _checked(html, "approval_decided")
    assert not _checked(html, "delivery_failed")


def test_someone_without_an_email_address_is_told_nothing_is_sent(client, member):
    member.user.email = ""
    member.user.save()
    client.force_login(member.user)

    assert "Your account has no email address" in client.get(PAGE).content.decode()


def test_the_page_needs_a_login(client):
    response = client.get(PAGE)

    assert response.status_code == 302
    assert response["Location"].startswith("/login/")


def test_a_get_of_the_save_address_goes_back_to_the_page(client, member):
    client.force_login(member.user)

    response = client.get(f"{PAGE}save/?team={member.team.pk}")

    assert response.status_code == 302
    assert response["Location"] == f"{PAGE}?team={member.team.pk}"

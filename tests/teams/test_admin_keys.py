"""A key created in the admin is shown once, from the server-side session: never in a cookie."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_a_new_key_never_travels_in_a_cookie(client, owner):
    client.force_login(UserFactory(username="staff", is_staff=True, is_superuser=True))

    created = client.post(
        reverse("admin:teams_apikey_add"),
        {"name": "from admin", "user": owner.user.pk, "team": owner.team.pk, "scopes": ["accounts:read"]},
    )
    shown = client.get(created["Location"])

    plaintext = next(word for m in shown.context["messages"] for word in str(m).split() if word.startswith("sk_"))
    for response in (created, shown):
        headers = [value for name, value in response.items() if name.lower() == "set-cookie"]
        cookies = [morsel.OutputString() for morsel in response.cookies.values()]
        assert not [text for text in headers + cookies if plaintext in text or "messages" in text]
    assert "messages" not in client.cookies


def test_a_new_key_is_never_in_the_session_store_in_plaintext_and_leaves_it_once_shown(client, owner):
    from django.contrib.sessions.models import Session

    client.force_login(UserFactory(username="staff", is_staff=True, is_superuser=True))
    created = client.post(
        reverse("admin:teams_apikey_add"),
        {"name": "from admin", "user": owner.user.pk, "team": owner.team.pk, "scopes": ["accounts:read"]},
    )

    def stored() -> str:
        return str(Session.objects.get(session_key=client.session.session_key).get_decoded())

    waiting = stored()
    shown = client.get(created["Location"])
    plaintext = next(word for m in shown.context["messages"] for word in str(m).split() if word.startswith("sk_"))
    assert "_messages" in waiting
    assert plaintext not in waiting  # there, but encrypted
    assert "_messages" not in stored()  # gone once the page showed it

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

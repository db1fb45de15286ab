"""Dashboard and admin logins are locked after repeated failures (django-axes), per username and
address, with a page that says so."""

from __future__ import annotations

import pytest

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PASSWORD = "the-right-password"


@pytest.fixture
def users():
    made = {}
    for name in ("alice", "bob"):
        made[name] = UserFactory(username=name, is_staff=True)
        made[name].set_password(PASSWORD)
        made[name].save()
    return made


def _login(client, username: str, password: str, path: str = "/login/"):
    return client.post(path, {"username": username, "password": password})


def _signed_in(client) -> bool:
    return "_auth_user_id" in client.session


def test_five_wrong_passwords_lock_the_username_even_for_the_right_one(client, users, settings):
    assert settings.AXES_FAILURE_LIMIT == 5
    answers = [_login(client, "alice", "wrong").status_code for _ in range(5)]

    refused = _login(client, "alice", PASSWORD)

    assert answers == [200, 200, 200, 200, 429]  # the form again, then the lockout page
    assert refused.status_code == 429
    assert "Too many attempts" in refused.content.decode()
    assert "15 minutes" in refused.content.decode()
    assert not _signed_in(client)


def test_another_user_still_logs_in_from_the_same_address(client, users):
    for _ in range(5):
        _login(client, "alice", "wrong")

    response = _login(client, "bob", PASSWORD)

    assert response.status_code == 302
    assert _signed_in(client)


def test_a_success_forgets_earlier_failures(client, users):
    for _ in range(4):
        _login(client, "alice", "wrong")
    assert _login(client, "alice", PASSWORD).status_code == 302
    client.logout()

    answers = [_login(client, "alice", "wrong").status_code for _ in range(4)]

    assert answers == [200] * 4
    assert _login(client, "alice", PASSWORD).status_code == 302


def test_the_admin_login_is_locked_too(client, users):
    for _ in range(5):
        _login(client, "alice", "wrong", path="/admin/login/")

    response = _login(client, "alice", PASSWORD, path="/admin/login/")

    assert response.status_code == 429
    assert "Too many attempts" in response.content.decode()
    assert not _signed_in(client)

"""Dashboard and admin logins slow down after repeated failures from one client address (per
address and username, and per address), with a page that says how long to wait; the same
username from another address is never slowed. Behind a proxy the address is the one the
trusted proxies forwarded, never one the client wrote."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PASSWORD = "the-right-password"
ATTACKER, OWNER_HOME, PROXY = "203.0.113.9", "198.51.100.7", "10.0.0.2"


@pytest.fixture
def users():
    made = {}
    for name in ("alice", "bob"):
        made[name] = UserFactory(username=name, is_staff=True)
        made[name].set_password(PASSWORD)
        made[name].save()
    return made


class Clock:
    """timezone.now, moved on by the test instead of by waiting."""

    def __init__(self) -> None:
        self.moment = timezone.now()

    def now(self) -> dt.datetime:
        return self.moment

    def advance(self, seconds: float) -> None:
        self.moment += dt.timedelta(seconds=seconds)


@pytest.fixture
def clock(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(timezone, "now", clock.now)
    return clock


def _login(client, username: str, password: str, path: str = "/login/", **meta):
    return client.post(path, {"username": username, "password": password}, **meta)


def _signed_in(client) -> bool:
    return "_auth_user_id" in client.session


def _waits(response, seconds: int) -> bool:
    text = response.content.decode()
    return (
        response.status_code == 429
        and f"Too many attempts, try again in {seconds} seconds." in text
        and response["Retry-After"] == str(seconds)
    )


def test_five_wrong_passwords_make_the_next_try_wait_even_with_the_right_one(client, users, settings, clock):
    assert settings.LOGIN_FAILURE_LIMIT == 5
    answers = [_login(client, "alice", "wrong") for _ in range(5)]

    refused = _login(client, "alice", PASSWORD)

    assert [a.status_code for a in answers] == [200, 200, 200, 200, 429]  # the form again, then the wait
    assert _waits(answers[-1], 30)
    assert _waits(refused, 30)
    assert not _signed_in(client)


def test_the_wait_is_not_restarted_by_tries_during_it_and_then_the_owner_gets_in(client, users, clock):
    for _ in range(5):
        _login(client, "alice", "wrong")

    clock.advance(10)
    assert _waits(_login(client, "alice", PASSWORD), 20)
    clock.advance(20)

    assert _login(client, "alice", PASSWORD).status_code == 302
    assert _signed_in(client)


def test_each_failure_after_the_limit_doubles_the_wait(client, users, settings, clock):
    settings.LOGIN_DELAY_MAX_SECONDS = 100
    for _ in range(5):
        _login(client, "alice", "wrong")

    waits = []
    for _ in range(3):
        clock.advance(1000)
        response = _login(client, "alice", "wrong")
        waits.append(int(response["Retry-After"]))

    assert waits == [60, 100, 100]  # 30 s after the fifth, then doubled, up to the cap


def test_the_owner_logging_in_from_another_address_is_never_slowed(client, users, clock):
    for _ in range(30):  # on and on, most of them refused without a look at the password
        _login(client, "alice", "wrong", REMOTE_ADDR=ATTACKER)
    assert _waits(_login(client, "alice", PASSWORD, REMOTE_ADDR=ATTACKER), 30)

    response = _login(client, "alice", PASSWORD, REMOTE_ADDR=OWNER_HOME)

    assert response.status_code == 302
    assert _signed_in(client)


def test_another_user_still_logs_in_from_the_same_address(client, users, clock):
    for _ in range(5):
        _login(client, "alice", "wrong")

    response = _login(client, "bob", PASSWORD)

    assert response.status_code == 302
    assert _signed_in(client)


def test_guessing_many_usernames_from_one_address_slows_that_address(client, users, settings, clock):
    assert settings.LOGIN_ADDRESS_FAILURE_LIMIT == 20
    for n in range(20):
        _login(client, f"guess-{n}", "wrong", REMOTE_ADDR=ATTACKER)

    assert _waits(_login(client, "bob", PASSWORD, REMOTE_ADDR=ATTACKER), 30)
    assert _login(client, "bob", PASSWORD, REMOTE_ADDR=OWNER_HOME).status_code == 302


def test_a_success_forgets_earlier_failures(client, users, clock):
    for _ in range(4):
        _login(client, "alice", "wrong")
    assert _login(client, "alice", PASSWORD).status_code == 302
    client.logout()

    answers = [_login(client, "alice", "wrong").status_code for _ in range(4)]

    assert answers == [200] * 4
    assert _login(client, "alice", PASSWORD).status_code == 302


def test_the_admin_login_is_slowed_too(client, users, clock):
    for _ in range(5):
        _login(client, "alice", "wrong", path="/admin/login/")

    response = _login(client, "alice", PASSWORD, path="/admin/login/")

    assert _waits(response, 30)
    assert not _signed_in(client)


# --- behind a proxy ----------------------------------------------------------------------------


def test_without_a_trusted_proxy_a_forwarded_address_is_ignored(client, users, settings, clock):
    assert settings.TRUSTED_PROXY_COUNT == 0
    for n in range(5):
        _login(client, "alice", "wrong", REMOTE_ADDR=ATTACKER, HTTP_X_FORWARDED_FOR=f"192.0.2.{n}")

    response = _login(client, "alice", PASSWORD, REMOTE_ADDR=ATTACKER, HTTP_X_FORWARDED_FOR="192.0.2.99")

    assert _waits(response, 30)


def test_behind_the_proxy_each_client_is_its_forwarded_address(client, users, settings, clock):
    settings.TRUSTED_PROXY_COUNT = 1
    # The proxy appends the address it saw; what the client wrote before it changes nothing.
    for n in range(5):
        _login(client, "alice", "wrong", REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR=f"192.0.2.{n}, {ATTACKER}")
    spoofing = _login(client, "alice", PASSWORD, REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR=f"{OWNER_HOME}, {ATTACKER}")

    owner = _login(client, "alice", PASSWORD, REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR=OWNER_HOME)

    assert _waits(spoofing, 30)
    assert owner.status_code == 302
    assert _signed_in(client)


def test_with_two_proxies_the_client_is_the_second_entry_from_the_right(client, users, settings, clock):
    settings.TRUSTED_PROXY_COUNT = 2
    chain = f"192.0.2.1, {ATTACKER}, 172.16.0.5"  # written by the client, the CDN, the balancer
    for _ in range(5):
        _login(client, "alice", "wrong", REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR=chain)

    elsewhere = f"192.0.2.1, {OWNER_HOME}, 172.16.0.5"

    assert _waits(_login(client, "alice", PASSWORD, REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR=chain), 30)
    assert _login(client, "alice", PASSWORD, REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR=elsewhere).status_code == 302

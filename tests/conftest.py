"""Shared personas: an owner, an admin and a member of one team, and an outsider who owns
another team. Every access test reads the same way: `api.as_(owner_key)`."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from rest_framework.test import APIClient

from teams import services
from teams.models import SCOPES, Role, Team
from tests.factories import UserFactory


def pytest_report_header(config: Any) -> list[str]:
    database = connection.vendor
    lines = [f"database: {database}; redis: {'yes' if settings.REDIS_URL else 'no (Redis tests skipped)'}"]
    if database != "postgresql":
        lines.append("PostgreSQL-only tests are skipped: set DATABASE_URL=postgres://... to run them.")
    return lines


def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
    on_postgres = connection.vendor == "postgresql"
    for item in items:
        if "postgres" in item.keywords and not on_postgres:
            item.add_marker(pytest.mark.skip(reason="needs PostgreSQL: set DATABASE_URL"))
        if "redis" in item.keywords and not settings.REDIS_URL:
            item.add_marker(pytest.mark.skip(reason="needs Redis: set REDIS_URL"))


@pytest.fixture(autouse=True, scope="session")
def _private_folder_broker(tmp_path_factory: Any) -> None:
    """Without Redis, messages the tests publish go to a scratch folder, not to var/broker where
    a developer's `make run` worker would pick them up."""
    if settings.REDIS_URL:
        return
    from config.celery import app

    folder = tmp_path_factory.mktemp("broker")
    for name in ("queue", "control"):
        (folder / name).mkdir()
    app.conf.broker_transport_options = {
        **app.conf.broker_transport_options,
        "data_folder_in": str(folder / "queue"),
        "data_folder_out": str(folder / "queue"),
        "control_folder": str(folder / "control"),
    }


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _isolated_rate_limits(settings: Any) -> None:
    # Counters live in a shared Redis in CI; a per-test prefix keeps tests independent.
    settings.RATE_LIMIT_KEY_PREFIX = f"test-{uuid.uuid4().hex}"
    # Without Redis the test process is the one process that counts: it gets the whole limit.
    settings.RATE_LIMIT_LOCAL_PROCESSES = 1


@pytest.fixture(params=[pytest.param("fixed", marks=pytest.mark.postgres), "orm"])
def hot_path(request: Any, settings: Any) -> str:
    """The test runs once on each implementation of the hot paths (`config.db.fixed_statements`):
    PostgreSQL's fixed statements (skipped on other databases, which have none) and the ORM
    twins every database takes. The value names the one running."""
    settings.DB_FIXED_STATEMENTS = request.param == "fixed"
    return str(request.param)


@pytest.fixture
def eager_tasks() -> Iterator[None]:
    """Celery runs each task at once, inside the test (or the live server's request), instead of
    sending it to a broker no worker reads. Opt in by name or with an autouse wrapper."""
    from config.celery import app

    conf = app.conf
    saved = conf.task_always_eager, conf.task_eager_propagates
    conf.task_always_eager, conf.task_eager_propagates = True, True
    yield
    conf.task_always_eager, conf.task_eager_propagates = saved


class Api(APIClient):
    def as_(self, key: str | None) -> Api:
        self.credentials(**({"HTTP_AUTHORIZATION": f"Bearer {key}"} if key else {}))
        return self


@pytest.fixture
def api() -> Api:
    return Api()


@dataclass
class Persona:
    user: Any
    team: Team
    key: str  # a team key with every scope

    def key_with(self, *scopes: str, **kwargs: Any) -> str:
        _, plaintext = services.api_key_create(user=self.user, name="test", scopes=scopes, team=self.team, **kwargs)
        return plaintext


def _persona(user: Any, team: Team) -> Persona:
    _, key = services.api_key_create(user=user, name="all scopes", scopes=SCOPES, team=team)
    return Persona(user=user, team=team, key=key)


@pytest.fixture
def team(db: None) -> Team:
    owner = UserFactory(username="owner")
    return services.team_create(name="Acme", owner=owner)


@pytest.fixture
def owner(team: Team) -> Persona:
    return _persona(team.memberships.get(role=Role.OWNER).user, team)


@pytest.fixture
def admin(team: Team) -> Persona:
    user = UserFactory(username="admin")
    services.membership_add(team=team, user=user, role=Role.ADMIN)
    return _persona(user, team)


@pytest.fixture
def member(team: Team) -> Persona:
    user = UserFactory(username="member")
    services.membership_add(team=team, user=user, role=Role.MEMBER)
    return _persona(user, team)


@pytest.fixture
def outsider(db: None) -> Persona:
    user = UserFactory(username="outsider")
    return _persona(user, services.team_create(name="Other Inc", owner=user))


@pytest.fixture
def queries() -> Iterator[Any]:
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as context:
        yield context


# The platform clients' read timeout in tests: long enough that a loaded machine never turns a
# slow answer into an unknown outcome, and short where a test arranges one (HASTY), so the
# sandbox's `timeout` outcome costs a second, not ten.
PATIENT_SECONDS = 10.0
HASTY_SECONDS = 1.0


class Sandbox:
    """A running sandbox: `url`, direct access to its `state`, and its control API."""

    def __init__(self, url: str, state: Any, settings: Any) -> None:
        self.url, self.state, self._settings = url, state, settings

    def hasty(self) -> None:
        """The clients give up after HASTY_SECONDS: for tests whose point is a timeout."""
        self._settings.PLATFORM_TIMEOUT_SECONDS = HASTY_SECONDS

    def outcomes(self, platform: str, *outcomes: str) -> None:
        """Queue the platform's next answers; a `timeout` among them makes the clients hasty."""
        import requests

        if "timeout" in outcomes:
            self.hasty()
        requests.post(
            f"{self.url}/_sandbox/outcomes", json={"platform": platform, "outcomes": list(outcomes)}, timeout=5
        ).raise_for_status()

    def posts(self, platform: str | None = None) -> list[dict[str, Any]]:
        import requests

        params = {"platform": platform} if platform else {}
        return requests.get(f"{self.url}/_sandbox/posts", params=params, timeout=5).json()["posts"]

    def comments(self, platform: str | None = None) -> list[dict[str, Any]]:
        import requests

        params = {"platform": platform} if platform else {}
        return requests.get(f"{self.url}/_sandbox/comments", params=params, timeout=5).json()["comments"]


@pytest.fixture
def sandbox(settings: Any) -> Iterator[Sandbox]:
    """The platform sandbox on a free loopback port; platform clients of sandbox accounts
    reach it through SANDBOX_URL. The `timeout` outcome holds answers for 6 s, longer than the
    clients' read timeout once a test arranges it (`Sandbox.outcomes`, `Sandbox.hasty`)."""
    import threading

    from sandbox.app import create_app
    from sandbox.http import Context
    from sandbox.server import make_sandbox_server
    from sandbox.state import State

    settings.PLATFORM_TIMEOUT_SECONDS = PATIENT_SECONDS
    state = State()
    server = make_sandbox_server("127.0.0.1", 0, create_app(Context(state=state, hold_seconds=6.0)))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    settings.SANDBOX_URL = f"http://127.0.0.1:{server.server_port}"
    try:
        yield Sandbox(settings.SANDBOX_URL, state, settings)
    finally:
        server.shutdown()
        server.server_close()

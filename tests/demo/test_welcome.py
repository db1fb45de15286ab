"""`manage.py welcome`, make run's last word: once the web server answers and every worker has
started, the dashboard, its three logins and a working key, printed below the banners."""

from __future__ import annotations

import types
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from config.celery import mark_ready
from demo.management.commands.welcome import procfile_workers
from demo.seed import DEMO_PASSWORD
from teams.models import ApiKey

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def started_workers(settings, tmp_path):
    """Every worker of the Procfile marked ready, as each does when it starts (worker_ready)."""
    settings.VAR_DIR = tmp_path
    for n in range(procfile_workers()):
        mark_ready(sender=types.SimpleNamespace(hostname=f"worker{n}@here"))


def _welcome() -> str:
    call_command("seed_demo", "--quiet")
    out = StringIO()
    call_command("welcome", "--once", "--wait", "20", stdout=out)
    return out.getvalue()


def test_it_prints_the_three_logins_the_dashboard_and_a_working_key(api, live_server, settings, started_workers):
    settings.PUBLIC_BASE_URL = live_server.url

    text = _welcome()

    assert f"Dashboard:     {live_server.url}/" in text
    for login in ("'owner'", "'admin'", "'member'"):
        assert login in text
    assert DEMO_PASSWORD in text
    assert "/_sandbox/inbox/" in text
    key = next(word for word in text.split() if word.startswith("sk_"))
    assert api.as_(key).get("/api/v1/accounts").status_code == 200


def test_a_restart_revokes_the_key_the_last_start_printed(api, live_server, settings, started_workers):
    settings.PUBLIC_BASE_URL = live_server.url

    first = next(word for word in _welcome().split() if word.startswith("sk_"))
    second = next(word for word in _welcome().split() if word.startswith("sk_"))

    assert api.as_(first).get("/api/v1/accounts").status_code == 401
    assert api.as_(second).get("/api/v1/accounts").status_code == 200
    assert ApiKey.objects.filter(name="demo make run", revoked_at__isnull=True).count() == 1


def test_it_says_so_when_the_web_server_never_answers(settings, started_workers):
    settings.PUBLIC_BASE_URL = "http://127.0.0.1:9"  # discard: nothing listens

    with pytest.raises(CommandError, match="did not answer"):
        call_command("welcome", "--once", "--wait", "1", stdout=StringIO())

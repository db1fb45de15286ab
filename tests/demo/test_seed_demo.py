from __future__ import annotations

import json
import os
import subprocess
import sys
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from accounts.models import SocialAccount
from accounts.platforms.limits import PLATFORMS
from demo.seed import DEMO_PASSWORD
from teams.models import SCOPES, ApiKey, Membership, Team

pytestmark = pytest.mark.django_db

KEY_NAMES = {
    "acme_owner",
    "acme_readonly",
    "owner_user",
    "review_owner",
    "review_admin",
    "review_member",
    "quota_owner",
    "other_owner",
}


def _seed(*args: str) -> dict:
    out = StringIO()
    call_command("seed_demo", *args, "--json", stdout=out)
    return json.loads(out.getvalue())  # exactly one JSON object, nothing else


def test_fresh_json_has_the_contract_shape(settings):
    data = _seed("--fresh")

    assert set(data) == {"sandbox_url", "teams", "keys", "accounts"}
    assert data["sandbox_url"] == settings.SANDBOX_URL
    assert set(data["teams"]) == {"acme", "review", "quota", "other"}
    assert set(data["keys"]) == KEY_NAMES
    assert all(key.startswith("sk_") for key in data["keys"].values())
    assert set(data["accounts"]["acme"]) == {*PLATFORMS, "x_expired"}
    for slug in ("review", "quota", "other"):
        assert set(data["accounts"][slug]) == set(PLATFORMS)
    for slug, team in data["teams"].items():
        assert set(team) == {"id", "name", "approval_required"}
        assert team["approval_required"] is (slug == "review")


def test_team_names_end_in_one_shared_tag():
    teams = _seed("--fresh")["teams"]

    tag = teams["acme"]["name"].rsplit(" ", 1)[1]
    assert teams["acme"]["name"] == f"Acme {tag}"
    assert teams["review"]["name"] == f"Acme Review {tag}"
    assert teams["quota"]["name"] == f"Quota {tag}"
    assert teams["other"]["name"] == f"Other {tag}"


def test_every_fresh_run_is_isolated():
    first, second = _seed("--fresh"), _seed("--fresh")

    assert first["teams"]["acme"]["id"] != second["teams"]["acme"]["id"]
    assert first["teams"]["acme"]["name"] != second["teams"]["acme"]["name"]


def test_without_fresh_the_data_is_reused_with_new_keys():
    first, second = _seed(), _seed()

    assert first["teams"] == second["teams"]
    assert first["accounts"] == second["accounts"]
    assert first["keys"]["acme_owner"] != second["keys"]["acme_owner"]


def test_roles_and_plans_match_the_contract():
    data = _seed("--fresh")
    team = {slug: Team.objects.get(pk=t["id"]) for slug, t in data["teams"].items()}

    roles = {(m.user.username.split("_")[0], m.role) for m in Membership.objects.filter(team=team["review"])}
    assert roles == {("owner", "owner"), ("admin", "admin"), ("member", "member")}
    assert team["acme"].memberships.get(role="owner").user == team["review"].memberships.get(role="owner").user
    assert team["quota"].memberships.get(role="owner").user == team["other"].memberships.get(role="owner").user
    assert team["quota"].plan.posts_per_month == 2
    for slug in ("acme", "review", "other"):
        assert team[slug].plan.posts_per_month is None


def test_keys_are_bound_and_scoped_as_the_contract_says(api):
    data = _seed("--fresh")

    for name, plaintext in data["keys"].items():
        body = api.as_(plaintext).get("/api/v1/accounts").json()
        if name == "owner_user":
            key = ApiKey.objects.get(name="demo owner_user", active_team_id=data["teams"]["acme"]["id"])
            assert key.kind == "user"
        team_slug = "acme" if name in {"acme_readonly", "owner_user"} else name.split("_")[0]
        expected = set(data["accounts"][team_slug].values())
        assert {a["id"] for a in body["data"]} == expected, name

    readonly = api.as_(data["keys"]["acme_readonly"])
    assert readonly.get("/api/v1/usage").status_code == 403
    assert set(ApiKey.objects.get(name="demo acme_owner", team_id=data["teams"]["acme"]["id"]).scopes) == set(SCOPES)


def test_accounts_are_sandbox_accounts_and_one_is_expired():
    data = _seed("--fresh")

    accounts = SocialAccount.objects.filter(team_id=data["teams"]["acme"]["id"])
    assert all(a.sandbox for a in accounts)
    assert accounts.get(pk=data["accounts"]["acme"]["x_expired"]).status == "expired"
    assert {a.status for a in accounts.exclude(pk=data["accounts"]["acme"]["x_expired"])} == {"active"}
    pinterest = accounts.get(pk=data["accounts"]["acme"]["pinterest"])
    assert pinterest.metadata["boards"][0]["id"] == "549755885175"


def test_sandbox_url_follows_the_sandbox_port(settings):
    settings.SANDBOX_URL = "http://127.0.0.1:9100"

    assert _seed("--fresh")["sandbox_url"] == "http://127.0.0.1:9100"


def test_refuses_to_run_in_production(settings):
    settings.DEVELOPMENT = False

    with pytest.raises(CommandError):
        _seed("--fresh")


def test_summary_prints_the_login_and_a_working_key(api):
    out = StringIO()
    call_command("seed_demo", stdout=out)

    text = out.getvalue()
    assert "Dashboard:" in text
    assert "/admin/" in text
    assert DEMO_PASSWORD in text
    key = next(word for word in text.split() if word.startswith("sk_"))
    assert api.as_(key).get("/api/v1/accounts").status_code == 200


def test_an_unmigrated_database_is_migrated_first_with_stdout_kept_clean(tmp_path):
    """A fresh checkout can run seed_demo before anything else and still parse its stdout."""
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'fresh.sqlite3'}"}
    env.pop("REDIS_URL", None)

    result = subprocess.run(
        [sys.executable, "manage.py", "seed_demo", "--fresh", "--json"],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )

    assert set(json.loads(result.stdout)) == {"sandbox_url", "teams", "keys", "accounts"}
    assert "Applying teams.0001_initial" in result.stderr

"""Production settings, loaded for real in a subprocess: `check --deploy` is clean, HTTPS is
enforced, and a process refuses to start without valid FIELD_ENCRYPTION_KEYS."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.fernet import Fernet
from django.conf import settings as django_settings
from django.core.exceptions import ImproperlyConfigured

from config.fernet_keys import fernets

BASE_DIR = Path(django_settings.BASE_DIR)
# Variables of the calling environment that would change what is tested here (the browser
# tests set DJANGO_ALLOW_ASYNC_UNSAFE for the whole test process; no deployment has it).
DROPPED = (
    *("DATABASE_URL", "REDIS_URL", "DEBUG", "ALLOWED_HOSTS", "FIELD_ENCRYPTION_KEYS", "SECRET_KEY"),
    "DJANGO_ALLOW_ASYNC_UNSAFE",
)


def _env(tmp_path: Path, **overrides: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in DROPPED and not k.startswith(("SECURE_", "LOGIN_"))}
    env.update(
        APP_ENV="production",
        SECRET_KEY=secrets.token_urlsafe(60),
        FIELD_ENCRYPTION_KEYS=Fernet.generate_key().decode(),
        ALLOWED_HOSTS="example.com",
        DATABASE_URL=f"sqlite:///{tmp_path / 'scratch.sqlite3'}",
        BROKER_DIR=str(tmp_path / "broker"),
    )
    env.update(overrides)
    return env


def _run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: S603 - our own interpreter and manage.py
        [sys.executable, *args], cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=120, check=False
    )


PRINT_SETTINGS = (
    "import json, django; django.setup(); from django.conf import settings as s; "
    "print(json.dumps({name: getattr(s, name, None) for name in ("
    "'SECURE_HSTS_SECONDS', 'SECURE_HSTS_INCLUDE_SUBDOMAINS', 'SECURE_SSL_REDIRECT', 'SECURE_PROXY_SSL_HEADER', "
    "'SECURE_REFERRER_POLICY', 'SESSION_COOKIE_SECURE', 'CSRF_COOKIE_SECURE', 'MESSAGE_STORAGE')}))"
)


def test_check_deploy_passes_without_warnings(tmp_path):
    result = _run(_env(tmp_path), "manage.py", "check", "--deploy", "--fail-level", "WARNING")

    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout
    assert "WARNING" not in result.stdout + result.stderr


def test_production_enforces_https_behind_a_proxy(tmp_path):
    result = _run(_env(tmp_path, DJANGO_SETTINGS_MODULE="config.settings"), "-c", PRINT_SETTINGS)

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {
        "SECURE_HSTS_SECONDS": 31536000,
        "SECURE_HSTS_INCLUDE_SUBDOMAINS": True,
        "SECURE_SSL_REDIRECT": True,
        "SECURE_PROXY_SSL_HEADER": ["HTTP_X_FORWARDED_PROTO", "https"],
        "SECURE_REFERRER_POLICY": "same-origin",
        "SESSION_COOKIE_SECURE": True,
        "CSRF_COOKIE_SECURE": True,
        "MESSAGE_STORAGE": "config.messages.EncryptedSessionStorage",
    }


def test_https_settings_can_be_overridden(tmp_path):
    env = _env(tmp_path, DJANGO_SETTINGS_MODULE="config.settings", SECURE_SSL_REDIRECT="off", SECURE_HSTS_SECONDS="60")

    result = _run(env, "-c", PRINT_SETTINGS)

    values = json.loads(result.stdout.strip().splitlines()[-1])
    assert (values["SECURE_SSL_REDIRECT"], values["SECURE_HSTS_SECONDS"]) == (False, 60)


@pytest.mark.parametrize(
    "keys", ["", "not-a-fernet-key-SECRETPART", f"{Fernet.generate_key().decode()},short-SECRETPART"]
)
def test_production_refuses_to_start_without_valid_encryption_keys(tmp_path, keys):
    result = _run(_env(tmp_path, FIELD_ENCRYPTION_KEYS=keys), "manage.py", "check")

    assert result.returncode != 0
    assert "ImproperlyConfigured: FIELD_ENCRYPTION_KEYS" in result.stderr
    assert "SECRETPART" not in result.stdout + result.stderr


def test_a_malformed_key_is_named_by_position_never_shown():
    good = Fernet.generate_key().decode()

    with pytest.raises(ImproperlyConfigured, match="key 2 of 2") as caught:
        fernets([good, "x" * 40])

    assert "x" * 40 not in str(caught.value)
    assert caught.value.__cause__ is None
    assert len(fernets([good, Fernet.generate_key().decode()])) == 2


def test_no_key_is_refused():
    with pytest.raises(ImproperlyConfigured, match="FIELD_ENCRYPTION_KEYS is required"):
        fernets([])

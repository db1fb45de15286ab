"""`manage.py rotate_field_keys`: every encrypted column re-encrypted with the newest key."""

from __future__ import annotations

from io import StringIO

import pytest
from cryptography.fernet import Fernet
from django.core.management import CommandError, call_command
from django.db import connection

from accounts.models import SocialAccount
from config import crypto
from tests.factories import SocialAccountFactory
from webhooks import services as webhooks
from webhooks.models import Subscription

pytestmark = pytest.mark.django_db

OLD, NEW = Fernet.generate_key().decode(), Fernet.generate_key().decode()


def _raw(model, column: str, pk) -> str:
    with connection.cursor() as cursor:
        sql = f"SELECT {column} FROM {model._meta.db_table} WHERE id = %s"  # noqa: S608 - our own names
        cursor.execute(sql, [pk.hex if _sqlite() else pk])
        return cursor.fetchone()[0]


def _sqlite() -> bool:
    return connection.vendor == "sqlite"


def _rotate(*args: str) -> str:
    out = StringIO()
    call_command("rotate_field_keys", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def secrets_under_old_key(settings, owner):
    settings.FIELD_ENCRYPTION_KEYS = [OLD]
    settings.SSRF_ALLOW_PRIVATE = True
    accounts = [
        SocialAccountFactory(team=owner.team, access_token=f"access-{n}", refresh_token=f"refresh-{n}")
        for n in range(3)
    ]
    hook = webhooks.subscription_create(team=owner.team, url="http://127.0.0.1:9/hook", events=["post.published"])
    return accounts, hook


def test_every_encrypted_column_is_found():
    columns = {f"{model._meta.label}.{field.attname}" for model, field in crypto.encrypted_columns()}

    assert columns == {
        "accounts.SocialAccount.access_token",
        "accounts.SocialAccount.refresh_token",
        "webhooks.Subscription.secret",
        "webhooks.Subscription.previous_secret",
    }


def test_rotated_values_decrypt_with_the_new_key_alone(settings, secrets_under_old_key):
    accounts, hook = secrets_under_old_key
    secret = Subscription.objects.get(pk=hook.pk).secret
    before = {a.pk: _raw(SocialAccount, "access_token", a.pk) for a in accounts}
    hook_before = _raw(Subscription, "secret", hook.pk)

    settings.FIELD_ENCRYPTION_KEYS = [NEW, OLD]
    output = _rotate("--batch-size", "2")  # more than one batch
    settings.FIELD_ENCRYPTION_KEYS = [NEW]

    for account in accounts:
        stored = SocialAccount.objects.get(pk=account.pk)
        assert (stored.access_token, stored.refresh_token) == (account.access_token, account.refresh_token)
        assert _raw(SocialAccount, "access_token", account.pk) != before[account.pk]
    assert Subscription.objects.get(pk=hook.pk).secret == secret
    assert _raw(Subscription, "secret", hook.pk) != hook_before
    assert "accounts.SocialAccount.access_token: 3 re-encrypted, 0 already current" in output
    assert "webhooks.Subscription.secret: 1 re-encrypted" in output
    for account in accounts:  # counts only, never a value
        assert account.access_token not in output
        assert before[account.pk] not in output
    assert secret not in output


def test_a_second_run_finds_nothing_to_do(settings, secrets_under_old_key):
    settings.FIELD_ENCRYPTION_KEYS = [NEW, OLD]
    _rotate()
    raw = _raw(SocialAccount, "refresh_token", secrets_under_old_key[0][0].pk)

    output = _rotate()

    assert "accounts.SocialAccount.refresh_token: 0 re-encrypted, 3 already current" in output
    assert _raw(SocialAccount, "refresh_token", secrets_under_old_key[0][0].pk) == raw


def test_empty_values_stay_empty(settings, owner):
    settings.FIELD_ENCRYPTION_KEYS = [OLD]
    account = SocialAccountFactory(team=owner.team, refresh_token="")
    settings.FIELD_ENCRYPTION_KEYS = [NEW, OLD]

    output = _rotate()

    assert _raw(SocialAccount, "refresh_token", account.pk) == ""
    assert "accounts.SocialAccount.refresh_token: 0 re-encrypted, 0 already current" in output


def test_a_value_no_listed_key_decrypts_fails_the_run(settings, secrets_under_old_key):
    settings.FIELD_ENCRYPTION_KEYS = [NEW]  # the old key was dropped too early

    with pytest.raises(CommandError, match="could not be decrypted"):
        _rotate()

    assert _raw(SocialAccount, "access_token", secrets_under_old_key[0][0].pk)  # left as it was

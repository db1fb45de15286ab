"""Every model's admin pages load for staff, and no secret is ever displayed."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.contrib import admin
from django.urls import reverse

from accounts import services as account_services
from teams import services
from teams.models import ApiKey
from tests.factories import SocialAccountFactory, UserFactory

pytestmark = pytest.mark.django_db

PROJECT_APPS = {"teams", "accounts", "media", "webhooks", "publishing", "analytics"}


@pytest.fixture
def staff_client(client, owner):
    staff = UserFactory(username="staff", is_staff=True, is_superuser=True)
    client.force_login(staff)
    SocialAccountFactory(team=owner.team, access_token="tok-access-secret", refresh_token="tok-refresh-secret")
    return client


def test_every_project_model_is_registered():
    models = [m for m in apps.get_models() if m._meta.app_label in PROJECT_APPS]
    # A model shown only inside its parent's page (an account's posting schedule) counts too.
    inline = {inline.model for model_admin in admin.site._registry.values() for inline in model_admin.inlines}

    assert models
    assert [m.__name__ for m in models if not admin.site.is_registered(m) and m not in inline] == []


def test_an_accounts_page_shows_its_posting_schedule(staff_client, owner):
    account = SocialAccountFactory._meta.model.objects.first()
    account_services.posting_schedule_set(
        account=account, time_zone="Europe/Paris", slots=[{"day": "tue", "time": "07:45"}]
    )

    html = staff_client.get(reverse("admin:accounts_socialaccount_change", args=[account.pk])).content.decode()

    assert "Europe/Paris" in html
    assert "07:45" in html


@pytest.mark.parametrize("model", list(admin.site._registry))
def test_changelist_add_and_change_pages_load(staff_client, model):
    meta = model._meta
    changelist = staff_client.get(reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist"))
    assert changelist.status_code == 200
    assert staff_client.get(reverse(f"admin:{meta.app_label}_{meta.model_name}_add")).status_code in (200, 403)
    obj = model._default_manager.first()
    if obj is not None:
        change = staff_client.get(reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[obj.pk]))
        assert change.status_code == 200


def test_secrets_are_never_displayed(staff_client, owner):
    key = ApiKey.objects.first()
    pages = [
        reverse("admin:accounts_socialaccount_changelist"),
        reverse("admin:accounts_socialaccount_change", args=[SocialAccountFactory._meta.model.objects.first().pk]),
        reverse("admin:teams_apikey_changelist"),
        reverse("admin:teams_apikey_change", args=[key.pk]),
    ]
    for page in pages:
        html = staff_client.get(page).content.decode()
        assert "tok-access-secret" not in html
        assert "tok-refresh-secret" not in html
        assert key.secret_hash not in html
        assert owner.key not in html


def test_creating_a_key_in_the_admin_shows_it_once_and_it_works(staff_client, owner, api):
    response = staff_client.post(
        reverse("admin:teams_apikey_add"),
        {"name": "from admin", "user": owner.user.pk, "team": owner.team.pk, "scopes": ["accounts:read"]},
        follow=True,
    )

    shown = [str(m) for m in response.context["messages"]]
    plaintext = next(word for m in shown for word in m.split() if word.startswith("sk_"))
    assert api.as_(plaintext).get("/api/v1/accounts").status_code == 200
    assert ApiKey.objects.get(name="from admin").kind == "team"


def test_revoke_action_stops_the_key(staff_client, owner, api):
    key = ApiKey.objects.get(user=owner.user, team=owner.team)

    staff_client.post(
        reverse("admin:teams_apikey_changelist"), {"action": "revoke", "_selected_action": [key.pk]}, follow=True
    )

    assert api.as_(owner.key).get("/api/v1/accounts").status_code == 401


def test_api_key_service_refuses_unknown_scopes(owner):
    from config.errors import InvalidRequest

    with pytest.raises(InvalidRequest):
        services.api_key_create(user=owner.user, name="bad", scopes=["posts:delete"], team=owner.team)

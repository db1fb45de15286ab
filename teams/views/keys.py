"""The API keys page (owners and admins): the keys `selectors.api_keys_shown` lists, a form
that creates one through `services.api_key_create`, and revoking through
`services.api_key_revoke`.

The plaintext of a new key exists only in the create request's answer: it goes to the next
page through the session, encrypted and removed on first display (`config.shown_once`), and
that page is not cached, so a reload or the back button never shows it again. Only its hash is
stored.
"""

from __future__ import annotations

import uuid

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.cache import never_cache

from config import shown_once
from config.errors import ApplicationError
from teams import selectors, services
from teams.dashboard import can_manage, page_context, signed_in_user
from teams.forms import ApiKeyCreateForm
from teams.models import SCOPES, ApiKeyKind, Membership
from teams.views.common import back_to, settings_view

TEMPLATE = "teams/keys.html"
REFUSAL = "Only the team's owner or admins manage API keys."
NEW_KEY = "settings:new-api-key"  # session key of the plaintext still to show once


def _render(
    request: HttpRequest, membership: Membership, *, form: ApiKeyCreateForm | None = None, status: int = 200
) -> HttpResponse:
    form = form or ApiKeyCreateForm(initial={"kind": ApiKeyKind.TEAM})
    context = page_context(
        request,
        membership,
        keys=selectors.api_keys_shown(team=membership.team, user=signed_in_user(request)),
        new_key=shown_once.take(request.session, NEW_KEY),
        form=form,
        kinds=ApiKeyKind.choices,
        chosen_kind=form["kind"].value(),
        scopes=SCOPES,
        chosen_scopes=form["scopes"].value() or [],
        now=timezone.now(),
    )
    return render(request, TEMPLATE, context, status=status)


@never_cache
@settings_view(allowed=can_manage, refusal=REFUSAL)
def keys(request: HttpRequest, membership: Membership) -> HttpResponse:
    return _render(request, membership)


@settings_view(allowed=can_manage, refusal=REFUSAL, action_of="settings-keys")
def create(request: HttpRequest, membership: Membership) -> HttpResponse:
    form = ApiKeyCreateForm(request.POST)
    if not form.is_valid():
        return _render(request, membership, form=form, status=400)
    team, bound = membership.team, form.cleaned_data["kind"] == ApiKeyKind.TEAM
    try:
        api_key, plaintext = services.api_key_create(
            user=signed_in_user(request),
            name=form.cleaned_data["name"],
            scopes=form.cleaned_data["scopes"],
            team=team if bound else None,
            active_team=None if bound else team,
            expires_at=form.cleaned_data["expires_at"],
        )
    except ApplicationError as exc:
        form.add_error(None, exc.message)
        return _render(request, membership, form=form, status=exc.status_code)
    shown_once.keep(request.session, NEW_KEY, {"name": api_key.name, "prefix": api_key.prefix, "plaintext": plaintext})
    messages.success(request, f"Created the key “{api_key.name}”. Copy it now: it is not shown again.")
    return back_to("settings-keys", team)


@settings_view(allowed=can_manage, refusal=REFUSAL, action_of="settings-keys")
def revoke(request: HttpRequest, membership: Membership, key_id: uuid.UUID) -> HttpResponse:
    shown = selectors.api_keys_shown(team=membership.team, user=signed_in_user(request))
    api_key = shown.filter(pk=key_id).first()
    if api_key is None:
        raise Http404("No such key.")
    if api_key.revoked_at is not None:
        messages.info(request, f"The key “{api_key.name}” was already revoked.")
    else:
        services.api_key_revoke(api_key=api_key)
        messages.success(request, f"Revoked the key “{api_key.name}”: requests with it now get 401.")
    return back_to("settings-keys", membership.team)

"""The notifications settings page: every member chooses, for themselves, which mails they
get. The choice is the person's, in every team they belong to; the page sits among the team's
settings so its navigation stays in place."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from notifications import selectors, services
from notifications.models import Kind
from teams.dashboard import page_context, signed_in_user
from teams.models import Membership
from teams.views.common import back_to, settings_view

TEMPLATE = "notifications/settings.html"
# Who each kind can reach, shown beside its switch.
AUDIENCE = {
    Kind.APPROVAL_REQUESTED: "To owners and admins, when a member's post waits for them.",
    Kind.APPROVAL_DECIDED: "To the post's author, with the reason of a rejection.",
    Kind.DELIVERY_FAILED: "To the post's author: which accounts failed, and the platform's words.",
    Kind.ACCOUNT_NEEDS_RECONNECT: "To the team's owner, when a platform refuses an account's token.",
}


@settings_view()
def notifications(request: HttpRequest, membership: Membership) -> HttpResponse:
    preference = selectors.preference_of(user=signed_in_user(request))
    switches = [(kind, AUDIENCE[kind], preference.wants(kind)) for kind in Kind]
    return render(request, TEMPLATE, page_context(request, membership, switches=switches))


@settings_view(action_of="settings-notifications")
def save(request: HttpRequest, membership: Membership) -> HttpResponse:
    wanted = [kind for kind in Kind.values if request.POST.get(kind) == "on"]
    services.preference_set(user=signed_in_user(request), wanted=wanted)
    messages.success(request, "Your notification choices are saved.")
    return back_to("settings-notifications", membership.team)

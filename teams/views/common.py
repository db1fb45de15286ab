"""What the settings views share: the team a request acts in, who may act there, and how a
service's refusal reaches the field it concerns."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from config.errors import ApplicationError
from config.sentences import in_words, sentences
from teams.dashboard import requested_membership
from teams.models import Membership, Role, Team

View = Callable[..., HttpResponse]

# The services' messages as the settings pages say them (config.sentences): the API names its
# fields, and echoes what was typed, which a page shows right beside the field anyway.
SENTENCES = sentences(
    (
        "confirmation_name",
        r"^confirmation_name must be",
        "Type the team's name exactly as it is written above, to confirm that this team is the one to delete.",
    ),
    ("destination_team_id", r"^destination_team_id must be", "Choose another team you own to receive the content."),
    ("username", r"^No user is named “”\.$", "Enter the username of the person to add."),
    ("username", r"^No user is named “.{151,}”\.$", "No username is that long: check what you typed."),
    ("username", r"^(?P<name>.+) is already a member of this team\.$", "“{name}” is already a member of this team."),
    (
        "time_zone",
        r"^“.{41,}” is not a time zone name",
        "That is not a time zone name. Pick one from the list, such as Europe/Paris or America/New_York.",
    ),
)


def anyone(membership: Membership) -> bool:
    return True


def is_owner(membership: Membership) -> bool:
    return membership.role == Role.OWNER


def settings_view(
    *, allowed: Callable[[Membership], bool] = anyone, refusal: str = "", action_of: str = ""
) -> Callable[[View], View]:
    """Make `view(request, membership, ...)` a signed-in page of the team the request names.
    A user whose role `allowed` refuses gets a 403 saying `refusal` (templates/403.html), before
    the view runs; the service the view calls checks the role again.

    A form's action (`action_of` names its page) takes POSTs only. A GET of its URL, from the
    team switcher of the page that showed the form's errors or from a reload, goes to that page."""

    def decorate(view: View) -> View:
        @login_required
        @require_http_methods(["GET", "HEAD", "POST"] if action_of else ["GET", "HEAD"])
        @functools.wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            membership = requested_membership(request)
            if action_of and request.method != "POST":
                return back_to(action_of, membership.team)
            if not allowed(membership):
                raise PermissionDenied(refusal)
            return view(request, membership, *args, **kwargs)

        return wrapper

    return decorate


def field_errors(exc: ApplicationError, field: str) -> dict[str, str]:
    """The service's message, in words, under the field it names (`details.field`, as the API
    reports it), else under `field`, the one the form is about."""
    named = str((exc.details or {}).get("field", field))
    return {named: in_words(SENTENCES, named, exc.message)}


def back_to(url_name: str, team: Team) -> HttpResponseRedirect:
    return redirect(f"{reverse(url_name)}?team={team.pk}")

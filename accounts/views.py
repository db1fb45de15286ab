"""Dashboard pages to connect, re-authorize and disconnect social accounts, and the JSON of an
account's capabilities the compose page draws its settings from.

OAuth platforms: POST connect stores the attempt (state, PKCE verifier, team, sandbox flag,
the account being re-authorized) in the server-side session under its `state`, then sends the
browser to the platform's authorize page; the callback accepts only a state it issued, once,
within ten minutes. Bluesky connects with a handle and an app password instead.

The sandbox exists only in development: there, a platform without app credentials connects
sandbox accounts; in production it cannot be connected, and the page says why.

Each account's posting schedule page shows its zone, weekly slots and next free slots to every
member; owners and admins change them there (the API's `accounts:write`), through
`services.posting_schedule_set` as PUT /api/v1/accounts/{id}/schedule does.
"""

from __future__ import annotations

import secrets
import time
import uuid
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts import connect_links, connect_pages, forms, services
from accounts.capabilities import account_capabilities
from accounts.models import AccountStatus, Platform, PostingSchedule, SocialAccount
from accounts.platforms.base import PlatformError
from accounts.platforms.registry import client_for
from accounts.schedules import DAYS, next_free_slots
from accounts.selectors import posting_schedule_of
from config.errors import ApplicationError
from config.sentences import in_words, sentences
from publishing.selectors import scheduled_instants_for
from teams import time_zones
from teams.dashboard import can_manage, page_context, requested_membership, signed_in_user, team_membership
from teams.models import Membership, Role, Team

ATTEMPT_LIFETIME_SECONDS = 600
PASSWORD_PLATFORMS = {Platform.BLUESKY}
SCHEDULE_MANAGERS_ONLY = "Only the team's owner or an admin can change an account's posting schedule."
# The service's refusals as the schedule page says them (config.sentences): beside the field,
# the zone typed is in the field already.
SCHEDULE_SENTENCES = sentences(
    (
        "time_zone",
        r"^“.{41,}” is not a time zone name",
        "That is not a time zone name. Pick one from the list, such as Europe/Paris or America/New_York.",
    ),
)


def _manager(request: HttpRequest, team_id: str | None) -> Team:
    membership = team_membership(request, team_id)
    if membership.role not in (Role.OWNER, Role.ADMIN):
        raise PermissionDenied("Only the team's owner or admins connect accounts.")
    return membership.team


def _back(team: Team) -> HttpResponseRedirect:
    return redirect(f"{reverse('dashboard')}?team={team.pk}")


_redirect_uri = connect_pages.redirect_uri
_app_configured = connect_links.app_configured
_connect_problem = connect_links.connect_problem
_has_client = connect_links.has_client


def _use_sandbox(request: HttpRequest, platform: str) -> bool:
    """In development, the sandbox unless asked otherwise and the platform's app credentials
    are configured; in production, never."""
    if not settings.DEVELOPMENT:
        return False
    configured = _app_configured(platform)
    return request.POST.get("sandbox", "on" if not configured else "") == "on" or not configured


def _account_of(team: Team, account_id: str) -> SocialAccount | None:
    """The team's account named in a query or form (404 for anything else), None if none is."""
    if not account_id:
        return None
    try:
        uuid.UUID(account_id)
    except ValueError:
        raise Http404("No such account.") from None
    return get_object_or_404(SocialAccount, pk=account_id, team=team)


@login_required
def dashboard(request: HttpRequest) -> HttpResponse:
    membership = team_membership(request, request.GET.get("team"))
    team = membership.team
    context = page_context(
        request,
        membership,
        **{
            "accounts": SocialAccount.objects.filter(team=team)
            .exclude(status=AccountStatus.DISCONNECTED)
            .order_by("platform", "created_at"),
            "platforms": [(p.value, p.label, _connect_problem(p.value)) for p in Platform],
            "password_platforms": {p.value for p in PASSWORD_PLATFORMS},
            "development": settings.DEVELOPMENT,
        },
    )
    return render(request, "accounts/dashboard.html", context)


def _start_oauth(request: HttpRequest, team: Team, platform: str, account: SocialAccount | None) -> HttpResponse:
    client = client_for(platform)
    sandbox = account.sandbox if account else _use_sandbox(request, platform)
    services.account_sandbox_check(sandbox=sandbox)
    verifier, challenge = connect_pages.pkce()
    state = secrets.token_urlsafe(32)
    request.session[f"connect:{state}"] = {
        "platform": platform,
        "team": str(team.pk),
        "verifier": verifier,
        "sandbox": sandbox,
        "account": str(account.pk) if account else None,
        "started": time.time(),
    }
    url = client.authorize_url(
        state=state, code_challenge=challenge, redirect_uri=_redirect_uri(platform), sandbox=sandbox
    )
    return HttpResponseRedirect(url)


@login_required
@require_POST
def connect(request: HttpRequest, platform: str) -> HttpResponse:
    if platform not in Platform.values:
        return redirect("dashboard")
    team = _manager(request, request.POST.get("team"))
    if problem := _connect_problem(platform):
        messages.error(request, f"{Platform(platform).label} cannot be connected. {problem}")
        return _back(team)
    if platform in PASSWORD_PLATFORMS:
        return redirect(f"{reverse('connect-password', args=[platform])}?team={team.pk}")
    return _start_oauth_or_explain(request, team, platform, None)


def _start_oauth_or_explain(
    request: HttpRequest, team: Team, platform: str, account: SocialAccount | None
) -> HttpResponse:
    try:
        return _start_oauth(request, team, platform, account)
    except ApplicationError as exc:
        messages.error(request, exc.message)
        return _back(team)


@login_required
@require_POST
def reauthorize(request: HttpRequest, account_id: str) -> HttpResponse:
    account = get_object_or_404(SocialAccount, pk=account_id, team__memberships__user=signed_in_user(request))
    team = _manager(request, str(account.team_id))
    if account.platform in PASSWORD_PLATFORMS:
        return redirect(f"{reverse('connect-password', args=[account.platform])}?team={team.pk}&account={account.pk}")
    return _start_oauth_or_explain(request, team, account.platform, account)


def _attempt(request: HttpRequest, platform: str) -> dict[str, Any] | None:
    attempt = request.session.pop(f"connect:{request.GET.get('state', '')}", None)
    if not isinstance(attempt, dict) or attempt.get("platform") != platform:
        return None
    if time.time() - float(attempt.get("started", 0)) > ATTEMPT_LIFETIME_SECONDS:
        return None
    return attempt


def callback(request: HttpRequest, platform: str) -> HttpResponse:
    """Where every authorization comes back: a connect link's (its signed state) is finished by
    `connect_pages` without a login; the dashboard's needs the person who started it."""
    if connect_links.is_link_state(request.GET.get("state", "")):
        return connect_pages.callback(request, platform)
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    attempt = _attempt(request, platform)
    if attempt is None:
        messages.error(request, "That authorization is unknown or too old. Start again.")
        return redirect("dashboard")
    team = get_object_or_404(Team, pk=attempt["team"], memberships__user=signed_in_user(request))
    if "code" not in request.GET:
        messages.error(request, f"{Platform(platform).label} did not authorize the account.")
        return _back(team)
    reauthorize = SocialAccount.objects.filter(pk=attempt["account"], team=team).first() if attempt["account"] else None
    try:
        credentials = client_for(platform).exchange_code(
            code=request.GET["code"],
            code_verifier=attempt["verifier"],
            redirect_uri=_redirect_uri(platform),
            sandbox=attempt["sandbox"],
        )
        account = services.account_connect(
            team=team, platform=platform, credentials=credentials, sandbox=attempt["sandbox"], reauthorize=reauthorize
        )
    except ApplicationError as exc:
        messages.error(request, exc.message)
        return _back(team)
    except PlatformError:  # the platform refused the code or could not be reached
        messages.error(request, f"{Platform(platform).label} refused the authorization. Try again.")
        return _back(team)
    messages.success(request, f"Connected {account}.")
    return _back(team)


@login_required
def connect_password(request: HttpRequest, platform: str) -> HttpResponse:
    if platform not in PASSWORD_PLATFORMS:
        return redirect("dashboard")
    team = _manager(request, request.GET.get("team") or request.POST.get("team"))
    reauthorize = _account_of(team, request.GET.get("account") or request.POST.get("account") or "")
    context = {"team": team, "platform": Platform(platform), "account": reauthorize, "sandbox_default": True}
    if request.method != "POST":
        return render(request, "accounts/connect_password.html", context)
    sandbox = reauthorize.sandbox if reauthorize else _use_sandbox(request, platform)
    try:
        services.account_sandbox_check(sandbox=sandbox)
        credentials = client_for(platform).login(
            identifier=request.POST.get("identifier", "").strip(),
            app_password=request.POST.get("app_password", "").strip(),
            sandbox=sandbox,
        )
        account = services.account_connect(
            team=team, platform=platform, credentials=credentials, sandbox=sandbox, reauthorize=reauthorize
        )
    except ApplicationError as exc:
        context["problem"] = exc.message
        return render(request, "accounts/connect_password.html", context, status=400)
    except PlatformError:
        context["problem"] = "Bluesky refused that handle and app password."
        return render(request, "accounts/connect_password.html", context, status=400)
    messages.success(request, f"Connected {account}.")
    return _back(team)


@login_required
@require_POST
def disconnect(request: HttpRequest, account_id: str) -> HttpResponse:
    account = get_object_or_404(SocialAccount, pk=account_id, team__memberships__user=signed_in_user(request))
    team = _manager(request, str(account.team_id))
    gone = services.account_disconnect(account=account, reason="Disconnected in the dashboard.")
    if gone.changed:
        revoked = " Its token was revoked at the platform." if gone.token_revoked else ""
        messages.success(request, f"Disconnected {account}.{revoked}")
    return _back(team)


@login_required
@require_GET
def capabilities(request: HttpRequest, account_id: uuid.UUID) -> JsonResponse:
    """The account's capabilities as GET /api/v1/accounts/{id}/capabilities answers them, for
    any member of the team named in `team` (the compose page); `refresh=true` reads again."""
    membership = requested_membership(request)
    account = get_object_or_404(SocialAccount, pk=account_id, team=membership.team)
    found = account_capabilities(account=account, refresh=request.GET.get("refresh") == "true")
    return JsonResponse({"data": found})


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def schedule(request: HttpRequest, account_id: uuid.UUID) -> HttpResponse:
    membership = requested_membership(request)
    account = get_object_or_404(
        SocialAccount.objects.defer("access_token", "refresh_token"), pk=account_id, team=membership.team
    )
    if request.method != "POST":
        return _schedule_page(request, membership, posting_schedule_of(account=account))
    if not can_manage(membership):
        raise PermissionDenied(SCHEDULE_MANAGERS_ONLY)
    slots, errors = forms.parsed_slots(request.POST)
    if errors:
        return _schedule_page(request, membership, posting_schedule_of(account=account), errors=errors)
    try:
        saved = services.posting_schedule_set(
            account=account, time_zone=request.POST.get("time_zone", "").strip(), slots=slots
        )
    except ApplicationError as exc:
        field = str((exc.details or {}).get("field", "time_zone"))
        errors = {field: in_words(SCHEDULE_SENTENCES, field, exc.message)}
        return _schedule_page(request, membership, posting_schedule_of(account=account), errors=errors)
    if saved.slots:
        messages.success(request, f"Saved the posting schedule of {account}, in {saved.time_zone}.")
    else:
        messages.success(request, f"Cleared the posting schedule of {account}: it has no slots.")
    return redirect(f"{reverse('dashboard-account-schedule', args=[account.pk])}?team={membership.team_id}")


def _schedule_page(
    request: HttpRequest, membership: Membership, schedule: PostingSchedule, *, errors: dict[str, str] | None = None
) -> HttpResponse:
    """The page of `schedule` (the stored one: a refused form shows what was typed, but the free
    slots of what is saved)."""
    saved = not schedule._state.adding  # posting_schedule_of answers an unsaved one for none
    # A new schedule starts in the team's zone rather than UTC: the one its people think in.
    shown = {"time_zone": schedule.time_zone if saved else membership.team.time_zone}
    shown.update(forms.day_texts(schedule.slots))
    if errors:
        shown = {name: request.POST.get(name, "") for name in shown}
    days = [(forms.DAY_NAMES[day], forms.field_of(day)) for day in DAYS]
    context = page_context(
        request,
        membership,
        account=schedule.account,
        schedule=schedule,
        saved=saved,
        shown=shown,
        days=[(name, field, shown[field], (errors or {}).get(field, "")) for name, field in days],
        free_slots=_free_slots_shown(schedule),
        time_zones=time_zones.names() if can_manage(membership) else [],
        errors=errors or {},
    )
    return render(request, "accounts/schedule.html", context, status=400 if errors else 200)


def _free_slots_shown(schedule: PostingSchedule) -> list[tuple[str, str]]:
    """The next free slots as (ISO instant, the day and time in the schedule's zone)."""
    if not schedule.slots:
        return []
    now = timezone.now()
    zone = time_zones.zone_of(schedule.time_zone)
    found = next_free_slots(schedule, now, scheduled_instants_for(account=schedule.account, after=now))
    local = [at.astimezone(zone) for at in found]
    return [(at.isoformat(), f"{at:%a} {at.day} {at:%b %Y, %H:%M}") for at in local]

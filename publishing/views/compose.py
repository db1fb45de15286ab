"""The compose page: write a post, upload its media, pick the accounts (each with its own text,
media and platform settings) and publish it now, schedule it or save it as a draft.

Submitting builds the body of POST /api/v1/publishes from the form (`compose_form`), validates
it with the API's serializer and calls `lifecycle.publish_create` as the signed-in user; the
problems the API would answer come back next to their fields. While the user types, the page
asks `check` (POST /dashboard/compose/check/), which runs `checks.publish_check` on the same
body: the create's own rules and each platform's own count, never a copy of them in the page.
Its answer also carries each account's preview text, cut where the network stops
(`preview.check_previews`); how each feed folds, crops and shows links is `preview.FEEDS`,
given to the page as data.

Each media item's alt text is the upload's own (what the library edits): sending the form
saves what was typed there onto the uploads (`save_alt_texts`, the library's service) before
the publish is made, so the networks that take alt text get it with this very post.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Q, QuerySet
from django.http import HttpRequest, HttpResponse, JsonResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.text import capfirst
from django.views.decorators.http import require_GET, require_POST
from rest_framework.exceptions import ValidationError

from accounts.models import GONE_STATUSES, SocialAccount
from config.datetime_input import local_text
from config.errors import ApplicationError
from config.serializers import validated
from media import services as media_services
from media.models import ALT_TEXT_MAX_LENGTH, CONTENT_TYPES, MediaUpload
from media.selectors import media_pull_url, ready_media_by_ids
from publishing import approval, checks, handover, lifecycle, link_cards, preview, queue, validation
from publishing.duplicate_content import DuplicateWarning
from publishing.models import QUEUE_MODE, Publish, PublishMode, ThreadItem
from publishing.serializers import CreatePublishSerializer, ids_of, target_inputs
from publishing.views import compose_form as form
from publishing.views import dashboard_caller
from publishing.views.detail import excerpt
from teams.dashboard import page_context, requested_membership, signed_in_user
from teams.models import Membership, Team

TEMPLATE = "publishing/compose.html"
# A queue slot as the flash names it: "Mon 30 Nov, 09:00", with the team's zone after it.
QUEUED_AT = "%a %d %b, %H:%M"


def team_accounts(team: Team, *, targeted: Collection[str] = ()) -> QuerySet[SocialAccount]:
    """The accounts the form offers. Disconnected ones are gone, unless `targeted` names them
    (an edited publish's accounts: each is shown, to be unticked on purpose); expired ones stay,
    to be re-authorized."""
    offered = ~Q(status__in=GONE_STATUSES) | Q(pk__in=list(targeted))
    accounts = SocialAccount.objects.filter(offered, team=team)
    # The tokens are not needed here, and reading them costs a decryption each.
    return accounts.defer("access_token", "refresh_token").order_by("platform", "created_at", "id")


def render_form(
    request: HttpRequest,
    membership: Membership,
    accounts: list[SocialAccount],
    problems: form.Problems | None = None,
    status: int = 200,
    *,
    data: QueryDict | None = None,
    template: str = TEMPLATE,
    threads: Mapping[str, Sequence[ThreadItem]] | None = None,
    **extra: Any,
) -> HttpResponse:
    """The form with what was posted, or with `data` (another page's form, as a publish fills
    it); `threads` are a stored publish's, by account id."""
    if data is None and request.method == "POST":
        data = request.POST
    problems = problems or form.Problems()
    context = page_context(
        request,
        membership,
        targets=form.target_forms(accounts, data, problems, threads),
        # On a first visit, `?media=<id>` (the library's "Use in a new post") attaches that file.
        media=_media(membership.team, data, request.GET.getlist("media"), problems),
        content=data.get("content", "") if data is not None else "",
        scheduled_at=data.get("scheduled_at", "") if data is not None else "",
        problems=problems,
        accept=",".join(CONTENT_TYPES),
        alt_max=ALT_TEXT_MAX_LENGTH,
        feeds=json.dumps(preview.feeds()),
        waits_for_approval=approval.waits_for_approval(
            team=membership.team, caller=dashboard_caller(request, membership), publish_mode=PublishMode.IMMEDIATE
        ),
        **extra,
    )
    return render(request, template, context, status=status)


def _media(team: Team, data: QueryDict | None, requested: list[str], problems: form.Problems) -> list[form.MediaItem]:
    """The uploads the form carries (or, on a first visit, those `requested`), shown again with
    a preview and the alt text typed for each."""
    found = _ready(team, data.getlist("media_ids") if data is not None else requested)
    typed = form.alt_texts_of(data) if data is not None else {}
    # A short-lived URL of each file, for its preview.
    return form.media_items(found, media_pull_url, typed, problems)


def _ready(team: Team, media_ids: list[str]) -> list[MediaUpload]:
    wanted = [i for i in media_ids if _is_uuid(i)][: validation.MAX_MEDIA]
    return ready_media_by_ids(team=team, media_ids=wanted)[0] if wanted else []


def save_alt_texts(team: Team, data: QueryDict) -> form.Problems:
    """The alt text typed for each of the form's media, saved onto its upload where it differs
    from the upload's (a form opened before a change in the library, and sent unchanged, puts
    its older text back: the form's field is the last word); the refused ones come back as
    problems of their fields."""
    problems, typed = form.Problems(), form.alt_texts_of(data)
    for upload in _ready(team, list(typed)):
        text = typed[str(upload.pk)]
        if text.strip() == upload.alt_text:
            continue
        try:
            media_services.media_set_alt_text(team=team, media_id=str(upload.pk), alt_text=text)
        except ApplicationError as exc:
            problems.add_alt_text(str(upload.pk), exc.message)
    return problems


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


@login_required
def compose(request: HttpRequest) -> HttpResponse:
    membership = requested_membership(request)
    accounts = list(team_accounts(membership.team))
    if request.method != "POST":
        return render_form(request, membership, accounts)
    return _submit(request, membership, accounts)


def _submit(request: HttpRequest, membership: Membership, accounts: list[SocialAccount]) -> HttpResponse:
    platforms = {str(a.pk): a.platform for a in accounts}
    account_ids = request.POST.getlist("account")  # the body's targets, in order
    # Without a button's choice (a script's submit), nothing is sent: it is kept as a draft.
    mode = request.POST.get("publish_mode", PublishMode.DRAFT)
    extra: dict[str, Any] = {}
    if refused := save_alt_texts(membership.team, request.POST):
        return render_form(request, membership, accounts, refused, status=400)
    try:
        # "Publish now" means now and "Add to queue" the first free slot, whatever the time field holds.
        body = form.create_body(request.POST, platforms, with_time=mode not in (PublishMode.IMMEDIATE, QUEUE_MODE))
        publish = _create(request, membership, {**body, "publish_mode": mode})
    except handover.PublishDispatchUncertain as exc:  # saved; the relay sends it within minutes
        return _sent(request, membership, exc.publish, sent=False)
    except ValidationError as exc:
        problems, status = form.problems_of_serializer(exc.detail, account_ids), 400
    except ApplicationError as exc:
        problems, status = form.problems_of_error(exc, account_ids), exc.status_code
        if exc.code == "NO_QUEUE_SLOTS":  # shown in the queue's line, which the live check redraws
            extra["queue_problem"] = " ".join(problems.top.pop("publish_mode", []))
            extra["unscheduled_account"] = _unscheduled_account(exc, accounts)
    else:
        return _sent(request, membership, publish, sent=True, queued=mode == QUEUE_MODE)
    shown = problems.shown_on({str(a.pk) for a in accounts})
    return render_form(request, membership, accounts, shown, status=status, **extra)


def _unscheduled_account(exc: ApplicationError, accounts: list[SocialAccount]) -> SocialAccount | None:
    """The account a queue create found without posting-schedule slots, for a link to its schedule."""
    account_id = (exc.details or {}).get("account_id")
    return next((a for a in accounts if str(a.pk) == account_id), None)


def _sent(
    request: HttpRequest, membership: Membership, publish: Publish, *, sent: bool, queued: bool = False
) -> HttpResponse:
    messages.success(request, _outcome(publish, sent, queued=queued))
    # By its keyword: the API's route of a publish has the same name and takes `pk`.
    detail = reverse("dashboard-publish", kwargs={"publish_id": publish.pk})
    return redirect(f"{detail}?team={membership.team.pk}")


def _create(request: HttpRequest, membership: Membership, body: dict[str, Any]) -> Publish:
    data = validated(CreatePublishSerializer(data=body))
    return lifecycle.publish_create(
        team=membership.team,
        caller=dashboard_caller(request, membership),
        content=data["content"],
        media_ids=ids_of(data["media_ids"]),
        targets=target_inputs(data["targets"]),
        publish_mode=data["publish_mode"],
        scheduled_at=data.get("scheduled_at"),
    )


def _outcome(publish: Publish, sent: bool, *, queued: bool = False) -> str:
    named = capfirst(excerpt(publish))
    if queued and publish.scheduled_at:
        when = f"Queued for {local_text(publish.scheduled_at, QUEUED_AT)}"
        waiting = ", once the team's owner or an admin approves it" if publish.approval_status else ""
        return f"{when}: {excerpt(publish)}{waiting}."
    if publish.approval_status:
        return f"{named} is waiting for approval by the team's owner or an admin."
    if publish.publish_mode == PublishMode.DRAFT:
        return f"{named} is saved as a draft."
    if publish.publish_mode == PublishMode.SCHEDULED and publish.scheduled_at:
        return f"{named} is scheduled for {local_text(publish.scheduled_at)}."
    if not sent:
        return f"{named} is saved; the queue is busy, so it is sent within a few minutes."
    return f"{named} is being published."


@login_required
@require_POST
def check(request: HttpRequest) -> JsonResponse:
    """The live check: what creating the form's post would find wrong, and each target's
    length against its limit. Scheduled when a time is given, else immediate, as the API
    defaults."""
    membership = requested_membership(request)
    accounts = {str(a.pk): a.platform for a in team_accounts(membership.team).only("id", "platform")}
    account_ids = request.POST.getlist("account")  # the body's targets, in order
    try:
        data = validated(CreatePublishSerializer(data=form.create_body(request.POST, accounts)))
    except ValidationError as exc:
        return JsonResponse(form.as_check(form.problems_of_serializer(exc.detail, account_ids), account_ids))
    editing = request.POST.get("editing", "")
    result = checks.publish_check(
        team=membership.team,
        caller=dashboard_caller(request, membership),
        content=data["content"],
        media_ids=ids_of(data["media_ids"]),
        targets=target_inputs(data["targets"]),
        publish_mode=PublishMode.SCHEDULED if data.get("scheduled_at") else PublishMode.IMMEDIATE,
        scheduled_at=data.get("scheduled_at"),
        editing=editing if _is_uuid(editing) else None,
    )
    answer = form.check_in_words(result.as_dict())
    notes = _duplicates_in_words(membership.team, result.warnings)
    refused = set()
    for target in answer["targets"]:  # a refused duplicate says when, as its warning would
        for problem in target["problems"]:
            if problem["code"] == "DUPLICATE_CONTENT" and target["account_id"] in notes:
                problem["message"] = notes[target["account_id"]] + REFUSED_DUPLICATE
                refused.add(target["account_id"])
    duplicates = [{"account_id": a, "message": m} for a, m in notes.items() if a not in refused]
    # The preview's text, cut where each network stops, beside the API's own answer.
    previews = preview.check_previews(result.targets)
    queued = _queue_state(membership.team, account_ids)
    return JsonResponse({**answer, "duplicates": duplicates, "previews": previews, "queue": queued})


REFUSED_DUPLICATE = " This team refuses duplicate posts: change the text or untick the account."


def _duplicates_in_words(team: Team, warnings: Sequence[DuplicateWarning]) -> dict[str, str]:
    """Each repeating target's sentence, by account id: which account got the text, and when."""
    if not warnings:
        return {}
    accounts = SocialAccount.objects.filter(team=team, pk__in=[w.account_id for w in warnings])
    names = {str(a.pk): f"@{a.handle or a.external_id}" for a in accounts.only("id", "handle", "external_id")}
    now = timezone.now()
    said = {}
    for warning in warnings:
        name, when = names.get(warning.account_id, "this account"), local_text(warning.at)
        if warning.at <= now:
            said[warning.account_id] = f"You posted this text to {name} on {when}."
        else:
            said[warning.account_id] = f"This text is already scheduled for {name} on {when}."
    return said


def _queue_state(team: Team, account_ids: list[str]) -> dict[str, str]:
    """What "Add to queue" would do now: the next free slot of the chosen accounts, or why
    there is none (with the schedule page of the account that has no slots); nothing until
    every chosen account is one of the team's."""
    wanted = [i for i in dict.fromkeys(account_ids) if _is_uuid(i)]
    accounts = list(team_accounts(team).filter(pk__in=wanted)) if wanted else []
    if not accounts or len(accounts) != len(account_ids):
        return {}
    try:
        slot = queue.first_free_slot(accounts=accounts, now=timezone.now())
    except ApplicationError as exc:
        state = {"problem": form.in_words("publish_mode", exc.message)}
        if (account := _unscheduled_account(exc, accounts)) is not None:
            schedule = reverse("dashboard-account-schedule", kwargs={"account_id": account.pk})
            state |= {"schedule_url": f"{schedule}?team={team.pk}", "schedule_text": _schedule_link(account)}
        return state
    return {"next_slot": f"Next free slot: {local_text(slot, QUEUED_AT)}."}


def _schedule_link(account: SocialAccount) -> str:
    return f"Set the posting schedule of {account}"


@login_required
@require_GET
def link_card(request: HttpRequest) -> JsonResponse:
    """The preview's card of the link in `url`: its page's title and description, fetched
    through the outbound client for user-supplied URLs (`link_cards`)."""
    requested_membership(request)  # a member of the team the page is for
    try:
        card = link_cards.link_card(url=request.GET.get("url", ""), user_id=signed_in_user(request).pk)
    except ApplicationError as exc:
        return JsonResponse({"error": {"code": exc.code, "message": exc.message}}, status=exc.status_code)
    return JsonResponse({"data": card})

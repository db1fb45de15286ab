"""Dashboard settings pages of webhooks: the team's subscriptions with their delivery health,
where owners and admins subscribe (the secret shown once), send a test event, re-enable and
delete; and one subscription's recent deliveries, where a failed one can be sent again and the
secret rotated (the new one shown once, the old one signing beside it for a day).

Members see both pages read-only: no forms, no buttons, and their POSTs are refused (403). A
subscription or delivery of another team is 404. Input is checked by the API's own serializer
and each action calls the one service the API calls, so the rules and their messages are the
API's. The secret goes from the subscribe POST to the next page through the session, encrypted
and removed on first display (`config.shown_once`), so a reload never shows it again; a
rotated secret goes the same way.
"""

from __future__ import annotations

import math
import uuid
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST
from rest_framework.exceptions import ValidationError

from config import shown_once, throttling
from config.errors import ApplicationError, NotFound
from config.pagination import Paginator
from config.sentences import all_in_words, sentences
from config.serializers import validated
from teams.dashboard import can_manage, page_context, requested_membership
from teams.models import Membership, Team
from webhooks import selectors, services
from webhooks.api import SubscriptionCreateSerializer
from webhooks.models import SUBSCRIBABLE_EVENTS, Delivery, DeliveryState, Subscription

PAGE_SIZE = 50
_CREATED = "webhooks:created"  # session key of the subscription whose secret is still to show
_ROTATED = "webhooks:rotated"  # session key of the subscription whose new secret is still to show
# Which field a service error concerns; anything else is shown above the form.
_FIELD_OF_CODE = {"INVALID_WEBHOOK_URL": "url"}
_HTTPS = "Enter a web address starting with https://, such as https://example.com/hooks."
# The serializer's and the service's messages as the page says them (config.sentences).
SENTENCES = sentences(
    ("url", r"This field may not be blank\.|This field is required\.", _HTTPS),
    ("url", r"no more than (?P<limit>\d+) characters", "A web address here has at most {limit} characters."),
    ("url", r"^Enter a valid URL\.$|Only http and https|cannot be used: The URL (?:is|has|contains)", _HTTPS),
    ("url", r"must use https", "Enter a web address starting with https://: deliveries are only sent encrypted."),
    (
        "url",
        r"resolves to a non-public address",
        "This address leads to a private or local network, which webhooks are not sent to: "
        "use an address on the public internet.",
    ),
    ("url", r"could not be resolved|host is not a valid domain", "No server has this name: check the address."),
    ("url", r"Only ports 80 and 443", "Leave the port out of the address, or use port 443."),
    ("url", r"credentials", "Leave the user name and password out of the address: the secret signs each delivery."),
    ("events", r"may not be empty|This field is required", "Choose at least one event to send to this address."),
    ("events", r"is not a valid choice", "Choose the events from the list."),
)
# Spec §6 and the account events, for the checkboxes.
_MEANING = {
    "post.published": "a post was published to all or some platforms",
    "post.failed": "a post failed to publish",
    "post.pending_approval": "a post needs approval before publishing",
    "post.approved": "an approver accepted a pending post",
    "post.rejected": "an approver rejected a pending post",
    "post.removed": "a published post was taken down, or found gone from its platform",
    "post.at_risk": "a scheduled post's checks found a problem before its time",
    "account.connected": "an account was connected or re-authorized",
    "account.disconnected": "an account was disconnected",
    "account.expired": "a platform refused an account's token: it must be re-authorized",
    "account.expiring": "an account's token cannot be renewed and expires within 7 days",
}
_SENDABLE_AGAIN = {DeliveryState.FAILED, DeliveryState.CANCELLED}


def _manager(request: HttpRequest) -> Membership:
    membership = requested_membership(request)
    if not can_manage(membership):
        raise PermissionDenied("Only the team's owner or admins manage webhooks.")
    return membership


def _subscription(team: Team, subscription_id: uuid.UUID) -> Subscription:
    return get_object_or_404(Subscription, pk=subscription_id, team=team)


def _list_url(team: Team) -> str:
    return f"{reverse('settings-webhooks')}?team={team.pk}"


def _detail_url(subscription: Subscription) -> str:
    return f"{reverse('settings-webhook', args=[subscription.pk])}?team={subscription.team_id}"


def _back(request: HttpRequest, subscription: Subscription) -> HttpResponseRedirect:
    """Back to the page the button was on: the subscription's deliveries, or the list."""
    if request.POST.get("back") == "detail":
        return redirect(_detail_url(subscription))
    return redirect(_list_url(subscription.team))


# --- the list and subscribing ---------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
@never_cache  # the page that shows a secret once must not come back from the browser's cache
def webhooks(request: HttpRequest) -> HttpResponse:
    if request.method != "POST":
        return _list(request, requested_membership(request))
    membership = _manager(request)
    created = _subscribe(request, membership.team)
    if not isinstance(created, Subscription):
        return _list(request, membership, problems=created, status=400)
    shown = {"team": str(membership.team.pk), "url": created.url, "secret": created.secret}
    shown_once.keep(request.session, _CREATED, shown)
    messages.success(request, f"Subscribed {created.url}. Copy its secret now: it is not shown again.")
    return redirect(_list_url(membership.team))


def _subscribe(request: HttpRequest, team: Team) -> Subscription | dict[str, list[str]]:
    """The new subscription, or the problems to show next to each field ("form": the rest)."""
    data = {"url": request.POST.get("url", "").strip(), "events": request.POST.getlist("events")}
    try:
        body = validated(SubscriptionCreateSerializer(data=data))
        return services.subscription_create(team=team, url=body["url"], events=body["events"])
    except ValidationError as exc:
        detail = exc.detail if isinstance(exc.detail, dict) else {"form": exc.detail}
        # One piece of advice a field: a long address is also "not a valid URL" to the serializer.
        said = all_in_words(SENTENCES, {field: _texts(problems) for field, problems in detail.items()})
        return {field: texts[:1] for field, texts in said.items()}
    except ApplicationError as exc:
        return all_in_words(SENTENCES, {_FIELD_OF_CODE.get(exc.code, "form"): [exc.message]})


def _texts(problems: Any) -> list[str]:
    """DRF's messages of one field: a list, or a dict by list index for list fields."""
    if isinstance(problems, dict):
        return [text for nested in problems.values() for text in _texts(nested)]
    if isinstance(problems, list):
        return [text for nested in problems for text in _texts(nested)]
    return [str(problems)]


def _list(
    request: HttpRequest, membership: Membership, *, problems: dict[str, list[str]] | None = None, status: int = 200
) -> HttpResponse:
    chosen = request.POST.getlist("events") if request.method == "POST" else []
    context = page_context(
        request,
        membership,
        subscriptions=selectors.subscriptions_of(team=membership.team),
        created=_created_secret(request, membership.team),
        events=[(value, _MEANING.get(value, ""), value in chosen) for value in SUBSCRIBABLE_EVENTS],
        url=request.POST.get("url", "") if request.method == "POST" else "",
        problems=problems or {},
        allow_private=settings.SSRF_ALLOW_PRIVATE,
    )
    return render(request, "webhooks/webhooks.html", context, status=status)


def _created_secret(request: HttpRequest, team: Team) -> dict[str, str] | None:
    """The secret of the subscription just created, once: it leaves the session as it is read."""
    created = shown_once.take(request.session, _CREATED)
    return created if created is not None and created.get("team") == str(team.pk) else None


# --- one subscription -----------------------------------------------------------------------


@login_required
@never_cache  # the page may show a rotated secret once
def webhook(request: HttpRequest, subscription_id: uuid.UUID) -> HttpResponse:
    membership = requested_membership(request)
    subscription = _subscription(membership.team, subscription_id)
    deliveries = selectors.deliveries_of(subscription=subscription)
    rotated = shown_once.take(request.session, _ROTATED)
    context = page_context(
        request,
        membership,
        subscription=subscription,
        page=Paginator(deliveries, PAGE_SIZE).get_page(request.GET.get("page")),
        sendable_again={state.value for state in _SENDABLE_AGAIN},
        rotated=rotated if rotated is not None and rotated.get("id") == str(subscription.pk) else None,
        previous_secret_expires_at=subscription.previous_secret_signs_until(timezone.now()),
    )
    return render(request, "webhooks/webhook.html", context)


@login_required
@require_POST
def delete(request: HttpRequest, subscription_id: uuid.UUID) -> HttpResponse:
    team = _manager(request).team
    subscription = _subscription(team, subscription_id)
    try:
        services.subscription_delete(team=team, subscription_id=str(subscription.pk))
    except NotFound as exc:  # deleted meanwhile
        raise Http404(exc.message) from exc
    messages.success(request, f"Deleted the webhook to {subscription.url}: nothing more is sent to it.")
    return redirect(_list_url(team))


@login_required
@require_POST
def enable(request: HttpRequest, subscription_id: uuid.UUID) -> HttpResponse:
    subscription = _subscription(_manager(request).team, subscription_id)
    services.subscription_enable(subscription=subscription)
    messages.success(request, f"Re-enabled {subscription.url}: new events are delivered to it again.")
    return _back(request, subscription)


def _too_many(request: HttpRequest, subscription: Subscription) -> HttpResponse | None:
    """Test events and re-sends share the API's limit per webhook (WEBHOOK_TEST_PER_MINUTE)."""
    wait = throttling.object_wait("webhook_test", subscription.team_id, subscription.pk)
    if not wait:
        return None
    messages.error(
        request, f"Too many test events and re-sends for this webhook: try again in {math.ceil(wait)} seconds."
    )
    return redirect(_detail_url(subscription))


@login_required
@require_POST
def send_test(request: HttpRequest, subscription_id: uuid.UUID) -> HttpResponse:
    subscription = _subscription(_manager(request).team, subscription_id)
    if refused := _too_many(request, subscription):
        return refused
    try:
        services.subscription_send_test(subscription=subscription)
    except NotFound as exc:
        raise Http404(exc.message) from exc
    except ApplicationError as exc:
        messages.error(request, exc.message)
        return _back(request, subscription)
    messages.success(request, f"Sent a test event to {subscription.url}. Its delivery is at the top of the list.")
    return redirect(_detail_url(subscription))


@login_required
@require_POST
def send_again(request: HttpRequest, subscription_id: uuid.UUID, delivery_id: uuid.UUID) -> HttpResponse:
    subscription = _subscription(_manager(request).team, subscription_id)
    delivery = get_object_or_404(Delivery.objects.select_related("event"), pk=delivery_id, subscription=subscription)
    if refused := _too_many(request, subscription):
        return refused
    if not services.delivery_send_again(delivery=delivery):
        messages.error(request, "An attempt of this delivery is under way; send it again once it has finished.")
        return redirect(_detail_url(subscription))
    messages.success(request, f"Sending the {delivery.event.type} delivery again.")
    return redirect(_detail_url(subscription))


@login_required
@require_POST
def rotate_secret(request: HttpRequest, subscription_id: uuid.UUID) -> HttpResponse:
    subscription = _subscription(_manager(request).team, subscription_id)
    try:
        rotated = services.subscription_rotate_secret(subscription=subscription)
    except NotFound as exc:  # deleted meanwhile
        raise Http404(exc.message) from exc
    shown_once.keep(request.session, _ROTATED, {"id": str(rotated.pk), "secret": rotated.secret})
    messages.success(request, "Rotated the secret. Copy the new one now: it is not shown again.")
    return redirect(_detail_url(subscription))

"""The webhooks settings pages of the dashboard, through Django's test client: the team's
subscriptions with their health, subscribing (the secret shown once), test events delivered
over real HTTP to a receiver on loopback, re-enabling, deleting and a subscription's deliveries.
Owners and admins manage; members only look."""

from __future__ import annotations

import hashlib
import hmac
import html
import json
import re

import pytest
from django.contrib.sessions.models import Session
from django.test import Client
from django.utils import timezone
from standardwebhooks import Webhook

from tests.webhooks.helpers import exhaust, subscribe
from webhooks import services
from webhooks.models import SUBSCRIBABLE_EVENTS, Delivery, DeliveryState, Event, EventType, Subscription

pytestmark = pytest.mark.django_db

LIST = "/dashboard/settings/webhooks/"
PUBLIC_HTTPS = "https://93.184.215.14/hooks/social"  # a public address literal: no DNS needed


def _as(client, persona):
    client.force_login(persona.user)
    return client


def _text(response, status=200):
    assert response.status_code == status, response.content[:500]
    return html.unescape(response.content.decode())


def _detail(subscription):
    return f"{LIST}{subscription.pk}/"


def _post(client, persona, path, **data):
    return _as(client, persona).post(path, {"team": str(persona.team.pk), **data})


def _subscribe_in_page(client, persona, url=PUBLIC_HTTPS, events=("post.published", "post.failed")):
    return _post(client, persona, LIST, url=url, events=list(events))


def _disable(subscription, **health):
    Subscription.objects.filter(pk=subscription.pk).update(
        disabled_at=timezone.now(), disabled_reason="The receiver answered 410 Gone.", **health
    )


def _problem(page, field):
    """The text of the problem shown under a field of the subscribe form."""
    match = re.search(rf'id="webhook-{field}-problem">([^<]*)<', page)
    assert match, f"no problem shown next to {field}"
    return match.group(1)


def _send_test(client, persona, subscription, django_capture_on_commit_callbacks):
    # The page's transaction commits in production; here the test's never does, so the
    # delivery queued "after commit" is run by hand, as the commit would.
    with django_capture_on_commit_callbacks(execute=True):
        return _post(client, persona, f"{_detail(subscription)}test/")


# --- the list ----------------------------------------------------------------------------------


def test_the_list_shows_each_webhooks_events_health_and_disabled_state(client, owner, receiver, outsider):
    healthy = subscribe(owner.team, receiver.url, ["post.published", "post.failed"])
    broken = subscribe(owner.team, f"{receiver.base}/gone")
    _disable(broken, consecutive_failures=3, last_failure_at=timezone.now(), last_failure_reason="HTTP 503")
    subscribe(outsider.team, f"{receiver.base}/theirs")

    page = _text(_as(client, owner).get(LIST))

    assert healthy.url in page
    assert "post.failed" in page
    row = page[page.index(f'id="webhook-{broken.pk}"') :]
    row = row[: row.index("</tr>")]
    assert "disabled" in row
    assert "The receiver answered 410 Gone." in row
    assert "HTTP 503" in row
    assert '<dd class="failures">3</dd>' in row
    assert "/theirs" not in page


def test_every_form_on_the_page_carries_a_csrf_token(client, owner):
    subscribe(owner.team, PUBLIC_HTTPS)

    page = _text(_as(client, owner).get(LIST))

    forms = re.findall(r"<form[^>]*method=\"post\"[\s\S]*?</form>", page)
    assert len(forms) >= 4  # log out, send test, delete, subscribe
    assert all("csrfmiddlewaretoken" in form for form in forms)


def test_a_post_without_the_csrf_token_is_refused(owner):
    client = Client(enforce_csrf_checks=True)

    response = _subscribe_in_page(client, owner)

    assert response.status_code == 403
    assert b"CSRF verification failed" in response.content
    assert not Subscription.objects.exists()


def test_a_member_sees_the_list_without_forms_or_buttons(client, member):
    subscribe(member.team, PUBLIC_HTTPS)

    page = _text(_as(client, member).get(LIST))

    assert PUBLIC_HTTPS in page
    assert "Only the team's owner or admins" in page
    for control in ("Add webhook", "Send test event", "Delete webhook", "Re-enable", 'name="url"'):
        assert control not in page


def test_a_user_who_is_not_in_the_team_named_gets_404(client, owner, outsider):
    assert _as(client, owner).get(LIST, {"team": str(outsider.team.pk)}).status_code == 404


def test_the_list_takes_the_same_number_of_queries_for_1_and_25_webhooks(
    client, owner, django_assert_num_queries, queries
):
    subscribe(owner.team, PUBLIC_HTTPS)
    _as(client, owner).get(LIST)  # a first request settles the session: both counts start alike
    start = len(queries)
    _text(client.get(LIST))
    one = len(queries) - start
    for n in range(services.MAX_SUBSCRIPTIONS_PER_TEAM - 1):
        subscribe(owner.team, f"{PUBLIC_HTTPS}/{n}")

    with django_assert_num_queries(one):
        page = _text(client.get(LIST))

    assert page.count('<tr id="webhook-') == services.MAX_SUBSCRIPTIONS_PER_TEAM


def _stored_session(client) -> str:
    """The signed-in session as the store keeps it (the django_session row), decoded."""
    row = Session.objects.get(session_key=client.session.session_key)
    return json.dumps(row.get_decoded()) + row.session_data


# --- subscribing -------------------------------------------------------------------------------


def test_subscribing_shows_the_secret_once(client, admin):
    response = _subscribe_in_page(client, admin)

    assert response.status_code == 302
    subscription = Subscription.objects.get(team=admin.team)
    assert subscription.url == PUBLIC_HTTPS
    assert subscription.events == ["post.published", "post.failed"]
    shown = client.get(response["Location"])
    first = _text(shown)
    assert subscription.secret in first
    assert "no-store" in shown["Cache-Control"]  # the browser keeps no copy either
    assert f"Subscribed {PUBLIC_HTTPS}" in first
    assert "it is not shown again" in first
    again = _text(client.get(response["Location"]))
    assert subscription.secret not in again
    assert PUBLIC_HTTPS in again


def test_the_stored_session_never_holds_the_new_secret(client, admin):
    response = _subscribe_in_page(client, admin)
    secret = Subscription.objects.get(team=admin.team).secret

    waiting = _stored_session(client)
    assert secret in _text(client.get(response["Location"]))

    assert secret not in waiting
    assert "webhooks:created" not in _stored_session(client)


PRIVATE = (
    "This address leads to a private or local network, which webhooks are not sent to: "
    "use an address on the public internet."
)
HTTPS = "Enter a web address starting with https://, such as https://example.com/hooks."


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("", HTTPS),
        ("ftp://x", HTTPS),
        ("not an address", HTTPS),
        ("http://localhost", "Enter a web address starting with https://: deliveries are only sent encrypted."),
        (
            "http://93.184.215.14/hooks/social",
            "Enter a web address starting with https://: deliveries are only sent encrypted.",
        ),
        ("https://localhost/hooks", PRIVATE),
        ("https://10.0.0.7/hooks", PRIVATE),
        ("https://93.184.215.14:8443/hooks", "Leave the port out of the address, or use port 443."),
        (
            "https://user:pw@93.184.215.14/hooks",
            "Leave the user name and password out of the address: the secret signs each delivery.",
        ),
        (f"https://93.184.215.14/{'x' * 3000}", "A web address here has at most 2048 characters."),
    ],
)
def test_a_refused_url_is_said_in_words_next_to_the_field(client, owner, settings, url, problem):
    settings.SSRF_ALLOW_PRIVATE = False

    page = _text(_subscribe_in_page(client, owner, url=url), 400)

    assert _problem(page, "url") == problem
    assert 'aria-describedby="webhook-url-hint webhook-url-problem"' in page
    assert f'value="{url}"' in page  # the form keeps what was typed
    assert 'value="post.published" checked' in page
    assert not Subscription.objects.exists()


def test_a_host_that_resolves_to_a_private_address_is_refused_in_words(client, owner, settings, monkeypatch):
    settings.SSRF_ALLOW_PRIVATE = False
    # The network's answer is outside our control: the resolver says the name is a loopback address.
    monkeypatch.setattr("socket.getaddrinfo", lambda *args, **kwargs: [(2, 1, 6, "", ("127.0.0.1", 443))])

    page = _text(_subscribe_in_page(client, owner, url="https://hooks.example.com/in"), 400)

    assert _problem(page, "url") == PRIVATE


def test_the_api_keeps_its_own_message_for_a_private_url(api, owner, settings):
    settings.SSRF_ALLOW_PRIVATE = False

    answer = api.as_(owner.key).post(
        "/api/v1/webhooks", {"url": "https://10.0.0.7/h", "events": ["post.published"]}, format="json"
    )

    assert answer.json()["error"]["code"] == "INVALID_WEBHOOK_URL"
    assert "non-public address" in answer.json()["error"]["message"]


def test_no_event_chosen_is_refused_in_words_next_to_the_events(client, owner):
    page = _text(_subscribe_in_page(client, owner, events=()), 400)

    assert _problem(page, "events") == "Choose at least one event to send to this address."
    assert '<fieldset aria-describedby="webhook-events-problem">' in page
    assert f'value="{PUBLIC_HTTPS}"' in page
    assert not Subscription.objects.exists()


def test_the_test_event_type_cannot_be_subscribed_to(client, owner):
    page = _text(_subscribe_in_page(client, owner, events=["post.published", EventType.TEST]), 400)

    assert _problem(page, "events") == "Choose the events from the list."
    assert 'value="webhook.test"' not in page  # never offered either


def test_the_teams_limit_is_shown_above_the_form(client, owner):
    for n in range(services.MAX_SUBSCRIPTIONS_PER_TEAM):
        subscribe(owner.team, f"{PUBLIC_HTTPS}/{n}")

    page = _text(_subscribe_in_page(client, owner), 400)

    assert f"A team can have at most {services.MAX_SUBSCRIPTIONS_PER_TEAM} webhooks." in page


# --- who may act -------------------------------------------------------------------------------


@pytest.mark.parametrize("action", ["", "delete/", "enable/", "test/"])
def test_a_member_cannot_manage_webhooks(client, member, action):
    subscription = subscribe(member.team, PUBLIC_HTTPS)
    path = f"{_detail(subscription)}{action}" if action else LIST

    response = _post(client, member, path, url=f"{PUBLIC_HTTPS}/mine", events=["post.published"])

    assert response.status_code == 403
    assert list(Subscription.objects.values_list("url", flat=True)) == [PUBLIC_HTTPS]
    assert not Event.objects.exists()


def test_a_member_cannot_send_a_delivery_again(client, member):
    subscription = subscribe(member.team, PUBLIC_HTTPS)
    delivery = services.subscription_send_test(subscription=subscription)
    Delivery.objects.filter(pk=delivery.pk).update(state=DeliveryState.FAILED, next_attempt_at=None)

    response = _post(client, member, f"{_detail(subscription)}deliveries/{delivery.pk}/send-again/")

    assert response.status_code == 403
    assert Delivery.objects.get(pk=delivery.pk).state == DeliveryState.FAILED


@pytest.mark.parametrize("action", ["delete/", "enable/", "test/"])
def test_another_teams_webhook_is_not_found(client, owner, outsider, action):
    theirs = subscribe(outsider.team, PUBLIC_HTTPS)

    assert _post(client, owner, f"{_detail(theirs)}{action}").status_code == 404
    assert _as(client, owner).get(_detail(theirs)).status_code == 404
    assert Subscription.objects.filter(pk=theirs.pk).exists()
    assert not Event.objects.exists()


def test_a_member_may_read_the_deliveries_without_buttons(client, member):
    subscription = subscribe(member.team, PUBLIC_HTTPS)
    delivery = services.subscription_send_test(subscription=subscription)
    Delivery.objects.filter(pk=delivery.pk).update(state=DeliveryState.FAILED, last_status_code=500)

    page = _text(_as(client, member).get(_detail(subscription), {"team": str(member.team.pk)}))

    assert f'id="delivery-{delivery.pk}"' in page
    for control in ("Send again", "Send test event", "Delete webhook"):
        assert control not in page


# --- actions -----------------------------------------------------------------------------------


def test_deleting_a_webhook_stops_it(client, owner):
    subscription = subscribe(owner.team, PUBLIC_HTTPS)

    response = _post(client, owner, f"{_detail(subscription)}delete/")

    assert response.status_code == 302
    assert not Subscription.objects.exists()
    page = _text(client.get(response["Location"]))
    assert f"Deleted the webhook to {PUBLIC_HTTPS}" in page


def test_a_test_event_is_one_delivery_to_that_webhook_only(client, owner):
    chosen = subscribe(owner.team, PUBLIC_HTTPS, ["post.published"])
    other = subscribe(owner.team, f"{PUBLIC_HTTPS}/other", list(SUBSCRIBABLE_EVENTS))

    response = _post(client, owner, f"{_detail(chosen)}test/")

    assert response.status_code == 302
    assert response["Location"] == f"{_detail(chosen)}?team={owner.team.pk}"
    (event,) = Event.objects.all()
    assert event.type == "webhook.test"
    assert event.team_id == owner.team.pk
    (delivery,) = Delivery.objects.all()
    assert (delivery.subscription_id, delivery.event_id) == (chosen.pk, event.pk)
    assert not other.deliveries.exists()


def test_the_receiver_gets_a_signed_test_event(client, owner, receiver, django_capture_on_commit_callbacks):
    subscription = subscribe(owner.team, receiver.url)

    response = _send_test(client, owner, subscription, django_capture_on_commit_callbacks)

    (post,) = receiver.posts
    expected = "sha256=" + hmac.new(subscription.secret.encode(), post.body, hashlib.sha256).hexdigest()
    assert hmac.compare_digest(post.headers["x-service-signature"], expected)
    envelope = Webhook(subscription.secret).verify(post.body, post.headers)
    assert envelope == json.loads(post.body)
    assert envelope["type"] == "webhook.test"
    assert envelope["data"]["subscription_id"] == str(subscription.pk)
    delivery = Delivery.objects.get()
    assert (delivery.state, delivery.last_status_code, delivery.attempts) == (DeliveryState.SUCCEEDED, 200, 1)
    page = _text(client.get(response["Location"]))
    assert "Sent a test event" in page
    row = page[page.index(f'id="delivery-{delivery.pk}"') :]
    assert "webhook.test" in row[: row.index("</tr>")]
    assert "succeeded" in row[: row.index("</tr>")]


def test_test_events_from_the_page_share_the_apis_limit_per_webhook(
    client, api, owner, receiver, settings, django_capture_on_commit_callbacks
):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "webhook_test": 2}
    subscription = subscribe(owner.team, receiver.url)
    assert api.as_(owner.key).post(f"/api/v1/webhooks/{subscription.pk}/test").status_code == 202

    _send_test(client, owner, subscription, django_capture_on_commit_callbacks)
    refused = _send_test(client, owner, subscription, django_capture_on_commit_callbacks)

    page = _text(client.get(refused["Location"]))
    assert "Too many test events and re-sends for this webhook: try again in" in page
    assert Delivery.objects.filter(subscription=subscription).count() == 2  # the API's and the page's first


def test_a_webhook_disabled_by_410_is_re_enabled(client, owner, receiver, django_capture_on_commit_callbacks):
    subscription = subscribe(owner.team, receiver.url)
    receiver.always(410)
    _send_test(client, owner, subscription, django_capture_on_commit_callbacks)
    subscription.refresh_from_db()
    assert subscription.disabled_at is not None
    page = _text(client.get(LIST))
    assert "The receiver answered 410 Gone." in page
    assert "Re-enable" in page
    assert "Send test event" not in page  # a disabled webhook cannot be tested

    response = _post(client, owner, f"{_detail(subscription)}enable/")

    subscription.refresh_from_db()
    assert (subscription.disabled_at, subscription.disabled_reason, subscription.consecutive_failures) == (None, "", 0)
    page = _text(client.get(response["Location"]))
    assert f"Re-enabled {receiver.url}" in page
    assert "Send test event" in page


def test_a_test_event_to_a_disabled_webhook_is_refused_with_a_reason(client, owner):
    subscription = subscribe(owner.team, PUBLIC_HTTPS)
    _disable(subscription)

    response = _post(client, owner, f"{_detail(subscription)}test/", back="detail")

    assert response["Location"] == f"{_detail(subscription)}?team={owner.team.pk}"
    assert "enable it before sending a test event" in _text(client.get(response["Location"]))
    assert not Delivery.objects.exists()


# --- the deliveries page -----------------------------------------------------------------------


def test_the_deliveries_page_shows_response_code_error_duration_and_next_attempt(
    client, owner, receiver, django_capture_on_commit_callbacks
):
    subscription = subscribe(owner.team, receiver.url)
    receiver.answer(503, 200)
    _send_test(client, owner, subscription, django_capture_on_commit_callbacks)  # 503: retried later
    _send_test(client, owner, subscription, django_capture_on_commit_callbacks)  # 200
    failing, delivered = Delivery.objects.order_by("created_at")

    page = _text(client.get(_detail(subscription), {"team": str(owner.team.pk)}))

    first = page[page.index(f'id="delivery-{failing.pk}"') :]
    first = first[: first.index("</tr>")]
    assert "503" in first
    assert "HTTP 503" in first
    assert re.search(r"Next attempt \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", first)
    assert f"{failing.last_duration_ms} ms" in first
    second = page[page.index(f'id="delivery-{delivered.pk}"') :]
    second = second[: second.index("</tr>")]
    assert ">200<" in second
    assert "Delivered" in second
    assert "Send again" not in page  # nothing has failed for good


def test_a_failed_delivery_is_sent_again(client, owner, receiver, no_retry_delay, django_capture_on_commit_callbacks):
    subscription = subscribe(owner.team, receiver.url)
    receiver.always(500)
    _send_test(client, owner, subscription, django_capture_on_commit_callbacks)
    delivery = exhaust(Delivery.objects.get())
    assert delivery.state == DeliveryState.FAILED
    assert "Send again" in _text(client.get(_detail(subscription), {"team": str(owner.team.pk)}))
    receiver.always(200)

    with django_capture_on_commit_callbacks(execute=True):
        response = _post(client, owner, f"{_detail(subscription)}deliveries/{delivery.pk}/send-again/")

    delivery.refresh_from_db()
    assert (delivery.state, delivery.last_status_code) == (DeliveryState.SUCCEEDED, 200)
    assert len(receiver.posts) == services.MAX_ATTEMPTS + 1
    assert "Sending the webhook.test delivery again" in _text(client.get(response["Location"]))


def test_another_webhooks_delivery_cannot_be_sent_again_through_this_one(client, owner):
    mine = subscribe(owner.team, PUBLIC_HTTPS)
    other = subscribe(owner.team, f"{PUBLIC_HTTPS}/other")
    delivery = services.subscription_send_test(subscription=other)

    response = _post(client, owner, f"{_detail(mine)}deliveries/{delivery.pk}/send-again/")

    assert response.status_code == 404


def test_the_deliveries_page_is_paged_by_50(client, owner):
    subscription = subscribe(owner.team, PUBLIC_HTTPS)
    for _ in range(60):
        services.subscription_send_test(subscription=subscription)

    first = _text(_as(client, owner).get(_detail(subscription), {"team": str(owner.team.pk)}))
    second = _text(client.get(_detail(subscription), {"team": str(owner.team.pk), "page": "2"}))

    assert first.count('id="delivery-') == 50
    assert "Page 1 of 2" in first
    assert second.count('id="delivery-') == 10


def test_the_deliveries_page_takes_the_same_number_of_queries_for_1_and_100_deliveries(
    client, owner, django_assert_num_queries, queries
):
    subscription = subscribe(owner.team, PUBLIC_HTTPS)
    services.subscription_send_test(subscription=subscription)
    path, params = _detail(subscription), {"team": str(owner.team.pk)}
    _as(client, owner).get(path, params)
    start = len(queries)
    assert _text(client.get(path, params)).count('id="delivery-') == 1
    one = len(queries) - start
    for _ in range(99):
        services.subscription_send_test(subscription=subscription)

    with django_assert_num_queries(one):
        page = _text(client.get(path, params))

    assert page.count('id="delivery-') == 50


# --- rotating the secret -------------------------------------------------------------------------


def test_rotating_shows_the_new_secret_once_and_the_overlap(client, owner):
    subscription = subscribe(owner.team, PUBLIC_HTTPS)
    old = subscription.secret

    response = _post(client, owner, f"{_detail(subscription)}rotate-secret/")

    assert response.status_code == 302
    subscription.refresh_from_db()
    assert subscription.secret != old
    assert subscription.signing_secrets(timezone.now()) == [subscription.secret, old]
    page = _text(_as(client, owner).get(f"{_detail(subscription)}?team={owner.team.pk}"))
    assert subscription.secret in page
    assert old not in page
    assert "The previous secret also signs each delivery until" in page
    again = _text(_as(client, owner).get(f"{_detail(subscription)}?team={owner.team.pk}"))
    assert subscription.secret not in again  # shown once
    assert "The previous secret also signs each delivery until" in again


def test_the_stored_session_never_holds_the_rotated_secret(client, owner):
    subscription = subscribe(owner.team, PUBLIC_HTTPS)

    _post(client, owner, f"{_detail(subscription)}rotate-secret/")
    subscription.refresh_from_db()
    waiting = _stored_session(client)
    assert subscription.secret in _text(client.get(f"{_detail(subscription)}?team={owner.team.pk}"))

    assert subscription.secret not in waiting
    assert "webhooks:rotated" not in _stored_session(client)


def test_a_member_cannot_rotate_and_another_team_gets_404(client, member, owner, outsider):
    mine = subscribe(member.team, PUBLIC_HTTPS)
    theirs = subscribe(outsider.team, PUBLIC_HTTPS)

    assert _post(client, member, f"{_detail(mine)}rotate-secret/").status_code == 403
    assert _post(client, owner, f"{_detail(theirs)}rotate-secret/").status_code == 404
    assert Subscription.objects.get(pk=mine.pk).secret == mine.secret
    assert Subscription.objects.get(pk=theirs.pk).secret == theirs.secret


def test_send_again_while_an_attempt_is_under_way_says_so_and_changes_nothing(client, owner):
    subscription = subscribe(owner.team, PUBLIC_HTTPS)
    delivery = services.subscription_send_test(subscription=subscription)
    Delivery.objects.filter(pk=delivery.pk).update(state=DeliveryState.SENDING, attempts=1)

    response = _post(client, owner, f"{_detail(subscription)}deliveries/{delivery.pk}/send-again/")
    page = _text(_as(client, owner).get(response["Location"]))

    assert "An attempt of this delivery is under way" in page
    assert Delivery.objects.filter(pk=delivery.pk).values_list("state", "attempts").get() == (DeliveryState.SENDING, 1)

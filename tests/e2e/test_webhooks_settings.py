"""Webhooks in a real browser (Playwright driving Debian's Chromium): an owner subscribes a
receiver on loopback, copies the secret shown once, sends a test event and finds it delivered,
with the receiver's 200, on the webhook's deliveries page."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect
from standardwebhooks import Webhook

from config import outbound
from tests.webhooks.receiver import Receiver
from webhooks.models import Delivery, Subscription

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]


@pytest.fixture(autouse=True)
def _eager(eager_tasks: None) -> None:
    """The test event is delivered inside the live server's request, after its commit."""


@pytest.fixture
def receiver(settings):
    settings.SSRF_ALLOW_PRIVATE = True  # the receiver listens on loopback, as in a demo
    server = Receiver().start()
    yield server
    server.stop()
    outbound.close_idle_connections()


def test_subscribe_a_webhook_and_send_a_test_event(signed_in, live_server, receiver, screenshot):
    page = signed_in
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])

    page.goto(f"{live_server.url}/dashboard/settings/webhooks/")
    page.fill("#webhook-url", receiver.url)
    page.check("label:has-text('post.published') input")
    page.check("label:has-text('post.failed') input")
    page.click("button:has-text('Add webhook')")
    page.wait_for_selector("#created-secret")

    subscription = Subscription.objects.get()
    assert subscription.events == ["post.published", "post.failed"]
    assert page.inner_text("#webhook-secret") == subscription.secret
    page.click("button:has-text('Copy secret')")
    expect(page.locator("#copy-status")).to_contain_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == subscription.secret
    row = page.locator(f"#webhook-{subscription.pk}")
    expect(row).to_contain_text(receiver.url)
    expect(row).to_contain_text("active")
    screenshot(page, "settings-webhooks")
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")  # no sideways scroll
    page.set_viewport_size({"width": 1280, "height": 800})

    page.reload()
    expect(page.locator(f"#webhook-{subscription.pk}")).to_be_visible()
    assert page.locator("#created-secret").count() == 0  # shown once
    assert subscription.secret not in page.content()

    page.click(f"#webhook-{subscription.pk} button:has-text('Send test event')")
    delivery_row = page.locator("tr[id^=delivery-]")
    expect(delivery_row).to_have_count(1)
    expect(page.locator(".messages")).to_contain_text("Sent a test event")
    expect(delivery_row).to_contain_text("webhook.test")
    expect(delivery_row).to_contain_text("succeeded")
    expect(delivery_row.locator("td[data-label=Response]")).to_have_text("200")
    expect(delivery_row).to_contain_text(re.compile(r"Delivered \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC"))
    screenshot(page, "settings-webhook-deliveries")
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")  # no sideways scroll

    (post,) = receiver.posts
    envelope = Webhook(subscription.secret).verify(post.body, post.headers)
    assert envelope["type"] == "webhook.test"
    assert Delivery.objects.get().last_status_code == 200

"""The sandbox's webhook inbox as a developer uses it: development lets a webhook's URL be the
inbox's address (SSRF_ALLOWED_URL_PREFIXES) while every other private address stays refused,
and the inbox shows each delivery with its signatures checked against the secret."""

from __future__ import annotations

import pytest
import requests

pytestmark = pytest.mark.django_db

EVENTS = ["post.published"]


@pytest.fixture
def inbox(sandbox, settings):
    settings.SSRF_ALLOW_PRIVATE = False
    settings.SSRF_ALLOWED_URL_PREFIXES = [f"{sandbox.url}/_sandbox/inbox/"]
    return f"{sandbox.url}/_sandbox/inbox/dev"


def _create(api, owner, url):
    return api.as_(owner.key).post("/api/v1/webhooks", {"url": url, "events": EVENTS}, format="json")


def _send_test(api, owner, webhook, on_commit):
    with on_commit(execute=True):  # the delivery leaves once the request's transaction commits
        return api.as_(owner.key).post(f"/api/v1/webhooks/{webhook['id']}/test")


def test_a_test_event_reaches_the_inbox_signed_with_the_webhooks_secret(
    api, owner, inbox, django_capture_on_commit_callbacks
):
    created = _create(api, owner, inbox)
    assert created.status_code == 201, created.content
    webhook = created.json()["data"]

    sent = _send_test(api, owner, webhook, django_capture_on_commit_callbacks)
    assert sent.status_code in (200, 202), sent.content

    shown = requests.get(inbox, params={"format": "json", "secret": webhook["secret"]}, timeout=5).json()
    (delivery,) = shown["deliveries"]
    assert '"webhook.test"' in delivery["body"]
    assert delivery["signatures"] == {"X-Service-Signature": True, "webhook-signature": True}
    wrong = requests.get(inbox, params={"format": "json", "secret": "whsec_" + "A" * 44}, timeout=5).json()
    assert wrong["deliveries"][0]["signatures"] == {"X-Service-Signature": False, "webhook-signature": False}


def test_the_inbox_page_lists_the_delivery_and_its_verdict(api, owner, inbox, django_capture_on_commit_callbacks):
    webhook = _create(api, owner, inbox).json()["data"]
    _send_test(api, owner, webhook, django_capture_on_commit_callbacks)

    page = requests.get(inbox, params={"secret": webhook["secret"]}, timeout=5)

    assert page.status_code == 200
    assert "text/html" in page.headers["Content-Type"]
    assert "webhook.test" in page.text
    assert page.text.count("verified") == 2


@pytest.mark.parametrize(
    "path",
    [
        "/_sandbox/reset",  # the same sandbox, outside the inbox
        "/_sandbox/inbox/../reset",
        "/_sandbox/inbox/%2e%2e/reset",
        "/_sandbox/inboxes/dev",
    ],
)
def test_nothing_else_on_that_host_opens(api, owner, inbox, sandbox, path):
    response = _create(api, owner, f"{sandbox.url}{path}")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "INVALID_WEBHOOK_URL"


def test_another_port_of_the_same_host_stays_refused(api, owner, inbox, sandbox):
    port = int(sandbox.url.rsplit(":", 1)[1])

    response = _create(api, owner, f"http://127.0.0.1:{port + 1}/_sandbox/inbox/dev")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "INVALID_WEBHOOK_URL"

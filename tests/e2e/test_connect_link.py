"""A SaaS serving its own customers, with one user key and no dashboard login: a team per
customer, that team's key, a connect link its customer opens in a real browser (Debian's
Chromium) to connect X through the sandbox's authorize page and Bluesky with an app password,
`account.connected` signed to the SaaS's webhook, a publish with the team key, a disconnect and
`account.disconnected`."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from teams import services as team_services
from teams.models import SCOPES
from tests.webhooks.receiver import Receiver
from webhooks import signing

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]


@pytest.fixture
def receiver(settings):
    settings.SSRF_ALLOW_PRIVATE = True  # the SaaS's receiver is on loopback, as in demos
    server = Receiver().start()
    yield server
    server.stop()


class Saas:
    """The SaaS's side: plain HTTP calls to the live server with a key."""

    def __init__(self, base: str, key: str) -> None:
        self.base, self.key = base, key

    def call(self, method: str, path: str, body: object = None, *, key: str | None = None) -> requests.Response:
        headers = {"Authorization": f"Bearer {key or self.key}"}
        return requests.request(method, f"{self.base}/api/v1{path}", json=body, headers=headers, timeout=30)


def _events(receiver: Receiver, secret: str, event_type: str) -> list[dict[str, object]]:
    found = []
    for post in receiver.posts:
        assert post.headers["x-service-signature"] == signing.service_signature(secret, post.body)
        event = json.loads(post.body)
        if event["type"] == event_type:
            found.append(event)
    return found


def test_a_saas_onboards_a_customer_without_a_dashboard_login(
    page, live_server, owner, sandbox, receiver, eager_tasks, screenshot
):
    _, user_key = team_services.api_key_create(user=owner.user, name="SaaS backend", scopes=SCOPES)
    saas = Saas(live_server.url, user_key)

    # A team for the customer, and that team's own key.
    team = saas.call("POST", "/teams", {"name": "Customer 42"})
    assert team.status_code == 201, team.text
    team_id = team.json()["data"]["id"]
    minted = saas.call("POST", f"/teams/{team_id}/keys", {"name": "customer 42", "scopes": list(SCOPES)})
    assert minted.status_code == 201, minted.text
    team_key = minted.json()["data"]["key"]
    customer = Saas(live_server.url, team_key)
    hook = customer.call(
        "POST", "/webhooks", {"url": receiver.url, "events": ["account.connected", "account.disconnected"]}
    )
    assert hook.status_code == 201, hook.text
    secret = hook.json()["data"]["secret"]

    # A link for the customer, sent back to the SaaS's own page afterwards.
    done = f"{live_server.url}/healthz?customer=42"
    link = customer.call(
        "POST",
        "/connect-links",
        {"redirect_url": done, "platforms": ["x", "bluesky"], "branding": {"name": "Acme Studio"}},
    )
    assert link.status_code == 201, link.text
    link = link.json()["data"]

    # The customer connects X on the hosted page, through the sandbox's authorize page.
    page.goto(link["url"])
    assert "Connect your accounts to Acme Studio" in page.inner_text("h1")
    screenshot(page, "connect-link")
    page.click("#connect-x button[type=submit]")
    page.wait_for_selector("#approve")
    page.click("#approve")
    page.wait_for_url(f"{live_server.url}/healthz**")
    back = parse_qs(urlsplit(page.url).query, keep_blank_values=True)
    assert (back["customer"], back["connect_link"], back["status"]) == (["42"], [link["id"]], ["connected"])
    x_id = back["accounts"][0]

    # ...and Bluesky, with a handle and an app password on the same page.
    page.goto(link["url"])
    page.fill("#id_bluesky_identifier", "customer42.bsky.social")
    page.fill("#id_bluesky_app_password", "abcd-efgh-ijkl-mnop")
    page.click("#connect-bluesky button[type=submit]")
    page.wait_for_url(f"{live_server.url}/healthz**")
    bluesky_id = parse_qs(urlsplit(page.url).query)["accounts"][0]

    accounts = customer.call("GET", "/accounts").json()["data"]
    assert sorted((a["id"], a["platform"]) for a in accounts) == sorted([(x_id, "x"), (bluesky_id, "bluesky")])
    shown = customer.call("GET", f"/connect-links/{link['id']}").json()["data"]
    assert shown["status"] == "connected"
    assert {a["id"] for a in shown["accounts"]} == {x_id, bluesky_id}
    connected = _events(receiver, secret, "account.connected")
    assert sorted(e["data"]["account"]["id"] for e in connected) == sorted([x_id, bluesky_id])
    assert {e["data"]["connect_link_id"] for e in connected} == {link["id"]}
    # The SaaS's user key acts in its own team: the customer's accounts are not there.
    assert saas.call("GET", "/accounts").json()["data"] == []

    # The SaaS publishes for its customer with the team key.
    created = customer.call(
        "POST",
        "/publishes",
        {"content": "Hello from Customer 42", "targets": [{"account_id": x_id}, {"account_id": bluesky_id}]},
    )
    assert created.status_code == 201, created.text
    # Eager: the jobs ran after the create's commit, over real HTTP to the sandbox.
    publish = customer.call("GET", f"/publishes/{created.json()['data']['id']}").json()["data"]
    assert publish["status"] == "published"
    assert len(sandbox.posts("x")) == 1
    assert len(sandbox.posts("bluesky")) == 1

    # The customer leaves: disconnect, and the SaaS hears of it.
    gone = customer.call("DELETE", f"/accounts/{x_id}")
    assert gone.status_code == 200, gone.text
    assert gone.json()["data"]["status"] == "disconnected"
    disconnected = _events(receiver, secret, "account.disconnected")
    assert [e["data"]["account"]["id"] for e in disconnected] == [x_id]
    refused = customer.call("POST", "/publishes", {"content": "Again", "targets": [{"account_id": x_id}]})
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == "ACCOUNT_DISCONNECTED"

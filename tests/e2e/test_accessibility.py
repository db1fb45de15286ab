"""Accessible basics on every main page, as a browser sees them: each control has a name (its
label, aria-label or text), the page has one h1 after a skip link, the keyboard reaches the
main content first, and at phone width nothing scrolls sideways, long names included."""

from __future__ import annotations

import pytest

from accounts.models import SocialAccount
from publishing.models import Publish
from teams import services
from tests.e2e.pages import DASHBOARD_PAGES
from tests.webhooks.helpers import subscribe

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.e2e]

PAGES = DASHBOARD_PAGES

UNNAMED = """() => Array.from(document.querySelectorAll(
    'input:not([type=hidden]), select, textarea, button, a[href]'
)).filter(e => {
    // textContent, not innerText: a label inside a closed <details> has no innerText.
    const labelled = e.labels && Array.from(e.labels).some(l => l.textContent.trim());
    const named = e.getAttribute('aria-label') || e.getAttribute('aria-labelledby') || e.title;
    const text = (e.textContent || e.value || '').trim();
    const own = ['BUTTON', 'A'].includes(e.tagName) || ['submit', 'button'].includes(e.type);
    return !(labelled || named || (own && text));
}).map(e => e.outerHTML.slice(0, 160))"""


@pytest.mark.parametrize("path", PAGES)
def test_every_control_is_named_and_nothing_scrolls_sideways(signed_in, live_server, page_ids, path):
    page = signed_in
    page.goto(f"{live_server.url}{path.format(**page_ids)}")

    assert page.evaluate(UNNAMED) == []
    assert page.locator("h1").count() == 1
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip"  # the first stop
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_long_names_wrap_instead_of_widening_any_page(signed_in, live_server, owner, draft, page_ids):
    """A 200-character team name, and account names, a key name, a webhook URL and a post
    without a single space, on every main page at phone width."""
    page = signed_in
    owner.team.name = "Northwind" * 22 + "Co"  # 200 characters, no space to break at
    owner.team.save()
    account = SocialAccount.objects.get(team=owner.team)
    account.display_name, account.handle = "Display" * 30, "handle" * 40
    account.save()
    services.api_key_create(user=owner.user, name="key" * 33, scopes=["posts:read"], team=owner.team)
    subscribe(owner.team, "https://93.184.215.14/hooks/" + "segment" * 40)
    Publish.objects.filter(pk=draft.pk).update(content="https://example.com/" + "word" * 100)
    page.set_viewport_size({"width": 390, "height": 844})

    wide = {}
    for path in PAGES:
        page.goto(f"{live_server.url}{path.format(**page_ids)}")
        if (width := page.evaluate("document.documentElement.scrollWidth")) > 390:
            wide[path] = width

    assert wide == {}
    page.goto(f"{live_server.url}/dashboard/")
    assert page.locator("h1").inner_text() == owner.team.name  # wrapped, not cut
    assert page.get_by_text("Display" * 30).is_visible()
    box = page.get_by_role("button", name="Disconnect").bounding_box()
    assert box is not None
    assert box["x"] + box["width"] <= 390  # the table's last column, on screen

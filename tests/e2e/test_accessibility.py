"""Accessible basics on every main page, as a browser sees them: each control has a name (its
label, aria-label or text), the page has one h1 after a skip link, the keyboard reaches the
main content first, and at phone width nothing scrolls sideways."""

from __future__ import annotations

import pytest

from demo.seed import sandbox_account
from publishing import inputs, lifecycle
from publishing.models import PublishMode
from tests.e2e.pages import DASHBOARD_PAGES

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


@pytest.fixture
def content(owner):
    x = sandbox_account(owner.team, "x")
    return lifecycle.publish_create(
        team=owner.team,
        caller=inputs.Caller(user=owner.user, can_approve=True),
        content="A draft to list",
        media_ids=[],
        targets=[inputs.TargetInput(account_id=str(x.pk))],
        publish_mode=PublishMode.DRAFT,
        scheduled_at=None,
    )


@pytest.mark.parametrize("path", PAGES)
def test_every_control_is_named_and_nothing_scrolls_sideways(signed_in, live_server, content, path):
    page = signed_in
    page.goto(f"{live_server.url}{path.format(publish=content.pk)}")

    assert page.evaluate(UNNAMED) == []
    assert page.locator("h1").count() == 1
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip"  # the first stop
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390

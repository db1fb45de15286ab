"""The compose page's preview data: how each feed folds, crops and shows links, served once to the
page, and each chosen account's text cut where its network stops, by the same counting and limit
as the check beside it."""

from __future__ import annotations

import html
import json
import re

import pytest

from publishing.preview import FEEDS, feeds, text_preview

pytestmark = pytest.mark.django_db

URL = "/dashboard/compose/"
CHECK = "/dashboard/compose/check/"
FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"  # one grapheme, seven code points


def _check(client, persona, *accounts, content):
    client.force_login(persona.user)
    body = {"team": str(persona.team.pk), "content": content, "account": [str(a.pk) for a in accounts]}
    response = client.post(CHECK, body)
    assert response.status_code == 200
    return response.json()


def test_the_page_carries_the_feeds_figures_as_data(client, owner, accounts):
    client.force_login(owner.user)
    page = client.get(URL).content.decode()

    [raw] = re.findall(r'data-feeds="([^"]*)"', page)
    served = json.loads(html.unescape(raw))
    assert served == json.loads(json.dumps(feeds()))
    assert served["instagram"] == {"fold": 125, "more": "… more", "aspect": [0.8, 1.91], "link_card": False}
    assert served["pinterest"]["aspect"] == [2 / 3, 2 / 3]
    assert [p for p, feed in served.items() if feed["link_card"]] == ["x", "facebook", "threads"]


def test_the_preview_region_is_labelled_and_not_announced_on_every_keystroke(client, owner, accounts):
    client.force_login(owner.user)
    page = client.get(URL).content.decode()

    [section] = re.findall(r'<section class="card preview"[^>]*>', page)
    assert 'aria-labelledby="preview-heading"' in section
    assert "aria-live" not in section
    assert 'id="preview-heading">Preview<' in page


def test_an_x_text_over_its_limit_is_cut_where_x_stops_counting_a_url_as_23(client, owner, accounts):
    text = "Read https://example.com/a/long/path/to/the/article " + "a" * 260

    result = _check(client, owner, accounts.x, content=text)

    preview = result["previews"][str(accounts.x.pk)]
    assert preview["kept"] + preview["over"] == text
    # "Read " 5 + the URL 23 + " " 1 leave 251 of the 280 for the a's.
    assert preview["kept"] == text[: text.index(" a") + 1] + "a" * 251
    assert preview["over"] == "a" * 9
    assert preview["link"] == {
        "url": "https://example.com/a/long/path/to/the/article",
        "domain": "example.com",
        "path": "/a/long/path/to/the/article",
    }


def test_a_text_within_the_limit_is_kept_whole(client, owner, accounts):
    result = _check(client, owner, accounts.x, accounts.bluesky, content="Short and sweet.")

    for account in (accounts.x, accounts.bluesky):
        assert result["previews"][str(account.pk)] == {"kept": "Short and sweet.", "over": "", "link": None}


def test_bluesky_is_cut_by_graphemes(client, owner, accounts):
    result = _check(client, owner, accounts.bluesky, content=FAMILY * 301)

    preview = result["previews"][str(accounts.bluesky.pk)]
    assert preview["kept"] == FAMILY * 300
    assert preview["over"] == FAMILY


def test_each_account_previews_its_own_text(client, owner, accounts):
    client.force_login(owner.user)
    body = {
        "team": str(owner.team.pk),
        "content": "The post's text",
        "account": [str(accounts.x.pk), str(accounts.bluesky.pk)],
        f"t-{accounts.bluesky.pk}-content": "Bluesky's own words",
    }
    previews = client.post(CHECK, body).json()["previews"]

    assert previews[str(accounts.x.pk)]["kept"] == "The post's text"
    assert previews[str(accounts.bluesky.pk)]["kept"] == "Bluesky's own words"


def test_a_link_is_found_as_x_finds_it_without_trailing_punctuation():
    preview = text_preview("See https://example.com/. Done", limit=None, length=len)

    assert preview["link"] == {"url": "https://example.com/", "domain": "example.com", "path": ""}


def test_every_network_has_its_feed():
    from accounts.platforms.limits import PLATFORMS

    assert set(FEEDS) == set(PLATFORMS)

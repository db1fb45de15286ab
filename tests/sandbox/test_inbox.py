"""The webhook inbox's own rules: names, what it keeps, and a reset that empties it."""

from __future__ import annotations

import requests

from sandbox.inbox import KEPT_PER_INBOX


def _post(sandbox, name, body="{}"):
    return requests.post(f"{sandbox.url}/_sandbox/inbox/{name}", data=body, timeout=5)


def _listed(sandbox, name):
    return requests.get(f"{sandbox.url}/_sandbox/inbox/{name}", params={"format": "json"}, timeout=5).json()


def test_deliveries_are_listed_newest_first_and_only_the_newest_are_kept(sandbox):
    for n in range(KEPT_PER_INBOX + 2):
        assert _post(sandbox, "busy", f'{{"n": {n}}}').status_code == 200

    bodies = [d["body"] for d in _listed(sandbox, "busy")["deliveries"]]

    assert len(bodies) == KEPT_PER_INBOX
    assert bodies[0] == f'{{"n": {KEPT_PER_INBOX + 1}}}'


def test_inboxes_are_separate_and_a_reset_empties_them(sandbox):
    _post(sandbox, "one")

    assert len(_listed(sandbox, "one")["deliveries"]) == 1
    assert _listed(sandbox, "two")["deliveries"] == []
    requests.post(f"{sandbox.url}/_sandbox/reset", timeout=5)
    assert _listed(sandbox, "one")["deliveries"] == []


def test_a_name_with_other_characters_is_refused(sandbox):
    response = _post(sandbox, "a.b")

    assert response.status_code == 400
    assert "letters, digits" in response.json()["error"]


def test_an_empty_inbox_page_says_how_to_fill_it(sandbox):
    page = requests.get(f"{sandbox.url}/_sandbox/inbox/fresh", timeout=5)

    assert page.status_code == 200
    assert "Nothing has arrived yet" in page.text

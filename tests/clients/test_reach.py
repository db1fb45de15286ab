"""`socialpub.Client`'s all-pages reads never return a list cut short: against the API in
this process (its pages reach EXACT_COUNT_LIMIT items, lowered here), a list longer than its
pages reach is refused."""

from __future__ import annotations

import pytest
from socialpub import Client, ClientError

from config import pagination
from tests.factories import SocialAccountFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_list_past_the_pages_reach_is_refused_not_cut_short(live_server, owner, monkeypatch):
    SocialAccountFactory.create_batch(101, team=owner.team)
    client = Client(live_server.url, owner.key)
    assert len(client.accounts()) == 101  # two pages, every item

    monkeypatch.setattr(pagination, "EXACT_COUNT_LIMIT", 100)  # the pages reach the first 100

    with pytest.raises(ClientError, match="more than the 100 items its pages reach"):
        client.accounts()
    monkeypatch.setattr(pagination, "EXACT_COUNT_LIMIT", 101)
    assert len(client.accounts()) == 101

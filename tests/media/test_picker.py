"""Compose's "Choose from library" endpoint: a page of the team's confirmed files for the
dialog, searched by file name, and nothing of another team's."""

from __future__ import annotations

import pytest

from media import services
from media.views import PICKER_PAGE_SIZE
from tests.media import files

pytestmark = pytest.mark.django_db

PICKER = "/dashboard/media/picker/"


def _ready(team, filename, alt_text=""):
    media_id = files.stored_upload(team, files.image(), "image/png", filename)
    if alt_text:
        services.media_set_alt_text(team=team, media_id=media_id, alt_text=alt_text)
    return media_id


def _pick(client, persona, team=None, **params):
    client.force_login(persona.user)
    return client.get(PICKER, {"team": str((team or persona.team).pk), **params})


def test_a_member_is_offered_the_teams_confirmed_files_with_thumbnail_and_alt_text(client, member, outsider):
    launch = _ready(member.team, "launch.png", alt_text="A rocket over the city")
    files.stored_upload(member.team, files.image(), "image/png", "unconfirmed.png", confirmed=False)
    _ready(outsider.team, "theirs.png")

    response = _pick(client, member)

    assert response.status_code == 200
    answer = response.json()
    assert (answer["count"], answer["next_page"]) == (1, None)
    [item] = answer["items"]
    assert item["media_id"] == launch
    assert (item["filename"], item["content_type"]) == ("launch.png", "image/png")
    assert item["alt_text"] == "A rocket over the city"
    assert f"/media/files/{launch}" in item["preview_url"]


def test_the_picker_searches_file_names_in_any_case(client, owner):
    _ready(owner.team, "launch-banner.png")
    _ready(owner.team, "logo.png")

    answer = _pick(client, owner, q="BANNER").json()

    assert [item["filename"] for item in answer["items"]] == ["launch-banner.png"]


def test_the_picker_pages_through_many_files_newest_first(client, owner):
    for n in range(PICKER_PAGE_SIZE + 2):
        _ready(owner.team, f"file-{n:02}.png")

    first, second = _pick(client, owner).json(), _pick(client, owner, page=2).json()

    assert len(first["items"]) == PICKER_PAGE_SIZE
    assert first["items"][0]["filename"] == f"file-{PICKER_PAGE_SIZE + 1:02}.png"
    assert (first["next_page"], second["next_page"]) == (2, None)
    assert [item["filename"] for item in second["items"]] == ["file-01.png", "file-00.png"]


def test_another_teams_files_are_not_found(client, owner, outsider):
    _ready(owner.team, "ours.png")

    response = _pick(client, outsider, team=owner.team)

    assert response.status_code == 404
    assert b"ours.png" not in response.content


def test_the_picker_needs_a_login(client, owner):
    response = client.get(PICKER, {"team": str(owner.team.pk)})

    assert response.status_code == 302
    assert "/login/" in response["Location"]

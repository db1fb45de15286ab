"""The platform_settings schemas say what the clients check: every key a client reads is there
with a type the client takes, a value the schema allows passes the client's own validation,
and a value outside a schema's choices is one the client refuses too."""

from __future__ import annotations

import io

import jsonschema
import pytest

from accounts.platforms.base import Media, Post
from accounts.platforms.limits import PLATFORMS
from accounts.platforms.registry import client_for
from accounts.platforms.settings_schema import SERVICE_PROPERTIES, live_schema, settings_schema
from tests.platforms.youtube_helpers import connection as youtube_connection
from tests.platforms.youtube_helpers import insert_bodies as youtube_inserts
from tests.platforms.youtube_helpers import video


def _media(content_type: str, *, duration: float | None = None, side: int = 1080) -> Media:
    return Media(
        id="m",
        content_type=content_type,
        size_bytes=1000,
        width=side,
        height=side,
        duration_seconds=duration,
        open=lambda: io.BytesIO(b""),
        pull_url=lambda: "https://media.example/m",
    )


IMAGE, VIDEO = _media("image/jpeg"), _media("video/mp4", duration=10.0)

# For each platform, settings a form could send (valid by its schema) and the media they suit.
REPRESENTATIVE = {
    "x": ({"reply_to": "1460323737035677698", "sensitive": True, "fit_media": False}, [IMAGE]),
    "linkedin": (
        {"title": "T", "visibility": "CONNECTIONS", "target_audience": {"geoLocations": ["urn:li:geo:1"]}},
        [IMAGE],
    ),
    "facebook": ({"postType": "reels"}, [VIDEO]),
    "instagram": ({"first_comment": "First!"}, [IMAGE]),
    "threads": ({"link_attachment": "https://example.com/a", "topic_tag": "News"}, []),
    "bluesky": (
        {
            "first_comment": "More below",
            "embed": {"external": {"uri": "https://e.x/", "title": "t", "description": ""}},
        },
        [],
    ),
    "pinterest": (
        {"boardId": "549755885175", "title": "T", "link": "https://e.x/", "alt_text": "a", "note": "n"},
        [IMAGE],
    ),
    "youtube": (
        {
            "title": "A video",
            "privacyStatus": "unlisted",
            "category_id": "22",
            "default_language": "en",
            "default_audio_language": "en-US",
            "tags": ["one", "two words"],
            "madeForKids": False,
        },
        [VIDEO],
    ),
    "tiktok": (
        {
            "tiktok_post_mode": "DIRECT_POST",
            "privacy_level": "PUBLIC_TO_EVERYONE",
            "allows_comments": True,
            "allows_duet": False,
            "brand_organic_toggle": True,
        },
        [VIDEO],
    ),
}


def _types(schema: dict) -> set[str]:
    declared = schema["type"]
    return {declared} if isinstance(declared, str) else set(declared)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_the_schema_is_a_valid_draft_2020_12_schema(platform):
    schema = settings_schema(platform)

    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


@pytest.mark.parametrize("platform", PLATFORMS)
def test_every_key_a_client_reads_is_in_the_schema_with_a_type_it_takes(platform):
    client = client_for(platform)
    declared = {**client.setting_types, **({"first_comment": ("string",)} if client.first_comment else {})}
    properties = settings_schema(platform)["properties"]

    assert set(properties) == set(declared) | set(SERVICE_PROPERTIES)
    for key, types in declared.items():
        assert _types(properties[key]), key
        assert _types(properties[key]) <= set(types), key


@pytest.mark.parametrize("platform", PLATFORMS)
def test_every_platform_takes_fit_media(platform):
    fit_media = settings_schema(platform)["properties"]["fit_media"]

    assert fit_media["type"] == "boolean"
    assert fit_media["default"] is True


@pytest.mark.parametrize("platform", PLATFORMS)
def test_settings_valid_by_the_schema_pass_the_clients_validation(platform):
    values, media = REPRESENTATIVE[platform]
    client = client_for(platform)

    assert list(jsonschema.Draft202012Validator(settings_schema(platform)).iter_errors(values)) == []
    assert client.problems(Post(text="Hello", media=media, settings=values)) == []


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_value_outside_a_schemas_choices_is_refused_by_the_client_too(platform):
    values, media = REPRESENTATIVE[platform]
    client = client_for(platform)
    choices = {k: p for k, p in settings_schema(platform)["properties"].items() if "enum" in p}
    for key in choices:
        wrong = {**values, key: "NOT_A_CHOICE"}

        assert not jsonschema.Draft202012Validator(settings_schema(platform)).is_valid(wrong)
        assert key in [p.field for p in client.problems(Post(text="Hello", media=media, settings=wrong))], key


def test_the_required_keys_are_refused_by_the_clients_when_missing():
    for platform, key in (("pinterest", "boardId"), ("youtube", "title")):
        values, media = REPRESENTATIVE[platform]
        missing = {k: v for k, v in values.items() if k != key}

        assert settings_schema(platform)["required"] == [key]
        assert key in [p.field for p in client_for(platform).problems(Post(text="Hi", media=media, settings=missing))]


def test_a_youtube_title_too_long_for_the_schema_is_too_long_for_the_client():
    values, media = REPRESENTATIVE["youtube"]
    long_title = {**values, "title": "t" * 101}

    assert not jsonschema.Draft202012Validator(settings_schema("youtube")).is_valid(long_title)
    assert [p.code for p in client_for("youtube").problems(Post(text="", media=media, settings=long_title))] == [
        "TITLE_TOO_LONG"
    ]


def test_live_options_narrow_the_choices():
    tiktok = live_schema(
        "tiktok", {"privacy_level_options": ["SELF_ONLY", "FOLLOWER_OF_CREATOR"], "duet_disabled": True}
    )["properties"]
    pinterest = live_schema("pinterest", {"boards": [{"id": "12", "name": "Recipes"}]})["properties"]

    assert tiktok["privacy_level"]["enum"] == ["SELF_ONLY", "FOLLOWER_OF_CREATOR"]
    assert tiktok["allows_duet"]["const"] is False
    assert "const" not in tiktok["allows_stitch"]
    assert pinterest["boardId"]["oneOf"] == [{"const": "12", "title": "Recipes"}]
    assert not jsonschema.Draft202012Validator(
        live_schema("pinterest", {"boards": [{"id": "12", "name": "R"}]})
    ).is_valid({"boardId": "13"})


def test_no_live_options_leave_the_static_schema():
    assert live_schema("pinterest", {"boards": []}) == settings_schema("pinterest")
    assert live_schema("x", {}) == settings_schema("x")


def test_youtube_shows_the_audience_and_category_every_upload_declares_by_default(sandbox):
    properties = settings_schema("youtube")["properties"]
    client = client_for("youtube")
    values, _ = REPRESENTATIVE["youtube"]
    unset = {k: v for k, v in values.items() if k not in ("category_id", "madeForKids")}

    client.publish(youtube_connection(), Post(text="defaults", media=[video()], settings=unset))

    [sent] = youtube_inserts(sandbox)
    assert (properties["category_id"]["default"], properties["madeForKids"]["default"]) == ("22", False)
    assert (sent["snippet"]["categoryId"], sent["status"]["selfDeclaredMadeForKids"]) == ("22", False)


def test_a_youtube_category_default_the_account_cannot_choose_is_left_out():
    offered = live_schema("youtube", {"categories": [{"id": "22", "name": "People & Blogs"}]})["properties"]
    elsewhere = live_schema("youtube", {"categories": [{"id": "10", "name": "Music"}]})["properties"]

    assert offered["category_id"]["default"] == "22"
    assert "default" not in elsewhere["category_id"]

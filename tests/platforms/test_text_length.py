"""`text_length()` and `text_limit()` of every client: each platform's own counting (what the
dashboard shows as "123 / 280"), and the same count `validate()` refuses a text by."""

from __future__ import annotations

import pytest

from accounts.platforms.base import Media, Post
from accounts.platforms.limits import PLATFORMS, limits_for
from accounts.platforms.registry import client_for

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"  # 1 grapheme, 7 code points, 25 bytes
E_ACUTE = "e\u0301"  # 1 grapheme, 2 code points
NIHON = "日本"  # CJK: 2 code points, 6 UTF-8 bytes


@pytest.mark.parametrize(
    ("platform", "text", "length"),
    [
        ("x", "see https://example.com/a/long/path/to/something", 4 + 23),
        ("x", FAMILY + NIHON, 2 + 2 * 2),
        ("bluesky", FAMILY * 2 + E_ACUTE, 3),
        ("threads", "hi " + FAMILY, 3 + 25),
        ("tiktok", "\U0001f600ab", 2 + 2),  # an astral character is two UTF-16 units
        ("youtube", NIHON + "a", 6 + 1),
        ("instagram", FAMILY, 7),
        ("facebook", E_ACUTE, 2),
        ("linkedin", NIHON, 2),
        ("pinterest", "abc", 3),
    ],
)
def test_each_platform_counts_text_its_own_way(platform, text, length):
    assert client_for(platform).text_length(text) == length


def test_every_platform_counts_as_its_limits_say():
    counting = {platform: limits_for(platform).text.counting for platform in PLATFORMS}

    assert counting == {
        "x": "weighted",
        "instagram": "characters",
        "tiktok": "utf16",
        "youtube": "utf8_bytes",
        "facebook": "characters",
        "linkedin": "characters",
        "pinterest": "characters",
        "threads": "emoji_bytes",
        "bluesky": "graphemes",
    }


@pytest.mark.parametrize("platform", PLATFORMS)
def test_validate_refuses_a_text_just_past_the_limit_by_that_count(platform):
    client = client_for(platform)
    limit = client.text_limit(Post(text=""))

    def too_long(text):
        return "TEXT_TOO_LONG" in [p.code for p in client.validate(Post(text=text))]

    # A text-only TikTok post is a video's caption; every other limit is the table's.
    assert limit == (2200 if platform == "tiktok" else limits_for(platform).text.max_length)
    assert not too_long("a" * limit)
    assert too_long("a" * (limit + 1))


def test_tiktoks_limit_is_the_captions_for_a_video_and_the_descriptions_for_photos():
    client = client_for("tiktok")
    photo, video = (
        Media(
            id=kind,
            content_type=kind,
            size_bytes=10,
            width=None,
            height=None,
            duration_seconds=None,
            open=lambda: None,
            pull_url=lambda: "",
        )
        for kind in ("image/jpeg", "video/mp4")
    )

    assert client.text_limit(Post(text="", media=[photo])) == 4000
    assert client.text_limit(Post(text="", media=[video])) == 2200

"""platform_settings of the wrong JSON type are a 400 naming the key, on every platform: the
declared types are checked once, in the client base, before any platform rule reads a value."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("platform", "values", "key"),
    [
        ("linkedin", {"visibility": 5}, "visibility"),
        ("linkedin", {"visibility": ["PUBLIC"]}, "visibility"),  # was a 500: unhashable list
        ("linkedin", {"visibility": {"PUBLIC": True}}, "visibility"),  # was a 500: unhashable dict
        ("linkedin", {"target_audience": "everyone"}, "target_audience"),
        ("x", {"sensitive": "yes"}, "sensitive"),
        ("x", {"for_super_followers_only": 1}, "for_super_followers_only"),
        ("x", {"reply_to": 123}, "reply_to"),
        ("pinterest", {"boardId": "549755885175", "cover_image_key_frame_time": "abc"}, "cover_image_key_frame_time"),
        ("pinterest", {"boardId": "549755885175", "cover_image_key_frame_time": True}, "cover_image_key_frame_time"),
        ("pinterest", {"boardId": 549755885175}, "boardId"),
        ("pinterest", {"boardId": "549755885175", "per_account": "549755885175"}, "per_account"),  # was ignored
        ("youtube", {"title": "A video", "tags": "a"}, "tags"),
        ("youtube", {"title": ["A video"]}, "title"),
        ("youtube", {"title": "A video", "madeForKids": "no"}, "madeForKids"),
        ("youtube", {"title": "A video", "privacyStatus": ["public"]}, "privacyStatus"),
        ("bluesky", {"reply": 5}, "reply"),
        ("bluesky", {"embed": "https://example.com"}, "embed"),
        ("bluesky", {"first_comment": ["hi"]}, "first_comment"),
        ("tiktok", {"allows_comments": "true"}, "allows_comments"),
        ("tiktok", {"auto_add_music": None}, "auto_add_music"),
        ("tiktok", {"privacy_level": ["SELF_ONLY"]}, "privacy_level"),
        ("tiktok", {"tiktok_post_mode": {"mode": "DIRECT_POST"}}, "tiktok_post_mode"),
        ("facebook", {"postType": ["reels"]}, "postType"),
        ("instagram", {"first_comment": 5}, "first_comment"),
        ("threads", {"topic_tag": ["news"]}, "topic_tag"),
        ("threads", {"link_attachment": 5}, "link_attachment"),
    ],
)
def test_a_setting_of_the_wrong_type_is_a_400_naming_it(api, owner, accounts, platform, values, key):
    target = {"account_id": str(getattr(accounts, platform).pk), "platform_settings": values}
    body = {"content": "Hello", "targets": [target], "publish_mode": "draft"}

    response = api.as_(owner.key).post("/api/v1/publishes", body, format="json")

    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "INVALID_SETTING"
    [problems] = [t["problems"] for t in error["details"]["targets"]]
    assert [(p["field"], p["code"]) for p in problems] == [(key, "INVALID_SETTING")]


def test_null_still_means_unset_where_a_platform_reads_it_so(api, owner, accounts):
    target = {"account_id": str(accounts.threads.pk), "platform_settings": {"link_attachment": None}}
    body = {"content": "Hello", "targets": [target], "publish_mode": "draft"}

    response = api.as_(owner.key).post("/api/v1/publishes", body, format="json")

    assert response.status_code == 201, response.content

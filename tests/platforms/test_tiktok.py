"""What the TikTok client alone does, against the sandbox over real HTTP: photo, carousel and
video posts (chunked FILE_UPLOAD and PULL_FROM_URL), every platform setting on the wire,
validation, tokens, the Login Kit code flow and metrics. The outcome matrix every client shares
is in test_conformance.py."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from accounts.platforms import base
from accounts.platforms.tiktok import Client
from sandbox import tokens
from tests.media import files
from tests.platforms.tiktok_helpers import ACCOUNT, HANDLE, bodies, connection, logged, media_server, stored

Kind = base.OutcomeKind
MB = 1024 * 1024
VIDEO_INIT = "/v2/post/publish/video/init/"
PHOTO_INIT = "/v2/post/publish/content/init/"

server = pytest.fixture(media_server)


@pytest.fixture
def client():
    return Client()


def _settle(client, conn, outcome, limit=6):
    """check() until the outcome is final; the outcomes seen on the way."""
    seen = [outcome]
    while seen[-1].kind is Kind.PROCESSING and len(seen) < limit:
        seen.append(client.check(conn, seen[-1].ref))
    return seen


# --- publishing ------------------------------------------------------------------------------


def test_text_only_is_refused_because_tiktok_needs_media(client):
    assert {(p.field, p.code) for p in client.validate(base.Post(text="just words"))} == {("media", "MEDIA_REQUIRED")}


def test_a_photo_post_is_pulled_and_published_with_the_text_as_description(sandbox, client, server):
    outcome = client.publish(connection(), base.Post(text="Sunny #day", media=[server.jpeg()]))

    assert outcome.kind is Kind.PUBLISHED
    assert outcome.url == f"https://www.tiktok.com/@{HANDLE}/photo/{outcome.post_id}"
    [body] = bodies(sandbox, PHOTO_INIT)
    assert body["media_type"] == "PHOTO"
    assert body["post_mode"] == "DIRECT_POST"
    assert body["post_info"]["privacy_level"] == "SELF_ONLY"  # the default
    assert body["source_info"]["photo_images"] == [server.url("m0")]


def test_a_photo_carousel_is_one_post(sandbox, client, server):
    photos = [server.jpeg(), server.webp(), server.jpeg()]
    outcome = client.publish(connection(), base.Post(text="three", media=photos))

    assert outcome.kind is Kind.PUBLISHED
    assert [p.media_count for p in stored(sandbox)] == [3]
    assert len(bodies(sandbox, PHOTO_INIT)[0]["source_info"]["photo_images"]) == 3


def test_creator_info_is_queried_before_every_post(sandbox, client, server):
    client.publish(connection(), base.Post(text="x", media=[server.jpeg()]))

    paths = [r["path"] for r in sandbox.state.requests if r["path"].startswith("/open.tiktokapis.com")]
    assert paths[0].endswith("/creator_info/query/")


def test_a_small_video_goes_up_in_one_chunk_and_its_caption_is_the_text(sandbox, client, server):
    video = server.mp4()
    outcome = client.publish(connection(), base.Post(text="clip #fyp", media=[video]))

    assert outcome.kind is Kind.PUBLISHED
    assert outcome.url == f"https://www.tiktok.com/@{HANDLE}/video/{outcome.post_id}"
    [body] = bodies(sandbox, VIDEO_INIT)
    assert body["source_info"] == {
        "source": "FILE_UPLOAD",
        "video_size": video.size_bytes,
        "chunk_size": video.size_bytes,
        "total_chunk_count": 1,
    }
    assert body["post_info"]["title"] == "clip #fyp"
    [put] = logged(sandbox, "PUT", "/open-upload.tiktokapis.com/video/")
    assert put["headers"]["Content-Range"] == f"bytes 0-{video.size_bytes - 1}/{video.size_bytes}"
    assert put["headers"]["Content-Type"] == "video/mp4"
    assert "Authorization" not in put["headers"]
    assert [(p.text, p.media_count) for p in stored(sandbox)] == [("clip #fyp", 1)]


def test_a_large_video_is_chunked_with_the_rest_in_the_last_chunk(sandbox, client, server):
    data = files.video() + b"\0" * (12 * MB)
    client.chunk_bytes = 5 * MB
    outcome = client.publish(connection(), base.Post(text="big", media=[server.mp4(data)]))

    assert outcome.kind is Kind.PUBLISHED
    source = bodies(sandbox, VIDEO_INIT)[0]["source_info"]
    assert (source["chunk_size"], source["total_chunk_count"]) == (5 * MB, 2)
    ranges = [r["headers"]["Content-Range"] for r in logged(sandbox, "PUT", "/video/")]
    assert ranges == [f"bytes 0-{5 * MB - 1}/{len(data)}", f"bytes {5 * MB}-{len(data) - 1}/{len(data)}"]


def test_a_video_can_be_pulled_from_its_url(sandbox, client, server):
    client.video_source = "PULL_FROM_URL"
    outcome = client.publish(connection(), base.Post(text="pulled", media=[server.mp4(name="v.mp4")]))

    assert outcome.kind is Kind.PUBLISHED
    assert bodies(sandbox, VIDEO_INIT)[0]["source_info"] == {
        "source": "PULL_FROM_URL",
        "video_url": server.url("v.mp4"),
    }
    assert logged(sandbox, "PUT", "/video/") == []


def test_the_publish_id_is_saved_before_the_upload_that_completes_the_post(sandbox, client, server):
    conn = connection()
    seen = []
    conn.save_ref = lambda ref: seen.append((dict(ref), len(logged(sandbox, "PUT", "/video/"))))

    outcome = client.publish(conn, base.Post(text="keyed", media=[server.mp4()]))

    [(ref, puts_then)] = seen
    assert puts_then == 0
    assert ref["publish_id"] == outcome.ref["publish_id"]
    assert ref["publish_id"].startswith("v_pub_file~")


def test_an_unpullable_photo_fails_on_tiktoks_side_and_may_be_retried(sandbox, client, server):
    photo = server.jpeg()
    server.files.clear()
    outcome = client.publish(connection(), base.Post(text="gone", media=[photo]))

    assert (outcome.kind, outcome.error_code) == (Kind.NOT_SENT, "photo_pull_failed")
    assert stored(sandbox) == []


def test_a_file_that_is_not_a_video_fails_the_format_check(sandbox, client, server):
    outcome = client.publish(connection(), base.Post(text="fake", media=[server.mp4(b"not a video at all")]))

    assert (outcome.kind, outcome.error_code) == (Kind.FAILED, "file_format_check_failed")
    assert stored(sandbox) == []


def test_an_inbox_upload_waits_for_the_creator_then_is_published(sandbox, client, server):
    conn = connection()
    outcome = client.publish(
        conn, base.Post(text="", media=[server.mp4()], settings={"tiktok_post_mode": "MEDIA_UPLOAD"})
    )

    assert outcome.kind is Kind.PROCESSING
    assert "TikTok app" in outcome.error_message
    assert logged(sandbox, "POST", "/v2/post/publish/inbox/video/init/")
    assert bodies(sandbox, "/inbox/video/init/")[0].keys() == {"source_info"}
    assert client.check(conn, outcome.ref).kind is Kind.PUBLISHED


# --- settings on the wire --------------------------------------------------------------------


def test_every_video_setting_reaches_post_info(sandbox, client, server):
    settings = {
        "privacy_level": "PUBLIC_TO_EVERYONE",
        "allows_comments": False,
        "allows_duet": False,
        "allows_stitch": True,
        "brand_content_toggle": True,
        "brand_organic_toggle": True,
        "tiktok_post_mode": "DIRECT_POST",
        "unknown_key": 1,
    }
    client.publish(connection(), base.Post(text="v", media=[server.mp4()], settings=settings))

    assert bodies(sandbox, VIDEO_INIT)[0]["post_info"] == {
        "title": "v",
        "privacy_level": "PUBLIC_TO_EVERYONE",
        "disable_comment": True,
        "disable_duet": True,
        "disable_stitch": False,
        "brand_content_toggle": True,
        "brand_organic_toggle": True,
    }


def test_every_photo_setting_reaches_the_content_init(sandbox, client, server):
    settings = {
        "title": "A title",
        "privacy_level": "FOLLOWER_OF_CREATOR",
        "allows_comments": True,
        "auto_add_music": True,
        "brand_organic_toggle": False,
    }
    outcome = client.publish(connection(), base.Post(text="desc", media=[server.jpeg()], settings=settings))

    assert outcome.kind is Kind.PUBLISHED
    info = bodies(sandbox, PHOTO_INIT)[0]["post_info"]
    assert info == {
        "description": "desc",
        "title": "A title",
        "privacy_level": "FOLLOWER_OF_CREATOR",
        "disable_comment": False,
        "auto_add_music": True,
        "brand_organic_toggle": False,
    }


def test_photo_media_upload_mode_goes_to_the_inbox_without_privacy(sandbox, client, server):
    conn = connection()
    post = base.Post(text="draft", media=[server.jpeg()], settings={"tiktok_post_mode": "MEDIA_UPLOAD"})
    outcome = client.publish(conn, post)

    body = bodies(sandbox, PHOTO_INIT)[0]
    assert body["post_mode"] == "MEDIA_UPLOAD"
    assert "privacy_level" not in body["post_info"]
    assert [o.kind for o in _settle(client, conn, outcome)][-1] is Kind.PUBLISHED


# --- validation ------------------------------------------------------------------------------


def _codes(client, post):
    return {(p.field, p.code) for p in client.problems(post)}


@pytest.fixture
def jpeg():
    return base.Media("j", "image/jpeg", 100, 1080, 1080, None, lambda: None, lambda: "")  # type: ignore[arg-type]


@pytest.fixture
def mp4():
    return base.Media("v", "video/mp4", 100, 1080, 1920, 10.0, lambda: None, lambda: "")  # type: ignore[arg-type]


def test_media_limits(client, jpeg, mp4):
    def item(**changes):
        return base.Media(**{**mp4.__dict__, **changes})

    assert _codes(client, base.Post(text="", media=[jpeg] * 36)) == {("media", "TOO_MANY_MEDIA")}
    assert _codes(client, base.Post(text="", media=[jpeg, mp4])) == {("media", "MIXED_MEDIA")}
    assert _codes(client, base.Post(text="", media=[mp4, mp4])) == {("media", "TOO_MANY_MEDIA")}
    png = base.Media(**{**jpeg.__dict__, "content_type": "image/png", "fit": False})  # fit_media: false
    assert _codes(client, base.Post(text="", media=[png])) == {("media[0]", "UNSUPPORTED_MEDIA_TYPE")}
    big = base.Media(**{**jpeg.__dict__, "size_bytes": 20 * MB + 1, "fit": False})
    assert _codes(client, base.Post(text="", media=[big])) == {("media[0]", "MEDIA_TOO_LARGE")}
    fitted = [base.Media(**{**jpeg.__dict__, "content_type": "image/png"}), base.Media(**{**big.__dict__, "fit": True})]
    assert client.validate(base.Post(text="", media=fitted)) == []  # JPEG renditions go instead
    assert _codes(client, base.Post(text="", media=[item(duration_seconds=601)])) == {("media[0]", "VIDEO_TOO_LONG")}
    assert _codes(client, base.Post(text="", media=[item(width=200)])) == {("media[0]", "INVALID_DIMENSIONS")}
    assert client.validate(base.Post(text="", media=[jpeg] * 35)) == []


def test_text_limits_differ_for_captions_and_photo_descriptions(client, jpeg, mp4):
    assert client.validate(base.Post(text="é" * 2200, media=[mp4])) == []
    assert _codes(client, base.Post(text="😀" * 1101, media=[mp4])) == {("text", "TEXT_TOO_LONG")}  # 2202 UTF-16
    assert client.validate(base.Post(text="x" * 4000, media=[jpeg])) == []
    assert _codes(client, base.Post(text="x" * 4001, media=[jpeg])) == {("text", "TEXT_TOO_LONG")}


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ({"tiktok_post_mode": "LIVE"}, ("tiktok_post_mode", "INVALID_SETTING")),
        ({"privacy_level": "PUBLIC"}, ("privacy_level", "INVALID_SETTING")),
        ({"allows_comments": "yes"}, ("allows_comments", "INVALID_SETTING")),
        ({"allows_duet": 1}, ("allows_duet", "INVALID_SETTING")),
        ({"allows_stitch": None}, ("allows_stitch", "INVALID_SETTING")),
        ({"brand_content_toggle": "true"}, ("brand_content_toggle", "INVALID_SETTING")),
        ({"brand_organic_toggle": 0}, ("brand_organic_toggle", "INVALID_SETTING")),
        ({"auto_add_music": "on"}, ("auto_add_music", "INVALID_SETTING")),
        ({"title": 5}, ("title", "INVALID_SETTING")),
        ({"title": "t" * 91}, ("title", "TITLE_TOO_LONG")),
        ({"allows_duet": True}, ("allows_duet", "UNSUPPORTED_SETTING")),
        ({"brand_content_toggle": True}, ("brand_content_toggle", "INVALID_COMBINATION")),
        ({"tiktok_post_mode": "MEDIA_UPLOAD", "privacy_level": "SELF_ONLY"}, ("privacy_level", "UNSUPPORTED_SETTING")),
    ],
)
def test_photo_settings_with_wrong_values_are_named(client, jpeg, values, expected):
    assert _codes(client, base.Post(text="hi", media=[jpeg], settings=values)) == {expected}


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ({"title": "A title"}, ("title", "UNSUPPORTED_SETTING")),
        ({"auto_add_music": True}, ("auto_add_music", "UNSUPPORTED_SETTING")),
        ({"tiktok_post_mode": "MEDIA_UPLOAD", "allows_comments": True}, ("allows_comments", "UNSUPPORTED_SETTING")),
    ],
)
def test_video_settings_that_cannot_be_honoured_are_named(client, mp4, values, expected):
    assert _codes(client, base.Post(text="hi", media=[mp4], settings=values)) == {expected}


def test_valid_settings_and_unknown_keys_pass(client, jpeg, mp4):
    photo = {"title": "t" * 90, "auto_add_music": True, "allows_duet": False, "whatever": [1]}
    video = {"privacy_level": "PUBLIC_TO_EVERYONE", "brand_content_toggle": True, "allows_duet": True}

    assert client.validate(base.Post(text="", media=[jpeg], settings=photo)) == []
    assert client.validate(base.Post(text="", media=[mp4], settings=video)) == []


# --- control outcomes ------------------------------------------------------------------------


def test_check_without_a_publish_id_has_nothing_to_check(sandbox, client):
    assert client.check(connection(), {}).error_code == "NO_REF"


# --- tokens ----------------------------------------------------------------------------------


def test_refresh_rotates_the_refresh_token(sandbox, client, server):
    conn = connection()
    fresh = client.refresh(conn)

    assert fresh.refresh_token != conn.credentials.refresh_token
    assert tokens.parse(fresh.access_token).account == ACCOUNT == fresh.external_id
    assert fresh.expires_at > dt.datetime.now(dt.UTC)
    assert client.publish(base.Connection(fresh, sandbox=True), base.Post(text="r", media=[server.jpeg()])).kind is (
        Kind.PUBLISHED
    )
    with pytest.raises(base.PlatformError, match="invalid_grant"):
        client.refresh(conn)  # the old refresh token stopped working


def test_the_oauth_code_flow_end_to_end(sandbox, client, server):
    verifier = "v" * 64
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    redirect = "https://app.example/tiktok/callback"
    url = client.authorize_url(state="st-1", code_challenge=challenge, redirect_uri=redirect, sandbox=True)

    assert url.startswith(f"{sandbox.url}/www.tiktok.com/v2/auth/authorize/?")
    query = parse_qs(urlsplit(url).query)
    assert query["client_key"] == ["sandbox-tiktok-client"]
    assert query["code_challenge_method"] == ["S256"]
    page = requests.get(url, timeout=5).text
    target = page.split('id="approve" href="', 1)[1].split('"', 1)[0].replace("&amp;", "&")
    answer = parse_qs(urlsplit(target).query)
    assert target.startswith(redirect)
    assert answer["state"] == ["st-1"]

    with pytest.raises(base.PlatformError):
        client.exchange_code(code=answer["code"][0], code_verifier="w" * 64, redirect_uri=redirect, sandbox=True)
    page = requests.get(url, timeout=5).text
    code = parse_qs(urlsplit(page.split('href="', 1)[1].split('"', 1)[0].replace("&amp;", "&")).query)["code"][0]
    credentials = client.exchange_code(code=code, code_verifier=verifier, redirect_uri=redirect, sandbox=True)

    assert credentials.external_id
    assert credentials.handle
    assert credentials.display_name
    assert "video.publish" in credentials.metadata["scope"]
    outcome = client.publish(base.Connection(credentials, sandbox=True), base.Post(text="hi", media=[server.jpeg()]))
    assert outcome.kind is Kind.PUBLISHED


# --- metrics and transport -------------------------------------------------------------------


def test_metrics_carry_the_share_url(sandbox, client, server):
    outcome = client.publish(connection(), base.Post(text="counted", media=[server.jpeg()]))

    metrics = client.metrics(connection(), [outcome.post_id])

    assert metrics[outcome.post_id].extra["share_url"].endswith(outcome.post_id)


def test_metrics_ask_for_at_most_twenty_ids_a_call(sandbox, client):
    client.metrics(connection(), [str(n) for n in range(45)])

    assert [len(b["filters"]["video_ids"]) for b in bodies(sandbox, "/v2/video/query/")] == [20, 20, 5]


# --- after publishing ------------------------------------------------------------------------


def test_a_post_exists_until_its_owner_removes_it(sandbox, client, server):
    outcome = client.publish(connection(), base.Post(text="here", media=[server.jpeg()]))

    assert client.exists(connection(), outcome.post_id, outcome.ref) is True
    removed = {"platform": "tiktok", "id": outcome.post_id}
    requests.post(f"{sandbox.url}/_sandbox/posts/remove", json=removed, timeout=5).raise_for_status()
    assert client.exists(connection(), outcome.post_id, outcome.ref) is False
    [read] = bodies(sandbox, "/v2/video/query/")[-1:]
    assert read == {"filters": {"video_ids": [outcome.post_id]}}


def test_a_private_post_known_by_its_publish_id_cannot_be_read_back(sandbox, client):
    with pytest.raises(base.PlatformError) as raised:
        client.exists(connection(), "v_pub_file~v2-1.7", {"publish_id": "v_pub_file~v2-1.7"})

    assert raised.value.outcome.error_code == "NOT_READABLE"
    assert bodies(sandbox, "/v2/video/query/") == []


def test_a_refused_read_back_raises_rather_than_saying_gone(sandbox, client):
    with pytest.raises(base.PlatformError) as raised:
        client.exists(connection("not-a-token"), "7300000000000000001", {})

    assert raised.value.outcome.auth_failed


def test_tiktok_has_no_delete_call_and_sends_nothing(sandbox, client):
    outcome = client.delete(connection(), "7300000000000000001", {})

    assert (outcome.kind, outcome.error_code) == (Kind.FAILED, "DELETE_UNSUPPORTED")
    assert outcome.error_message == "TikTok has no delete call: delete it in the app."
    assert list(sandbox.state.requests) == []


def test_tiktok_has_no_first_comment(client, server):
    post = base.Post(text="clip", media=[server.jpeg()], settings={"first_comment": "hi"})

    assert [p.code for p in client.problems(post)] == ["FIRST_COMMENT_UNSUPPORTED"]


def test_a_silent_upload_init_created_nothing_so_it_is_not_sent(sandbox, client, server, monkeypatch):
    real = client.session.request

    def drop_init(method, url, **kwargs):
        if url.endswith(VIDEO_INIT):
            raise requests.ReadTimeout()
        return real(method, url, **kwargs)

    monkeypatch.setattr(client.session, "request", drop_init)
    outcome = client.publish(connection(), base.Post(text="v", media=[server.mp4()]))

    assert (outcome.kind, outcome.error_code) == (Kind.NOT_SENT, "NO_ANSWER")
    assert stored(sandbox) == []

"""What the YouTube client alone does, against the sandbox over real HTTP: the resumable upload,
what the settings become in the Video resource, validation, first comments, deleting and reading
back, tokens and metrics. The outcome matrix every client shares is in test_conformance.py."""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import hashlib
import json
from urllib.parse import parse_qs, parse_qsl, urlsplit

import pytest
import requests

from accounts.platforms import base
from accounts.platforms.youtube import Client, watch_url
from sandbox import tokens
from tests.media import files
from tests.platforms.youtube_helpers import CHANNEL, connection, insert_bodies, logged, media, post, video

Kind = base.OutcomeKind


@pytest.fixture
def client():
    return Client()


def _posts(sandbox):
    return sandbox.state.posts_of("youtube")


# --- publishing --------------------------------------------------------------------------------


def test_a_video_is_uploaded_and_published_with_its_watch_url(sandbox, client):
    outcome = client.publish(connection(), post("Hello YouTube", "My first video"))

    assert outcome.kind == Kind.PUBLISHED
    assert outcome.url == watch_url(outcome.post_id) == f"https://www.youtube.com/watch?v={outcome.post_id}"
    assert len(outcome.post_id) == 11


def test_the_upload_opens_a_resumable_session_then_puts_the_bytes(sandbox, client):
    conn = connection()
    clip = video()
    client.publish(conn, base.Post(text="d", media=[clip], settings={"title": "t"}))

    [opening] = logged(sandbox, "POST", "/upload/youtube/v3/videos")
    assert parse_qs(opening["query"]) == {"uploadType": ["resumable"], "part": ["snippet,status"]}
    assert opening["headers"]["X-Upload-Content-Length"] == str(clip.size_bytes)
    assert opening["headers"]["X-Upload-Content-Type"] == "video/mp4"
    assert opening["headers"]["Authorization"].startswith("Bearer sbx.youtube.")
    [put] = logged(sandbox, "PUT", "/upload/youtube/v3/videos")
    assert put["headers"]["Content-Range"] == f"bytes 0-{clip.size_bytes - 1}/{clip.size_bytes}"
    assert put["body"] == files.video()
    assert logged(sandbox, "GET", "/youtube/v3/videos")  # processing was checked


def test_the_session_uri_is_saved_before_any_byte_is_sent(sandbox, client):
    conn = connection()
    seen = []
    conn.save_ref = lambda ref: seen.append((dict(ref), len(logged(sandbox, "PUT", "/videos"))))

    client.publish(conn, post())

    [(ref, puts_then)] = seen
    assert puts_then == 0
    assert ref["upload_url"].startswith("https://www.googleapis.com/upload/youtube/v3/videos?")
    assert "upload_id=" in ref["upload_url"]
    assert ref["total_bytes"] == str(len(files.video()))


def test_a_large_file_goes_in_256_kib_chunks(sandbox, client):
    client.chunk_bytes = 256 * 1024
    clip = video(padding=600_000)
    outcome = client.publish(connection(), base.Post(text="", media=[clip], settings={"title": "big"}))

    assert outcome.kind == Kind.PUBLISHED
    ranges = [r["headers"]["Content-Range"] for r in logged(sandbox, "PUT", "/videos")]
    total = clip.size_bytes
    assert ranges == [f"bytes 0-262143/{total}", f"bytes 262144-524287/{total}", f"bytes 524288-{total - 1}/{total}"]


def test_every_setting_reaches_the_video_resource(sandbox, client):
    settings = {
        "title": "Settings",
        "privacyStatus": "unlisted",
        "category_id": "27",
        "default_language": "fr",
        "default_audio_language": "fr-CA",
        "tags": ["one", "two words"],
        "madeForKids": False,
        "unknown_key": "ignored",
    }
    outcome = client.publish(connection(), base.Post(text="desc", media=[video()], settings=settings))

    assert outcome.kind == Kind.PUBLISHED
    assert insert_bodies(sandbox) == [
        {
            "snippet": {
                "title": "Settings",
                "description": "desc",
                "tags": ["one", "two words"],
                "categoryId": "27",
                "defaultLanguage": "fr",
                "defaultAudioLanguage": "fr-CA",
            },
            "status": {"privacyStatus": "unlisted", "selfDeclaredMadeForKids": False},
        }
    ]


def test_an_upload_is_public_not_made_for_kids_and_people_and_blogs_unless_set(sandbox, client):
    client.publish(connection(), post())

    [sent] = insert_bodies(sandbox)
    assert sent["status"] == {"privacyStatus": "public", "selfDeclaredMadeForKids": False}
    assert sent["snippet"]["categoryId"] == "22"


@pytest.mark.parametrize(("drop", "words"), [("status", "selfDeclaredMadeForKids"), ("snippet", "categoryId")])
def test_the_stand_in_refuses_an_upload_that_does_not_declare_audience_and_category(sandbox, drop, words):
    body = {"snippet": {"title": "T", "categoryId": "22"}, "status": {"selfDeclaredMadeForKids": False}}
    del body[drop][words]
    headers = {
        "Authorization": f"Bearer {tokens.issue('youtube', CHANNEL)}",
        "X-Upload-Content-Length": "1000",
        "X-Upload-Content-Type": "video/mp4",
    }
    url = f"{sandbox.url}/www.googleapis.com/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status"

    answer = requests.post(url, json=body, headers=headers, timeout=5)

    assert answer.status_code == 400
    assert answer.json()["error"]["errors"][0]["reason"] == "invalidVideoMetadata"
    assert words in answer.json()["error"]["message"]


def test_a_file_that_is_not_a_video_fails_processing(sandbox, client):
    junk = media(b"not a video at all" * 10, "video/mp4")
    outcome = client.publish(connection(), base.Post(text="", media=[junk], settings={"title": "junk"}))

    assert (outcome.kind, outcome.error_code, outcome.error_message) == (Kind.FAILED, "VIDEO_FAILED", "invalidFile")
    assert _posts(sandbox) == []


def test_the_sandbox_refuses_a_title_youtube_would_refuse(sandbox, client):
    bad = base.Post(text="", media=[video()], settings={"title": "a <b> title"})
    outcome = client.publish(connection(), bad)  # validate() would have said so first

    assert (outcome.kind, outcome.error_code, outcome.http_status) == (Kind.FAILED, "invalidTitle", 400)
    assert _posts(sandbox) == []


def test_publish_without_a_video_sends_nothing(sandbox, client):
    outcome = client.publish(connection(), base.Post(text="text only", settings={"title": "t"}))

    assert (outcome.kind, outcome.error_code) == (Kind.FAILED, "MEDIA_REQUIRED")
    assert list(sandbox.state.requests) == []


# --- validation ----------------------------------------------------------------------------------


def _codes(client, value):
    return {(p.field, p.code) for p in client.problems(value)}


def test_a_good_post_has_no_problems(client):
    assert client.validate(post(tags=["a", "b"], privacyStatus="private", madeForKids=True, category_id=22)) == []


def test_youtube_needs_exactly_one_video(client):
    png = media(files.image("PNG"), "image/png")

    assert _codes(client, base.Post(text="x", settings={"title": "t"})) == {("media", "MEDIA_REQUIRED")}
    assert ("media", "TOO_MANY_MEDIA") in _codes(
        client, base.Post(text="", media=[video(), video()], settings={"title": "t"})
    )
    assert _codes(client, base.Post(text="", media=[png], settings={"title": "t"})) == {("media", "TOO_MANY_MEDIA")}


def test_video_type_size_and_length_limits(client):
    webm = media(b"x", "video/webm")
    long = media(b"x", "video/mp4", duration=12 * 3600 + 1)
    huge = media(b"x", "video/mp4", size=256 * 1024**3 + 1)

    for clip, code in ((webm, "UNSUPPORTED_MEDIA_TYPE"), (long, "VIDEO_TOO_LONG"), (huge, "MEDIA_TOO_LARGE")):
        unfitted = dataclasses.replace(clip, fit=False)  # platform_settings.fit_media: false
        assert _codes(client, base.Post(text="", media=[unfitted], settings={"title": "t"})) == {("media[0]", code)}


def test_title_rules(client):
    assert _codes(client, base.Post(text="", media=[video()])) == {("title", "TITLE_REQUIRED")}
    assert _codes(client, post(title="  ")) == {("title", "TITLE_REQUIRED")}
    assert _codes(client, post(title="x" * 101)) == {("title", "TITLE_TOO_LONG")}
    assert client.validate(post(title="x" * 100)) == []
    assert _codes(client, post(title="a < b")) == {("title", "INVALID_CHARACTERS")}
    assert _codes(client, post(title=5)) == {("title", "INVALID_SETTING")}


def test_description_counts_utf8_bytes_and_refuses_angle_brackets(client):
    assert client.validate(post(text="é" * 2500)) == []  # 5000 bytes
    assert _codes(client, post(text="é" * 2501)) == {("text", "TEXT_TOO_LONG")}
    assert _codes(client, post(text="1 > 0")) == {("text", "INVALID_CHARACTERS")}


def test_tags_total_500_characters_counting_commas_and_quotes(client):
    fits = ["x" * 49] * 10  # 490 + 9 commas = 499
    quoted = ["a b" * 16 + "c"] * 10  # 49 + 2 quotes each, + 9 commas = 519

    assert client.validate(post(tags=fits)) == []
    assert _codes(client, post(tags=quoted)) == {("tags", "INVALID_SETTING")}


@pytest.mark.parametrize(
    ("values", "field"),
    [
        ({"privacyStatus": "friends"}, "privacyStatus"),
        ({"madeForKids": "yes"}, "madeForKids"),
        ({"category_id": "music"}, "category_id"),
        ({"category_id": True}, "category_id"),
        ({"default_language": 7}, "default_language"),
        ({"default_audio_language": "not a language"}, "default_audio_language"),
        ({"tags": "one,two"}, "tags"),
        ({"tags": ["ok", ""]}, "tags"),
    ],
)
def test_known_settings_with_the_wrong_type_or_value_are_named(client, values, field):
    assert _codes(client, post(**values)) == {(field, "INVALID_SETTING")}


def test_unknown_settings_are_ignored(client):
    assert client.validate(post(boardId=1, sensitive="?")) == []


# --- control outcomes ----------------------------------------------------------------------------


def test_rate_limited_at_the_session_opening_sends_no_bytes(sandbox, client):
    sandbox.outcomes("youtube", "rate_limited")
    outcome = client.publish(connection(), post())

    assert outcome.kind == Kind.NOT_SENT
    assert logged(sandbox, "PUT", "/videos") == []


def test_find_recent_in_the_uploads_playlist_needs_the_same_title(sandbox, client):
    since = dt.datetime.now(dt.UTC)
    conn = connection()
    client.publish(conn, post("lost", "Lost answer"))

    found = client.find_recent(conn, post("lost", "Lost answer"), since)
    missing = client.find_recent(conn, post("lost", "Another title"), since)

    assert found.kind == Kind.PUBLISHED
    assert (missing.kind, missing.error_code) == (Kind.FAILED, "NOT_FOUND")


def _uploads(sandbox, count, *, age=dt.timedelta(0), text="busy {n}", title="A title"):
    """Processed uploads of the test channel straight in the sandbox state, `age` old; their ids."""
    videos, ids = sandbox.state.store("youtube", "videos"), []
    published = (dt.datetime.now(dt.UTC) - age).strftime("%Y-%m-%dT%H:%M:%SZ")
    for n in range(count):
        video_id = f"v{len(videos):010d}"
        body = {"snippet": {"title": title, "description": text.format(n=n)}}
        videos[video_id] = {
            "account": CHANNEL, "body": body, "published_at": published, "checks_left": 0,
            "upload_status": "uploaded", "posted": True,
        }  # fmt: skip
        sandbox.state.add_post("youtube", CHANNEL, text.format(n=n), 1, post_id=video_id, title=title)
        ids.append(video_id)
    return ids


def _playlist_reads(sandbox):
    return [parse_qs(r["query"]) for r in logged(sandbox, "GET", "/youtube/v3/playlistItems")]


def test_find_recent_reads_past_the_first_page_of_uploads(sandbox, client):
    since = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=1)
    [lost] = _uploads(sandbox, 1, text="the lost one")
    _uploads(sandbox, 60)  # more than one page of newer uploads

    found = client.find_recent(connection(), post("the lost one", "A title"), since)

    assert (found.kind, found.post_id) == (Kind.PUBLISHED, lost)
    reads = _playlist_reads(sandbox)
    assert len(reads) == 2
    assert "pageToken" not in reads[0]
    assert reads[1]["pageToken"]
    assert reads[1]["maxResults"] == ["50"]


def test_find_recent_does_not_take_an_upload_older_than_since_and_stops_there(sandbox, client):
    since = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=1)
    _uploads(sandbox, 60, age=dt.timedelta(hours=1), text="said before")
    _uploads(sandbox, 60)

    found = client.find_recent(connection(), post("said before", "A title"), since)

    assert (found.kind, found.error_code) == (Kind.FAILED, "NOT_FOUND")
    assert len(_playlist_reads(sandbox)) == 2  # the second page reaches back before `since`


def test_find_recent_reads_at_most_max_recent_pages(sandbox, client):
    since = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=1)
    _uploads(sandbox, 1, text="too deep")
    _uploads(sandbox, base.MAX_RECENT_PAGES * 50)

    found = client.find_recent(connection(), post("too deep", "A title"), since)

    assert (found.kind, found.error_code) == (Kind.FAILED, "NOT_FOUND")
    assert len(_playlist_reads(sandbox)) == base.MAX_RECENT_PAGES


def _playlist_items(sandbox, **query):
    headers = {"Authorization": f"Bearer {tokens.issue('youtube', CHANNEL)}"}
    params = {"part": "snippet", "playlistId": "UU" + CHANNEL[2:], **query}
    url = f"{sandbox.url}/www.googleapis.com/youtube/v3/playlistItems"
    return requests.get(url, params=params, headers=headers, timeout=5)


def test_the_stand_in_pages_the_uploads_with_next_page_token_only_while_more_remain(sandbox):
    ids = _uploads(sandbox, 7)

    first = _playlist_items(sandbox, maxResults=5).json()
    last = _playlist_items(sandbox, maxResults=5, pageToken=first["nextPageToken"]).json()
    exact = _playlist_items(sandbox, maxResults=7).json()

    assert [i["snippet"]["resourceId"]["videoId"] for i in first["items"] + last["items"]] == ids[::-1]
    assert [i["snippet"]["position"] for i in last["items"]] == [5, 6]
    assert (first["nextPageToken"], "prevPageToken" in first) == ("CAUQAA", False)
    assert (last["prevPageToken"], "nextPageToken" in last) == ("CAAQAA", False)
    assert first["pageInfo"] == {"totalResults": 7, "resultsPerPage": 5}
    assert "nextPageToken" not in exact


@pytest.mark.parametrize("query", [{"pageToken": "nonsense"}, {"pageToken": "CAUQAQ"}, {"maxResults": "51"}])
def test_the_stand_in_refuses_a_page_token_or_size_youtube_refuses(sandbox, query):
    response = _playlist_items(sandbox, **query)

    assert response.status_code == 400
    assert response.json()["error"]["errors"][0]["reason"] in ("invalidPageToken", "invalidValue")


def test_check_of_an_empty_ref(sandbox, client):
    assert client.check(connection(), {}).error_code == "NO_REF"


def test_check_of_an_unfinished_session_is_not_sent(sandbox, client):
    conn = connection()
    client.chunk_bytes = 256 * 1024
    client.session.hooks["response"].append(_drop_the_last_chunk)
    outcome = client.publish(conn, base.Post(text="", media=[video(padding=300_000)], settings={"title": "t"}))

    assert outcome.kind == Kind.NOT_SENT
    client.session.hooks["response"].clear()
    assert client.check(conn, conn.saved[0]).error_code == "UPLOAD_INCOMPLETE"
    assert _posts(sandbox) == []


def _drop_the_last_chunk(response, *args, **kwargs):
    if response.request.method == "PUT" and response.status_code == 308:
        raise requests.ConnectionError("dropped after the first chunk")


# --- first comments ------------------------------------------------------------------------------


def _comment_on(outcome):
    return base.ReplyTo(parent_id=outcome.post_id, root_id=outcome.post_id)


def _since():
    return dt.datetime.now(dt.UTC) - dt.timedelta(minutes=1)


def _threads(sandbox, **query):
    headers = {"Authorization": f"Bearer {tokens.issue('youtube', CHANNEL)}"}
    url = f"{sandbox.url}/www.googleapis.com/youtube/v3/commentThreads"
    return requests.get(url, params={"part": "snippet", **query}, headers=headers, timeout=5)


def test_a_first_comment_is_a_top_level_comment_on_the_video(sandbox, client):
    video_post = client.publish(connection(), post())

    comment = client.publish(connection(), base.Post(text="Chapters below", reply_to=_comment_on(video_post)))

    assert comment.kind == Kind.PUBLISHED
    [stored] = sandbox.state.comments_of("youtube", video_post.post_id)
    assert (stored.id, stored.text) == (comment.post_id, "Chapters below")
    assert comment.url == f"{watch_url(video_post.post_id)}&lc={comment.post_id}"
    [sent] = logged(sandbox, "POST", "/youtube/v3/commentThreads")
    assert parse_qs(sent["query"]) == {"part": ["snippet"]}
    assert json.loads(sent["body"]) == {
        "snippet": {"videoId": video_post.post_id, "topLevelComment": {"snippet": {"textOriginal": "Chapters below"}}}
    }
    assert client.check(connection(), comment.ref).post_id == comment.post_id


def test_a_first_comment_takes_up_to_10000_characters(client):
    assert client.problems(post(first_comment="c" * 10000)) == []
    assert {(p.field, p.code) for p in client.problems(post(first_comment="c" * 10001))} == {
        ("first_comment", "FIRST_COMMENT_TOO_LONG")
    }


@pytest.mark.parametrize(
    ("queued", "kind", "code"),
    [("error", Kind.FAILED, "forbidden"), ("rate_limited", Kind.NOT_SENT, "rateLimitExceeded")],
)
def test_a_refused_comment_says_why_and_leaves_none(sandbox, client, queued, kind, code):
    video_post = client.publish(connection(), post())
    sandbox.outcomes("youtube", queued)

    outcome = client.publish(connection(), base.Post(text="refused", reply_to=_comment_on(video_post)))

    assert (outcome.kind, outcome.error_code) == (kind, code)
    assert sandbox.state.comments_of("youtube") == []


def test_a_comment_whose_answer_never_comes_is_found_among_the_videos_threads(sandbox, client):
    video_post = client.publish(connection(), post())
    sandbox.state.add_comment("youtube", video_post.post_id, "someone-else", "slow comment", at="2026-01-01T00:00:00Z")
    sandbox.outcomes("youtube", "timeout")

    lost = client.publish(connection(), base.Post(text="slow comment", reply_to=_comment_on(video_post)))
    found = client.check(connection(), lost.ref)

    assert lost.kind == Kind.UNKNOWN
    mine = [c for c in sandbox.state.comments_of("youtube") if c.account == CHANNEL]
    assert (found.kind, found.post_id) == (Kind.PUBLISHED, mine[0].id)  # not the other channel's


def test_find_recent_of_a_comment_pages_through_the_threads(sandbox, client, monkeypatch):
    monkeypatch.setattr("accounts.platforms.youtube.COMMENT_PAGE", 2)
    video_post = client.publish(connection(), post())
    for n in range(3):
        sandbox.state.add_comment("youtube", video_post.post_id, CHANNEL, f"c{n}", at="2026-01-01T00:00:00Z")

    found = client.find_recent(connection(), base.Post(text="c2", reply_to=_comment_on(video_post)), _since())
    absent = client.find_recent(connection(), base.Post(text="none", reply_to=_comment_on(video_post)), _since())

    assert found.kind == Kind.PUBLISHED
    assert (absent.kind, absent.error_code) == (Kind.FAILED, "NOT_FOUND")
    assert len(logged(sandbox, "GET", "/youtube/v3/commentThreads")) == 2 + 2


def test_a_comment_on_a_video_that_is_gone_is_refused(sandbox, client):
    video_post = client.publish(connection(), post())
    client.delete(connection(), video_post.post_id, video_post.ref)

    outcome = client.publish(connection(), base.Post(text="too late", reply_to=_comment_on(video_post)))

    assert (outcome.kind, outcome.error_code) == (Kind.FAILED, "videoNotFound")


@pytest.mark.parametrize(
    ("query", "status", "reason"),
    [
        ({}, 400, "missingRequiredParameter"),
        ({"id": "x", "videoId": "y"}, 400, "missingRequiredParameter"),
        ({"videoId": "nosuchvideo"}, 404, "videoNotFound"),
        ({"videoId": "{video}", "maxResults": "101"}, 400, "invalidValue"),
        ({"videoId": "{video}", "pageToken": "bogus"}, 400, "invalidPageToken"),
    ],
)
def test_the_stand_in_refuses_thread_lists_youtube_refuses(sandbox, client, query, status, reason):
    video_post = client.publish(connection(), post())
    query = {k: v.replace("{video}", video_post.post_id) for k, v in query.items()}

    answer = _threads(sandbox, **query)

    assert (answer.status_code, answer.json()["error"]["errors"][0]["reason"]) == (status, reason)


def test_the_stand_in_refuses_an_empty_or_too_long_comment(sandbox, client):
    video_post = client.publish(connection(), post())
    url = f"{sandbox.url}/www.googleapis.com/youtube/v3/commentThreads?part=snippet"
    headers = {"Authorization": f"Bearer {tokens.issue('youtube', CHANNEL)}"}

    def insert(text):
        top = {"snippet": {"textOriginal": text}}
        body = {"snippet": {"videoId": video_post.post_id, "topLevelComment": top}}
        return requests.post(url, json=body, headers=headers, timeout=5).json()["error"]["errors"][0]["reason"]

    assert (insert(" "), insert("c" * 10001)) == ("commentTextRequired", "commentTextTooLong")


# --- deleting and reading back ---------------------------------------------------------------------


def test_delete_takes_the_video_down_and_a_second_delete_finds_it_gone(sandbox, client):
    video_post = client.publish(connection(), post())

    first = client.delete(connection(), video_post.post_id, video_post.ref)
    again = client.delete(connection(), video_post.post_id, video_post.ref)

    assert (first.kind, again.kind) == (Kind.PUBLISHED, Kind.PUBLISHED)
    assert (first.http_status, again.http_status) == (204, 404)
    assert [r["query"] for r in logged(sandbox, "DELETE", "/youtube/v3/videos")] == [f"id={video_post.post_id}"] * 2
    assert sandbox.posts("youtube") == []
    assert client.exists(connection(), video_post.post_id, video_post.ref) is False


def test_deleting_a_comment_keeps_the_video(sandbox, client):
    video_post = client.publish(connection(), post())
    comment = client.publish(connection(), base.Post(text="a comment", reply_to=_comment_on(video_post)))

    outcome = client.delete(connection(), comment.post_id, comment.ref)

    assert outcome.kind == Kind.PUBLISHED
    assert [r["query"] for r in logged(sandbox, "DELETE", "/youtube/v3/comments")] == [f"id={comment.post_id}"]
    assert client.exists(connection(), comment.post_id, comment.ref) is False
    assert client.exists(connection(), video_post.post_id, video_post.ref) is True


@pytest.mark.parametrize(
    ("queued", "kind", "code"),
    [("error", Kind.FAILED, "forbidden"), ("rate_limited", Kind.NOT_SENT, "rateLimitExceeded")],
)
def test_a_refused_delete_keeps_the_video_and_says_why(sandbox, client, queued, kind, code):
    video_post = client.publish(connection(), post())
    sandbox.outcomes("youtube", queued)

    outcome = client.delete(connection(), video_post.post_id, video_post.ref)

    assert (outcome.kind, outcome.error_code) == (kind, code)
    assert client.exists(connection(), video_post.post_id, video_post.ref) is True


def test_a_delete_whose_answer_never_comes_is_unknown_and_exists_settles_it(sandbox, client):
    video_post = client.publish(connection(), post())
    sandbox.outcomes("youtube", "timeout")

    assert client.delete(connection(), video_post.post_id, video_post.ref).kind == Kind.UNKNOWN
    assert client.exists(connection(), video_post.post_id, video_post.ref) is False


def test_a_video_removed_on_youtube_no_longer_exists_nor_its_comments(sandbox, client):
    video_post = client.publish(connection(), post())
    comment = client.publish(connection(), base.Post(text="a comment", reply_to=_comment_on(video_post)))
    requests.post(
        f"{sandbox.url}/_sandbox/posts/remove", json={"platform": "youtube", "id": video_post.post_id}, timeout=5
    )

    assert client.exists(connection(), video_post.post_id, video_post.ref) is False
    assert client.exists(connection(), comment.post_id, comment.ref) is False
    assert client.check(connection(), comment.ref).error_code == "NOT_FOUND"


def test_exists_raises_when_youtube_refuses_the_token_or_does_not_answer(sandbox, client, settings):
    video_post = client.publish(connection(), post())

    with pytest.raises(base.PlatformError) as refused:
        client.exists(connection("not-a-token"), video_post.post_id, video_post.ref)
    settings.SANDBOX_URL = "http://127.0.0.1:9"  # nothing listens: the connection is refused
    with pytest.raises(base.PlatformError) as unanswered:
        client.exists(connection(), video_post.post_id, video_post.ref)

    assert refused.value.outcome.auth_failed
    assert unanswered.value.outcome.kind == Kind.NOT_SENT


def test_another_channels_video_and_comment_cannot_be_deleted(sandbox, client):
    other = connection(tokens.issue("youtube", "UCanotherChannel000000001"))
    video_post = client.publish(other, post())
    comment = client.publish(other, base.Post(text="theirs", reply_to=_comment_on(video_post)))

    refused_video = client.delete(connection(), video_post.post_id, video_post.ref)
    refused_comment = client.delete(connection(), comment.post_id, comment.ref)

    assert (refused_video.kind, refused_video.http_status) == (Kind.FAILED, 403)
    assert (refused_comment.kind, refused_comment.http_status) == (Kind.FAILED, 403)
    assert len(sandbox.posts("youtube")) == 1


# --- tokens ----------------------------------------------------------------------------------------


def test_refresh_gives_a_new_access_token_and_keeps_the_refresh_token(sandbox, client):
    conn = connection(tokens.issue("youtube", CHANNEL, lifetime_seconds=-10))
    fresh = client.refresh(conn)

    assert fresh.access_token != conn.credentials.access_token
    assert fresh.refresh_token == conn.credentials.refresh_token  # Google does not rotate
    assert fresh.external_id == CHANNEL
    assert fresh.expires_at > dt.datetime.now(dt.UTC)
    assert client.publish(base.Connection(fresh, sandbox=True), post()).kind == Kind.PUBLISHED


def test_a_revoked_refresh_token_is_refused(sandbox, client):
    conn = connection(refresh_token="sbr.youtube.bad.1.x")

    with pytest.raises(base.PlatformError, match="invalid_grant"):
        client.refresh(conn)


def _pkce():
    verifier = "v" * 64
    return verifier, base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")


def _approve(url):
    page = requests.get(url, timeout=5)
    assert page.status_code == 200
    target = page.text.split('id="approve" href="', 1)[1].split('"', 1)[0].replace("&amp;", "&")
    return dict(parse_qsl(urlsplit(target).query))


def test_the_oauth_code_flow_end_to_end(sandbox, client):
    verifier, challenge = _pkce()
    redirect = "https://app.example/oauth/youtube"
    url = client.authorize_url(state="st4te", code_challenge=challenge, redirect_uri=redirect, sandbox=True)
    query = dict(parse_qsl(urlsplit(url).query))

    assert urlsplit(url).path == "/accounts.google.com/o/oauth2/v2/auth"
    assert query["client_id"] == "sandbox-youtube-client"
    assert (query["code_challenge_method"], query["access_type"], query["state"]) == ("S256", "offline", "st4te")
    answer = _approve(url)
    assert answer["state"] == "st4te"
    code = answer["code"]
    credentials = client.exchange_code(code=code, code_verifier=verifier, redirect_uri=redirect, sandbox=True)

    assert credentials.external_id.startswith("UC")
    assert len(credentials.external_id) == 24
    assert credentials.refresh_token
    assert credentials.handle.startswith("@")
    outcome = client.publish(base.Connection(credentials, sandbox=True), post())
    assert outcome.kind == Kind.PUBLISHED
    assert sandbox.posts("youtube")[0]["account"] == credentials.external_id


def test_a_wrong_code_verifier_is_refused(sandbox, client):
    _, challenge = _pkce()
    redirect = "https://app.example/cb"
    answer = _approve(client.authorize_url(state="s", code_challenge=challenge, redirect_uri=redirect, sandbox=True))

    with pytest.raises(base.PlatformError, match="invalid_grant"):
        client.exchange_code(code=answer["code"], code_verifier="w" * 64, redirect_uri=redirect, sandbox=True)


def test_the_configured_client_id_is_used(settings, client):
    settings.YOUTUBE_CLIENT_ID = "real-id.apps.googleusercontent.com"
    url = client.authorize_url(state="s", code_challenge="c", redirect_uri="https://a/cb", sandbox=False)

    assert url.startswith("https://accounts.google.com/o/oauth2/v2/auth?")
    assert dict(parse_qsl(urlsplit(url).query))["client_id"] == "real-id.apps.googleusercontent.com"


# --- metrics and transport -----------------------------------------------------------------------


def test_metrics_from_statistics_and_analytics(sandbox, client):
    published = client.publish(connection(), post())
    body = {"platform": "youtube", "post_id": published.post_id, "views": 9, "likes": 3, "comments": 2, "shares": 1}
    requests.post(f"{sandbox.url}/_sandbox/metrics", json=body, timeout=5)

    metrics = client.metrics(connection(), [published.post_id])

    assert metrics[published.post_id] == base.Metrics(
        views=9, likes=3, comments=2, shares=1, extra={"favoriteCount": 0}
    )


def test_metrics_without_analytics_still_count_views(sandbox, client, monkeypatch):
    published = client.publish(connection(), post())
    monkeypatch.setattr(client, "_shares", lambda conn, ids: None)

    [metrics] = client.metrics(connection(), [published.post_id]).values()

    assert metrics.shares == 0
    assert metrics.extra["shares_unavailable"] is True


def test_a_5xx_on_the_last_chunk_is_unknown(sandbox, client, monkeypatch):
    original = client.session.request

    def failing(method, url, **kwargs):
        response = original(method, url, **kwargs)
        if method == "PUT":
            response.status_code = 503
        return response

    monkeypatch.setattr(client.session, "request", failing)
    outcome = client.publish(connection(), post())

    assert (outcome.kind, outcome.http_status) == (Kind.UNKNOWN, 503)

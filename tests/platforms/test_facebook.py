"""What the Facebook Pages client alone does, against the Graph stand-in over real HTTP: feed,
photos, albums, videos, reels (and their outcomes), validation, Graph's refusals, metrics and
Facebook Login. The outcome matrix every client shares is in test_conformance.py."""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import hashlib
import json
import re
import socket
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from accounts.platforms.base import MAX_RECENT_PAGES, Connection, Credentials, OutcomeKind, PlatformError, Post, ReplyTo
from accounts.platforms.facebook import Client
from sandbox import tokens
from tests.media import files
from tests.platforms.facebook_helpers import (
    PAGE,
    connection,
    form,
    image,
    logged,
    media,
    video,
)
from tests.platforms.file_server import serve_files

MB = 1024 * 1024
SINCE = dt.timedelta(minutes=1)
UNSUPPORTED = "UNSUPPORTED_MEDIA_TYPE"
REELS = {"postType": "reels"}


@pytest.fixture
def files_server():
    yield from serve_files()


@pytest.fixture
def client():
    made = Client()
    made.poll_seconds = 0.0
    return made


def _codes(problems):
    return {(p.field, p.code) for p in problems}


def _since():
    return dt.datetime.now(dt.UTC) - SINCE


# --- publishing ------------------------------------------------------------------------------


def test_a_text_post_goes_to_the_feed_with_its_link(sandbox, client):
    outcome = client.publish(connection(), Post(text="Hello Page https://example.com/a."))

    assert outcome.kind is OutcomeKind.PUBLISHED
    assert outcome.post_id.startswith(f"{PAGE}_")
    assert outcome.url == f"https://www.facebook.com/{outcome.post_id}"
    [request] = logged(sandbox.state, "POST", f"/{PAGE}/feed")
    assert form(request) == {"message": "Hello Page https://example.com/a.", "link": "https://example.com/a"}
    assert request["headers"]["Authorization"].startswith("Bearer ")


def test_one_photo_is_pulled_by_the_platform_from_its_url(sandbox, client, files_server):
    outcome = client.publish(connection(), Post(text="a picture", media=[image(files_server)]))

    assert outcome.kind is OutcomeKind.PUBLISHED
    [request] = logged(sandbox.state, "POST", f"/{PAGE}/photos")
    sent = form(request)
    assert sent["url"].startswith("http://127.0.0.1:")
    assert sent["published"] == "true"
    assert sent["message"] == "a picture"
    [post] = sandbox.posts("facebook")
    assert (post["id"], post["text"], post["media_count"]) == (outcome.post_id, "a picture", 1)


def test_several_photos_become_one_feed_post_with_attached_media(sandbox, client, files_server):
    refs = []
    pictures = [image(files_server, f"p{n}.png") for n in range(3)]

    outcome = client.publish(connection(refs=refs), Post(text="album", media=pictures))

    assert outcome.kind is OutcomeKind.PUBLISHED
    uploads = [form(r) for r in logged(sandbox.state, "POST", f"/{PAGE}/photos")]
    assert [u["published"] for u in uploads] == ["false"] * 3
    [feed] = [form(r) for r in logged(sandbox.state, "POST", f"/{PAGE}/feed")]
    assert sorted(k for k in feed if k.startswith("attached_media")) == [f"attached_media[{n}]" for n in range(3)]
    assert "media_fbid" in json.loads(feed["attached_media[0]"])
    assert "link" not in feed
    assert refs
    assert len(refs[0]["photo_ids"].split(",")) == 3
    [post] = sandbox.posts("facebook")
    assert (post["text"], post["media_count"]) == ("album", 3)


def test_a_video_is_pulled_from_file_url_on_graph_video(sandbox, client, files_server):
    outcome = client.publish(connection(), Post(text="a video", media=[video(files_server)]))

    assert outcome.kind is OutcomeKind.PUBLISHED
    assert outcome.url == f"https://www.facebook.com/{PAGE}/videos/{outcome.post_id}"
    [request] = logged(sandbox.state, "POST", f"/{PAGE}/videos")
    assert request["path"].startswith("/graph-video.facebook.com/v25.0/")
    assert form(request)["description"] == "a video"
    [post] = sandbox.posts("facebook")
    assert (post["id"], post["text"]) == (outcome.post_id, "a video")


def test_post_type_reels_goes_through_start_upload_finish(sandbox, client):
    refs = []
    reel = video(None, reel=True)

    outcome = client.publish(connection(refs=refs), Post(text="my reel", media=[reel], settings={"postType": "reels"}))

    assert outcome.kind is OutcomeKind.PUBLISHED
    assert outcome.url == f"https://www.facebook.com/reel/{outcome.post_id}"
    start, finish = [form(r) for r in logged(sandbox.state, "POST", f"/{PAGE}/video_reels")]
    assert start == {"upload_phase": "start"}
    assert finish == {
        "upload_phase": "finish",
        "video_id": outcome.post_id,
        "video_state": "PUBLISHED",
        "description": "my reel",
    }
    [upload] = logged(sandbox.state, "POST", f"/video-upload/v25.0/{outcome.post_id}")
    assert upload["headers"]["Authorization"].startswith("OAuth ")
    assert (upload["headers"]["Offset"], upload["headers"]["Content-Length"]) == ("0", str(reel.size_bytes))
    assert refs == [{"video_id": outcome.post_id, "kind": "reel"}]
    [post] = sandbox.posts("facebook")
    assert (post["id"], post["text"]) == (outcome.post_id, "my reel")


def test_post_type_post_with_a_video_is_a_page_video(sandbox, client, files_server):
    outcome = client.publish(connection(), Post(text="v", media=[video(files_server)], settings={"postType": "post"}))

    assert outcome.kind is OutcomeKind.PUBLISHED
    assert logged(sandbox.state, "POST", "/videos")
    assert not logged(sandbox.state, "POST", "/video_reels")


def test_unknown_settings_are_ignored(sandbox, client):
    post = Post(text="plain", settings={"something_else": 1})

    assert client.validate(post) == []
    assert client.publish(connection(), post).kind is OutcomeKind.PUBLISHED
    assert form(logged(sandbox.state, "POST", "/feed")[0]) == {"message": "plain"}


# --- validation ------------------------------------------------------------------------------


def test_text_limits(client):
    assert client.validate(Post(text="a" * 63206)) == []
    assert _codes(client.validate(Post(text="a" * 63207))) == {("text", "TEXT_TOO_LONG")}
    assert _codes(client.validate(Post(text="  "))) == {("text", "EMPTY_POST")}
    assert client.validate(Post(text="", media=[image(None)])) == []


@pytest.mark.parametrize(
    ("media_list", "field", "code"),
    [
        ([image(None, f"i{n}") for n in range(11)], "media", "TOO_MANY_MEDIA"),
        ([image(None), video(None)], "media", "MIXED_MEDIA"),
        ([video(None), video(None)], "media", "TOO_MANY_MEDIA"),
        ([media(None, b"x", "image/png", size=5 * MB)], "media[0]", "MEDIA_TOO_LARGE"),
        ([media(None, b"x", "image/bmp")], "media[0]", "UNSUPPORTED_MEDIA_TYPE"),
        ([media(None, b"x", "video/webm", duration=3)], "media[0]", "UNSUPPORTED_MEDIA_TYPE"),
    ],
)
def test_media_facebook_refuses_is_a_problem(client, media_list, field, code):
    unfitted = [dataclasses.replace(item, fit=False) for item in media_list]  # platform_settings.fit_media: false
    assert _codes(client.validate(Post(text="media", media=unfitted))) == {(field, code)}


@pytest.mark.parametrize(
    ("media_list", "field", "code"),
    [
        ([], "media", "MEDIA_REQUIRED"),
        ([image(None)], "postType", "INVALID_COMBINATION"),
        ([video(None, reel=True), video(None, reel=True)], "postType", "INVALID_COMBINATION"),
        ([video(None, 91, reel=True)], "media[0]", "VIDEO_TOO_LONG"),
        ([video(None, 2, reel=True)], "media[0]", "VIDEO_TOO_SHORT"),
        ([video(None, 10)], "media[0]", "VIDEO_TOO_SMALL"),
        (
            [media(None, b"x", "video/quicktime", duration=10, width=1080, height=1920)],
            "media[0]",
            "UNSUPPORTED_MEDIA_TYPE",
        ),
    ],
)
def test_reels_rules(client, media_list, field, code):
    post = Post(text="reel", media=media_list, settings={"postType": "reels"})

    assert _codes(client.validate(post)) == {(field, code)}


@pytest.mark.parametrize("value", ["story", "REELS", 1, None, True])
def test_a_wrong_post_type_is_a_problem_naming_the_key(client, value):
    assert _codes(client.validate(Post(text="hi", settings={"postType": value}))) == {("postType", "INVALID_SETTING")}


def test_a_valid_reel_passes(client):
    assert client.validate(Post(text="", media=[video(None, 30, reel=True)], settings={"postType": "reels"})) == []


# --- outcomes --------------------------------------------------------------------------------


def test_a_reel_timeout_is_settled_by_check_with_the_saved_video_id(sandbox, client):
    sandbox.outcomes("facebook", "timeout")
    refs = []

    outcome = client.publish(
        connection(refs=refs), Post(text="reel?", media=[video(None, reel=True)], settings={"postType": "reels"})
    )
    settled = client.check(connection(), refs[-1])

    assert outcome.kind is OutcomeKind.UNKNOWN
    assert outcome.ref == refs[-1]
    assert settled.kind is OutcomeKind.PUBLISHED
    assert [p["id"] for p in sandbox.posts("facebook")] == [settled.post_id] == [refs[-1]["video_id"]]


def test_processing_reel_is_followed_by_check_until_published(sandbox, client):
    sandbox.outcomes("facebook", "processing")

    outcome = client.publish(
        connection(), Post(text="r", media=[video(None, reel=True)], settings={"postType": "reels"})
    )
    first = client.check(connection(), outcome.ref)
    second = client.check(connection(), first.ref)
    third = client.check(connection(), second.ref)

    assert [o.kind for o in (outcome, first, second)] == [OutcomeKind.PROCESSING] * 3
    assert third.kind is OutcomeKind.PUBLISHED
    assert len(sandbox.posts("facebook")) == 1


def test_a_revoked_token_needs_reauthorization_even_during_a_reel_upload(sandbox, client):
    token = tokens.issue("facebook", PAGE)
    requests.post(f"{sandbox.url}/_sandbox/tokens/revoke", json={"token": token}, timeout=5)

    reel = client.publish(
        connection(token), Post(text="r", media=[video(None, reel=True)], settings={"postType": "reels"})
    )

    assert (reel.kind, reel.error_code, reel.auth_failed) == (OutcomeKind.FAILED, "190.460", True)


def test_a_token_of_another_page_is_refused_without_reauthorization(sandbox, client):
    other_page = client.publish(connection(tokens.issue("facebook", "999")), Post(text="wrong"))

    assert (other_page.kind, other_page.error_code, other_page.auth_failed) == (OutcomeKind.FAILED, "200", False)


def test_a_closed_port_is_not_sent_for_a_reel(sandbox, client, settings):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings.SANDBOX_URL = f"http://127.0.0.1:{port}"

    reel = client.publish(connection(), Post(text="n", media=[video(None, reel=True)], settings={"postType": "reels"}))

    assert (reel.kind, reel.error_code) == (OutcomeKind.NOT_SENT, "CONNECTION_FAILED")


# --- finding a lost post -------------------------------------------------------------------


def _page_posts(sandbox, count, *, age=dt.timedelta(0), text="busy {n}"):
    """Feed posts of the test Page straight in the sandbox state, `age` old."""
    posts = []
    for n in range(count):
        post_id = f"{PAGE}_{sandbox.state.next_id()}"
        post = sandbox.state.add_post("facebook", PAGE, text.format(n=n), 0, post_id=post_id, kind="post", page=PAGE)
        created = dt.datetime.fromisoformat(post.created_at.replace("Z", "+00:00")) - age
        post.created_at = created.isoformat().replace("+00:00", "Z")
        posts.append(post)
    return posts


def _listing_reads(sandbox):
    return [parse_qs(r["query"]) for r in logged(sandbox.state, "GET", f"/{PAGE}/published_posts")]


def test_find_recent_reads_past_the_first_page_of_the_pages_posts(sandbox, client):
    [lost] = _page_posts(sandbox, 1, text="the lost one")
    _page_posts(sandbox, 30)  # more than one page of newer posts

    found = client.find_recent(connection(), Post(text="the lost one"), _since())

    assert (found.kind, found.post_id) == (OutcomeKind.PUBLISHED, lost.id)
    reads = _listing_reads(sandbox)
    assert len(reads) == 2
    assert "after" not in reads[0]
    assert reads[1]["after"]
    assert reads[1]["limit"] == ["25"]


def test_find_recent_does_not_take_a_post_older_than_since_and_stops_there(sandbox, client):
    _page_posts(sandbox, 60, age=dt.timedelta(hours=1), text="said before")
    _page_posts(sandbox, 30)

    found = client.find_recent(connection(), Post(text="said before"), _since())

    assert (found.kind, found.error_code) == (OutcomeKind.FAILED, "NOT_FOUND")
    assert len(_listing_reads(sandbox)) == 2  # the second page reaches back before `since`


def test_find_recent_reads_at_most_max_recent_pages(sandbox, client):
    _page_posts(sandbox, 1, text="too deep")
    _page_posts(sandbox, MAX_RECENT_PAGES * 25)

    found = client.find_recent(connection(), Post(text="too deep"), _since())

    assert (found.kind, found.error_code) == (OutcomeKind.FAILED, "NOT_FOUND")
    assert len(_listing_reads(sandbox)) == MAX_RECENT_PAGES


# --- the stand-in is as strict as Graph ------------------------------------------------------


def _graph(sandbox, method, path, data=None, token=None):
    headers = {"Authorization": f"Bearer {token or tokens.issue('facebook', PAGE)}"}
    url = f"{sandbox.url}/graph.facebook.com/v25.0/{path}"
    return requests.request(method, url, data=data, headers=headers, timeout=5)


@pytest.mark.parametrize(
    ("path", "data", "code"),
    [
        (f"{PAGE}/feed", {}, 100),
        (f"{PAGE}/feed", {"message": "hi", "published": "maybe"}, 100),
        (f"{PAGE}/feed", {"message": "hi", "attached_media[0]": '{"media_fbid": "1"}'}, 100),
        (f"{PAGE}/feed", {"link": "ftp://example.com"}, 100),
        (f"{PAGE}/photos", {"url": "http://127.0.0.1:9/nothing.png"}, 324),
        (f"{PAGE}/video_reels", {"upload_phase": "middle"}, 100),
        (f"{PAGE}/video_reels", {"upload_phase": "finish", "video_id": "1"}, 100),
    ],
)
def test_the_stand_in_refuses_what_graph_refuses(sandbox, path, data, code):
    response = _graph(sandbox, "POST", path, data)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == code
    assert "fbtrace_id" in response.json()["error"]
    assert sandbox.posts("facebook") == []


def test_the_stand_in_needs_a_token_and_refuses_unknown_fields(sandbox, client):
    missing = requests.post(f"{sandbox.url}/graph.facebook.com/v25.0/{PAGE}/feed", data={"message": "x"}, timeout=5)
    post_id = client.publish(connection(), Post(text="x")).post_id
    unknown = _graph(sandbox, "GET", f"{post_id}?fields=id,impressions")

    assert (missing.status_code, missing.json()["error"]["code"]) == (400, 104)
    assert (
        unknown.json()["error"]["message"]
        == "(#100) Tried accessing nonexisting field (impressions) on node type (PagePost)"
    )


def test_the_stand_in_pages_an_edge_by_cursor_with_next_only_while_more_remain(sandbox):
    posts = _page_posts(sandbox, 7)

    first = _graph(sandbox, "GET", f"{PAGE}/published_posts?limit=5").json()
    last = _graph(sandbox, "GET", f"{PAGE}/published_posts?limit=5&after={first['paging']['cursors']['after']}").json()
    back = _graph(sandbox, "GET", f"{PAGE}/published_posts?limit=5&before={last['paging']['cursors']['before']}").json()
    exact = _graph(sandbox, "GET", f"{PAGE}/published_posts?limit=7").json()

    assert [p["id"] for p in first["data"] + last["data"]] == [p.id for p in reversed(posts)]
    assert set(first["paging"]) == {"cursors", "next"}
    assert urlsplit(first["paging"]["next"]).netloc == "graph.facebook.com"
    assert parse_qs(urlsplit(first["paging"]["next"]).query)["after"] == [first["paging"]["cursors"]["after"]]
    assert set(last["paging"]) == {"cursors", "previous"}
    assert back["data"] == first["data"]
    assert "next" not in exact["paging"]
    assert _graph(sandbox, "GET", f"{PAGE}/videos").json() == {"data": []}


@pytest.mark.parametrize("query", ["after=bm90LWFuLWlk", "after=not*base64", "before=bm90LWFuLWlk", "limit=101"])
def test_the_stand_in_refuses_a_cursor_or_limit_graph_refuses(sandbox, query):
    _page_posts(sandbox, 2)

    response = _graph(sandbox, "GET", f"{PAGE}/published_posts?{query}")

    assert (response.status_code, response.json()["error"]["code"]) == (400, 100)


def test_a_photo_that_is_not_an_image_is_refused(sandbox, client, files_server):
    fake = media(files_server, b"not an image", "image/png", name="fake.png")

    outcome = client.publish(connection(), Post(text="fake", media=[fake]))

    assert (outcome.kind, outcome.error_code) == (OutcomeKind.FAILED, "324")


def test_the_upload_needs_offset_zero(sandbox, client):
    start = _graph(sandbox, "POST", f"{PAGE}/video_reels", {"upload_phase": "start"}).json()
    headers = {"Authorization": f"OAuth {tokens.issue('facebook', PAGE)}", "offset": "10"}

    response = requests.post(
        f"{sandbox.url}/rupload.facebook.com/video-upload/v25.0/{start['video_id']}",
        data=files.video(),
        headers=headers,
        timeout=5,
    )

    assert response.status_code == 400
    assert "offset" in response.json()["debug_info"]["message"]


# --- metrics ---------------------------------------------------------------------------------


def test_metrics_of_a_post_and_a_video_come_from_their_insights(sandbox, client, files_server):
    first = client.publish(connection(), Post(text="one")).post_id
    clip = client.publish(connection(), Post(text="clip", media=[video(files_server)])).post_id
    body = {"platform": "facebook", "post_id": clip, "views": 50, "likes": 4, "comments": 1, "shares": 0}
    requests.post(f"{sandbox.url}/_sandbox/metrics", json=body, timeout=5)

    found = client.metrics(connection(), [first, clip])

    assert (found[clip].views, found[clip].likes, found[clip].comments) == (50, 4, 1)
    [insight] = logged(sandbox.state, "GET", f"{first}/insights")
    assert parse_qs(insight["query"])["metric"] == ["post_total_media_view_unique"]


# --- Facebook Login --------------------------------------------------------------------------


def _pkce():
    verifier = base64.urlsafe_b64encode(b"v" * 40).decode().rstrip("=")
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    return verifier, challenge


def _approve(url):
    page = requests.get(url, timeout=5)
    assert page.status_code == 200
    target = re.search(r'id="approve" href="([^"]+)"', page.text).group(1).replace("&amp;", "&")
    return parse_qs(urlsplit(target).query)


def test_the_login_flow_end_to_end_gives_a_page_that_publishes(sandbox, client):
    verifier, challenge = _pkce()
    redirect = "https://app.example/callback/facebook"

    url = client.authorize_url(state="s-1", code_challenge=challenge, redirect_uri=redirect, sandbox=True)
    assert url.startswith(f"{sandbox.url}/www.facebook.com/v25.0/dialog/oauth?")
    assert parse_qs(urlsplit(url).query)["client_id"] == ["sandbox-facebook-client"]
    query = _approve(url)
    credentials = client.exchange_code(
        code=query["code"][0], code_verifier=verifier, redirect_uri=redirect, sandbox=True
    )

    assert query["state"] == ["s-1"]
    assert credentials.external_id.isdigit()
    assert credentials.display_name
    assert credentials.refresh_token
    assert credentials.expires_at is None
    assert "CREATE_CONTENT" in credentials.metadata["tasks"]
    outcome = client.publish(Connection(credentials, sandbox=True), Post(text="connected"))
    assert outcome.kind is OutcomeKind.PUBLISHED
    assert sandbox.posts("facebook")[0]["account"] == credentials.external_id


def test_a_code_is_single_use_and_bound_to_its_verifier(sandbox, client):
    verifier, challenge = _pkce()
    redirect = "https://app.example/cb"
    url = client.authorize_url(state="s", code_challenge=challenge, redirect_uri=redirect, sandbox=True)
    code = _approve(url)["code"][0]

    with pytest.raises(PlatformError):
        client.exchange_code(code=code, code_verifier="wrong" * 10, redirect_uri=redirect, sandbox=True)
    with pytest.raises(PlatformError):  # the failed attempt used the code up
        client.exchange_code(code=code, code_verifier=verifier, redirect_uri=redirect, sandbox=True)


def test_refresh_reads_the_page_token_again(sandbox, client):
    user_token = tokens.issue("facebook", PAGE, kind="sbr")
    conn = Connection(Credentials(access_token="old", refresh_token=user_token, external_id=PAGE), sandbox=True)

    fresh = client.refresh(conn)

    assert fresh.external_id == PAGE
    assert fresh.refresh_token
    assert fresh.refresh_token != user_token
    assert client.publish(Connection(fresh, sandbox=True), Post(text="refreshed")).kind is OutcomeKind.PUBLISHED
    exchange = logged(sandbox.state, "GET", "/oauth/access_token")[0]
    assert parse_qs(exchange["query"])["grant_type"] == ["fb_exchange_token"]


def test_refresh_with_an_expired_user_token_fails(sandbox, client):
    expired = tokens.issue("facebook", PAGE, kind="sbr", lifetime_seconds=-1)
    conn = Connection(Credentials(access_token="old", refresh_token=expired, external_id=PAGE), sandbox=True)

    with pytest.raises(PlatformError, match="190"):
        client.refresh(conn)


def _answer(status, body, headers=None):
    response = requests.Response()
    response.status_code, response._content = status, json.dumps(body).encode()
    response.headers.update(headers or {})
    return response


@pytest.mark.parametrize(
    ("status", "error", "kind", "code", "auth"),
    [
        (400, {"code": 190, "error_subcode": 463, "message": "expired"}, OutcomeKind.FAILED, "190.463", True),
        (400, {"code": 100, "message": "(#100) bad"}, OutcomeKind.FAILED, "100", False),
        (400, {"code": 506, "message": "Duplicate status message"}, OutcomeKind.FAILED, "506", False),
        (400, {"code": 17, "message": "User request limit reached"}, OutcomeKind.NOT_SENT, "17", False),
        (403, {"code": 80001, "message": "Pages BUC"}, OutcomeKind.NOT_SENT, "80001", False),
        (500, {"code": 2, "message": "Service temporarily unavailable"}, OutcomeKind.UNKNOWN, "2", False),
        (400, {"code": 1, "message": "An unknown error occurred"}, OutcomeKind.UNKNOWN, "1", False),
    ],
)
def test_graph_errors_are_classified_with_their_words(status, error, kind, code, auth):
    outcome = Client().refusal(_answer(status, {"error": error}))

    assert (outcome.kind, outcome.error_code, outcome.auth_failed) == (kind, code, auth)
    assert outcome.error_message == error["message"]


# --- alt text ----------------------------------------------------------------------------------


def test_a_photo_is_sent_with_its_alt_text_custom(sandbox, client, files_server):
    described = dataclasses.replace(image(files_server), alt="A red square")

    outcome = client.publish(connection(), Post(text="a picture", media=[described]))

    assert outcome.kind is OutcomeKind.PUBLISHED
    [request] = logged(sandbox.state, "POST", f"/{PAGE}/photos")
    assert form(request)["alt_text_custom"] == "A red square"
    [post] = sandbox.posts("facebook")
    assert "A red square" in requests.get(f"{sandbox.url}/_sandbox/posts/facebook/{post['id']}", timeout=5).text


def test_each_photo_of_an_album_carries_its_alt_text(sandbox, client, files_server):
    pictures = [dataclasses.replace(image(files_server, "a.png"), alt="First"), image(files_server, "b.png")]

    client.publish(connection(), Post(text="album", media=pictures))

    uploads = [form(r) for r in logged(sandbox.state, "POST", f"/{PAGE}/photos")]
    assert [u.get("alt_text_custom") for u in uploads] == ["First", None]
    [post] = sandbox.posts("facebook")
    page = requests.get(f"{sandbox.url}/_sandbox/posts/facebook/{post['id']}", timeout=5).text
    assert "First" in page


# --- first comments, deleting, reading back -------------------------------------------------------


def _comment_on(post_id, text="first!"):
    return Post(text=text, reply_to=ReplyTo(parent_id=post_id, root_id=post_id))


def _sandbox_comments(sandbox):
    return requests.get(f"{sandbox.url}/_sandbox/comments", params={"platform": "facebook"}, timeout=5).json()[
        "comments"
    ]


def _remove(sandbox, post_id):
    body = {"platform": "facebook", "id": post_id}
    requests.post(f"{sandbox.url}/_sandbox/posts/remove", json=body, timeout=5).raise_for_status()


def test_a_first_comment_is_the_pages_comment_on_its_post(sandbox, client):
    post = client.publish(connection(), Post(text="main"))

    comment = client.publish(connection(), _comment_on(post.post_id, "more below"))

    assert comment.kind is OutcomeKind.PUBLISHED
    assert comment.ref == {"comment_id": comment.post_id, "parent_id": post.post_id}
    [request] = logged(sandbox.state, "POST", f"/{post.post_id}/comments")
    assert form(request) == {"message": "more below"}
    [listed] = _sandbox_comments(sandbox)
    assert (listed["id"], listed["post_id"], listed["account"], listed["text"]) == (
        comment.post_id,
        post.post_id,
        PAGE,
        "more below",
    )
    assert [p["id"] for p in sandbox.posts("facebook")] == [post.post_id]  # a comment is no post


def test_a_video_takes_a_first_comment_too(sandbox, client, files_server):
    clip = client.publish(connection(), Post(text="clip", media=[video(files_server)]))

    comment = client.publish(connection(), _comment_on(clip.post_id))

    assert comment.kind is OutcomeKind.PUBLISHED
    assert [c["post_id"] for c in _sandbox_comments(sandbox)] == [clip.post_id]


def test_a_comment_is_read_back_by_check_and_found_by_find_recent(sandbox, client):
    post = client.publish(connection(), Post(text="main"))
    client.publish(connection(), _comment_on(post.post_id, "older"))
    comment = client.publish(connection(), _comment_on(post.post_id))

    checked = client.check(connection(), comment.ref)
    found = client.find_recent(connection(), _comment_on(post.post_id), _since())

    assert checked.kind is OutcomeKind.PUBLISHED
    assert checked.url.startswith(f"https://www.facebook.com/{PAGE}/posts/")
    assert (found.kind, found.post_id, found.ref) == (OutcomeKind.PUBLISHED, comment.post_id, comment.ref)
    [listing] = logged(sandbox.state, "GET", f"/{post.post_id}/comments")
    assert form(listing)["order"] == "reverse_chronological"


def test_a_comment_timeout_is_settled_by_find_recent(sandbox, client):
    post = client.publish(connection(), Post(text="main"))
    sandbox.outcomes("facebook", "timeout")

    lost = client.publish(connection(), _comment_on(post.post_id))
    found = client.find_recent(connection(), _comment_on(post.post_id), _since())

    assert lost.kind is OutcomeKind.UNKNOWN
    assert found.kind is OutcomeKind.PUBLISHED
    assert [c["id"] for c in _sandbox_comments(sandbox)] == [found.post_id]


def test_a_comment_that_is_not_there_is_not_found(sandbox, client):
    post = client.publish(connection(), Post(text="main"))

    missing = client.check(connection(), {"comment_id": "1_2", "parent_id": post.post_id})
    absent = client.find_recent(connection(), _comment_on(post.post_id), _since())

    assert (missing.kind, missing.error_code) == (OutcomeKind.FAILED, "NOT_FOUND")
    assert (absent.kind, absent.error_code) == (OutcomeKind.FAILED, "NOT_FOUND")


@pytest.mark.parametrize(
    ("outcome", "kind", "code"),
    [
        ("error", OutcomeKind.FAILED, "368"),
        ("rate_limited", OutcomeKind.NOT_SENT, "32"),
        ("timeout", OutcomeKind.UNKNOWN, "NO_ANSWER"),
    ],
)
def test_a_refused_or_lost_comment_says_so(sandbox, client, outcome, kind, code):
    post = client.publish(connection(), Post(text="main"))
    sandbox.outcomes("facebook", outcome)

    comment = client.publish(connection(), _comment_on(post.post_id))

    assert (comment.kind, comment.error_code) == (kind, code)


def test_a_comment_on_a_post_that_is_gone_fails(sandbox, client):
    post = client.publish(connection(), Post(text="main"))
    _remove(sandbox, post.post_id)

    comment = client.publish(connection(), _comment_on(post.post_id))

    assert (comment.kind, comment.error_code) == (OutcomeKind.FAILED, "100.33")
    assert _sandbox_comments(sandbox) == []


def test_the_stand_in_refuses_a_comment_graph_refuses(sandbox):
    post = Client().publish(connection(), Post(text="main"))
    url = f"{sandbox.url}/graph.facebook.com/v25.0/{post.post_id}/comments"
    headers = {"Authorization": f"Bearer {tokens.issue('facebook', PAGE)}"}

    empty = requests.post(url, data={"message": " "}, headers=headers, timeout=5)
    long = requests.post(url, data={"message": "x" * 8001}, headers=headers, timeout=5)
    no_token = requests.post(url, data={"message": "hi"}, timeout=5)

    assert (empty.status_code, empty.json()["error"]["code"]) == (400, 100)
    assert "8000" in long.json()["error"]["message"]
    assert no_token.json()["error"]["code"] == 104


def test_a_post_a_video_and_a_comment_are_deleted_with_delete_on_their_ids(sandbox, client, files_server):
    post = client.publish(connection(), Post(text="main"))
    clip = client.publish(connection(), Post(text="clip", media=[video(files_server)]))
    comment = client.publish(connection(), _comment_on(clip.post_id))

    deleted = [client.delete(connection(), o.post_id, o.ref) for o in (comment, post, clip)]

    assert [d.kind for d in deleted] == [OutcomeKind.PUBLISHED] * 3
    deletes = [r["path"].rsplit("/", 1)[-1] for r in sandbox.state.requests if r["method"] == "DELETE"]
    assert deletes == [comment.post_id, post.post_id, clip.post_id]
    assert sandbox.posts("facebook") == []
    assert _sandbox_comments(sandbox) == []
    assert [client.exists(connection(), o.post_id, o.ref) for o in (comment, post, clip)] == [False] * 3


def test_deleting_a_post_takes_its_comments_and_a_second_delete_finds_it_gone(sandbox, client):
    post = client.publish(connection(), Post(text="main"))
    client.publish(connection(), _comment_on(post.post_id))

    first = client.delete(connection(), post.post_id, post.ref)
    again = client.delete(connection(), post.post_id, post.ref)

    assert first.kind is again.kind is OutcomeKind.PUBLISHED
    assert _sandbox_comments(sandbox) == []


@pytest.mark.parametrize(
    ("outcome", "kind", "code"),
    [
        ("error", OutcomeKind.FAILED, "368"),
        ("rate_limited", OutcomeKind.NOT_SENT, "32"),
        ("timeout", OutcomeKind.UNKNOWN, "NO_ANSWER"),
    ],
)
def test_a_refused_or_lost_delete_says_so(sandbox, client, outcome, kind, code):
    post = client.publish(connection(), Post(text="main"))
    sandbox.outcomes("facebook", outcome)

    deleted = client.delete(connection(), post.post_id, post.ref)

    assert (deleted.kind, deleted.error_code) == (kind, code)
    assert client.exists(connection(), post.post_id, post.ref) is (outcome != "timeout")


def test_another_pages_post_cannot_be_deleted(sandbox, client):
    post = client.publish(connection(page="999"), Post(text="theirs"))

    deleted = client.delete(connection(), post.post_id, post.ref)

    assert deleted.kind is OutcomeKind.PUBLISHED  # Graph says only that it does not exist for us
    assert [p["id"] for p in sandbox.posts("facebook")] == [post.post_id]


def test_exists_until_the_post_is_removed_on_facebook(sandbox, client, files_server):
    post = client.publish(connection(), Post(text="main"))
    clip = client.publish(connection(), Post(text="clip", media=[video(files_server)]))
    comment = client.publish(connection(), _comment_on(post.post_id))
    outcomes = (post, clip, comment)

    before = [client.exists(connection(), o.post_id, o.ref) for o in outcomes]
    _remove(sandbox, post.post_id)
    _remove(sandbox, clip.post_id)
    after = [client.exists(connection(), o.post_id, o.ref) for o in outcomes]

    assert before == [True] * 3
    assert after == [False] * 3  # the comment went with its post


def test_exists_raises_when_facebook_does_not_answer(sandbox, client, settings):
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        settings.SANDBOX_URL = f"http://127.0.0.1:{closed.getsockname()[1]}"
        with pytest.raises(PlatformError):
            client.exists(connection(), f"{PAGE}_1", {})

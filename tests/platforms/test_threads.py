"""What the Threads client alone does, against the Threads stand-in over real HTTP: containers
and threads_publish for text, image, carousel and video, validation, Graph's refusals, metrics,
token refresh and the OAuth code flow. Media is pulled by the stand-in from the loopback file
server, as Meta pulls it from our media URLs. The outcome matrix every client shares is in
test_conformance.py."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import re
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from accounts.platforms.base import MAX_RECENT_PAGES, Connection, Credentials, OutcomeKind, PlatformError, Post, ReplyTo
from accounts.platforms.threads import Client, text_length
from sandbox import tokens
from sandbox.platforms.threads import text_length as sandbox_text_length
from tests.media import files
from tests.platforms.threads_helpers import (
    ACCOUNT,
    MediaServer,
    connection,
    containers,
    logged,
    make_media,
    params_of,
)

MB = 1024 * 1024


@pytest.fixture
def client():
    client = Client()
    client.poll_seconds = 0
    return client


@pytest.fixture
def server():
    server = MediaServer()
    yield server
    server.close()


def _codes(problems):
    return {(p.field, p.code) for p in problems}


def _since():
    return dt.datetime.now(dt.UTC) - dt.timedelta(minutes=1)


# --- publishing ----------------------------------------------------------------------------------


def test_a_text_post_goes_through_a_container_and_threads_publish(sandbox, client):
    refs = []
    outcome = client.publish(connection(refs=refs), Post(text="Hello from the sandbox"))

    assert outcome.kind is OutcomeKind.PUBLISHED
    assert outcome.url.startswith("https://www.threads.net/@sandbox_")
    [container] = containers(sandbox.state)
    assert container == {"text": "Hello from the sandbox", "media_type": "TEXT"}
    [publish] = logged(sandbox.state, "POST", "/threads_publish")
    assert params_of(publish) == {"creation_id": refs[0]["container_id"]}


def test_the_container_id_is_saved_before_threads_publish(sandbox, client):
    refs = []
    client.publish(connection(refs=refs), Post(text="saved first"))

    paths = [r["path"] for r in sandbox.state.requests]
    assert refs[0]["container_id"]
    assert paths.index(f"/graph.threads.net/v1.0/{refs[0]['container_id']}") < len(paths) - 2
    assert paths[-2].endswith("/threads_publish")


def test_an_image_post_is_pulled_from_its_url(sandbox, client, server):
    picture = server.image("JPEG")

    outcome = client.publish(connection(), Post(text="a picture", media=[picture]))

    assert outcome.kind is OutcomeKind.PUBLISHED
    [container] = containers(sandbox.state)
    assert container == {"text": "a picture", "media_type": "IMAGE", "image_url": server.url("img")}
    assert server.hits == ["/img"]
    assert sandbox.posts("threads")[0]["media_count"] == 1


def test_several_media_make_one_carousel(sandbox, client, server):
    items = [server.image(name="a"), server.image("JPEG", name="b"), server.video(name="c")]

    outcome = client.publish(connection(), Post(text="three", media=items))

    assert outcome.kind is OutcomeKind.PUBLISHED
    *children, carousel = containers(sandbox.state)
    assert [c["is_carousel_item"] for c in children] == ["true"] * 3
    assert [c["media_type"] for c in children] == ["IMAGE", "IMAGE", "VIDEO"]
    assert "text" not in children[0]
    assert carousel["media_type"] == "CAROUSEL"
    assert carousel["text"] == "three"
    assert len(carousel["children"].split(",")) == 3
    assert sandbox.posts("threads")[0]["media_count"] == 3


def test_a_video_waits_for_its_container_to_finish(sandbox, client, server):
    outcome = client.publish(connection(), Post(text="a video", media=[server.video()]))

    assert outcome.kind is OutcomeKind.PUBLISHED
    assert containers(sandbox.state)[0]["video_url"] == server.url("vid")
    statuses = [r for r in logged(sandbox.state, "GET", "") if "status" in r["query"]]
    assert len(statuses) == 2  # IN_PROGRESS, then FINISHED
    assert sandbox.posts("threads")[0]["media_count"] == 1


def test_a_video_meta_cannot_download_fails_with_its_error_message(sandbox, client, server):
    broken = make_media(files.video(), "video/mp4", pull_url=server.url("missing"), duration=2.5)

    outcome = client.publish(connection(), Post(text="gone", media=[broken]))

    assert (outcome.kind, outcome.error_code) == (OutcomeKind.FAILED, "ERROR")
    assert outcome.error_message == "FAILED_DOWNLOADING_VIDEO"
    assert sandbox.posts("threads") == []


def test_an_image_that_is_not_what_it_claims_is_refused(sandbox, client, server):
    fake = server.media(files.image("GIF"), "image/png", name="fake.png")

    outcome = client.publish(connection(), Post(text="fake", media=[fake]))

    assert (outcome.kind, outcome.error_code, outcome.http_status) == (OutcomeKind.FAILED, "100/2207052", 400)
    assert "not supported" in outcome.error_message


def test_every_threads_setting_reaches_the_container(sandbox, client, server):
    link = Post(text="read this", settings={"link_attachment": "https://example.com/a", "topic_tag": "Sandbox"})
    tagged = Post(text="with a tag", media=[server.image()], settings={"topic_tag": "Photos"})

    assert client.publish(connection(), link).kind is OutcomeKind.PUBLISHED
    assert client.publish(connection(), tagged).kind is OutcomeKind.PUBLISHED

    first, second = containers(sandbox.state)
    assert (first["link_attachment"], first["topic_tag"]) == ("https://example.com/a", "Sandbox")
    assert second["topic_tag"] == "Photos"


def test_unknown_settings_are_ignored(sandbox, client):
    post = Post(text="plain", settings={"something_else": 1})

    assert client.validate(post) == []
    assert client.publish(connection(), post).kind is OutcomeKind.PUBLISHED
    assert containers(sandbox.state) == [{"text": "plain", "media_type": "TEXT"}]


# --- validation ----------------------------------------------------------------------------------


def test_text_length_counts_emoji_by_their_utf8_bytes():
    assert text_length("a" * 500) == 500
    assert text_length("😀") == 4
    assert text_length("👍🏽") == 8
    assert text_length("❤️") == 6
    assert text_length("日本語") == 3
    assert text_length("©") == 1  # a text-style symbol is not an emoji


@pytest.mark.parametrize("text", ["a" * 500, "😀" * 125, "日本語 ❤️ 🇫🇷", "e\u0301"])
def test_the_client_and_the_sandbox_count_the_same(text):
    assert text_length(text) == sandbox_text_length(text)


def test_500_characters_pass_and_501_do_not(client):
    assert client.validate(Post(text="a" * 500)) == []
    assert client.validate(Post(text="a" * 496 + "😀")) == []
    assert _codes(client.validate(Post(text="a" * 501))) == {("text", "TEXT_TOO_LONG")}
    assert _codes(client.validate(Post(text="a" * 497 + "😀"))) == {("text", "TEXT_TOO_LONG")}


def test_a_text_post_needs_text(client):
    assert _codes(client.validate(Post(text="  "))) == {("text", "EMPTY_POST")}
    assert client.validate(Post(text="", media=[make_media(files.image(), "image/png")])) == []


def test_at_most_five_unique_links(client):
    five = " ".join(f"https://example.com/{n}" for n in range(5))

    assert client.validate(Post(text=five + " https://example.com/0")) == []
    assert _codes(client.validate(Post(text=five + " https://example.com/5"))) == {("text", "TOO_MANY_LINKS")}
    with_card = Post(text=five, settings={"link_attachment": "https://other.example"})
    assert _codes(client.validate(with_card)) == {("text", "TOO_MANY_LINKS")}


def _png(**facts):
    return make_media(b"x", "image/png", **facts)


@pytest.mark.parametrize(
    ("media_list", "field", "code"),
    [
        ([_png(name=f"i{n}") for n in range(21)], "media", "TOO_MANY_MEDIA"),
        ([make_media(b"x", "image/gif")], "media[0]", "UNSUPPORTED_MEDIA_TYPE"),
        ([make_media(b"x", "image/webp")], "media[0]", "UNSUPPORTED_MEDIA_TYPE"),
        ([_png(size=9 * MB)], "media[0]", "MEDIA_TOO_LARGE"),
        ([make_media(b"x", "video/mp4", size=1025 * MB, duration=10)], "media[0]", "MEDIA_TOO_LARGE"),
        ([make_media(b"x", "video/mp4", duration=301)], "media[0]", "VIDEO_TOO_LONG"),
        ([_png(width=1100, height=100)], "media[0]", "INVALID_ASPECT_RATIO"),
    ],
)
def test_media_threads_refuses_is_a_problem(client, media_list, field, code):
    unfitted = [dataclasses.replace(item, fit=False) for item in media_list]  # platform_settings.fit_media: false
    assert _codes(client.validate(Post(text="media", media=unfitted))) == {(field, code)}


def test_twenty_mixed_items_and_a_five_minute_video_pass(client):
    mixed = [_png(name=f"i{n}") for n in range(19)] + [make_media(b"x", "video/quicktime", duration=300)]

    assert client.validate(Post(text="", media=mixed)) == []


@pytest.mark.parametrize(
    ("values", "field", "code"),
    [
        ({"link_attachment": "not a url"}, "link_attachment", "INVALID_SETTING"),
        ({"link_attachment": 5}, "link_attachment", "INVALID_SETTING"),
        ({"topic_tag": ""}, "topic_tag", "INVALID_SETTING"),
        ({"topic_tag": "a" * 51}, "topic_tag", "INVALID_SETTING"),
        ({"topic_tag": "a.b"}, "topic_tag", "INVALID_SETTING"),
        ({"topic_tag": "rock&roll"}, "topic_tag", "INVALID_SETTING"),
        ({"topic_tag": ["x"]}, "topic_tag", "INVALID_SETTING"),
    ],
)
def test_settings_of_the_wrong_type_or_value_are_problems_naming_the_key(client, values, field, code):
    assert _codes(client.validate(Post(text="hi", settings=values))) == {(field, code)}


def test_a_link_attachment_is_for_text_posts_only(client):
    post = Post(text="hi", media=[_png()], settings={"link_attachment": "https://example.com"})

    assert _codes(client.validate(post)) == {("link_attachment", "INVALID_COMBINATION")}


# --- outcomes ------------------------------------------------------------------------------------


def test_processing_with_fewer_polls_takes_several_checks(sandbox, client, server):
    client.status_polls = 1
    sandbox.outcomes("threads", "processing")

    outcome = client.publish(connection(), Post(text="slow video", media=[server.video()]))
    checks = [client.check(connection(), outcome.ref) for _ in range(2)]
    last = client.check(connection(), outcome.ref)

    assert [c.kind for c in checks] == [OutcomeKind.PROCESSING] * 2
    assert last.kind is OutcomeKind.PUBLISHED


def test_a_missing_token_needs_reauthorization(sandbox, client):
    outcome = client.publish(connection(""), Post(text="refused"))

    assert (outcome.kind, outcome.auth_failed) == (OutcomeKind.FAILED, True)


def test_a_5xx_on_threads_publish_is_unknown_with_the_container(sandbox, client, monkeypatch):
    real = client.send

    def failing(conn, method, path, **kwargs):
        if path.endswith("/threads_publish"):
            response = requests.Response()
            response.status_code, response._content = 503, b'{"error": {"message": "down", "code": 2}}'
            return response
        return real(conn, method, path, **kwargs)

    monkeypatch.setattr(client, "send", failing)
    outcome = client.publish(connection(), Post(text="maybe"))

    assert (outcome.kind, outcome.http_status) == (OutcomeKind.UNKNOWN, 503)
    assert outcome.ref["container_id"]


# --- finding a lost post -------------------------------------------------------------------------


def _threads(sandbox, count, *, age=dt.timedelta(0), text="busy {n}"):
    """Text threads of the test account straight in the sandbox state, `age` old."""
    posts = [sandbox.state.add_post("threads", ACCOUNT, text.format(n=n), 0, params={}) for n in range(count)]
    for post in posts:
        created = dt.datetime.fromisoformat(post.created_at.replace("Z", "+00:00")) - age
        post.created_at = created.isoformat().replace("+00:00", "Z")
    return posts


def _list_reads(sandbox):
    return [parse_qs(r["query"]) for r in logged(sandbox.state, "GET", f"/{ACCOUNT}/threads")]


def test_find_recent_reads_past_the_first_page_of_threads(sandbox, client):
    [lost] = _threads(sandbox, 1, text="the lost one")
    _threads(sandbox, 60)  # more than one page of newer threads

    found = client.find_recent(connection(), Post(text="the lost one"), _since())

    assert (found.kind, found.post_id) == (OutcomeKind.PUBLISHED, lost.id)
    reads = _list_reads(sandbox)
    assert len(reads) == 2
    assert "after" not in reads[0]
    assert reads[1]["after"]
    assert reads[1]["limit"] == ["50"]


def test_find_recent_does_not_take_a_thread_older_than_since(sandbox, client):
    _threads(sandbox, 1, age=dt.timedelta(hours=1), text="said before")
    _threads(sandbox, 60)

    found = client.find_recent(connection(), Post(text="said before"), _since())

    assert (found.kind, found.error_code) == (OutcomeKind.FAILED, "NOT_FOUND")
    # the second page is the last with threads; the third answers none (Threads documents no `next`)
    assert len(_list_reads(sandbox)) == 3


def test_find_recent_reads_at_most_max_recent_pages(sandbox, client):
    _threads(sandbox, 1, text="too deep")
    _threads(sandbox, MAX_RECENT_PAGES * 50)

    found = client.find_recent(connection(), Post(text="too deep"), _since())

    assert (found.kind, found.error_code) == (OutcomeKind.FAILED, "NOT_FOUND")
    assert len(_list_reads(sandbox)) == MAX_RECENT_PAGES


# --- the stand-in is as strict as Threads --------------------------------------------------------


def _create(sandbox, params, token=None):
    token = token if token is not None else tokens.issue("threads", ACCOUNT)
    url = f"{sandbox.url}/graph.threads.net/v1.0/{ACCOUNT}/threads"
    return requests.post(url, data=params, headers={"Authorization": f"Bearer {token}"}, timeout=5)


@pytest.mark.parametrize(
    "params",
    [
        {"media_type": "TEXT"},
        {"media_type": "POLL", "text": "x"},
        {"media_type": "TEXT", "text": "a" * 501},
        {"media_type": "IMAGE", "text": "no url"},
        {"media_type": "TEXT", "text": "x", "caption": "not threads"},
        {"media_type": "TEXT", "text": "x", "topic_tag": "a.b"},
        {"media_type": "CAROUSEL", "children": "1,2"},
        {"media_type": "TEXT", "text": " ".join(f"https://e.com/{n}" for n in range(6))},
    ],
)
def test_the_stand_in_refuses_what_threads_refuses(sandbox, params):
    response = _create(sandbox, params)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == 100
    assert response.json()["error"]["type"] == "THApiException"


def test_the_stand_in_needs_a_token_and_accepts_it_as_a_parameter(sandbox):
    missing = _create(sandbox, {"media_type": "TEXT", "text": "x"}, token="")
    as_param = _create(sandbox, {"media_type": "TEXT", "text": "x", "access_token": tokens.issue("threads", ACCOUNT)})

    assert (missing.status_code, missing.json()["error"]["code"]) == (400, 104)
    assert as_param.status_code == 200


def test_another_users_containers_cannot_be_published(sandbox):
    container = _create(sandbox, {"media_type": "TEXT", "text": "mine"}).json()["id"]
    other = tokens.issue("threads", "7100000000000002")
    url = f"{sandbox.url}/graph.threads.net/v1.0/7100000000000002/threads_publish"

    response = requests.post(
        url, data={"creation_id": container}, headers={"Authorization": f"Bearer {other}"}, timeout=5
    )

    assert response.status_code == 400
    assert sandbox.posts("threads") == []


def _list_threads(sandbox, **query):
    headers = {"Authorization": f"Bearer {tokens.issue('threads', ACCOUNT)}"}
    url = f"{sandbox.url}/graph.threads.net/v1.0/{ACCOUNT}/threads"
    return requests.get(url, params={"fields": "id,text", **query}, headers=headers, timeout=5)


def test_the_stand_in_pages_threads_by_cursor_as_the_collection_shows(sandbox):
    posts = _threads(sandbox, 7)

    first = _list_threads(sandbox, limit=5).json()
    last = _list_threads(sandbox, limit=5, after=first["paging"]["cursors"]["after"]).json()
    beyond = _list_threads(sandbox, limit=5, after=last["paging"]["cursors"]["after"]).json()

    assert [t["id"] for t in first["data"] + last["data"]] == [p.id for p in reversed(posts)]
    assert set(first["paging"]["cursors"]) == set(last["paging"]["cursors"]) == {"before", "after"}
    assert "next" in first["paging"]
    assert "next" not in last["paging"]
    assert beyond == {"data": []}


@pytest.mark.parametrize("query", [{"after": "bm90LWFuLWlk"}, {"before": "not*base64"}, {"limit": "101"}])
def test_the_stand_in_refuses_a_cursor_or_limit_threads_refuses(sandbox, query):
    _threads(sandbox, 2)

    response = _list_threads(sandbox, **query)

    assert (response.status_code, response.json()["error"]["code"]) == (400, 100)
    assert response.json()["error"]["type"] == "THApiException"


# --- metrics -------------------------------------------------------------------------------------


def test_metrics_come_from_the_insights_edge(sandbox, client):
    first = client.publish(connection(), Post(text="one")).post_id
    body = {"platform": "threads", "post_id": first, "views": 100, "likes": 7, "comments": 3, "shares": 2}
    requests.post(f"{sandbox.url}/_sandbox/metrics", json=body, timeout=5)

    found = client.metrics(connection(), [first])

    assert found[first].extra == {"reposts": 2, "quotes": 0, "shares": 0}
    lookup = logged(sandbox.state, "GET", f"/{first}/insights")[0]
    assert parse_qs(lookup["query"])["metric"] == ["views,likes,replies,reposts,quotes,shares"]


# --- tokens and OAuth ----------------------------------------------------------------------------


def _approve(url):
    page = requests.get(url, timeout=5)
    assert page.status_code == 200
    target = re.search(r'id="approve" href="([^"]+)"', page.text).group(1).replace("&amp;", "&")
    return parse_qs(urlsplit(target).query)


def test_the_code_flow_end_to_end_gives_a_long_lived_token_that_publishes(sandbox, client):
    redirect = "https://app.example/callback/threads"

    url = client.authorize_url(state="s-1", code_challenge="ignored", redirect_uri=redirect, sandbox=True)
    assert url.startswith(f"{sandbox.url}/www.threads.net/oauth/authorize?")
    assert "code_challenge" not in url
    query = _approve(url)
    credentials = client.exchange_code(
        code=query["code"][0], code_verifier="unused", redirect_uri=redirect, sandbox=True
    )

    assert query["state"] == ["s-1"]
    assert credentials.external_id.isdigit()
    assert credentials.handle == f"sandbox_{credentials.external_id}"
    assert credentials.expires_at > dt.datetime.now(dt.UTC) + dt.timedelta(days=59)
    [code_call] = logged(sandbox.state, "POST", "/oauth/access_token")
    assert params_of(code_call)["client_secret"] == "sandbox-threads-secret"
    assert "client_secret" not in code_call["query"]
    conn = Connection(credentials, sandbox=True)
    assert client.publish(conn, Post(text="connected")).kind is OutcomeKind.PUBLISHED
    assert sandbox.posts("threads")[0]["account"] == credentials.external_id


def test_a_code_is_single_use_and_bound_to_its_redirect_uri(sandbox, client):
    redirect = "https://app.example/cb"
    code = _approve(client.authorize_url(state="s", code_challenge="", redirect_uri=redirect, sandbox=True))["code"][0]

    with pytest.raises(PlatformError):
        client.exchange_code(code=code, code_verifier="", redirect_uri="https://evil.example/cb", sandbox=True)
    with pytest.raises(PlatformError):  # the failed attempt used the code up
        client.exchange_code(code=code, code_verifier="", redirect_uri=redirect, sandbox=True)


def test_configured_client_credentials_are_used(sandbox, client, settings):
    settings.THREADS_CLIENT_ID, settings.THREADS_CLIENT_SECRET = "my-app", "s3cret"

    url = client.authorize_url(state="s", code_challenge="", redirect_uri="https://a.example/cb", sandbox=True)

    assert parse_qs(urlsplit(url).query)["client_id"] == ["my-app"]
    code = _approve(url)["code"][0]
    client.exchange_code(code=code, code_verifier="", redirect_uri="https://a.example/cb", sandbox=True)
    [exchange] = logged(sandbox.state, "GET", "/graph.threads.net/access_token")
    assert parse_qs(exchange["query"])["client_secret"] == ["s3cret"]


def test_refresh_extends_a_long_lived_token(sandbox, client):
    old = tokens.issue("threads", ACCOUNT, lifetime_seconds=50 * 86400)  # ten days old
    conn = Connection(Credentials(access_token=old, external_id=ACCOUNT), sandbox=True)

    fresh = client.refresh(conn)

    assert fresh.access_token != old
    assert fresh.refresh_token == ""
    assert fresh.external_id == ACCOUNT
    assert fresh.expires_at > dt.datetime.now(dt.UTC) + dt.timedelta(days=59)
    assert client.publish(Connection(fresh, sandbox=True), Post(text="refreshed")).kind is OutcomeKind.PUBLISHED


def test_a_token_younger_than_a_day_or_expired_cannot_be_refreshed(sandbox, client):
    young = Connection(Credentials(access_token=tokens.issue("threads", ACCOUNT, lifetime_seconds=60 * 86400)), True)
    expired = Connection(Credentials(access_token=tokens.issue("threads", ACCOUNT, lifetime_seconds=-1)), True)

    with pytest.raises(PlatformError):
        client.refresh(young)
    with pytest.raises(PlatformError):
        client.refresh(expired)


# --- classifying Graph errors --------------------------------------------------------------------


def _answer(status, body, headers=None):
    response = requests.Response()
    response.status_code, response._content = status, json.dumps(body).encode()
    response.headers.update(headers or {})
    return response


@pytest.mark.parametrize(
    ("status", "error", "kind", "code", "auth"),
    [
        (400, {"code": 190, "message": "expired", "error_subcode": 463}, OutcomeKind.FAILED, "190/463", True),
        (400, {"code": 17, "message": "User request limit reached"}, OutcomeKind.NOT_SENT, "17", False),
        (403, {"code": 613, "message": "Calls within one hour"}, OutcomeKind.NOT_SENT, "613", False),
        (400, {"code": 100, "message": "Invalid parameter"}, OutcomeKind.FAILED, "100", False),
        (500, {"code": 1, "message": "An unknown error occurred"}, OutcomeKind.UNKNOWN, "1", False),
    ],
)
def test_graph_errors_are_classified_with_their_codes(status, error, kind, code, auth):
    outcome = Client().refusal(_answer(status, {"error": error}))

    assert (outcome.kind, outcome.error_code, outcome.auth_failed) == (kind, code, auth)
    assert outcome.error_message == error["message"]


# --- first comments, deleting, reading back -------------------------------------------------------


def _reply_to(post_id, text="first reply"):
    return Post(text=text, reply_to=ReplyTo(parent_id=post_id, root_id=post_id))


def _remove(sandbox, post_id):
    body = {"platform": "threads", "id": post_id}
    requests.post(f"{sandbox.url}/_sandbox/posts/remove", json=body, timeout=5).raise_for_status()


def test_a_first_comment_is_a_reply_thread_under_the_post(sandbox, client):
    post = client.publish(connection(), Post(text="main"))

    reply = client.publish(connection(), _reply_to(post.post_id))

    assert client.first_comment == "reply"
    assert reply.kind is OutcomeKind.PUBLISHED
    listed = {p["id"]: p for p in sandbox.posts("threads")}
    assert (listed[reply.post_id]["reply_to"], listed[reply.post_id]["text"]) == (post.post_id, "first reply")


def test_a_thread_and_a_reply_are_deleted_with_delete_on_their_ids(sandbox, client):
    post = client.publish(connection(), Post(text="main"))
    reply = client.publish(connection(), _reply_to(post.post_id))

    deleted = [client.delete(connection(), o.post_id, o.ref) for o in (reply, post)]

    assert [d.kind for d in deleted] == [OutcomeKind.PUBLISHED] * 2
    deletes = [r["path"] for r in sandbox.state.requests if r["method"] == "DELETE"]
    assert deletes == [f"/graph.threads.net/v1.0/{reply.post_id}", f"/graph.threads.net/v1.0/{post.post_id}"]
    assert sandbox.posts("threads") == []
    assert [client.exists(connection(), o.post_id, o.ref) for o in (reply, post)] == [False, False]


def test_a_second_delete_finds_the_thread_gone_and_says_it_is_deleted(sandbox, client):
    post = client.publish(connection(), Post(text="main"))
    client.delete(connection(), post.post_id, post.ref)

    again = client.delete(connection(), post.post_id, post.ref)

    assert (again.kind, again.post_id) == (OutcomeKind.PUBLISHED, post.post_id)


def test_another_users_thread_is_not_deleted(sandbox, client):
    post = client.publish(connection(account="someone-else"), Post(text="theirs"))

    deleted = client.delete(connection(), post.post_id, post.ref)

    assert (deleted.kind, deleted.error_code) == (OutcomeKind.FAILED, "10")
    assert [p["id"] for p in sandbox.posts("threads")] == [post.post_id]


@pytest.mark.parametrize(
    ("outcome", "kind", "code"),
    [
        ("error", OutcomeKind.FAILED, "10"),
        ("rate_limited", OutcomeKind.NOT_SENT, "4/2446079"),
        ("timeout", OutcomeKind.UNKNOWN, "NO_ANSWER"),
    ],
)
def test_a_refused_or_lost_delete_says_so(sandbox, client, outcome, kind, code):
    post = client.publish(connection(), Post(text="main"))
    sandbox.outcomes("threads", outcome)

    deleted = client.delete(connection(), post.post_id, post.ref)

    assert (deleted.kind, deleted.error_code) == (kind, code)
    assert client.exists(connection(), post.post_id, post.ref) is (outcome != "timeout")


def test_exists_until_the_thread_is_removed_on_threads(sandbox, client):
    post = client.publish(connection(), Post(text="main"))
    reply = client.publish(connection(), _reply_to(post.post_id))

    before = [client.exists(connection(), o.post_id, o.ref) for o in (post, reply)]
    _remove(sandbox, post.post_id)
    after = [client.exists(connection(), o.post_id, o.ref) for o in (post, reply)]

    assert before == [True, True]
    assert after == [False, True]  # a reply is a thread of its own and stays


def test_exists_raises_on_a_refusal_that_says_nothing_of_the_thread(sandbox, client):
    conn = connection()
    post = client.publish(conn, Post(text="main"))
    requests.post(f"{sandbox.url}/_sandbox/tokens/revoke", json={"token": conn.credentials.access_token}, timeout=5)

    with pytest.raises(PlatformError) as raised:
        client.exists(conn, post.post_id, post.ref)

    assert raised.value.outcome.auth_failed


@pytest.mark.parametrize(
    ("outcome", "kind", "code"),
    [
        ("error", OutcomeKind.FAILED, "10"),
        ("rate_limited", OutcomeKind.NOT_SENT, "4/2446079"),
        ("timeout", OutcomeKind.UNKNOWN, "NO_ANSWER"),
    ],
)
def test_a_refused_or_lost_first_reply_says_so(sandbox, client, outcome, kind, code):
    post = client.publish(connection(), Post(text="main"))
    sandbox.outcomes("threads", outcome)

    reply = client.publish(connection(), _reply_to(post.post_id))

    assert (reply.kind, reply.error_code) == (kind, code)

"""What the X client alone does, against the X stand-in over real HTTP: media uploads, settings
on the wire, weighted text counting, validation, X's refusals, deleting and reading back, metrics
fields and OAuth 2.0 with PKCE. The outcome matrix every client shares is in test_conformance.py."""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import hashlib
import json
import re
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from accounts.platforms.base import (
    MAX_RECENT_PAGES,
    Connection,
    Credentials,
    OutcomeKind,
    PlatformError,
    Post,
    ReplyTo,
)
from accounts.platforms.x import Client, weighted_length
from sandbox import tokens
from sandbox.platforms.x import weighted_length as sandbox_weighted_length
from tests.media import files
from tests.platforms.x_helpers import ACCOUNT, connection, image, logged, media, tweet_bodies, video

MB = 1024 * 1024


@pytest.fixture
def client():
    return Client()


def _codes(problems):
    return {(p.field, p.code) for p in problems}


# --- publishing ------------------------------------------------------------------------------


def test_an_image_post_uploads_through_initialize_append_finalize(sandbox, client):
    outcome = client.publish(connection(), Post(text="a picture", media=[image()]))

    assert outcome.kind is OutcomeKind.PUBLISHED
    [init] = logged(sandbox.state, "POST", "/2/media/upload/initialize")
    assert json.loads(init["body"])["media_category"] == "tweet_image"
    assert len(logged(sandbox.state, "POST", "/append")) == 1
    assert sandbox.posts("x")[0]["media_count"] == 1
    assert len(tweet_bodies(sandbox.state)[0]["media"]["media_ids"]) == 1


def test_a_video_is_sent_in_chunks_and_waits_for_processing(sandbox, client):
    client.chunk_bytes = 1024  # files.video() is about 4.4 kB: five appends

    outcome = client.publish(connection(), Post(text="a video", media=[video()]))

    assert outcome.kind is OutcomeKind.PUBLISHED
    appends = logged(sandbox.state, "POST", "/append")
    assert len(appends) >= 2
    assert [b"segment_index" in a["body"] for a in appends] == [True] * len(appends)
    assert len(logged(sandbox.state, "GET", "/2/media/upload")) >= 1
    assert sandbox.posts("x")[0]["media_count"] == 1


def test_a_video_still_processing_is_followed_by_check(sandbox, client):
    client.status_polls = 0

    outcome = client.publish(connection(), Post(text="slow video", media=[video()]))
    assert outcome.kind is OutcomeKind.PROCESSING
    assert sandbox.posts("x") == []

    first = client.check(connection(), outcome.ref)  # STATUS: in_progress
    second = client.check(connection(), first.ref)  # STATUS: succeeded, then the tweet

    assert first.kind is OutcomeKind.PROCESSING
    assert second.kind is OutcomeKind.PUBLISHED
    assert [p["id"] for p in sandbox.posts("x")] == [second.post_id]


def test_every_x_setting_reaches_the_request(sandbox, client):
    original = client.publish(connection(), Post(text="the original"))
    quote = Post(text="quoting", settings={"quote_tweet": original.post_id, "for_super_followers_only": True})
    reply = Post(text="replying", media=[image()], settings={"reply_to": original.post_id, "sensitive": True})

    assert client.publish(connection(), quote).kind is OutcomeKind.PUBLISHED
    assert client.publish(connection(), reply).kind is OutcomeKind.PUBLISHED

    _, quoted, replied = tweet_bodies(sandbox.state)
    assert quoted["quote_tweet_id"] == original.post_id
    assert quoted["for_super_followers_only"] is True
    assert replied["reply"] == {"in_reply_to_tweet_id": original.post_id}
    [metadata] = logged(sandbox.state, "POST", "/2/media/metadata")
    assert json.loads(metadata["body"])["metadata"] == {"sensitive_media_warning": {"other": True}}


def test_unknown_settings_are_ignored(sandbox, client):
    post = Post(text="plain", settings={"something_else": 1})

    assert client.validate(post) == []
    assert client.publish(connection(), post).kind is OutcomeKind.PUBLISHED
    assert tweet_bodies(sandbox.state) == [{"text": "plain"}]


# --- validation ------------------------------------------------------------------------------


def test_weighted_length_follows_x_counting():
    assert weighted_length("a" * 280) == 280
    assert weighted_length("see https://example.com/a/very/long/path?with=query") == 4 + 23
    assert weighted_length("日本語") == 6
    assert weighted_length("😀") == 2
    assert weighted_length("👍🏽") == 2  # an emoji with a skin tone is one emoji
    assert weighted_length("e\u0301") == 1  # NFC: é
    assert weighted_length("“quoted”…") == 1 + 6 + 1 + 2  # U+201C/U+201D weigh 1, U+2026 weighs 2


@pytest.mark.parametrize("text", ["a" * 280, "x" * 248 + " https://example.com/path", "日" * 140, "😀" * 140])
def test_the_client_and_the_sandbox_count_the_same(text):
    assert weighted_length(text) == sandbox_weighted_length(text)


def test_280_weighted_characters_pass_and_281_do_not(client):
    url_text = "x" * 235 + " https://example.com/" + " 日本語" * 3
    assert weighted_length(url_text) == 280

    assert client.validate(Post(text=url_text)) == []
    assert client.validate(Post(text="a" * 280)) == []
    assert _codes(client.validate(Post(text="a" * 281))) == {("text", "TEXT_TOO_LONG")}
    assert _codes(client.validate(Post(text="日" * 141))) == {("text", "TEXT_TOO_LONG")}


def test_text_or_media_is_required(client):
    assert _codes(client.validate(Post(text="  "))) == {("text", "EMPTY_POST")}
    assert client.validate(Post(text="", media=[image()])) == []


@pytest.mark.parametrize(
    ("media_list", "field", "code"),
    [
        ([image(media_id=f"i{n}") for n in range(5)], "media", "TOO_MANY_MEDIA"),
        ([image(), video()], "media", "MIXED_MEDIA"),
        ([image(), media(files.image("GIF"), "image/gif")], "media", "MIXED_MEDIA"),
        ([media(b"x", "image/png", size=6 * MB)], "media[0]", "MEDIA_TOO_LARGE"),
        ([media(b"x", "image/gif", size=16 * MB)], "media[0]", "MEDIA_TOO_LARGE"),
        ([media(b"x", "video/webm", duration=3)], "media[0]", "UNSUPPORTED_MEDIA_TYPE"),
        ([media(b"x", "image/bmp")], "media[0]", "UNSUPPORTED_MEDIA_TYPE"),
        ([video(seconds=141)], "media[0]", "VIDEO_TOO_LONG"),
        ([video(seconds=0.2)], "media[0]", "VIDEO_TOO_SHORT"),
    ],
)
def test_media_x_refuses_is_a_problem(client, media_list, field, code):
    unfitted = [dataclasses.replace(item, fit=False) for item in media_list]  # platform_settings.fit_media: false
    assert _codes(client.validate(Post(text="media", media=unfitted))) == {(field, code)}


def test_with_fitting_a_rendition_stands_in_for_a_type_or_size_x_refuses(client):
    assert client.validate(Post(text="", media=[media(b"x", "image/bmp")])) == []  # a JPEG rendition
    assert client.validate(Post(text="", media=[media(b"x", "video/webm", duration=3)])) == []  # H.264 MP4
    large_gif = [media(b"x", "image/gif", size=16 * MB)]  # a JPEG would lose the animation: not fitted
    assert _codes(client.validate(Post(text="", media=large_gif))) == {("media[0]", "MEDIA_TOO_LARGE")}


def test_a_large_animated_gif_and_a_long_video_within_limits_pass(client):
    assert client.validate(Post(text="", media=[media(b"x", "image/gif", size=14 * MB)])) == []
    assert client.validate(Post(text="", media=[video(seconds=140)])) == []


@pytest.mark.parametrize(
    ("values", "field"),
    [
        ({"reply_to": 123}, "reply_to"),
        ({"reply_to": ""}, "reply_to"),
        ({"quote_tweet": "abc"}, "quote_tweet"),
        ({"sensitive": "yes"}, "sensitive"),
        ({"for_super_followers_only": 1}, "for_super_followers_only"),
    ],
)
def test_settings_of_the_wrong_type_are_problems_naming_the_key(client, values, field):
    assert [p.field for p in client.problems(Post(text="hi", settings=values))] == [field]


def test_x_refuses_a_quote_with_media_and_sensitive_text_only_posts(client):
    quote_with_media = Post(text="q", media=[image()], settings={"quote_tweet": "1"})
    sensitive_text = Post(text="s", settings={"sensitive": True})

    assert _codes(client.validate(quote_with_media)) == {("quote_tweet", "INVALID_COMBINATION")}
    assert _codes(client.validate(sensitive_text)) == {("sensitive", "UNSUPPORTED_SETTING")}
    assert client.validate(Post(text="s", settings={"sensitive": False})) == []


# --- outcomes --------------------------------------------------------------------------------


def test_find_recent_without_a_user_id_asks_who_the_token_is(sandbox, client):
    post = Post(text="find me")
    client.publish(connection(), post)
    anonymous = Connection(Credentials(access_token=tokens.issue("x", ACCOUNT)), sandbox=True)

    found = client.find_recent(anonymous, post, dt.datetime.now(dt.UTC) - dt.timedelta(minutes=1))

    assert found.kind is OutcomeKind.PUBLISHED
    assert logged(sandbox.state, "GET", "/2/users/me")


def _tweets(sandbox, count, *, age=dt.timedelta(0), text="busy {n}"):
    """Tweets on the test account's timeline straight in the sandbox state, `age` old."""
    posts = [sandbox.state.add_post("x", ACCOUNT, text.format(n=n), 0) for n in range(count)]
    for post in posts:
        created = dt.datetime.fromisoformat(post.created_at.replace("Z", "+00:00")) - age
        post.created_at = created.isoformat().replace("+00:00", "Z")
    return posts


def _timeline_reads(sandbox):
    return [parse_qs(r["query"]) for r in logged(sandbox.state, "GET", f"/2/users/{ACCOUNT}/tweets")]


def test_find_recent_reads_past_the_first_page_of_a_busy_timeline(sandbox, client):
    since = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=1)
    [lost] = _tweets(sandbox, 1, text="the lost one")
    _tweets(sandbox, 120)  # more than one page of newer tweets

    found = client.find_recent(connection(), Post(text="the lost one"), since)

    assert (found.kind, found.post_id) == (OutcomeKind.PUBLISHED, lost.id)
    reads = _timeline_reads(sandbox)
    assert len(reads) == 2
    assert "pagination_token" not in reads[0]
    assert reads[1]["pagination_token"]
    assert reads[1]["max_results"] == ["100"]


def test_find_recent_does_not_take_a_tweet_older_than_since(sandbox, client):
    since = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=1)
    _tweets(sandbox, 1, age=dt.timedelta(hours=1), text="said before")
    _tweets(sandbox, 120)

    found = client.find_recent(connection(), Post(text="said before"), since)

    assert (found.kind, found.error_code) == (OutcomeKind.FAILED, "NOT_FOUND")
    assert len(_timeline_reads(sandbox)) == 2  # the second page is the last one


def test_find_recent_reads_at_most_max_recent_pages(sandbox, client):
    since = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=1)
    _tweets(sandbox, 1, text="too deep")
    _tweets(sandbox, MAX_RECENT_PAGES * 100)

    found = client.find_recent(connection(), Post(text="too deep"), since)

    assert (found.kind, found.error_code) == (OutcomeKind.FAILED, "NOT_FOUND")
    assert len(_timeline_reads(sandbox)) == MAX_RECENT_PAGES


# --- the stand-in is as strict as X ----------------------------------------------------------


def _post_tweet(sandbox, body, token=None):
    token = token or tokens.issue("x", ACCOUNT)
    headers = {"Authorization": f"Bearer {token}"}
    return requests.post(f"{sandbox.url}/api.x.com/2/tweets", json=body, headers=headers, timeout=5)


@pytest.mark.parametrize(
    "body",
    [
        {"text": "hi", "possibly_sensitive": True},
        {"text": "a" * 281},
        {},
        {"text": "hi", "media": {"media_ids": ["123"]}},
        {"text": "hi", "reply": {"in_reply_to_tweet_id": 5}},
        {"text": "hi", "for_super_followers_only": "yes"},
    ],
)
def test_the_stand_in_refuses_what_x_refuses(sandbox, body):
    response = _post_tweet(sandbox, body)

    assert response.status_code == 400
    assert response.json()["type"] == "https://api.x.com/2/problems/invalid-request"
    assert sandbox.posts("x") == []


def test_the_stand_in_needs_a_bearer_token(sandbox):
    response = requests.post(f"{sandbox.url}/api.x.com/2/tweets", json={"text": "hi"}, timeout=5)

    assert response.status_code == 401
    assert response.json() == {"title": "Unauthorized", "type": "about:blank", "status": 401, "detail": "Unauthorized"}


def test_media_of_another_account_cannot_be_attached(sandbox, client):
    client.publish(connection(), Post(text="mine", media=[image()]))
    [media_id] = tweet_bodies(sandbox.state)[0]["media"]["media_ids"]

    response = _post_tweet(sandbox, {"text": "theft", "media": {"media_ids": [media_id]}}, tokens.issue("x", "777"))

    assert response.status_code == 400


def _timeline(sandbox, **query):
    headers = {"Authorization": f"Bearer {tokens.issue('x', ACCOUNT)}"}
    url = f"{sandbox.url}/api.x.com/2/users/{ACCOUNT}/tweets"
    return requests.get(url, params=query, headers=headers, timeout=5)


def test_the_stand_in_pages_the_timeline_with_next_token_only_while_more_remain(sandbox):
    posts = _tweets(sandbox, 7)

    first = _timeline(sandbox, max_results=5).json()
    last = _timeline(sandbox, max_results=5, pagination_token=first["meta"]["next_token"]).json()
    exact = _timeline(sandbox, max_results=7).json()

    assert [t["id"] for t in first["data"] + last["data"]] == [p.id for p in reversed(posts)]
    assert first["meta"]["result_count"] == 5
    assert last["meta"] == {"result_count": 2, "newest_id": posts[1].id, "oldest_id": posts[0].id}
    assert "next_token" not in exact["meta"]
    assert exact["meta"]["result_count"] == 7


@pytest.mark.parametrize("query", [{"max_results": 4}, {"max_results": 101}, {"pagination_token": "not*a*token"}])
def test_the_stand_in_refuses_timeline_queries_x_refuses(sandbox, query):
    response = _timeline(sandbox, **query)

    assert response.status_code == 400
    assert response.json()["type"] == "https://api.x.com/2/problems/invalid-request"


def test_the_stand_in_timeline_answers_no_data_and_a_zero_count_when_empty(sandbox):
    assert _timeline(sandbox, max_results=5).json() == {"meta": {"result_count": 0}}


# --- metrics ---------------------------------------------------------------------------------


# --- deleting and reading back ----------------------------------------------------------------


def test_delete_takes_the_post_down_and_a_second_delete_finds_it_gone(sandbox, client):
    post = client.publish(connection(), Post(text="short-lived"))

    first = client.delete(connection(), post.post_id, {})
    again = client.delete(connection(), post.post_id, {})

    assert (first.kind, again.kind) == (OutcomeKind.PUBLISHED, OutcomeKind.PUBLISHED)
    assert (first.http_status, again.http_status) == (200, 404)
    assert sandbox.posts("x") == []
    assert client.exists(connection(), post.post_id, {}) is False


def test_deleting_a_reply_keeps_the_post_it_answers(sandbox, client):
    post = client.publish(connection(), Post(text="the post"))
    reply = client.publish(connection(), Post(text="a reply", reply_to=ReplyTo(post.post_id, post.post_id)))

    assert client.delete(connection(), reply.post_id, {}).kind is OutcomeKind.PUBLISHED

    assert [p["id"] for p in sandbox.posts("x")] == [post.post_id]
    assert client.exists(connection(), post.post_id, {}) is True


@pytest.mark.parametrize(
    ("queued", "kind", "code"),
    [("error", OutcomeKind.FAILED, "FORBIDDEN"), ("rate_limited", OutcomeKind.NOT_SENT, "RATE_LIMITED")],
)
def test_a_refused_delete_keeps_the_post_and_says_why(sandbox, client, queued, kind, code):
    post = client.publish(connection(), Post(text="stays"))
    sandbox.outcomes("x", queued)

    outcome = client.delete(connection(), post.post_id, {})

    assert (outcome.kind, outcome.error_code) == (kind, code)
    assert client.exists(connection(), post.post_id, {}) is True


def test_another_accounts_post_cannot_be_deleted(sandbox, client):
    post = client.publish(connection(account="5151"), Post(text="not yours"))

    outcome = client.delete(connection(), post.post_id, {})

    assert (outcome.kind, outcome.http_status) == (OutcomeKind.FAILED, 403)
    assert "not allowed to delete" in outcome.error_message
    assert len(sandbox.posts("x")) == 1


def test_a_delete_whose_answer_never_comes_is_unknown_and_exists_settles_it(sandbox, client):
    post = client.publish(connection(), Post(text="slow delete"))
    sandbox.outcomes("x", "timeout")

    assert client.delete(connection(), post.post_id, {}).kind is OutcomeKind.UNKNOWN
    assert client.exists(connection(), post.post_id, {}) is False


def test_a_post_removed_on_x_no_longer_exists(sandbox, client):
    post = client.publish(connection(), Post(text="removed in the app"))
    requests.post(f"{sandbox.url}/_sandbox/posts/remove", json={"platform": "x", "id": post.post_id}, timeout=5)

    assert client.exists(connection(), post.post_id, {}) is False


def test_exists_raises_when_x_does_not_answer_or_refuses_the_token(sandbox, client, settings):
    post = client.publish(connection(), Post(text="there"))

    with pytest.raises(PlatformError) as refused:
        client.exists(connection("not-a-token"), post.post_id, {})
    settings.SANDBOX_URL = "http://127.0.0.1:9"  # nothing listens: the connection is refused
    with pytest.raises(PlatformError) as unanswered:
        client.exists(connection(), post.post_id, {})

    assert refused.value.outcome.auth_failed
    assert unanswered.value.outcome.kind is OutcomeKind.NOT_SENT


def test_metrics_are_the_public_metrics_of_a_tweet_lookup(sandbox, client):
    first = client.publish(connection(), Post(text="one")).post_id
    body = {"platform": "x", "post_id": first, "views": 100, "likes": 7, "comments": 3, "shares": 2}
    requests.post(f"{sandbox.url}/_sandbox/metrics", json=body, timeout=5)

    found = client.metrics(connection(), [first])

    assert found[first].extra["impression_count"] == 100
    [lookup] = logged(sandbox.state, "GET", "/api.x.com/2/tweets")
    assert parse_qs(lookup["query"])["post.fields"] == ["public_metrics"]


# --- OAuth 2.0 with PKCE ---------------------------------------------------------------------


def _pkce():
    verifier = base64.urlsafe_b64encode(b"v" * 40).decode().rstrip("=")
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    return verifier, challenge


def _approve(url):
    page = requests.get(url, timeout=5)
    assert page.status_code == 200
    target = re.search(r'id="approve" href="([^"]+)"', page.text).group(1).replace("&amp;", "&")
    return parse_qs(urlsplit(target).query)


def test_the_pkce_flow_end_to_end_gives_credentials_that_publish(sandbox, client):
    verifier, challenge = _pkce()
    redirect = "https://app.example/callback/x"

    url = client.authorize_url(state="s-1", code_challenge=challenge, redirect_uri=redirect, sandbox=True)
    assert url.startswith(f"{sandbox.url}/x.com/i/oauth2/authorize?")
    query = _approve(url)
    credentials = client.exchange_code(
        code=query["code"][0], code_verifier=verifier, redirect_uri=redirect, sandbox=True
    )

    assert query["state"] == ["s-1"]
    assert credentials.external_id.isdigit()
    assert credentials.handle
    assert credentials.refresh_token
    assert credentials.expires_at > dt.datetime.now(dt.UTC)
    conn = Connection(credentials, sandbox=True)
    assert client.publish(conn, Post(text="connected")).kind is OutcomeKind.PUBLISHED
    assert sandbox.posts("x")[0]["account"] == credentials.external_id


def test_a_code_is_single_use_and_bound_to_its_verifier(sandbox, client):
    verifier, challenge = _pkce()
    redirect = "https://app.example/cb"
    code = _approve(client.authorize_url(state="s", code_challenge=challenge, redirect_uri=redirect, sandbox=True))[
        "code"
    ][0]

    with pytest.raises(PlatformError):
        client.exchange_code(code=code, code_verifier="wrong" * 10, redirect_uri=redirect, sandbox=True)
    with pytest.raises(PlatformError):  # the failed attempt used the code up
        client.exchange_code(code=code, code_verifier=verifier, redirect_uri=redirect, sandbox=True)


def test_the_authorize_page_refuses_a_plain_challenge(sandbox, client):
    url = client.authorize_url(state="s", code_challenge="abc", redirect_uri="https://a.example/cb", sandbox=True)

    assert requests.get(url.replace("S256", "plain"), timeout=5).status_code == 400


def test_refresh_rotates_the_refresh_token(sandbox, client):
    old = tokens.issue("x", ACCOUNT, kind="sbr")
    conn = Connection(Credentials(access_token="expired", refresh_token=old, external_id=ACCOUNT), sandbox=True)

    fresh = client.refresh(conn)

    assert fresh.refresh_token
    assert fresh.refresh_token != old
    assert fresh.external_id == ACCOUNT
    assert client.publish(Connection(fresh, sandbox=True), Post(text="refreshed")).kind is OutcomeKind.PUBLISHED
    with pytest.raises(PlatformError):
        client.refresh(conn)  # the old refresh token stopped working
    again = client.refresh(Connection(fresh, sandbox=True))
    assert again.refresh_token not in (old, fresh.refresh_token)


def test_a_client_secret_is_sent_as_basic_auth(sandbox, client, settings):
    settings.X_CLIENT_ID, settings.X_CLIENT_SECRET = "my-client", "s3cret"
    conn = Connection(Credentials(access_token="", refresh_token=tokens.issue("x", ACCOUNT, kind="sbr")), sandbox=True)

    client.refresh(conn)

    [request] = logged(sandbox.state, "POST", "/2/oauth2/token")
    expected = base64.b64encode(b"my-client:s3cret").decode()
    assert request["headers"]["Authorization"] == f"Basic {expected}"
    assert "s3cret" not in request["body"].decode()


def _answer(status, body, headers=None):
    response = requests.Response()
    response.status_code, response._content = status, json.dumps(body).encode()
    response.headers.update(headers or {})
    return response


@pytest.mark.parametrize(
    ("status", "body", "kind", "code"),
    [
        (
            403,
            {
                "detail": "You are not allowed to create a Tweet with duplicate content.",
                "type": "about:blank",
                "title": "Forbidden",
            },
            OutcomeKind.FAILED,
            "DUPLICATE",
        ),
        (
            400,
            {"title": "Invalid Request", "detail": "bad", "type": "https://api.x.com/2/problems/invalid-request"},
            OutcomeKind.FAILED,
            "INVALID_REQUEST",
        ),
        (404, {"errors": [{"message": "gone", "code": 144}]}, OutcomeKind.FAILED, "HTTP_404"),
        (503, {"title": "Service Unavailable"}, OutcomeKind.UNKNOWN, "SERVICE_UNAVAILABLE"),
    ],
)
def test_x_refusals_are_classified_with_their_words(status, body, kind, code):
    outcome = Client().refusal(_answer(status, body))

    assert (outcome.kind, outcome.error_code, outcome.http_status) == (kind, code, status)


# --- alt text --------------------------------------------------------------------------------


def test_each_image_is_described_with_its_alt_text_after_upload(sandbox, client):
    described = dataclasses.replace(image(media_id="a"), alt="A red square")
    plain = image(media_id="b")

    outcome = client.publish(connection(), Post(text="two", media=[described, plain], settings={"sensitive": True}))

    assert outcome.kind is OutcomeKind.PUBLISHED
    bodies = [json.loads(r["body"]) for r in logged(sandbox.state, "POST", "/2/media/metadata")]
    assert [b["metadata"] for b in bodies] == [
        {"alt_text": {"text": "A red square"}, "sensitive_media_warning": {"other": True}},
        {"sensitive_media_warning": {"other": True}},
    ]
    page = requests.get(f"{sandbox.url}/_sandbox/posts/x/{outcome.post_id}", timeout=5).text
    assert "A red square" in page


def test_an_image_without_alt_text_gets_no_metadata_call(sandbox, client):
    client.publish(connection(), Post(text="plain", media=[image()]))

    assert logged(sandbox.state, "POST", "/2/media/metadata") == []


def test_alt_text_is_cut_to_x_limit_and_the_stand_in_refuses_longer(sandbox, client):
    outcome = client.publish(connection(), Post(text="long", media=[dataclasses.replace(image(), alt="x" * 1200)]))

    assert outcome.kind is OutcomeKind.PUBLISHED
    [metadata] = logged(sandbox.state, "POST", "/2/media/metadata")
    sent = json.loads(metadata["body"])
    assert sent["metadata"]["alt_text"]["text"] == "x" * 1000
    too_long = {"id": sent["id"], "metadata": {"alt_text": {"text": "x" * 1001}}}
    with pytest.raises(PlatformError, match="at most 1000"):
        client.call(connection(), "POST", "/media/metadata", json=too_long)

"""What the Bluesky client alone does, against the sandbox over real HTTP: connecting, what a post
becomes on the wire (facets, embeds, replies, first comments), deleting and reading back, validation, and refreshing an
expired session. The outcome matrix every client shares is in test_conformance.py."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from urllib.parse import parse_qs

import pytest
import requests

from accounts.platforms import base
from accounts.platforms.bluesky import BlueskyError, Client, grapheme_count, new_tid
from sandbox import tokens
from sandbox.platforms.bluesky import TID, did_for
from tests.media import files
from tests.platforms.bluesky_helpers import (
    APP_PASSWORD,
    DID,
    HANDLE,
    connection,
    created_records,
    logged,
    media,
    stored,
)

Kind = base.OutcomeKind


@pytest.fixture
def client():
    return Client()


def _record(sandbox, index=0):
    return created_records(sandbox)[index]["record"]


# --- connecting ----------------------------------------------------------------------------------


def test_login_with_an_app_password_gives_a_session_for_the_did(sandbox, client):
    credentials = client.login(identifier=HANDLE, app_password=APP_PASSWORD, sandbox=True)

    assert credentials.external_id == DID == did_for(HANDLE)
    assert credentials.handle == HANDLE
    assert tokens.parse(credentials.access_token).account == DID
    assert tokens.parse(credentials.refresh_token, kind="sbr").account == DID


def test_login_with_a_wrong_password_is_refused(sandbox, client):
    with pytest.raises(BlueskyError) as refused:
        client.login(identifier=HANDLE, app_password="my-real-password", sandbox=True)

    assert refused.value.outcome.auth_failed
    assert refused.value.outcome.error_code == "AuthenticationRequired"


def test_refresh_replaces_both_tokens_and_the_old_refresh_token_is_spent(sandbox, client):
    conn = connection()
    fresh = client.refresh(conn)

    assert fresh.access_token != conn.credentials.access_token
    assert fresh.refresh_token != conn.credentials.refresh_token
    with pytest.raises(BlueskyError):
        client.refresh(conn)


def test_the_oauth_code_flow_is_not_how_bluesky_connects(client):
    with pytest.raises(NotImplementedError, match="app password"):
        client.authorize_url(state="s", code_challenge="c", redirect_uri="https://x.test/cb", sandbox=True)


# --- publishing --------------------------------------------------------------------------------


def test_a_text_post_is_published_and_visible(sandbox, client):
    outcome = client.publish(connection(), base.Post(text="Hello from the sandbox"))

    assert outcome.kind == Kind.PUBLISHED
    rkey = outcome.ref["rkey"]
    assert outcome.post_id == f"at://{DID}/app.bsky.feed.post/{rkey}"
    assert outcome.url == f"https://bsky.app/profile/{DID}/post/{rkey}"
    [post] = sandbox.posts("bluesky")
    assert (post["id"], post["text"], post["account"]) == (outcome.post_id, "Hello from the sandbox", DID)


def test_the_record_key_is_saved_before_the_record_is_created(sandbox, client):
    conn = connection()
    seen_before_create = []
    conn.save_ref = lambda ref: seen_before_create.append((dict(ref), len(stored(sandbox))))

    outcome = client.publish(conn, base.Post(text="keyed"))

    [(ref, posts_then)] = seen_before_create
    assert posts_then == 0
    assert ref == {"rkey": outcome.ref["rkey"], "repo": DID}
    assert created_records(sandbox)[0]["rkey"] == ref["rkey"]
    assert TID.fullmatch(ref["rkey"])


def test_record_keys_are_sortable_tids():
    keys = [new_tid() for _ in range(50)]

    assert all(TID.fullmatch(k) for k in keys)
    assert keys == sorted(keys)
    assert len(set(keys)) == 50


def test_links_mentions_and_hashtags_become_facets_with_utf8_byte_offsets(sandbox, client):
    text = "Café ☕ 👩‍💻 voir https://example.com/a?b=1. merci @alice.bsky.social et @ghost.invalid #ÉtéBleu!"
    client.publish(connection(), base.Post(text=text))

    facets = {f["features"][0]["$type"].rsplit("#")[1]: f for f in _record(sandbox)["facets"]}
    data = text.encode()

    def covered(kind):
        index = facets[kind]["index"]
        return data[index["byteStart"] : index["byteEnd"]].decode()

    assert set(facets) == {"link", "mention", "tag"}  # the unresolvable @ghost.invalid stays text
    assert covered("link") == "https://example.com/a?b=1"
    assert facets["link"]["features"][0]["uri"] == "https://example.com/a?b=1"
    assert covered("mention") == "@alice.bsky.social"
    assert facets["mention"]["features"][0]["did"] == did_for("alice.bsky.social")
    assert covered("tag") == "#ÉtéBleu"
    assert facets["tag"]["features"][0]["tag"] == "ÉtéBleu"


def test_an_image_post_uploads_the_blob_and_embeds_it_with_alt_and_aspect_ratio(sandbox, client):
    png = files.image("PNG", size=(64, 48))
    outcome = client.publish(connection(), base.Post(text="one image", media=[media(png, "image/png")]))

    assert outcome.kind == Kind.PUBLISHED
    [image] = _record(sandbox)["embed"]["images"]
    assert _record(sandbox)["embed"]["$type"] == "app.bsky.embed.images"
    assert image["alt"] == ""
    assert image["aspectRatio"] == {"width": 64, "height": 48}
    assert image["image"]["mimeType"] == "image/png"
    assert image["image"]["size"] == len(png)
    assert sandbox.posts("bluesky")[0]["media_count"] == 1


def test_a_video_post_embeds_the_uploaded_mp4(sandbox, client):
    mp4 = files.video()
    video = media(mp4, "video/mp4", width=640, height=360, duration=2.5)
    outcome = client.publish(connection(), base.Post(text="a clip", media=[video]))

    assert outcome.kind == Kind.PUBLISHED
    embed = _record(sandbox)["embed"]
    assert embed["$type"] == "app.bsky.embed.video"
    assert embed["video"]["mimeType"] == "video/mp4"
    assert embed["aspectRatio"] == {"width": 640, "height": 360}


def test_an_external_link_card_from_settings(sandbox, client):
    card = {"uri": "https://example.com/article", "title": "An article", "description": "Worth reading"}
    outcome = client.publish(connection(), base.Post(text="", settings={"embed": {"external": card}}))

    assert outcome.kind == Kind.PUBLISHED
    assert _record(sandbox)["embed"] == {"$type": "app.bsky.embed.external", "external": card}
    assert _record(sandbox)["text"] == ""


def test_the_reply_setting_makes_the_post_a_reply(sandbox, client):
    parent = client.publish(connection(), base.Post(text="parent"))
    strong = {"uri": parent.ref["uri"], "cid": parent.ref["cid"]}

    outcome = client.publish(
        connection(), base.Post(text="child", settings={"reply": {"root": strong, "parent": strong}})
    )

    assert outcome.kind == Kind.PUBLISHED
    assert _record(sandbox, 1)["reply"] == {"root": strong, "parent": strong}


def _first_comment_of(outcome):
    """The Post publishing sends as the first comment of the published `outcome`."""
    uri, cid = outcome.post_id, outcome.ref["cid"]
    return base.ReplyTo(parent_id=uri, root_id=uri, parent_cid=cid, root_cid=cid)


def test_a_first_comment_is_a_reply_record_to_the_post_and_reads_back(sandbox, client):
    post = client.publish(connection(), base.Post(text="main"))

    comment = client.publish(connection(), base.Post(text="and a comment", reply_to=_first_comment_of(post)))

    assert comment.kind == Kind.PUBLISHED
    strong = {"uri": post.post_id, "cid": post.ref["cid"]}
    assert _record(sandbox, 1)["reply"] == {"root": strong, "parent": strong}
    assert client.check(connection(), comment.ref).post_id == comment.post_id
    assert [p["reply_to"] for p in sandbox.posts("bluesky")] == [None, post.post_id]


def test_the_first_comment_setting_is_not_sent_with_the_post(sandbox, client):
    outcome = client.publish(connection(), base.Post(text="main", settings={"first_comment": "later"}))

    assert outcome.kind == Kind.PUBLISHED
    assert [p.text for p in stored(sandbox)] == ["main"]
    assert "first_comment" not in json.dumps(created_records(sandbox))


# --- deleting and reading back -------------------------------------------------------------------


def test_delete_removes_the_record_and_a_second_delete_finds_it_gone(sandbox, client):
    post = client.publish(connection(), base.Post(text="short-lived"))

    first = client.delete(connection(), post.post_id, post.ref)
    again = client.delete(connection(), post.post_id, post.ref)

    assert (first.kind, again.kind) == (Kind.PUBLISHED, Kind.PUBLISHED)
    assert sandbox.posts("bluesky") == []
    [sent, _] = [json.loads(r["body"]) for r in logged(sandbox, "com.atproto.repo.deleteRecord")]
    assert sent == {"repo": DID, "collection": "app.bsky.feed.post", "rkey": post.ref["rkey"]}
    assert client.exists(connection(), post.post_id, post.ref) is False


def test_deleting_a_reply_leaves_its_parent(sandbox, client):
    post = client.publish(connection(), base.Post(text="main"))
    comment = client.publish(connection(), base.Post(text="comment", reply_to=_first_comment_of(post)))

    assert client.delete(connection(), comment.post_id, comment.ref).kind == Kind.PUBLISHED

    assert [p["id"] for p in sandbox.posts("bluesky")] == [post.post_id]
    assert client.exists(connection(), post.post_id, post.ref) is True


@pytest.mark.parametrize(
    ("queued", "kind", "code"),
    [("error", Kind.FAILED, "InvalidRequest"), ("rate_limited", Kind.NOT_SENT, "RateLimitExceeded")],
)
def test_a_refused_delete_keeps_the_record_and_says_why(sandbox, client, queued, kind, code):
    post = client.publish(connection(), base.Post(text="stays"))
    sandbox.outcomes("bluesky", queued)

    outcome = client.delete(connection(), post.post_id, post.ref)

    assert (outcome.kind, outcome.error_code) == (kind, code)
    assert client.exists(connection(), post.post_id, post.ref) is True


def test_a_delete_whose_answer_never_comes_is_unknown_and_exists_settles_it(sandbox, client):
    post = client.publish(connection(), base.Post(text="slow delete"))
    sandbox.outcomes("bluesky", "timeout")

    outcome = client.delete(connection(), post.post_id, post.ref)

    assert outcome.kind == Kind.UNKNOWN
    assert client.exists(connection(), post.post_id, post.ref) is False


def test_a_post_removed_on_bluesky_no_longer_exists(sandbox, client):
    post = client.publish(connection(), base.Post(text="removed in the app"))
    requests.post(f"{sandbox.url}/_sandbox/posts/remove", json={"platform": "bluesky", "id": post.post_id}, timeout=5)

    assert client.exists(connection(), post.post_id, post.ref) is False


def test_exists_raises_when_bluesky_does_not_answer(sandbox, client, settings):
    post = client.publish(connection(), base.Post(text="there"))
    settings.SANDBOX_URL = "http://127.0.0.1:9"  # nothing listens: the connection is refused

    with pytest.raises(base.PlatformError):
        client.exists(connection(), post.post_id, post.ref)


def test_the_stand_in_deletes_only_records_of_the_signed_in_account(sandbox):
    body = {"repo": "did:plc:someoneelse", "collection": "app.bsky.feed.post", "rkey": "3kabcdefghijk"}
    token = tokens.issue("bluesky", DID)
    url = f"{sandbox.url}/bsky.social/xrpc/com.atproto.repo.deleteRecord"

    refused = requests.post(url, json=body, headers={"Authorization": f"Bearer {token}"}, timeout=5)
    anonymous = requests.post(url, json={**body, "repo": DID}, timeout=5)

    assert (refused.status_code, refused.json()["error"]) == (400, "InvalidRequest")
    assert (anonymous.status_code, anonymous.json()["error"]) == (401, "AuthRequired")


# --- validation ----------------------------------------------------------------------------------


def _codes(client, post):
    return {(p.field, p.code) for p in client.problems(post)}


def test_text_length_counts_graphemes_not_code_points(client):
    family = "👩‍👩‍👧‍👦"  # one grapheme, seven code points, 25 bytes
    emoji_text = "é" * 50 + family * 100 + "ab" * 75
    assert grapheme_count(emoji_text) == 300
    assert len(emoji_text) > 300
    assert len(emoji_text.encode()) <= 3000
    too_many = "x" * 301

    assert client.validate(base.Post(text=emoji_text[:-1] + "🇫🇷")) == []
    assert _codes(client, base.Post(text=too_many)) == {("text", "TEXT_TOO_LONG")}


def test_text_over_3000_bytes_is_refused_even_under_300_graphemes(client):
    text = "👩‍👩‍👧‍👦" * 121  # 121 graphemes, 3025 bytes

    assert _codes(client, base.Post(text=text)) == {("text", "TEXT_TOO_LONG")}


def test_media_rules(client):
    png = media(b"x" * 10, "image/png")
    video = media(b"v" * 10, "video/mp4", duration=10)

    assert _codes(client, base.Post(text="", media=[png] * 5)) == {("media", "TOO_MANY_MEDIA")}
    assert _codes(client, base.Post(text="", media=[png, video])) == {("media", "MIXED_MEDIA")}
    huge = media(b"x", "image/png", size=2_000_001)
    assert client.validate(base.Post(text="", media=[huge])) == []  # a JPEG within 2048 px goes instead
    huge = dataclasses.replace(huge, fit=False)  # platform_settings.fit_media: false
    assert _codes(client, base.Post(text="", media=[huge])) == {("media[0]", "MEDIA_TOO_LARGE")}
    mov = dataclasses.replace(media(b"x", "video/quicktime"), fit=False)
    assert _codes(client, base.Post(text="", media=[mov])) == {("media[0]", "UNSUPPORTED_MEDIA_TYPE")}
    long = media(b"x", "video/mp4", duration=181)
    assert _codes(client, base.Post(text="", media=[long])) == {("media[0]", "VIDEO_TOO_LONG")}
    assert client.validate(base.Post(text="", media=[png] * 4)) == []


def test_an_empty_post_is_refused(client):
    assert _codes(client, base.Post(text="")) == {("text", "EMPTY_POST")}


@pytest.mark.parametrize(
    ("values", "field"),
    [
        ({"first_comment": 5}, "first_comment"),
        ({"first_comment": "x" * 301}, "first_comment"),
        ({"reply": "at://did:plc:x/app.bsky.feed.post/1"}, "reply"),
        ({"reply": {"root": {"uri": "https://x", "cid": "c"}, "parent": {}}}, "reply"),
        ({"embed": {"external": {"uri": "ftp://x", "title": "t", "description": "d"}}}, "embed"),
        ({"embed": "https://example.com"}, "embed"),
    ],
)
def test_known_settings_with_the_wrong_shape_are_named(client, values, field):
    assert {p.field for p in client.problems(base.Post(text="hi", settings=values))} == {field}


def test_unknown_settings_are_ignored_and_a_link_card_cannot_join_media(client):
    card = {"external": {"uri": "https://example.com", "title": "t", "description": "d"}}
    png = media(b"x", "image/png")

    assert client.validate(base.Post(text="hi", settings={"boardId": 1})) == []
    assert _codes(client, base.Post(text="", media=[png], settings={"embed": card})) == {("embed", "EMBED_WITH_MEDIA")}


# --- control outcomes ----------------------------------------------------------------------------


def test_a_second_create_with_the_same_key_is_a_500_like_the_pds(sandbox, client):
    conn = connection()
    client.publish(conn, base.Post(text="once"))
    body = created_records(sandbox)[0]
    url = f"{sandbox.url}/bsky.social/xrpc/com.atproto.repo.createRecord"
    again = requests.post(
        url, json=body, headers={"Authorization": f"Bearer {conn.credentials.access_token}"}, timeout=5
    )

    assert again.status_code == 500
    assert again.json()["error"] == "InternalServerError"
    assert len(stored(sandbox)) == 1


# --- tokens ----------------------------------------------------------------------------------------


def test_an_expired_access_token_is_refreshed_and_the_same_record_created_once(sandbox, client):
    conn = connection(access_token=tokens.issue("bluesky", DID, lifetime_seconds=-10))
    old_refresh = conn.credentials.refresh_token
    outcome = client.publish(conn, base.Post(text="after refresh"))

    assert outcome.kind == Kind.PUBLISHED
    assert conn.credentials.refresh_token != old_refresh
    first, second = created_records(sandbox)
    assert first["rkey"] == second["rkey"] == outcome.ref["rkey"] == conn.saved[0]["rkey"]
    assert len(stored(sandbox)) == 1


def test_an_expired_token_whose_refresh_fails_is_auth_failed(sandbox, client):
    conn = connection(access_token=tokens.issue("bluesky", DID, lifetime_seconds=-10), refresh_token="bad")
    outcome = client.publish(conn, base.Post(text="nope"))

    assert outcome.kind == Kind.FAILED
    assert outcome.auth_failed
    assert stored(sandbox) == []


# --- finding a lost post -------------------------------------------------------------------------


def _publish_many(client, count, text="busy {n}"):
    conn = connection()
    return [client.publish(conn, base.Post(text=text.format(n=n))) for n in range(count)]


def _list_reads(sandbox):
    return [parse_qs(r["query"]) for r in logged(sandbox, "com.atproto.repo.listRecords")]


def test_find_recent_reads_past_the_first_page_of_records(sandbox, client):
    since = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=1)
    [lost] = _publish_many(client, 1, "the lost one")
    _publish_many(client, 60)  # more than one page of newer records

    found = client.find_recent(connection(), base.Post(text="the lost one"), since)

    assert (found.kind, found.post_id) == (Kind.PUBLISHED, lost.post_id)
    reads = _list_reads(sandbox)
    assert len(reads) == 2
    assert "cursor" not in reads[0]
    assert reads[1]["cursor"] == [stored(sandbox)[11].id.rsplit("/", 1)[-1]]  # the 50th newest record's key


def test_find_recent_does_not_take_a_record_older_than_since_and_stops_there(sandbox, client):
    _publish_many(client, 1, "said before")
    since = dt.datetime.now(dt.UTC)
    _publish_many(client, 60)

    found = client.find_recent(connection(), base.Post(text="said before"), since)

    assert (found.kind, found.error_code) == (Kind.FAILED, "NOT_FOUND")
    assert len(_list_reads(sandbox)) == 2


def _list_records(sandbox, **params):
    query = {"repo": DID, "collection": "app.bsky.feed.post", **params}
    return requests.get(f"{sandbox.url}/bsky.social/xrpc/com.atproto.repo.listRecords", params=query, timeout=5)


def test_the_stand_in_lists_records_newest_first_with_the_last_key_as_cursor(sandbox, client):
    keys = [p.post_id.rsplit("/", 1)[-1] for p in _publish_many(client, 5)]

    first = _list_records(sandbox, limit=3).json()
    rest = _list_records(sandbox, limit=3, cursor=first["cursor"]).json()
    after = _list_records(sandbox, limit=3, cursor=rest["cursor"]).json()
    oldest = _list_records(sandbox, limit=2, reverse="true", cursor=keys[0]).json()

    assert [r["uri"].rsplit("/", 1)[-1] for r in first["records"] + rest["records"]] == keys[::-1]
    assert (first["cursor"], rest["cursor"]) == (keys[2], keys[0])
    assert after == {"records": []}
    assert [r["uri"].rsplit("/", 1)[-1] for r in oldest["records"]] == keys[1:3]


@pytest.mark.parametrize("limit", ["0", "101", "ten"])
def test_the_stand_in_refuses_a_list_limit_outside_1_to_100(sandbox, limit):
    response = _list_records(sandbox, limit=limit)

    assert (response.status_code, response.json()["error"]) == (400, "InvalidRequest")


# --- metrics and transport -----------------------------------------------------------------------


def test_metrics_have_no_views_and_count_quotes_and_bookmarks(sandbox, client):
    outcome = client.publish(connection(), base.Post(text="counted"))

    metrics = client.metrics(connection(), [outcome.post_id])

    assert metrics[outcome.post_id].views is None
    assert metrics[outcome.post_id].extra == {"quoteCount": 0, "bookmarkCount": 0}


def test_an_upload_that_gets_no_answer_created_nothing_so_it_is_not_sent(sandbox, client, monkeypatch):
    real = client.session.request

    def upload_times_out(method, url, **kwargs):
        if url.endswith("uploadBlob"):
            raise requests.ReadTimeout()
        return real(method, url, **kwargs)

    monkeypatch.setattr(client.session, "request", upload_times_out)
    png = media(files.image("PNG"), "image/png")

    outcome = client.publish(connection(), base.Post(text="pic", media=[png]))

    assert outcome.kind == Kind.NOT_SENT
    assert stored(sandbox) == []


def test_an_image_alt_text_reaches_the_embed_and_the_sandbox_shows_it(sandbox, client):
    png = files.image("PNG", size=(64, 48))
    described = dataclasses.replace(media(png, "image/png"), alt="A red square")

    outcome = client.publish(connection(), base.Post(text="described", media=[described]))

    assert outcome.kind == Kind.PUBLISHED
    [image] = _record(sandbox)["embed"]["images"]
    assert image["alt"] == "A red square"
    [post] = sandbox.posts("bluesky")
    page = requests.get(f"{sandbox.url}/_sandbox/posts/bluesky/{post['id']}", timeout=5).text
    assert "Alt text 1" in page
    assert "A red square" in page

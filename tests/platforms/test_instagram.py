"""What the Instagram client alone does, against the sandbox over real HTTP: containers pulled
from the loopback file server, carousels and reels, first comments, deleting comments and
reading back, validation, tokens, the OAuth code flow and insights. The outcome matrix every
client shares is in test_conformance.py."""

from __future__ import annotations

import dataclasses
import datetime as dt
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from accounts.platforms import base
from accounts.platforms.instagram import Client
from sandbox import tokens
from tests.media import files
from tests.platforms.file_server import serve_files
from tests.platforms.instagram_helpers import (
    ACCOUNT,
    connection,
    container_bodies,
    jpeg,
    logged,
    media,
    mp4,
    params_of,
    stored,
)

Kind = base.OutcomeKind


@pytest.fixture
def client():
    client = Client()
    client.poll_seconds = 0
    return client


@pytest.fixture
def server():
    yield from serve_files()


def _codes(client, post):
    return {(p.field, p.code) for p in client.problems(post)}


# --- publishing ----------------------------------------------------------------------------------


def test_a_text_only_post_is_not_possible_on_instagram(client):
    assert _codes(client, base.Post(text="just words")) == {("media", "MEDIA_REQUIRED")}


def test_an_image_post_is_a_container_pulled_from_the_url_then_published(sandbox, client, server):
    image = jpeg(server)
    outcome = client.publish(connection(), base.Post(text="Hello #sandbox", media=[image]))

    assert outcome.kind == Kind.PUBLISHED
    [body] = container_bodies(sandbox)
    assert body == {"image_url": image.pull_url(), "caption": "Hello #sandbox"}
    assert server.hits == [urlsplit(image.pull_url()).path]
    assert outcome.url.startswith("https://www.instagram.com/p/")
    [publish] = logged(sandbox, "POST", "/media_publish")
    assert params_of(publish) == {"creation_id": outcome.ref["container_id"]}


def test_the_container_id_is_saved_before_media_publish(sandbox, client, server):
    conn = connection()
    seen = []
    conn.save_ref = lambda ref: seen.append((dict(ref), len(stored(sandbox))))

    outcome = client.publish(conn, base.Post(text="keyed", media=[jpeg(server)]))

    [(ref, posts_then)] = seen
    assert posts_then == 0
    assert ref["container_id"] == outcome.ref["container_id"]
    assert (ref["ig_user_id"], ref["caption"]) == (ACCOUNT, "keyed")
    assert stored(sandbox)[0].extra["container_id"] == ref["container_id"]


def test_several_items_make_a_carousel_of_child_containers(sandbox, client, server):
    items = [jpeg(server), jpeg(server), mp4(server)]
    outcome = client.publish(connection(), base.Post(text="album", media=items))

    assert outcome.kind == Kind.PUBLISHED
    *children, carousel = container_bodies(sandbox)
    assert children == [
        {"image_url": items[0].pull_url(), "is_carousel_item": True},
        {"image_url": items[1].pull_url(), "is_carousel_item": True},
        {"media_type": "VIDEO", "video_url": items[2].pull_url(), "is_carousel_item": True},
    ]
    assert carousel["media_type"] == "CAROUSEL"
    assert carousel["caption"] == "album"
    assert len(carousel["children"]) == 3
    assert sandbox.posts("instagram")[0]["media_count"] == 3
    assert stored(sandbox)[0].extra["media_type"] == "CAROUSEL_ALBUM"


def test_a_video_is_published_as_a_reel_after_its_container_finishes(sandbox, client, server):
    video = mp4(server)
    outcome = client.publish(connection(), base.Post(text="a clip", media=[video]))

    assert outcome.kind == Kind.PUBLISHED
    [body] = container_bodies(sandbox)
    assert body == {"media_type": "REELS", "video_url": video.pull_url(), "caption": "a clip"}
    assert len(logged(sandbox, "GET", f"/{outcome.ref['container_id']}")) == 2  # IN_PROGRESS, then FINISHED
    assert outcome.url.startswith("https://www.instagram.com/reel/")
    assert stored(sandbox)[0].extra["product"] == "REELS"


# --- validation ----------------------------------------------------------------------------------


def test_caption_limits(client):
    image = jpeg(None)

    assert client.validate(base.Post(text="x" * 2200, media=[image])) == []
    assert _codes(client, base.Post(text="x" * 2201, media=[image])) == {("text", "TEXT_TOO_LONG")}
    tags = " ".join(f"#t{n}" for n in range(31))
    assert _codes(client, base.Post(text=tags, media=[image])) == {("text", "TOO_MANY_HASHTAGS")}
    mentions = " ".join(f"@user{n}" for n in range(21))
    assert _codes(client, base.Post(text=mentions, media=[image])) == {("text", "TOO_MANY_MENTIONS")}


def test_media_limits(client):
    image = jpeg(None)

    assert client.validate(base.Post(text="", media=[image] * 10)) == []
    assert _codes(client, base.Post(text="", media=[image] * 11)) == {("media", "TOO_MANY_MEDIA")}
    png = media(None, files.image("PNG"), "image/png")
    unfitted = dataclasses.replace(png, fit=False)  # platform_settings.fit_media: false
    assert _codes(client, base.Post(text="", media=[unfitted])) == {("media[0]", "UNSUPPORTED_MEDIA_TYPE")}
    assert _codes(client, base.Post(text="", media=[png])) == set()  # a JPEG rendition goes instead
    big = media(None, b"x", "image/jpeg", size=8 * 1024 * 1024 + 1)
    unfitted = dataclasses.replace(big, fit=False)
    assert _codes(client, base.Post(text="", media=[unfitted])) == {("media[0]", "MEDIA_TOO_LARGE")}
    assert _codes(client, base.Post(text="", media=[big])) == set()  # re-encoded within 2048 px
    assert _codes(client, base.Post(text="", media=[mp4(None, seconds=2)])) == {("media[0]", "VIDEO_TOO_SHORT")}
    assert _codes(client, base.Post(text="", media=[mp4(None, seconds=901)])) == {("media[0]", "VIDEO_TOO_LONG")}
    huge = media(None, b"v", "video/mp4", size=300 * 1024 * 1024 + 1, duration=10)
    assert _codes(client, base.Post(text="", media=[huge])) == {("media[0]", "MEDIA_TOO_LARGE")}
    assert client.validate(base.Post(text="", media=[image, mp4(None)])) == []  # carousels mix


@pytest.mark.parametrize(
    ("width", "height", "ok"), [(1080, 1350, True), (1910, 1000, True), (100, 200, False), (300, 100, False)]
)
def test_feed_images_must_be_between_4_5_and_1_91_1(client, width, height, ok):
    image = media(None, b"x", "image/jpeg", width=width, height=height)
    expected = set() if ok else {("media[0]", "UNSUPPORTED_ASPECT_RATIO")}

    assert _codes(client, base.Post(text="", media=[image])) == expected


@pytest.mark.parametrize("value", [5, ["a"], "x" * 2201])
def test_first_comment_with_the_wrong_shape_is_named(client, value):
    problems = client.problems(base.Post(text="", media=[jpeg(None)], settings={"first_comment": value}))

    assert {p.field for p in problems} == {"first_comment"}


def test_unknown_settings_are_ignored(client):
    assert client.validate(base.Post(text="", media=[jpeg(None)], settings={"boardId": 1})) == []


# --- control outcomes ----------------------------------------------------------------------------


def test_timeout_is_unknown_and_check_settles_it_with_one_post(sandbox, client, server):
    sandbox.outcomes("instagram", "timeout")
    conn = connection()
    outcome = client.publish(conn, base.Post(text="slow", media=[jpeg(server)]))

    assert outcome.kind == Kind.UNKNOWN
    assert outcome.ref["container_id"] == conn.saved[-1]["container_id"]
    checked = client.check(conn, conn.saved[-1])
    assert checked.kind == Kind.PUBLISHED
    assert [p.id for p in stored(sandbox)] == [checked.post_id]
    assert checked.url.startswith("https://www.instagram.com/p/")
    assert len(logged(sandbox, "POST", "/media_publish")) == 1  # never published twice


def test_a_pending_carousel_item_makes_the_post_processing_until_it_finishes(sandbox, client, server):
    client.status_polls = 1
    conn = connection()
    outcome = client.publish(conn, base.Post(text="album", media=[jpeg(server), mp4(server)]))

    assert outcome.kind == Kind.PROCESSING
    assert "container_id" not in outcome.ref
    checked = client.check(conn, outcome.ref)
    assert checked.kind == Kind.PUBLISHED
    assert conn.saved[-1]["container_id"] == checked.ref["container_id"]
    assert len(stored(sandbox)) == 1


# --- finding a lost post -------------------------------------------------------------------------


def _media(sandbox, count, *, age=dt.timedelta(0), text="busy {n}"):
    """Feed images of the test account straight in the sandbox state, `age` old."""
    posts = []
    for n in range(count):
        post = sandbox.state.add_post("instagram", ACCOUNT, text.format(n=n), 1, media_type="IMAGE", product="FEED")
        created = dt.datetime.fromisoformat(post.created_at.replace("Z", "+00:00")) - age
        post.created_at = created.isoformat().replace("+00:00", "Z")
        posts.append(post)
    return posts


def _media_reads(sandbox):
    return [parse_qs(r["query"]) for r in logged(sandbox, "GET", f"/{ACCOUNT}/media")]


def _since():
    return dt.datetime.now(dt.UTC) - dt.timedelta(minutes=1)


def test_find_recent_reads_past_the_first_page_of_media(sandbox, client):
    [lost] = _media(sandbox, 1, text="the lost one")
    _media(sandbox, 30)  # more than one page of newer media

    found = client.find_recent(connection(), base.Post(text="the lost one"), _since())

    assert (found.kind, found.post_id) == (Kind.PUBLISHED, lost.id)
    reads = _media_reads(sandbox)
    assert len(reads) == 2
    assert "after" not in reads[0]
    assert reads[1]["after"]
    assert reads[1]["since"] == reads[0]["since"]


def test_find_recent_does_not_take_media_older_than_since(sandbox, client):
    _media(sandbox, 1, age=dt.timedelta(hours=1), text="said before")
    _media(sandbox, 30)

    found = client.find_recent(connection(), base.Post(text="said before"), _since())

    assert (found.kind, found.error_code) == (Kind.FAILED, "NOT_FOUND")
    assert len(_media_reads(sandbox)) == 2  # the second page links no next one


def test_find_recent_reads_at_most_max_recent_pages(sandbox, client):
    _media(sandbox, 1, text="too deep")
    _media(sandbox, base.MAX_RECENT_PAGES * 25)

    found = client.find_recent(connection(), base.Post(text="too deep"), _since())

    assert (found.kind, found.error_code) == (Kind.FAILED, "NOT_FOUND")
    assert len(_media_reads(sandbox)) == base.MAX_RECENT_PAGES


def _list_media(sandbox, **query):
    headers = {"Authorization": f"Bearer {connection().credentials.access_token}"}
    url = f"{sandbox.url}/graph.instagram.com/v25.0/{ACCOUNT}/media"
    return requests.get(url, params={"fields": "id,caption", **query}, headers=headers, timeout=5)


def test_the_stand_in_pages_media_by_cursor_with_next_only_while_more_remain(sandbox):
    posts = _media(sandbox, 7)

    first = _list_media(sandbox, limit=5).json()
    last = _list_media(sandbox, limit=5, after=first["paging"]["cursors"]["after"]).json()

    assert [m["id"] for m in first["data"] + last["data"]] == [p.id for p in reversed(posts)]
    assert set(first["paging"]) == {"cursors", "next"}
    assert parse_qs(urlsplit(first["paging"]["next"]).query)["after"] == [first["paging"]["cursors"]["after"]]
    assert set(last["paging"]) == {"cursors", "previous"}
    assert _list_media(sandbox, since="4102444800").json() == {"data": []}  # nothing after 2100


@pytest.mark.parametrize("query", [{"after": "bm90LWFuLWlk"}, {"after": "not*base64"}, {"limit": "0"}])
def test_the_stand_in_refuses_a_cursor_or_limit_graph_refuses(sandbox, query):
    _media(sandbox, 2)

    response = _list_media(sandbox, **query)

    assert (response.status_code, response.json()["error"]["code"]) == (400, 100)


# --- what the stand-in refuses -----------------------------------------------------------------


def test_media_instagram_cannot_fetch_is_refused(sandbox, client):
    outcome = client.publish(connection(), base.Post(text="", media=[jpeg(None)]))  # a closed port

    assert (outcome.kind, outcome.error_code) == (Kind.FAILED, "9004/2207052")
    assert stored(sandbox) == []


def test_a_png_that_skipped_validation_is_refused_by_the_stand_in(sandbox, client, server):
    png = media(server, files.image("PNG"), "image/png")
    outcome = client.publish(connection(), base.Post(text="", media=[png]))

    assert (outcome.kind, outcome.error_code) == (Kind.FAILED, "36001/2207005")


def test_publishing_a_container_before_it_is_finished_is_refused(sandbox, server):
    conn = connection()
    headers = {"Authorization": f"Bearer {conn.credentials.access_token}"}
    graph = f"{sandbox.url}/graph.instagram.com/v25.0/{ACCOUNT}"
    video = mp4(server)
    created = requests.post(
        f"{graph}/media", json={"media_type": "REELS", "video_url": video.pull_url()}, headers=headers, timeout=5
    )
    early = requests.post(
        f"{graph}/media_publish", json={"creation_id": created.json()["id"]}, headers=headers, timeout=5
    )

    assert early.status_code == 400
    assert (early.json()["error"]["code"], early.json()["error"]["error_subcode"]) == (9007, 2207027)


# --- tokens --------------------------------------------------------------------------------------


def test_refresh_gives_a_new_60_day_token_that_publishes(sandbox, client, server):
    conn = connection()
    fresh = client.refresh(conn)

    assert fresh.access_token != conn.credentials.access_token
    assert fresh.external_id == ACCOUNT
    assert fresh.expires_at > dt.datetime.now(dt.UTC) + dt.timedelta(days=59)
    refreshed = base.Connection(fresh, sandbox=True)
    assert client.publish(refreshed, base.Post(text="fresh", media=[jpeg(server)])).kind == Kind.PUBLISHED


def test_a_short_lived_or_expired_token_cannot_be_refreshed(sandbox, client):
    for token in (
        tokens.issue("instagram", ACCOUNT, lifetime_seconds=3600),
        tokens.issue("instagram", ACCOUNT, lifetime_seconds=-5),
    ):
        with pytest.raises(base.PlatformError):
            client.refresh(connection(access_token=token))


def test_the_oauth_code_flow_gives_credentials_that_publish(sandbox, client, server):
    redirect = "https://app.example/callback"
    url = client.authorize_url(state="st-1", code_challenge="unused", redirect_uri=redirect, sandbox=True)
    query = parse_qs(urlsplit(url).query)
    assert urlsplit(url).path == "/www.instagram.com/oauth/authorize"
    assert query["client_id"] == ["sandbox-instagram-client"]
    assert "code_challenge" not in query

    page = requests.get(url, timeout=5).text
    target = page.split('id="approve" href="', 1)[1].split('"', 1)[0].replace("&amp;", "&")
    returned = parse_qs(urlsplit(target).query)
    assert target.startswith(redirect)
    assert returned["state"] == ["st-1"]

    credentials = client.exchange_code(code=returned["code"][0], code_verifier="", redirect_uri=redirect, sandbox=True)
    assert credentials.external_id.startswith("1784")
    assert credentials.handle == f"sandbox_{credentials.external_id}"
    assert credentials.expires_at > dt.datetime.now(dt.UTC) + dt.timedelta(days=59)
    assert "instagram_business_content_publish" in credentials.metadata["permissions"]
    conn = base.Connection(credentials, sandbox=True)
    assert client.publish(conn, base.Post(text="connected", media=[jpeg(server)])).kind == Kind.PUBLISHED
    with pytest.raises(base.PlatformError, match="already used"):
        client.exchange_code(code=returned["code"][0], code_verifier="", redirect_uri=redirect, sandbox=True)


# --- metrics and transport -----------------------------------------------------------------------


def test_metrics_come_from_the_insights_edge(sandbox, client, server):
    outcome = client.publish(connection(), base.Post(text="counted", media=[jpeg(server)]))
    body = {"platform": "instagram", "post_id": outcome.post_id, "views": 90, "likes": 7, "comments": 3, "shares": 2}
    requests.post(f"{sandbox.url}/_sandbox/metrics", json=body, timeout=5)

    found = client.metrics(connection(), [outcome.post_id])

    assert found[outcome.post_id].extra == {"reach": 90, "saved": 0, "total_interactions": 12}
    [insights] = logged(sandbox, "GET", f"/{outcome.post_id}/insights")
    assert params_of(insights)["metric"] == "views,reach,likes,comments,shares,saved,total_interactions"


def test_a_lost_answer_before_media_publish_created_nothing_so_it_is_not_sent(sandbox, client, server, monkeypatch):
    def no_answer(*args, **kwargs):
        raise requests.ReadTimeout()

    monkeypatch.setattr(client.session, "request", no_answer)
    outcome = client.publish(connection(), base.Post(text="pic", media=[jpeg(server)]))

    assert outcome.kind == Kind.NOT_SENT
    assert stored(sandbox) == []


# --- alt text ----------------------------------------------------------------------------------


def test_an_image_container_carries_its_alt_text(sandbox, client, server):
    image = dataclasses.replace(jpeg(server), alt="A red square")

    outcome = client.publish(connection(), base.Post(text="described", media=[image]))

    assert outcome.kind == Kind.PUBLISHED
    [body] = container_bodies(sandbox)
    assert body["alt_text"] == "A red square"
    page = requests.get(f"{sandbox.url}/_sandbox/posts/instagram/{outcome.post_id}", timeout=5).text
    assert "A red square" in page


def test_a_reel_is_sent_without_alt_text_which_instagram_takes_only_on_images(sandbox, client, server):
    reel = dataclasses.replace(mp4(server), alt="A clip")

    client.publish(connection(), base.Post(text="clip", media=[reel]))

    [body] = container_bodies(sandbox)
    assert "alt_text" not in body


def test_the_instagram_stand_in_refuses_alt_text_on_video_or_over_1000_characters():
    from sandbox.platforms import instagram as stand_in

    image = {"image_url": "https://example.com/a.jpg"}
    assert stand_in._alt_text_problem({**image, "alt_text": "x" * 1000}) == ""
    assert "1000" in stand_in._alt_text_problem({**image, "alt_text": "x" * 1001})
    reel = {"media_type": "REELS", "video_url": "https://example.com/a.mp4", "alt_text": "x"}
    assert "only for images" in stand_in._alt_text_problem(reel)


# --- first comments, deleting, reading back -------------------------------------------------------


def _comment_on(media_id, text="#more tags"):
    return base.Post(text=text, reply_to=base.ReplyTo(parent_id=media_id, root_id=media_id))


def _sandbox_comments(sandbox):
    answer = requests.get(f"{sandbox.url}/_sandbox/comments", params={"platform": "instagram"}, timeout=5)
    return answer.json()["comments"]


def _remove(sandbox, media_id):
    body = {"platform": "instagram", "id": media_id}
    requests.post(f"{sandbox.url}/_sandbox/posts/remove", json=body, timeout=5).raise_for_status()


def test_publish_no_longer_comments_on_its_own(sandbox, client, server):
    outcome = client.publish(
        connection(), base.Post(text="main", media=[jpeg(server)], settings={"first_comment": "c"})
    )

    assert outcome.kind == Kind.PUBLISHED
    assert logged(sandbox, "POST", "/comments") == []
    assert set(outcome.ref) == {"ig_user_id", "since", "caption", "container_id", "media_id"}


def test_a_first_comment_is_the_accounts_comment_on_its_media(sandbox, client, server):
    post = client.publish(connection(), base.Post(text="main", media=[jpeg(server)]))

    comment = client.publish(connection(), _comment_on(post.post_id))

    assert comment.kind == Kind.PUBLISHED
    assert comment.ref == {"comment_id": comment.post_id, "parent_id": post.post_id}
    [request] = logged(sandbox, "POST", f"/{post.post_id}/comments")
    assert params_of(request) == {"message": "#more tags"}
    [listed] = _sandbox_comments(sandbox)
    assert (listed["id"], listed["post_id"], listed["account"], listed["text"]) == (
        comment.post_id,
        post.post_id,
        ACCOUNT,
        "#more tags",
    )
    assert len(container_bodies(sandbox)) == 1  # a comment makes no container


def test_a_comment_is_read_back_by_check_and_found_by_find_recent(sandbox, client, server):
    post = client.publish(connection(), base.Post(text="main", media=[jpeg(server)]))
    client.publish(connection(), _comment_on(post.post_id, "another"))
    comment = client.publish(connection(), _comment_on(post.post_id))
    since = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=1)

    checked = client.check(connection(), comment.ref)
    found = client.find_recent(connection(), _comment_on(post.post_id), since)
    absent = client.find_recent(connection(), _comment_on(post.post_id, "never said"), since)

    assert (checked.kind, checked.post_id) == (Kind.PUBLISHED, comment.post_id)
    assert (found.kind, found.ref) == (Kind.PUBLISHED, comment.ref)
    assert (absent.kind, absent.error_code) == (Kind.FAILED, "NOT_FOUND")


def test_a_comment_timeout_is_settled_by_find_recent_with_one_comment(sandbox, client, server):
    post = client.publish(connection(), base.Post(text="main", media=[jpeg(server)]))
    sandbox.outcomes("instagram", "timeout")
    since = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=1)

    lost = client.publish(connection(), _comment_on(post.post_id))
    found = client.find_recent(connection(), _comment_on(post.post_id), since)

    assert lost.kind == Kind.UNKNOWN
    assert found.kind == Kind.PUBLISHED
    assert [c["id"] for c in _sandbox_comments(sandbox)] == [found.post_id]


@pytest.mark.parametrize(
    ("outcome", "kind", "code"),
    [("error", Kind.FAILED, "100"), ("rate_limited", Kind.NOT_SENT, "80002")],
)
def test_a_refused_comment_says_so(sandbox, client, server, outcome, kind, code):
    post = client.publish(connection(), base.Post(text="main", media=[jpeg(server)]))
    sandbox.outcomes("instagram", outcome)

    comment = client.publish(connection(), _comment_on(post.post_id))

    assert (comment.kind, comment.error_code) == (kind, code)
    assert _sandbox_comments(sandbox) == []


def test_a_comment_that_is_gone_is_not_found_by_check(sandbox, client, server):
    post = client.publish(connection(), base.Post(text="main", media=[jpeg(server)]))
    comment = client.publish(connection(), _comment_on(post.post_id))
    _remove(sandbox, post.post_id)

    checked = client.check(connection(), comment.ref)

    assert (checked.kind, checked.error_code) == (Kind.FAILED, "NOT_FOUND")


def test_a_comment_is_deleted_and_a_post_is_refused_with_the_reason(sandbox, client, server):
    post = client.publish(connection(), base.Post(text="main", media=[jpeg(server)]))
    comment = client.publish(connection(), _comment_on(post.post_id))

    deleted = client.delete(connection(), comment.post_id, comment.ref)
    refused = client.delete(connection(), post.post_id, post.ref)

    assert deleted.kind == Kind.PUBLISHED
    assert [r["path"] for r in sandbox.state.requests if r["method"] == "DELETE"] == [
        f"/graph.instagram.com/v25.0/{comment.post_id}"
    ]
    assert _sandbox_comments(sandbox) == []
    assert (refused.kind, refused.error_code) == (Kind.FAILED, "DELETE_UNSUPPORTED")
    assert refused.error_message == "Instagram has no delete call for posts: delete it in the app."
    assert [p.id for p in stored(sandbox)] == [post.post_id]


def test_a_comment_deleted_twice_is_deleted(sandbox, client, server):
    post = client.publish(connection(), base.Post(text="main", media=[jpeg(server)]))
    comment = client.publish(connection(), _comment_on(post.post_id))
    client.delete(connection(), comment.post_id, comment.ref)

    again = client.delete(connection(), comment.post_id, comment.ref)

    assert again.kind == Kind.PUBLISHED


@pytest.mark.parametrize(
    ("outcome", "kind", "code"),
    [("error", Kind.FAILED, "10"), ("rate_limited", Kind.NOT_SENT, "80002"), ("timeout", Kind.UNKNOWN, "NO_ANSWER")],
)
def test_a_refused_or_lost_comment_delete_says_so(sandbox, client, server, outcome, kind, code):
    post = client.publish(connection(), base.Post(text="main", media=[jpeg(server)]))
    comment = client.publish(connection(), _comment_on(post.post_id))
    sandbox.outcomes("instagram", outcome)

    deleted = client.delete(connection(), comment.post_id, comment.ref)

    assert (deleted.kind, deleted.error_code) == (kind, code)
    assert client.exists(connection(), comment.post_id, comment.ref) is (outcome != "timeout")


def test_exists_until_the_media_is_removed_on_instagram(sandbox, client, server):
    post = client.publish(connection(), base.Post(text="main", media=[jpeg(server)]))
    comment = client.publish(connection(), _comment_on(post.post_id))

    before = [client.exists(connection(), o.post_id, o.ref) for o in (post, comment)]
    _remove(sandbox, post.post_id)
    after = [client.exists(connection(), o.post_id, o.ref) for o in (post, comment)]

    assert before == [True, True]
    assert after == [False, False]  # the comments go with their media


def test_exists_raises_on_a_refused_token(sandbox, client, server):
    post = client.publish(connection(), base.Post(text="main", media=[jpeg(server)]))
    token = tokens.issue("instagram", ACCOUNT)
    requests.post(f"{sandbox.url}/_sandbox/tokens/revoke", json={"token": token}, timeout=5)

    with pytest.raises(base.PlatformError):
        client.exists(connection(access_token=token), post.post_id, post.ref)


def test_first_comment_rules_are_a_captions(client):
    tags = " ".join(f"#t{i}" for i in range(31))

    assert [p.code for p in client.first_comment_problems("x" * 2201)] == ["FIRST_COMMENT_TOO_LONG"]
    assert [p.code for p in client.first_comment_problems(tags)] == ["TOO_MANY_HASHTAGS"]
    assert client.first_comment_problems("#one @two") == []

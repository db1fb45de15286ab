"""What the LinkedIn client alone does, against the LinkedIn stand-in over real HTTP: publishing,
little-text escaping, first comments, deleting and reading back, validation, LinkedIn's refusals,
metrics and the OAuth 2.0 code flow. The
outcome matrix every client shares is in test_conformance.py."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import re
from urllib.parse import parse_qs, quote, urlsplit

import pytest
import requests

from accounts.platforms.base import Connection, Credentials, OutcomeKind, PlatformError, Post, ReplyTo
from accounts.platforms.linkedin import Client, escape_little_text
from sandbox import tokens
from sandbox.platforms import linkedin as stand_in
from sandbox.platforms.linkedin import render_little_text
from tests.media import files
from tests.platforms.linkedin_helpers import ACCOUNT, AUTHOR, connection, image, logged, media, post_bodies, video

MB = 1024 * 1024


@pytest.fixture
def client():
    client = Client()
    client.poll_interval_seconds = 0
    return client


def _codes(problems):
    return {(p.field, p.code) for p in problems}


def _since():
    return dt.datetime.now(dt.UTC) - dt.timedelta(seconds=5)


# --- publishing ------------------------------------------------------------------------------


def test_a_text_post_is_published_with_its_urn_and_url(sandbox, client):
    outcome = client.publish(connection(), Post(text="Hello from the sandbox"))

    assert outcome.kind is OutcomeKind.PUBLISHED
    assert outcome.post_id.startswith("urn:li:share:")
    assert outcome.url == f"https://www.linkedin.com/feed/update/{outcome.post_id}/"
    [body] = post_bodies(sandbox.state)
    assert body["author"] == AUTHOR
    assert (body["visibility"], body["lifecycleState"]) == ("PUBLIC", "PUBLISHED")
    [request] = logged(sandbox.state, "POST", "/rest/posts")
    assert request["headers"]["Linkedin-Version"].isdigit()
    assert request["headers"]["X-Restli-Protocol-Version"] == "2.0.0"


def test_reserved_characters_are_escaped_so_nothing_is_cut(sandbox, client):
    text = "Ship it (v2) [beta] <now> a_b *bold* ~x~ {y} @bob | back\\slash #launch C# done"

    client.publish(connection(), Post(text=text))

    assert sandbox.posts("linkedin")[0]["text"] == text
    commentary = post_bodies(sandbox.state)[0]["commentary"]
    assert "\\(v2\\)" in commentary
    assert " #launch" in commentary  # a hashtag stays a hashtag
    assert "C\\#" in commentary


def test_unescaped_text_is_silently_cut_by_the_stand_in():
    assert render_little_text("before (after)") == "before "
    assert render_little_text(escape_little_text("before (after)")) == "before (after)"
    assert render_little_text("hi @[Ada](urn:li:person:1) #tag") == "hi Ada #tag"


def test_the_author_may_be_given_as_a_urn(sandbox, client):
    outcome = client.publish(connection(external_id=AUTHOR), Post(text="urn author"))

    assert outcome.kind is OutcomeKind.PUBLISHED
    assert post_bodies(sandbox.state)[0]["author"] == AUTHOR


def test_an_image_post_uploads_then_references_the_image_urn(sandbox, client):
    refs = []
    outcome = client.publish(connection(refs=refs), Post(text="a picture", media=[image()]))

    assert outcome.kind is OutcomeKind.PUBLISHED
    [init] = logged(sandbox.state, "POST", "/rest/images")
    assert init["query"] == "action=initializeUpload"
    assert json.loads(init["body"]) == {"initializeUploadRequest": {"owner": AUTHOR}}
    [put] = [r for r in sandbox.state.requests if r["method"] == "PUT"]
    assert put["body"] == files.image("PNG")
    content = post_bodies(sandbox.state)[0]["content"]
    assert content["media"]["id"].startswith("urn:li:image:")
    assert refs == [{"author": AUTHOR, "media_ids": content["media"]["id"]}]
    assert sandbox.posts("linkedin")[0]["media_count"] == 1


def test_several_images_make_one_multi_image_post(sandbox, client):
    pictures = [image(media_id=f"i{n}") for n in range(3)] + [
        image("JPEG", "image/jpeg", "j"),
        image("GIF", "image/gif"),
    ]

    outcome = client.publish(connection(), Post(text="", media=pictures))

    assert outcome.kind is OutcomeKind.PUBLISHED
    images = post_bodies(sandbox.state)[0]["content"]["multiImage"]["images"]
    assert len(images) == 5
    assert sandbox.posts("linkedin")[0]["media_count"] == 5


def test_a_video_is_sent_in_parts_finalized_and_waited_for(sandbox, client, monkeypatch):
    monkeypatch.setattr(stand_in, "PART_BYTES", 1024)  # files.video() is about 4.4 kB: five parts

    outcome = client.publish(connection(), Post(text="a video", media=[video()], settings={"title": "My clip"}))

    assert outcome.kind is OutcomeKind.PUBLISHED
    puts = [r for r in sandbox.state.requests if r["method"] == "PUT"]
    assert len(puts) == 5
    [finalize] = [r for r in logged(sandbox.state, "POST", "/rest/videos") if "finalize" in r["query"]]
    assert len(json.loads(finalize["body"])["finalizeUploadRequest"]["uploadedPartIds"]) == 5
    assert len([r for r in sandbox.state.requests if r["method"] == "GET" and "/rest/videos/" in r["path"]]) == 2
    media_part = post_bodies(sandbox.state)[0]["content"]["media"]
    assert media_part["id"].startswith("urn:li:video:")
    assert media_part["title"] == "My clip"


def test_every_linkedin_setting_reaches_the_request(sandbox, client):
    audience = {"geoLocations": ["urn:li:geo:103644278"], "seniorities": ["urn:li:seniority:4"]}
    organization = connection(external_id="urn:li:organization:5515715")
    posts = [
        (connection(), Post(text="friends", settings={"visibility": "CONNECTIONS"})),
        (connection(), Post(text="members", settings={"visibility": "LOGGED_IN_MEMBERS"})),
        (organization, Post(text="targeted", settings={"target_audience": audience})),
        (connection(), Post(text="titled", media=[image()], settings={"title": "A title"})),
    ]

    assert [client.publish(conn, post).kind for conn, post in posts] == [OutcomeKind.PUBLISHED] * 4

    friends, members, targeted, titled = post_bodies(sandbox.state)
    assert friends["visibility"] == "CONNECTIONS"
    assert members["visibility"] == "LOGGED_IN"
    assert targeted["distribution"]["targetEntities"] == [audience]
    assert targeted["author"] == "urn:li:organization:5515715"
    assert titled["content"]["media"]["title"] == "A title"


def test_unknown_settings_are_ignored(sandbox, client):
    post = Post(text="plain", settings={"something_else": 1})

    assert client.validate(post) == []
    assert client.publish(connection(), post).kind is OutcomeKind.PUBLISHED
    assert set(post_bodies(sandbox.state)[0]) == {
        "author", "commentary", "visibility", "distribution", "lifecycleState", "isReshareDisabledByAuthor",
    }  # fmt: skip


# --- validation ------------------------------------------------------------------------------


def test_3000_characters_pass_and_3001_do_not(client):
    assert client.validate(Post(text="a" * 3000)) == []
    assert _codes(client.validate(Post(text="a" * 3001))) == {("text", "TEXT_TOO_LONG")}


def test_commentary_or_media_is_required(client):
    assert _codes(client.validate(Post(text="  "))) == {("text", "EMPTY_POST")}
    assert client.validate(Post(text="", media=[image()])) == []


@pytest.mark.parametrize(
    ("media_list", "field", "code"),
    [
        ([image(media_id=f"i{n}") for n in range(21)], "media", "TOO_MANY_MEDIA"),
        ([image(), video()], "media", "MIXED_MEDIA"),
        ([video(), video()], "media", "TOO_MANY_MEDIA"),
        ([media(b"x", "image/png", size=6 * MB)], "media[0]", "MEDIA_TOO_LARGE"),
        ([media(b"x", "image/webp")], "media[0]", "UNSUPPORTED_MEDIA_TYPE"),
        ([media(b"x", "video/quicktime", duration=10)], "media[0]", "UNSUPPORTED_MEDIA_TYPE"),
        ([media(b"x", "video/mp4", size=501 * MB, duration=10)], "media[0]", "MEDIA_TOO_LARGE"),
        ([video(seconds=31 * 60)], "media[0]", "VIDEO_TOO_LONG"),
        ([video(seconds=2)], "media[0]", "VIDEO_TOO_SHORT"),
    ],
)
def test_media_linkedin_refuses_is_a_problem(client, media_list, field, code):
    unfitted = [dataclasses.replace(item, fit=False) for item in media_list]  # platform_settings.fit_media: false
    assert _codes(client.validate(Post(text="media", media=unfitted))) == {(field, code)}


@pytest.mark.parametrize(
    ("values", "field", "code"),
    [
        ({"visibility": "public"}, "visibility", "INVALID_SETTING"),
        ({"visibility": "LOGGED_IN"}, "visibility", "INVALID_SETTING"),
        ({"visibility": 5}, "visibility", "INVALID_SETTING"),
        ({"visibility": ["PUBLIC"]}, "visibility", "INVALID_SETTING"),
        ({"visibility": {"PUBLIC": True}}, "visibility", "INVALID_SETTING"),
        ({"target_audience": "everyone"}, "target_audience", "INVALID_SETTING"),
        ({"target_audience": {}}, "target_audience", "INVALID_SETTING"),
        ({"target_audience": {"planets": ["urn:li:planet:1"]}}, "target_audience", "INVALID_SETTING"),
        ({"target_audience": {"geoLocations": "urn:li:geo:1"}}, "target_audience", "INVALID_SETTING"),
        ({"title": 5}, "title", "INVALID_SETTING"),
        ({"title": "no media to title"}, "title", "UNSUPPORTED_SETTING"),
    ],
)
def test_settings_of_the_wrong_type_or_value_are_problems_naming_the_key(client, values, field, code):
    assert _codes(client.problems(Post(text="hi", settings=values))) == {(field, code)}


def test_a_title_on_a_multi_image_post_is_unsupported(client):
    post = Post(text="", media=[image(), image(media_id="b")], settings={"title": "t"})

    assert _codes(client.validate(post)) == {("title", "UNSUPPORTED_SETTING")}
    assert client.validate(Post(text="", media=[video()], settings={"title": "t"})) == []


# --- outcomes --------------------------------------------------------------------------------


def test_check_of_media_no_post_carries_is_not_found(sandbox, client):
    client.publish(connection(), Post(text="something else", media=[image()]))

    checked = client.check(connection(), {"author": AUTHOR, "media_ids": "urn:li:image:1"})

    assert (checked.kind, checked.error_code) == (OutcomeKind.FAILED, "NOT_FOUND")


def test_processing_checks_stay_processing_while_linkedin_says_so(sandbox, client):
    client.status_polls = 1
    sandbox.outcomes("linkedin", "processing")

    outcome = client.publish(connection(), Post(text="slower", media=[video()]))
    second = client.check(connection(), outcome.ref)
    third = client.check(connection(), second.ref)
    fourth = client.check(connection(), third.ref)

    assert [o.kind for o in (outcome, second, third)] == [OutcomeKind.PROCESSING] * 3
    assert fourth.kind is OutcomeKind.PUBLISHED


def _publish_many(sandbox, client, count, text="busy {n}", *, age_ms=0):
    """Posts of the test member, made `age_ms` earlier than now in the stand-in's records."""
    outcomes = [client.publish(connection(), Post(text=text.format(n=n))) for n in range(count)]
    for outcome in outcomes:
        sandbox.state.find_post("linkedin", outcome.post_id).extra["created_ms"] -= age_ms
    return outcomes


def _finder_reads(sandbox):
    return [parse_qs(r["query"]) for r in logged(sandbox.state, "GET", "/rest/posts")]


def test_find_recent_reads_past_the_first_page_of_the_authors_posts(sandbox, client):
    since = _since()
    [lost] = _publish_many(sandbox, client, 1, "the lost one")
    _publish_many(sandbox, client, 60)  # more than one page of newer posts

    found = client.find_recent(connection(), Post(text="the lost one"), since)

    assert (found.kind, found.post_id) == (OutcomeKind.PUBLISHED, lost.post_id)
    assert [(r["start"], r["count"]) for r in _finder_reads(sandbox)] == [(["0"], ["50"]), (["50"], ["50"])]


def test_find_recent_does_not_take_a_post_older_than_since_and_stops_there(sandbox, client):
    hour = 3600 * 1000
    _publish_many(sandbox, client, 1, "said before", age_ms=hour)
    _publish_many(sandbox, client, 59, "said before {n}", age_ms=hour)
    _publish_many(sandbox, client, 60)

    found = client.find_recent(connection(), Post(text="said before"), _since())

    assert (found.kind, found.error_code) == (OutcomeKind.FAILED, "NOT_FOUND")
    assert len(_finder_reads(sandbox)) == 2  # the second page reaches back before `since`


def test_a_duplicate_is_failed_with_the_existing_urn_in_the_message(sandbox, client):
    first = client.publish(connection(), Post(text="same words"))

    again = client.publish(connection(), Post(text="same words"))

    assert (again.kind, again.http_status, again.error_code) == (OutcomeKind.FAILED, 422, "DUPLICATE_POST")
    assert first.post_id in again.error_message


def test_a_sunset_version_is_a_definitive_failure(sandbox, client, settings):
    settings.LINKEDIN_API_VERSION = "202301"

    outcome = client.publish(connection(), Post(text="old"))

    assert (outcome.kind, outcome.http_status, outcome.error_code) == (OutcomeKind.FAILED, 426, "NONEXISTENT_VERSION")


# --- the stand-in is as strict as LinkedIn ---------------------------------------------------


def _headers(token=None, version="202507"):
    headers = {
        "Authorization": f"Bearer {token or tokens.issue('linkedin', ACCOUNT)}",
        "X-Restli-Protocol-Version": "2.0.0",
    }
    return {**headers, "LinkedIn-Version": version} if version else headers


def _valid_body(**changes):
    body = {
        "author": AUTHOR, "commentary": "hi", "visibility": "PUBLIC", "lifecycleState": "PUBLISHED",
        "distribution": {"feedDistribution": "MAIN_FEED", "targetEntities": [], "thirdPartyDistributionChannels": []},
    }  # fmt: skip
    return {**body, **changes}


@pytest.mark.parametrize(
    "body",
    [
        _valid_body(text="not a field"),
        _valid_body(visibility="EVERYONE"),
        _valid_body(author="urn:li:person:someoneElse"),
        _valid_body(commentary=""),
        _valid_body(content={"media": {"id": "urn:li:image:42"}}),
        _valid_body(content={"multiImage": {"images": [{"id": "urn:li:image:1"}]}}),
        {k: v for k, v in _valid_body().items() if k != "distribution"},
        _valid_body(distribution={"feedDistribution": "MAIN_FEED", "targetEntities": [{"geoLocations": ["g"]}]}),
    ],
)
def test_the_stand_in_refuses_what_linkedin_refuses(sandbox, body):
    response = requests.post(f"{sandbox.url}/api.linkedin.com/rest/posts", json=body, headers=_headers(), timeout=5)

    assert response.status_code in (403, 422)
    assert response.json()["status"] == response.status_code
    assert sandbox.posts("linkedin") == []


def test_the_stand_in_needs_a_token_and_a_version(sandbox):
    url = f"{sandbox.url}/api.linkedin.com/rest/posts"

    anonymous = requests.post(url, json=_valid_body(), timeout=5)
    unversioned = requests.post(url, json=_valid_body(), headers=_headers(version=""), timeout=5)

    assert (anonymous.status_code, anonymous.json()["code"]) == (401, "EMPTY_ACCESS_TOKEN")
    assert (unversioned.status_code, unversioned.json()["code"]) == (400, "VERSION_MISSING")


def _find_posts(sandbox, **query):
    params = {"author": AUTHOR, "q": "author", **query}
    return requests.get(f"{sandbox.url}/api.linkedin.com/rest/posts", params=params, headers=_headers(), timeout=5)


def test_the_stand_in_pages_the_author_finder_with_start_and_count(sandbox, client):
    urns = [o.post_id for o in _publish_many(sandbox, client, 7)][::-1]

    first = _find_posts(sandbox, start=0, count=5).json()
    last = _find_posts(sandbox, start=5, count=5).json()

    assert [e["id"] for e in first["elements"] + last["elements"]] == urns
    assert (first["paging"]["start"], first["paging"]["count"]) == (0, 5)
    assert (last["paging"]["start"], last["paging"]["count"]) == (5, 5)
    assert [link["rel"] for link in first["paging"]["links"]] == ["next"]
    assert "start=5" in first["paging"]["links"][0]["href"]
    assert [link["rel"] for link in last["paging"]["links"]] == ["prev"]


@pytest.mark.parametrize("query", [{"start": "-1"}, {"start": "x"}, {"count": "0"}, {"count": "101"}])
def test_the_stand_in_refuses_a_page_linkedin_refuses(sandbox, query):
    response = _find_posts(sandbox, **query)

    assert (response.status_code, response.json()["code"]) == (400, "ILLEGAL_ARGUMENT")


def test_the_stand_in_refuses_bytes_that_are_not_an_image(sandbox, client):
    outcome = client.publish(connection(), Post(text="fake", media=[media(b"not an image", "image/png")]))

    assert (outcome.kind, outcome.http_status, outcome.error_code) == (OutcomeKind.FAILED, 400, "INVALID_IMAGE")
    assert sandbox.posts("linkedin") == []


def test_media_of_another_member_cannot_be_attached(sandbox, client):
    client.publish(connection(), Post(text="mine", media=[image()]))
    urn = post_bodies(sandbox.state)[0]["content"]["media"]["id"]
    other = tokens.issue("linkedin", "thief")
    body = _valid_body(author="urn:li:person:thief", content={"media": {"id": urn}})

    response = requests.post(
        f"{sandbox.url}/api.linkedin.com/rest/posts", json=body, headers=_headers(other), timeout=5
    )

    assert response.status_code == 422


# --- first comments --------------------------------------------------------------------------


def _comment_on(outcome):
    return ReplyTo(parent_id=outcome.post_id, root_id=outcome.post_id)


def _comments_url(sandbox, urn, *rest):
    return "/".join([f"{sandbox.url}/api.linkedin.com/rest/socialActions/{quote(urn, safe='')}/comments", *rest])


def test_a_first_comment_is_the_members_comment_on_the_post(sandbox, client):
    post = client.publish(connection(), Post(text="the post"))

    comment = client.publish(connection(), Post(text="more (below) #tag", reply_to=_comment_on(post)))

    assert comment.kind is OutcomeKind.PUBLISHED
    [stored] = sandbox.state.comments_of("linkedin", post.post_id)
    assert (stored.account, stored.text) == (ACCOUNT, "more (below) #tag")  # comments take plain text
    assert comment.post_id == f"urn:li:comment:({post.post_id},{stored.id})"
    assert comment.url.startswith(f"https://www.linkedin.com/feed/update/{post.post_id}/?commentUrn=urn%3Ali%3Acomment")
    [sent] = [json.loads(r["body"]) for r in logged(sandbox.state, "POST", "/comments")]
    assert sent == {"actor": AUTHOR, "object": post.post_id, "message": {"text": "more (below) #tag"}}
    assert client.check(connection(), comment.ref).post_id == comment.post_id


def test_a_first_comment_longer_than_linkedin_takes_is_a_problem(client):
    assert client.problems(Post(text="post", settings={"first_comment": "c" * 1250})) == []
    assert _codes(client.problems(Post(text="post", settings={"first_comment": "c" * 1251}))) == {
        ("first_comment", "FIRST_COMMENT_TOO_LONG")
    }


@pytest.mark.parametrize(
    ("queued", "kind", "code"),
    [("error", OutcomeKind.FAILED, "ACCESS_DENIED"), ("rate_limited", OutcomeKind.NOT_SENT, "RATE_LIMITED")],
)
def test_a_refused_comment_says_why_and_leaves_none(sandbox, client, queued, kind, code):
    post = client.publish(connection(), Post(text="the post"))
    sandbox.outcomes("linkedin", queued)

    outcome = client.publish(connection(), Post(text="refused", reply_to=_comment_on(post)))

    assert (outcome.kind, outcome.error_code) == (kind, code)
    assert sandbox.state.comments_of("linkedin") == []


def test_a_comment_whose_answer_never_comes_is_found_by_its_text(sandbox, client):
    post = client.publish(connection(), Post(text="the post"))
    sandbox.outcomes("linkedin", "timeout")

    lost = client.publish(connection(), Post(text="slow comment", reply_to=_comment_on(post)))
    found = client.check(connection(), lost.ref)

    assert lost.kind is OutcomeKind.UNKNOWN
    [stored] = sandbox.state.comments_of("linkedin", post.post_id)
    assert (found.kind, found.ref["comment_id"]) == (OutcomeKind.PUBLISHED, stored.id)


def test_find_recent_of_a_comment_reads_the_posts_comments_page_by_page(sandbox, client, monkeypatch):
    monkeypatch.setattr("accounts.platforms.linkedin.PAGE_COUNT", 2)
    post = client.publish(connection(), Post(text="the post"))
    for n in range(3):
        sandbox.state.add_comment("linkedin", post.post_id, "other", f"c{n}", actor="urn:li:person:other", at=0)
    comment = client.publish(connection(), Post(text="mine", reply_to=_comment_on(post)))

    found = client.find_recent(connection(), Post(text="mine", reply_to=_comment_on(post)), _since())
    absent = client.find_recent(connection(), Post(text="c0", reply_to=_comment_on(post)), _since())

    assert found.post_id == comment.post_id
    assert (absent.kind, absent.error_code) == (OutcomeKind.FAILED, "NOT_FOUND")  # c0 is not the member's
    assert len(logged(sandbox.state, "GET", "/comments")) == 2 + 3  # the last page read comes back empty


def test_a_comment_on_a_deleted_post_is_refused_and_its_read_back_is_not_found(sandbox, client):
    post = client.publish(connection(), Post(text="the post"))
    comment = client.publish(connection(), Post(text="a comment", reply_to=_comment_on(post)))
    client.delete(connection(), post.post_id, post.ref)

    refused = client.publish(connection(), Post(text="too late", reply_to=_comment_on(post)))
    gone = client.check(connection(), comment.ref)

    assert (refused.kind, refused.http_status) == (OutcomeKind.FAILED, 404)
    assert (gone.kind, gone.error_code) == (OutcomeKind.FAILED, "NOT_FOUND")


# --- deleting and reading back ---------------------------------------------------------------


def test_delete_takes_the_post_down_and_deleting_again_still_succeeds(sandbox, client):
    post = client.publish(connection(), Post(text="short-lived"))

    first = client.delete(connection(), post.post_id, post.ref)
    again = client.delete(connection(), post.post_id, post.ref)

    assert (first.kind, again.kind) == (OutcomeKind.PUBLISHED, OutcomeKind.PUBLISHED)
    assert (first.http_status, again.http_status) == (204, 204)
    assert sandbox.posts("linkedin") == []
    assert client.exists(connection(), post.post_id, {}) is False


def test_deleting_a_comment_keeps_the_post(sandbox, client):
    post = client.publish(connection(), Post(text="the post"))
    comment = client.publish(connection(), Post(text="a comment", reply_to=_comment_on(post)))

    outcome = client.delete(connection(), comment.post_id, comment.ref)

    assert outcome.kind is OutcomeKind.PUBLISHED
    [sent] = logged(sandbox.state, "DELETE", f"/comments/{comment.ref['comment_id']}")
    assert parse_qs(sent["query"]) == {"actor": [AUTHOR]}
    assert sandbox.state.comments_of("linkedin") == []
    assert client.exists(connection(), comment.post_id, comment.ref) is False
    assert client.exists(connection(), post.post_id, {}) is True


@pytest.mark.parametrize(
    ("queued", "kind", "code"),
    [("error", OutcomeKind.FAILED, "ACCESS_DENIED"), ("rate_limited", OutcomeKind.NOT_SENT, "RATE_LIMITED")],
)
def test_a_refused_delete_keeps_the_post_and_says_why(sandbox, client, queued, kind, code):
    post = client.publish(connection(), Post(text="stays"))
    sandbox.outcomes("linkedin", queued)

    outcome = client.delete(connection(), post.post_id, post.ref)

    assert (outcome.kind, outcome.error_code) == (kind, code)
    assert client.exists(connection(), post.post_id, {}) is True


def test_a_delete_whose_answer_never_comes_is_unknown_and_exists_settles_it(sandbox, client):
    post = client.publish(connection(), Post(text="slow delete"))
    sandbox.outcomes("linkedin", "timeout")

    assert client.delete(connection(), post.post_id, post.ref).kind is OutcomeKind.UNKNOWN
    assert client.exists(connection(), post.post_id, {}) is False


def test_a_post_removed_on_linkedin_no_longer_exists_nor_its_comments(sandbox, client):
    post = client.publish(connection(), Post(text="removed in the app"))
    comment = client.publish(connection(), Post(text="a comment", reply_to=_comment_on(post)))
    requests.post(f"{sandbox.url}/_sandbox/posts/remove", json={"platform": "linkedin", "id": post.post_id}, timeout=5)

    assert client.exists(connection(), post.post_id, {}) is False
    assert client.exists(connection(), comment.post_id, comment.ref) is False


def test_exists_raises_when_linkedin_refuses_the_token_or_does_not_answer(sandbox, client, settings):
    post = client.publish(connection(), Post(text="there"))

    with pytest.raises(PlatformError) as refused:
        client.exists(connection("not-a-token"), post.post_id, {})
    settings.SANDBOX_URL = "http://127.0.0.1:9"  # nothing listens: the connection is refused
    with pytest.raises(PlatformError) as unanswered:
        client.exists(connection(), post.post_id, {})

    assert refused.value.outcome.auth_failed
    assert unanswered.value.outcome.kind is OutcomeKind.NOT_SENT


def test_another_members_post_and_comment_cannot_be_deleted(sandbox, client):
    post = client.publish(connection(account="someoneElse1"), Post(text="not yours"))
    comment = client.publish(connection(account="someoneElse1"), Post(text="theirs", reply_to=_comment_on(post)))

    refused_post = client.delete(connection(), post.post_id, post.ref)
    refused_comment = client.delete(connection(), comment.post_id, {**comment.ref, "actor": AUTHOR})

    assert (refused_post.kind, refused_post.http_status) == (OutcomeKind.FAILED, 403)
    assert (refused_comment.kind, refused_comment.http_status) == (OutcomeKind.FAILED, 403)
    assert len(sandbox.posts("linkedin")) == 1
    assert len(sandbox.state.comments_of("linkedin")) == 1


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"actor": AUTHOR, "message": {"text": "hi"}}, 422, "MISSING_FIELD"),
        ({"actor": AUTHOR, "object": "{urn}", "message": {"text": "c" * 1251}}, 422, "INVALID_VALUE"),
        ({"actor": AUTHOR, "object": "urn:li:share:1", "message": {"text": "hi"}}, 422, "INVALID_VALUE"),
        ({"actor": "urn:li:person:other", "object": "{urn}", "message": {"text": "hi"}}, 403, "ACCESS_DENIED"),
        ({"actor": AUTHOR, "object": "{urn}", "message": {"text": "hi"}, "mood": 1}, 422, "UNPERMITTED_FIELDS"),
    ],
)
def test_the_stand_in_refuses_comments_linkedin_refuses(sandbox, client, body, status, code):
    post = client.publish(connection(), Post(text="the post"))
    body = json.loads(json.dumps(body).replace("{urn}", post.post_id))

    answer = requests.post(
        _comments_url(sandbox, post.post_id), json=body, headers=client.headers(connection()), timeout=5
    )

    assert (answer.status_code, answer.json().get("code") or _input_code(answer)) == (status, code)


def _input_code(answer):
    return answer.json()["errorDetails"]["inputErrors"][0]["code"]


def test_the_stand_in_needs_a_version_and_the_actor_to_delete_a_comment(sandbox, client):
    post = client.publish(connection(), Post(text="the post"))
    comment = client.publish(connection(), Post(text="a comment", reply_to=_comment_on(post)))
    url = _comments_url(sandbox, post.post_id, comment.ref["comment_id"])
    token = {"Authorization": client.headers(connection())["Authorization"]}

    unversioned = requests.delete(url, params={"actor": AUTHOR}, headers=token, timeout=5)
    no_actor = requests.delete(url, headers=client.headers(connection()), timeout=5)

    assert (unversioned.status_code, unversioned.json()["code"]) == (400, "VERSION_MISSING")
    assert (no_actor.status_code, no_actor.json()["code"]) == (400, "ILLEGAL_ARGUMENT")
    assert len(sandbox.state.comments_of("linkedin")) == 1


# --- metrics ---------------------------------------------------------------------------------


def test_metrics_come_from_the_member_creator_post_analytics(sandbox, client):
    first = client.publish(connection(), Post(text="one")).post_id
    body = {"platform": "linkedin", "post_id": first, "views": 100, "likes": 7, "comments": 3, "shares": 2}
    requests.post(f"{sandbox.url}/_sandbox/metrics", json=body, timeout=5)

    found = client.metrics(connection(), [first])

    assert found[first].extra == {"impressions": 100, "members_reached": 100}
    lookups = logged(sandbox.state, "GET", "/rest/memberCreatorPostAnalytics")
    assert {parse_qs(r["query"])["queryType"][0] for r in lookups} == {
        "IMPRESSION", "MEMBERS_REACHED", "REACTION", "COMMENT", "RESHARE",
    }  # fmt: skip
    assert parse_qs(lookups[0]["query"])["entity"] == [f"(share:{first})"]


# --- OAuth 2.0 -------------------------------------------------------------------------------


def _approve(url):
    page = requests.get(url, timeout=5)
    assert page.status_code == 200
    target = re.search(r'id="approve" href="([^"]+)"', page.text).group(1).replace("&amp;", "&")
    return parse_qs(urlsplit(target).query)


def test_the_code_flow_end_to_end_gives_credentials_that_publish(sandbox, client):
    redirect = "https://app.example/callback/linkedin"

    url = client.authorize_url(state="s-1", code_challenge="unused", redirect_uri=redirect, sandbox=True)
    assert url.startswith(f"{sandbox.url}/www.linkedin.com/oauth/v2/authorization?")
    query = _approve(url)
    credentials = client.exchange_code(
        code=query["code"][0], code_verifier="unused", redirect_uri=redirect, sandbox=True
    )

    assert query["state"] == ["s-1"]
    assert credentials.external_id
    assert credentials.metadata["author_urn"] == f"urn:li:person:{credentials.external_id}"
    assert credentials.refresh_token
    assert credentials.expires_at > dt.datetime.now(dt.UTC) + dt.timedelta(days=59)
    assert client.publish(Connection(credentials, sandbox=True), Post(text="connected")).kind is OutcomeKind.PUBLISHED
    assert sandbox.posts("linkedin")[0]["account"] == credentials.external_id
    [token_request] = logged(sandbox.state, "POST", "/oauth/v2/accessToken")
    assert parse_qs(token_request["body"].decode())["client_secret"] == ["sandbox-linkedin-secret"]


def test_a_code_is_single_use_and_bound_to_its_redirect(sandbox, client):
    redirect = "https://app.example/cb"
    code = _approve(client.authorize_url(state="s", code_challenge="", redirect_uri=redirect, sandbox=True))["code"][0]

    with pytest.raises(PlatformError):
        client.exchange_code(code=code, code_verifier="", redirect_uri="https://evil.example/cb", sandbox=True)
    with pytest.raises(PlatformError):  # the failed attempt used the code up
        client.exchange_code(code=code, code_verifier="", redirect_uri=redirect, sandbox=True)


def test_refresh_gives_a_new_access_token_and_keeps_the_refresh_token(sandbox, client):
    old = tokens.issue("linkedin", ACCOUNT, kind="sbr")
    conn = Connection(Credentials(access_token="expired", refresh_token=old, external_id=ACCOUNT), sandbox=True)

    fresh = client.refresh(conn)

    assert fresh.refresh_token == old
    assert fresh.access_token != "expired"
    assert fresh.external_id == ACCOUNT
    assert client.publish(Connection(fresh, sandbox=True), Post(text="refreshed")).kind is OutcomeKind.PUBLISHED
    requests.post(f"{sandbox.url}/_sandbox/tokens/revoke", json={"token": old}, timeout=5)
    with pytest.raises(PlatformError):
        client.refresh(conn)


def test_refresh_without_a_member_id_asks_userinfo(sandbox, client):
    conn = Connection(
        Credentials(access_token="", refresh_token=tokens.issue("linkedin", ACCOUNT, kind="sbr")), sandbox=True
    )

    assert client.refresh(conn).external_id == ACCOUNT
    assert logged(sandbox.state, "GET", "/v2/userinfo")


# --- alt text ----------------------------------------------------------------------------------


def test_an_image_carries_its_alt_text(sandbox, client):
    outcome = client.publish(connection(), Post(text="a picture", media=[dataclasses.replace(image(), alt="A chart")]))

    assert outcome.kind is OutcomeKind.PUBLISHED
    content = post_bodies(sandbox.state)[0]["content"]
    assert content["media"]["altText"] == "A chart"
    [post] = sandbox.posts("linkedin")
    assert "A chart" in requests.get(f"{sandbox.url}/_sandbox/posts/linkedin/{post['id']}", timeout=5).text


def test_each_image_of_a_multi_image_post_carries_its_own_alt_text(sandbox, client):
    pictures = [dataclasses.replace(image(media_id="a"), alt="First"), image(media_id="b")]

    client.publish(connection(), Post(text="", media=pictures))

    images = post_bodies(sandbox.state)[0]["content"]["multiImage"]["images"]
    assert [i.get("altText") for i in images] == ["First", None]


def test_the_linkedin_stand_in_takes_alt_text_only_on_images_and_up_to_4086_characters():
    image_urn, video_urn = "urn:li:image:C1", "urn:li:video:C2"

    assert stand_in._content_ids({"media": {"id": image_urn, "altText": "x" * 4086}}) == [(image_urn, "image")]
    assert "4086" in stand_in._content_ids({"media": {"id": image_urn, "altText": "x" * 4087}})
    assert "only with an image" in stand_in._content_ids({"media": {"id": video_urn, "altText": "x"}})

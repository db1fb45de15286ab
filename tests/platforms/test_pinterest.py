"""What the Pinterest client alone does, against the Pinterest stand-in over real HTTP: pins from
pulled images, carousels and uploaded videos, validation, metrics, per-account settings and the
OAuth 2.0 code flow. The outcome matrix every client shares is in test_conformance.py."""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import json
import re
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from accounts.platforms.base import MAX_RECENT_PAGES, Connection, Credentials, OutcomeKind, PlatformError, Post
from accounts.platforms.pinterest import Client, resolve_settings
from sandbox import tokens
from tests.media import files
from tests.platforms.file_server import serve_files
from tests.platforms.pinterest_helpers import (
    ACCOUNT,
    BOARD,
    connection,
    image,
    logged,
    media,
    pin_bodies,
    video,
)

MB = 1024 * 1024


@pytest.fixture
def origin():
    yield from serve_files()


@pytest.fixture
def client():
    client = Client()
    client.poll_interval_seconds = 0
    return client


def _codes(problems):
    return {(p.field, p.code) for p in problems}


def _post(text="a pin", media_list=(), **settings):
    return Post(text=text, media=list(media_list), settings={"boardId": BOARD, **settings})


# --- publishing ------------------------------------------------------------------------------


def test_an_image_pin_is_published_from_the_pulled_url(sandbox, client, origin):
    outcome = client.publish(connection(), _post("Hello from the sandbox", [image(origin)]))

    assert outcome.kind is OutcomeKind.PUBLISHED
    assert outcome.url == f"https://www.pinterest.com/pin/{outcome.post_id}/"
    [body] = pin_bodies(sandbox.state)
    assert body["media_source"] == {"source_type": "image_url", "url": origin.url("img")}
    assert body["board_id"] == BOARD


def test_a_text_only_pin_is_refused_before_sending(client):
    assert _codes(client.validate(_post("just words"))) == {("media", "MEDIA_REQUIRED")}


def test_three_images_make_one_carousel_pin(sandbox, client, origin):
    pictures = [image(origin, media_id=f"i{n}") for n in range(3)]

    outcome = client.publish(connection(), _post("carousel", pictures))

    assert outcome.kind is OutcomeKind.PUBLISHED
    assert sandbox.posts("pinterest")[0]["media_count"] == 3
    source = pin_bodies(sandbox.state)[0]["media_source"]
    assert source["source_type"] == "multiple_image_urls"
    assert [item["url"] for item in source["items"]] == [origin.url(f"i{n}") for n in range(3)]


def test_a_video_is_registered_uploaded_to_s3_polled_then_pinned(sandbox, client):
    outcome = client.publish(connection(), _post("a video", [video()], cover_image_key_frame_time=2.7))

    assert outcome.kind is OutcomeKind.PUBLISHED
    [register] = logged(sandbox.state, "POST", "/api.pinterest.com/v5/media")
    assert json.loads(register["body"]) == {"media_type": "video"}
    [upload] = logged(sandbox.state, "POST", "/pinterest-media-upload.s3-accelerate.amazonaws.com/")
    assert "Authorization" not in upload["headers"]
    assert b'name="x-amz-signature"' in upload["body"]
    assert b'name="file"' in upload["body"]
    assert logged(sandbox.state, "GET", "/media/" + pin_bodies(sandbox.state)[0]["media_source"]["media_id"])
    source = pin_bodies(sandbox.state)[0]["media_source"]
    assert (source["source_type"], source["cover_image_key_frame_time"]) == ("video_id", 2)
    assert sandbox.posts("pinterest")[0]["media_count"] == 1


def test_the_media_id_is_saved_before_the_pin_is_created(sandbox, client):
    refs = []

    client.publish(connection(refs=refs), _post("saved", [video()]))

    assert refs[0].keys() == {"media_id"}
    assert refs[1]["board_id"] == BOARD
    assert "since" in refs[1]


def test_every_pinterest_setting_reaches_the_request(sandbox, client, origin):
    values = {"title": "A title", "link": "https://example.com/x", "note": "private", "alt_text": "red square"}

    assert client.publish(connection(), _post("described", [image(origin)], **values)).kind is OutcomeKind.PUBLISHED

    [body] = pin_bodies(sandbox.state)
    assert {key: body[key] for key in values} == values
    assert (body["board_id"], body["description"]) == (BOARD, "described")


def test_unknown_settings_are_ignored(sandbox, client, origin):
    post = _post("plain", [image(origin)], something_else=1)

    assert client.validate(post) == []
    assert client.publish(connection(), post).kind is OutcomeKind.PUBLISHED
    assert set(pin_bodies(sandbox.state)[0]) == {"board_id", "description", "media_source"}


# --- alt text --------------------------------------------------------------------------------


def test_the_image_alt_text_becomes_the_pin_alt_text(sandbox, client, origin):
    described = dataclasses.replace(image(origin), alt="A red square")

    outcome = client.publish(connection(), _post("described", [described]))

    assert outcome.kind is OutcomeKind.PUBLISHED
    assert pin_bodies(sandbox.state)[0]["alt_text"] == "A red square"
    assert client.call(connection(), "GET", f"/pins/{outcome.post_id}")["alt_text"] == "A red square"


def test_the_alt_text_setting_wins_over_the_image_alt_text(sandbox, client, origin):
    described = dataclasses.replace(image(origin), alt="From the library")

    client.publish(connection(), _post("described", [described], alt_text="Typed for this pin"))

    assert pin_bodies(sandbox.state)[0]["alt_text"] == "Typed for this pin"


def test_a_video_alt_text_is_not_sent_as_the_pin_alt_text(sandbox, client):
    client.publish(connection(), _post("a video", [dataclasses.replace(video(), alt="A clip")]))

    assert "alt_text" not in pin_bodies(sandbox.state)[0]


def test_image_alt_text_is_cut_to_pinterest_limit_and_the_stand_in_refuses_longer(sandbox, client, origin):
    outcome = client.publish(connection(), _post("long", [dataclasses.replace(image(origin), alt="x" * 1000)]))

    assert outcome.kind is OutcomeKind.PUBLISHED
    assert pin_bodies(sandbox.state)[0]["alt_text"] == "x" * 500
    too_long = {"board_id": BOARD, "media_source": {"source_type": "image_url", "url": origin.url("img")}}
    response = _post_pin(sandbox, {**too_long, "alt_text": "x" * 501})
    assert response.status_code == 400
    assert "alt_text must be a string of at most 500 characters" in response.json()["message"]


# --- per-account settings --------------------------------------------------------------------


def test_resolve_settings_applies_the_account_override_and_drops_per_account():
    values = {"boardId": "1", "title": "t", "per_account": {"acc-1": {"boardId": "2"}, "acc-2": {"title": "u"}}}

    assert resolve_settings(values, "acc-1") == {"boardId": "2", "title": "t"}
    assert resolve_settings(values, "acc-2") == {"boardId": "1", "title": "u"}
    assert resolve_settings(values, "acc-3") == {"boardId": "1", "title": "t"}
    # A malformed per_account stays, for validate() to refuse rather than be silently dropped.
    assert resolve_settings({"per_account": "nonsense", "boardId": "1"}, "x") == {
        "per_account": "nonsense",
        "boardId": "1",
    }


def test_per_account_entries_must_be_objects(client):
    good = _post("p", [image()], per_account={"a": {"boardId": "2"}})
    bad = _post("p", [image()], per_account={"a": "2"})

    assert client.validate(good) == []
    assert _codes(client.validate(bad)) == {("per_account", "INVALID_SETTING")}
    assert _codes(client.validate(_post("p", [image()], per_account=[1]))) == {("per_account", "INVALID_SETTING")}


# --- validation ------------------------------------------------------------------------------


def test_text_and_title_limits(client):
    assert client.validate(_post("a" * 800, [image()], title="t" * 100)) == []
    assert _codes(client.validate(_post("a" * 801, [image()]))) == {("text", "TEXT_TOO_LONG")}
    assert _codes(client.validate(_post("a", [image()], title="t" * 101))) == {("title", "TITLE_TOO_LONG")}


def test_a_board_is_required(client):
    assert _codes(client.validate(Post(text="x", media=[image()]))) == {("boardId", "BOARD_REQUIRED")}


@pytest.mark.parametrize(
    ("media_list", "field", "code"),
    [
        ([image(media_id=f"i{n}") for n in range(6)], "media", "TOO_MANY_MEDIA"),
        ([image(), video()], "media", "MIXED_MEDIA"),
        ([media(b"x", "image/png", size=21 * MB)], "media[0]", "MEDIA_TOO_LARGE"),
        ([media(b"x", "video/mp4", size=2048 * MB, duration=10)], "media[0]", "MEDIA_TOO_LARGE"),
        ([media(b"x", "image/bmp")], "media[0]", "UNSUPPORTED_MEDIA_TYPE"),
        ([video(seconds=15 * 60 + 1)], "media[0]", "VIDEO_TOO_LONG"),
        ([video(seconds=3)], "media[0]", "VIDEO_TOO_SHORT"),
        (
            [image(media_id="a"), media(files.image("PNG", (80, 80)), "image/png", dimensions=(80, 80))],
            "media",
            "INVALID_COMBINATION",
        ),
    ],
)
def test_media_pinterest_refuses_is_a_problem(client, media_list, field, code):
    unfitted = [dataclasses.replace(item, fit=False) for item in media_list]  # platform_settings.fit_media: false
    assert _codes(client.validate(_post("media", unfitted))) == {(field, code)}


@pytest.mark.parametrize(
    ("values", "field"),
    [
        ({"boardId": 549755885175}, "boardId"),
        ({"boardId": "my-board"}, "boardId"),
        ({"title": 5}, "title"),
        ({"link": "not a url"}, "link"),
        ({"link": "https://e.com/" + "a" * 2048}, "link"),
        ({"note": ["x"]}, "note"),
        ({"alt_text": "a" * 501}, "alt_text"),
        ({"alt_text": False}, "alt_text"),
        ({"cover_image_key_frame_time": "3"}, "cover_image_key_frame_time"),
        ({"cover_image_key_frame_time": -1}, "cover_image_key_frame_time"),
        ({"cover_image_key_frame_time": True}, "cover_image_key_frame_time"),
    ],
)
def test_settings_of_the_wrong_type_or_value_are_problems_naming_the_key(client, values, field):
    post = Post(text="hi", media=[video()], settings={"boardId": BOARD, **values})

    assert [p.field for p in client.problems(post)] == [field]


def test_a_cover_frame_needs_a_video(client):
    post = _post("hi", [image()], cover_image_key_frame_time=1)

    assert _codes(client.validate(post)) == {("cover_image_key_frame_time", "UNSUPPORTED_SETTING")}


# --- outcomes --------------------------------------------------------------------------------


def test_timeout_is_unknown_then_check_finds_it_once(sandbox, client, origin):
    sandbox.outcomes("pinterest", "timeout")
    refs = []
    post = _post("Did it land? ☕", [image(origin)], title="T", link="https://example.com/l")

    outcome = client.publish(connection(refs=refs), post)
    settled = client.check(connection(), refs[-1])

    assert outcome.kind is OutcomeKind.UNKNOWN
    assert settled.kind is OutcomeKind.PUBLISHED
    assert [p["id"] for p in sandbox.posts("pinterest")] == [settled.post_id]


# --- finding a lost pin ----------------------------------------------------------------------


def _pins(sandbox, count, *, age=dt.timedelta(0), text="busy {n}"):
    """Image pins on the test board straight in the sandbox state, `age` old."""
    pins = []
    for n in range(count):
        body = {"board_id": BOARD, "description": text.format(n=n)}
        pin = sandbox.state.add_post("pinterest", ACCOUNT, text.format(n=n), 1, request=body, media_type="image")
        created = dt.datetime.fromisoformat(pin.created_at.replace("Z", "+00:00")) - age
        pin.created_at = created.isoformat().replace("+00:00", "Z")
        pins.append(pin)
    return pins


def _board_reads(sandbox):
    return [parse_qs(r["query"]) for r in logged(sandbox.state, "GET", f"/boards/{BOARD}/pins")]


def _since():
    return dt.datetime.now(dt.UTC) - dt.timedelta(minutes=1)


def test_find_recent_reads_past_the_first_page_of_the_board(sandbox, client):
    [lost] = _pins(sandbox, 1, text="the lost one")
    _pins(sandbox, 60)  # more than one page of newer pins

    found = client.find_recent(connection(), _post("the lost one"), _since())

    assert (found.kind, found.post_id) == (OutcomeKind.PUBLISHED, lost.id)
    reads = _board_reads(sandbox)
    assert len(reads) == 2
    assert "bookmark" not in reads[0]
    assert reads[1]["bookmark"]
    assert reads[1]["page_size"] == ["50"]


def test_find_recent_does_not_take_a_pin_older_than_since_and_stops_there(sandbox, client):
    _pins(sandbox, 60, age=dt.timedelta(hours=1), text="said before")
    _pins(sandbox, 60)

    found = client.find_recent(connection(), _post("said before"), _since())

    assert (found.kind, found.error_code) == (OutcomeKind.FAILED, "NOT_FOUND")
    assert len(_board_reads(sandbox)) == 2  # the second page reaches back before `since`


def test_find_recent_reads_at_most_max_recent_pages(sandbox, client):
    _pins(sandbox, 1, text="too deep")
    _pins(sandbox, MAX_RECENT_PAGES * 50)

    found = client.find_recent(connection(), _post("too deep"), _since())

    assert (found.kind, found.error_code) == (OutcomeKind.FAILED, "NOT_FOUND")
    assert len(_board_reads(sandbox)) == MAX_RECENT_PAGES


def _board_pins(sandbox, **query):
    headers = {"Authorization": f"Bearer {tokens.issue('pinterest', ACCOUNT)}"}
    url = f"{sandbox.url}/api.pinterest.com/v5/boards/{BOARD}/pins"
    return requests.get(url, params=query, headers=headers, timeout=5)


def test_the_stand_in_pages_a_board_with_a_bookmark_only_while_more_remain(sandbox):
    pins = _pins(sandbox, 7)

    first = _board_pins(sandbox, page_size=5).json()
    last = _board_pins(sandbox, page_size=5, bookmark=first["bookmark"]).json()
    exact = _board_pins(sandbox, page_size=7).json()

    assert [p["id"] for p in first["items"] + last["items"]] == [p.id for p in reversed(pins)]
    assert isinstance(first["bookmark"], str)
    assert last["bookmark"] is None
    assert exact["bookmark"] is None


@pytest.mark.parametrize("query", [{"bookmark": "bm90LWEtYm9va21hcms="}, {"bookmark": "*"}, {"page_size": "251"}])
def test_the_stand_in_refuses_a_bookmark_or_page_size_pinterest_refuses(sandbox, query):
    _pins(sandbox, 2)

    response = _board_pins(sandbox, **query)

    assert (response.status_code, response.json()["code"]) == (400, 1)


# --- the stand-in is as strict as Pinterest --------------------------------------------------


def _post_pin(sandbox, body, token=None):
    headers = {"Authorization": f"Bearer {token or tokens.issue('pinterest', ACCOUNT)}"}
    return requests.post(f"{sandbox.url}/api.pinterest.com/v5/pins", json=body, headers=headers, timeout=10)


@pytest.mark.parametrize(
    "body",
    [
        {"media_source": {"source_type": "image_url", "url": "URL"}},
        {"board_id": BOARD},
        {"board_id": BOARD, "media_source": {"source_type": "image_url", "url": "URL"}, "unknown": 1},
        {"board_id": BOARD, "media_source": {"source_type": "image_url", "url": "URL"}, "title": "t" * 101},
        {"board_id": BOARD, "media_source": {"source_type": "image_url", "url": "MISSING"}},
        {"board_id": BOARD, "media_source": {"source_type": "image_url", "url": "TEXT"}},
        {"board_id": BOARD, "media_source": {"source_type": "multiple_image_urls", "items": [{"url": "URL"}]}},
        {"board_id": BOARD, "media_source": {"source_type": "video_id", "media_id": "123"}},
    ],
)
def test_the_stand_in_refuses_what_pinterest_refuses(sandbox, origin, body):
    urls = {
        "URL": origin.add("ok.png", files.image()),
        "MISSING": origin.url("nothing"),
        "TEXT": origin.add("t", b"hello"),
    }
    text = json.dumps(body)
    for name, url in urls.items():
        text = text.replace(f'"{name}"', json.dumps(url))

    response = _post_pin(sandbox, json.loads(text))

    assert response.status_code == 400
    assert response.json()["code"] == 1
    assert response.json()["message"]
    assert sandbox.posts("pinterest") == []


def test_the_stand_in_needs_a_bearer_token(sandbox):
    response = requests.post(f"{sandbox.url}/api.pinterest.com/v5/pins", json={}, timeout=5)

    assert response.status_code == 401
    assert response.json() == {"code": 2, "message": "Authentication failed.", "status": "failure"}


def test_an_unknown_board_is_not_found(sandbox, origin):
    body = {"board_id": "1", "media_source": {"source_type": "image_url", "url": origin.add("a", files.image())}}

    assert _post_pin(sandbox, body).status_code == 404


def test_a_video_of_another_account_cannot_be_pinned(sandbox, client):
    client.publish(connection(), _post("mine", [video()]))
    media_id = pin_bodies(sandbox.state)[0]["media_source"]["media_id"]
    body = {"board_id": BOARD, "media_source": {"source_type": "video_id", "media_id": media_id}}

    assert _post_pin(sandbox, body, tokens.issue("pinterest", "999")).status_code == 400


# --- metrics ---------------------------------------------------------------------------------


def test_metrics_come_from_the_pin_analytics(sandbox, client, origin):
    first = client.publish(connection(), _post("one", [image(origin)])).post_id
    body = {"platform": "pinterest", "post_id": first, "views": 100, "likes": 7, "comments": 3, "shares": 2}
    requests.post(f"{sandbox.url}/_sandbox/metrics", json=body, timeout=5)

    found = client.metrics(connection(), [first])

    assert found[first].extra["IMPRESSION"] == 100
    query = parse_qs(logged(sandbox.state, "GET", f"/pins/{first}/analytics")[0]["query"])
    assert query["metric_types"][0].split(",")[:2] == ["IMPRESSION", "SAVE"]


# --- deleting and reading back ---------------------------------------------------------------


def _remove(sandbox, pin_id):
    response = requests.post(
        f"{sandbox.url}/_sandbox/posts/remove", json={"platform": "pinterest", "id": pin_id}, timeout=5
    )
    response.raise_for_status()


def test_a_deleted_pin_is_gone_from_the_board_and_its_reads(sandbox, client, origin):
    pin_id = client.publish(connection(), _post("to delete", [image(origin)])).post_id

    outcome = client.delete(connection(), pin_id, {"post_id": pin_id})

    assert (outcome.kind, outcome.http_status) == (OutcomeKind.PUBLISHED, 204)
    assert sandbox.posts("pinterest") == []
    assert client.exists(connection(), pin_id, {}) is False
    assert [r["path"] for r in logged(sandbox.state, "DELETE", f"/pins/{pin_id}")] == [
        f"/api.pinterest.com/v5/pins/{pin_id}"
    ]


def test_deleting_a_pin_already_gone_is_done(sandbox, client, origin):
    pin_id = client.publish(connection(), _post("gone", [image(origin)])).post_id
    _remove(sandbox, pin_id)

    assert client.delete(connection(), pin_id, {}).kind is OutcomeKind.PUBLISHED


def test_a_pin_exists_until_its_owner_removes_it(sandbox, client, origin):
    pin_id = client.publish(connection(), _post("here", [image(origin)])).post_id

    assert client.exists(connection(), pin_id, {}) is True
    _remove(sandbox, pin_id)
    assert client.exists(connection(), pin_id, {}) is False


@pytest.mark.parametrize(
    ("queued", "kind", "code"),
    [
        ("error", OutcomeKind.FAILED, "PINTEREST_29"),
        ("rate_limited", OutcomeKind.NOT_SENT, "RATE_LIMITED"),
        ("timeout", OutcomeKind.UNKNOWN, "NO_ANSWER"),
    ],
)
def test_a_delete_refused_or_unanswered_says_so(sandbox, client, origin, queued, kind, code):
    pin_id = client.publish(connection(), _post("stays?", [image(origin)])).post_id
    sandbox.outcomes("pinterest", queued)

    outcome = client.delete(connection(), pin_id, {})

    assert (outcome.kind, outcome.error_code) == (kind, code)
    # A refusal leaves the pin; a timeout did the work, only the answer was lost.
    assert client.exists(connection(), pin_id, {}) is (queued != "timeout")


def test_a_delete_that_never_reached_pinterest_may_be_sent_again(sandbox, client, settings):
    settings.SANDBOX_URL = "http://127.0.0.1:9"  # nothing listens there

    assert client.delete(connection(), "123", {}).kind is OutcomeKind.NOT_SENT
    with pytest.raises(PlatformError):
        client.exists(connection(), "123", {})


def test_the_stand_in_deletes_only_the_accounts_own_pins(sandbox, client, origin):
    pin_id = client.publish(connection(), _post("mine", [image(origin)])).post_id
    url = f"{sandbox.url}/api.pinterest.com/v5/pins/{pin_id}"

    other = requests.delete(url, headers={"Authorization": f"Bearer {tokens.issue('pinterest', '999')}"}, timeout=5)
    anonymous = requests.delete(url, timeout=5)

    assert (other.status_code, other.json()) == (404, {"code": 50, "message": "Pin not found."})
    assert anonymous.status_code == 401
    assert len(sandbox.posts("pinterest")) == 1


def test_pinterest_has_no_first_comment(client, origin):
    post = _post("pin", [image(origin)], first_comment="hello")

    assert [p.code for p in client.problems(post)] == ["FIRST_COMMENT_UNSUPPORTED"]


# --- OAuth 2.0 -------------------------------------------------------------------------------


def _approve(url):
    page = requests.get(url, timeout=5)
    assert page.status_code == 200
    target = re.search(r'id="approve" href="([^"]+)"', page.text).group(1).replace("&amp;", "&")
    return parse_qs(urlsplit(target).query)


def test_the_code_flow_end_to_end_gives_credentials_that_publish(sandbox, client, origin):
    redirect = "https://app.example/callback/pinterest"

    url = client.authorize_url(state="s-1", code_challenge="unused", redirect_uri=redirect, sandbox=True)
    assert url.startswith(f"{sandbox.url}/www.pinterest.com/oauth/?")
    query = _approve(url)
    credentials = client.exchange_code(
        code=query["code"][0], code_verifier="unused", redirect_uri=redirect, sandbox=True
    )

    assert query["state"] == ["s-1"]
    assert credentials.external_id.isdigit()
    assert credentials.handle
    assert credentials.refresh_token
    assert credentials.expires_at > dt.datetime.now(dt.UTC) + dt.timedelta(days=29)
    assert credentials.metadata["boards"] == [{"id": BOARD, "name": "Demo board"}]
    outcome = client.publish(Connection(credentials, sandbox=True), _post("connected", [image(origin)]))
    assert outcome.kind is OutcomeKind.PUBLISHED
    assert sandbox.posts("pinterest")[0]["account"] == credentials.external_id


def test_a_code_is_single_use_and_bound_to_its_redirect(sandbox, client):
    redirect = "https://app.example/cb"
    code = _approve(client.authorize_url(state="s", code_challenge="", redirect_uri=redirect, sandbox=True))["code"][0]

    with pytest.raises(PlatformError):
        client.exchange_code(code=code, code_verifier="", redirect_uri="https://evil.example/cb", sandbox=True)
    with pytest.raises(PlatformError):  # the failed attempt used the code up
        client.exchange_code(code=code, code_verifier="", redirect_uri=redirect, sandbox=True)


def test_the_app_authenticates_with_basic_auth(sandbox, client, settings):
    settings.PINTEREST_CLIENT_ID, settings.PINTEREST_CLIENT_SECRET = "my-app", "s3cret"
    conn = Connection(
        Credentials(access_token="", refresh_token=tokens.issue("pinterest", ACCOUNT, kind="sbr")), sandbox=True
    )

    client.refresh(conn)

    [request] = logged(sandbox.state, "POST", "/v5/oauth/token")
    assert request["headers"]["Authorization"] == "Basic " + base64.b64encode(b"my-app:s3cret").decode()
    assert "s3cret" not in request["body"].decode()


def test_refresh_rotates_the_refresh_token(sandbox, client, origin):
    old = tokens.issue("pinterest", ACCOUNT, kind="sbr")
    conn = Connection(Credentials(access_token="expired", refresh_token=old, external_id=ACCOUNT), sandbox=True)

    fresh = client.refresh(conn)

    assert fresh.refresh_token not in ("", old)
    assert fresh.external_id == ACCOUNT
    assert (
        client.publish(Connection(fresh, sandbox=True), _post("refreshed", [image(origin)])).kind
        is OutcomeKind.PUBLISHED
    )
    with pytest.raises(PlatformError):
        client.refresh(conn)  # the old refresh token stopped working


def _answer(status, body, headers=None):
    response = requests.Response()
    response.status_code, response._content = status, json.dumps(body).encode()
    response.headers.update(headers or {})
    return response


@pytest.mark.parametrize(
    ("status", "body", "kind", "code", "auth"),
    [
        (400, {"code": 1, "message": "Invalid parameters."}, OutcomeKind.FAILED, "PINTEREST_1", False),
        (401, {"code": 2, "message": "Authentication failed."}, OutcomeKind.FAILED, "PINTEREST_2", True),
        (404, {"code": 40, "message": "Board not found."}, OutcomeKind.FAILED, "PINTEREST_40", False),
        (429, {"code": 8, "message": "slow down"}, OutcomeKind.NOT_SENT, "RATE_LIMITED", False),
        (503, {"code": 0, "message": "down"}, OutcomeKind.UNKNOWN, "PINTEREST_0", False),
        (502, "<html>", OutcomeKind.UNKNOWN, "HTTP_502", False),
    ],
)
def test_pinterest_refusals_are_classified_with_their_words(status, body, kind, code, auth):
    outcome = Client().refusal(_answer(status, body))

    assert (outcome.kind, outcome.error_code, outcome.http_status, outcome.auth_failed) == (kind, code, status, auth)

"""Every request the Threads client sends is one Meta's published Postman collection shows,
and every success the stand-in answers has the shape of the collection's example responses.

The client is driven through text (with link_attachment and topic_tag), image, carousel,
video, a processing container, check, find_recent, a reply, exists, deleting a reply and a
thread, finding a reply whose parent was deleted, metrics, the code exchange, the long-lived
token exchange and a refresh; then each logged request to graph.threads.net is matched to a
documented request (method, host and path; `{{variables}}` and `me` stand for ids) and its
parameters (query and form body together) to the documented parameter names, with the values
checked where the collection shows them (media_type, fields and metric lists, true/false
flags, the grant types).

What the collection does not cover, and so is not checked here: parameter and response types
(it has none; answers are compared to its example bodies' keys and JSON types), error bodies
(no error examples), the `/v1.0` version prefix of the developer docs (its paths are
unversioned), sending parameters as a form body and the token as an `Authorization: Bearer`
header (Postman adds `access_token` to the query), and the refresh answer (its example is
empty; it is checked against the long-lived token example instead).
"""

from __future__ import annotations

import datetime as dt
from urllib.parse import parse_qsl, urlsplit

import pytest
import requests

from accounts.platforms.base import Connection, Credentials, OutcomeKind, Post, ReplyTo
from accounts.platforms.threads import Client
from sandbox import tokens
from tests.platforms import threads_postman as postman
from tests.platforms.threads_helpers import ACCOUNT, MediaServer, connection, params_of

GRANTS = {"authorization_code", "th_exchange_token", "th_refresh_token"}


def _drive(client, sandbox, server):
    conn = connection()
    since = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=1)
    posts = [
        Post(text="text https://example.com 日本 😀", settings={"link_attachment": "https://example.com/card"}),
        Post(text="one image", media=[server.image("JPEG")], settings={"topic_tag": "Sandbox"}),
        Post(text="carousel", media=[server.image(name="a"), server.video(name="b")]),
        Post(text="video", media=[server.video()]),
    ]
    outcomes = [client.publish(conn, post) for post in posts]
    assert [o.kind for o in outcomes] == [OutcomeKind.PUBLISHED] * 4
    sandbox.outcomes("threads", "processing")
    pending = client.publish(conn, Post(text="slow"))
    assert client.check(conn, pending.ref).kind is OutcomeKind.PUBLISHED
    assert client.check(conn, {"post_id": outcomes[0].post_id}).kind is OutcomeKind.PUBLISHED
    assert client.find_recent(conn, Post(text="video"), since).kind is OutcomeKind.PUBLISHED
    reply_to = ReplyTo(parent_id=outcomes[0].post_id, root_id=outcomes[0].post_id)
    reply = client.publish(conn, Post(text="a reply", reply_to=reply_to))
    assert reply.kind is OutcomeKind.PUBLISHED
    assert client.find_recent(conn, Post(text="a reply", reply_to=reply_to), since).kind is OutcomeKind.PUBLISHED
    assert client.exists(conn, reply.post_id, reply.ref)
    for gone in (reply, outcomes[3]):
        assert client.delete(conn, gone.post_id, gone.ref).kind is OutcomeKind.PUBLISHED
    orphan_to = ReplyTo(parent_id=outcomes[1].post_id, root_id=outcomes[1].post_id)
    assert client.publish(conn, Post(text="an orphan", reply_to=orphan_to)).kind is OutcomeKind.PUBLISHED
    assert client.delete(conn, outcomes[1].post_id, outcomes[1].ref).kind is OutcomeKind.PUBLISHED
    orphan = client.find_recent(conn, Post(text="an orphan", reply_to=orphan_to), since)  # among the user's replies
    assert orphan.kind is OutcomeKind.PUBLISHED
    assert client.metrics(conn, [outcomes[0].post_id, "999"]).keys() == {outcomes[0].post_id}
    _oauth(client, sandbox)


def _oauth(client, sandbox):
    redirect = "https://app.example/cb"
    url = client.authorize_url(state="st", code_challenge="c", redirect_uri=redirect, sandbox=True)
    sandbox.authorize_urls.append(url)
    page = requests.get(url, timeout=5).text
    target = page.split('id="approve" href="', 1)[1].split('"', 1)[0].replace("&amp;", "&")
    code = dict(parse_qsl(urlsplit(target).query))["code"]
    client.exchange_code(code=code, code_verifier="", redirect_uri=redirect, sandbox=True)
    old = tokens.issue("threads", ACCOUNT, lifetime_seconds=30 * 86400)
    client.refresh(Connection(Credentials(access_token=old, external_id=ACCOUNT), sandbox=True))


@pytest.fixture
def exchange(sandbox):
    """The logged requests to graph.threads.net and the answers the client received, in order."""
    client, server = Client(), MediaServer()
    client.poll_seconds = 0
    answers = []
    client.session.hooks["response"].append(lambda response, *args, **kwargs: answers.append(response))
    sandbox.authorize_urls = []
    try:
        _drive(client, sandbox, server)
    finally:
        server.close()
    logged = [r for r in sandbox.state.requests if r["path"].startswith("/graph.threads.net/")]
    return logged, answers, sandbox


def _documented(request):
    host, _, path = request["path"].lstrip("/").partition("/")
    found = postman.matches(request["method"], host, path)
    assert found, f"{request['method']} {request['path']} is not in Meta's Postman collection"
    return found


def test_the_drive_covers_every_request_the_client_makes(exchange):
    logged, _, _ = exchange
    names = {d.name for r in logged for d in _documented(r)}

    assert {
        "1.1 Create Text Container",
        "2. Publish Threads Post",
        "Get Threads Post Details",
        "Check Container's Publishing Status",
        "Get a List of All a User's Threads",
        "Get Threads Replies",
        "Get a List of All a User's Replies",
        "Respond to Replies",
        "Delete Threads Post",
        "Get Post Insights",
        "Get App-Scoped User's Profile Information",
        "Exchange the Code For a Token",
        "Get Long-Lived Access Token",
        "Refresh Access Token",
    } <= names


def _fits(request, documented):
    """Why the request's parameters do not fit this documented request ([] when they do)."""
    given = {k: v for k, v in params_of(request).items() if k != "access_token"}
    unknown = [f"{name} is not documented" for name in given if name not in documented.params]
    wrong = [
        f"{name}={value!r} is not one of the documented values"
        for name, value in given.items()
        if name in documented.params
        and (allowed := postman.allowed_values(documented.params[name])) is not None
        and not postman.listed(value) <= allowed
    ]
    return unknown + wrong


def test_parameters_are_documented_with_documented_values(exchange):
    logged, _, _ = exchange
    for request in logged:
        reasons = [_fits(request, documented) for documented in _documented(request)]
        assert [] in reasons, f"{request['method']} {request['path']}: {reasons}"


def test_container_parameters_follow_the_documented_combinations(exchange):
    logged, _, _ = exchange
    created = [params_of(r) for r in logged if r["method"] == "POST" and r["path"].endswith("/threads")]
    media_key = {"IMAGE": "image_url", "VIDEO": "video_url", "CAROUSEL": "children", "TEXT": "text"}

    assert {c["media_type"] for c in created} == {"TEXT", "IMAGE", "VIDEO", "CAROUSEL"}
    for container in created:
        assert media_key[container["media_type"]] in container
        if container.get("is_carousel_item") == "true":
            assert container["media_type"] in ("IMAGE", "VIDEO")
            assert "text" not in container
    for children in (c["children"] for c in created if c["media_type"] == "CAROUSEL"):
        assert all(child.isdigit() for child in children.split(","))


def test_ids_in_paths_and_creation_ids_are_numeric(exchange):
    logged, _, _ = exchange
    for request in logged:
        _, _, path = request["path"].lstrip("/").partition("/")
        for documented in _documented(request):
            got = [s for s in path.split("/") if s and s != "v1.0"]
            ids = [g for want, g in zip(documented.segments, got, strict=True) if want == "*" and g != "me"]
            assert all(i.isdigit() for i in ids), request["path"]
        creation = params_of(request).get("creation_id")
        assert creation is None or creation.isdigit()


def test_the_token_calls_use_the_documented_grants(exchange):
    logged, _, _ = exchange
    grants = [params_of(r).get("grant_type") for r in logged if "access_token" in r["path"]]

    assert set(grants) == GRANTS
    for request in [r for r in logged if r["method"] == "POST" and r["path"].endswith("/oauth/access_token")]:
        assert set(params_of(request)) == set(_documented(request)[0].params)


def _examples_for(answer):
    parts = urlsplit(answer.url)
    host, _, path = parts.path.lstrip("/").partition("/")
    found = postman.matches(answer.request.method, host, path)
    if path.endswith("refresh_access_token"):
        found = postman.matches("GET", host, "access_token")  # its own example is empty
    return [example for documented in found for example in documented.examples]


def test_the_stand_in_answers_successes_in_the_documented_shapes(exchange):
    _, answers, _ = exchange
    checked = 0
    for answer in [a for a in answers if a.ok and "/graph.threads.net/" in a.url]:
        examples = _examples_for(answer)
        assert examples, f"{answer.url}: no documented example answer"
        errors = [postman.shape_errors(answer.json(), example) for example in examples]
        assert [] in errors, f"{urlsplit(answer.url).path}: {errors}"
        checked += 1
    assert checked >= 25


def test_the_authorize_url_follows_the_collections_oauth_settings(exchange):
    _, _, sandbox = exchange
    auth = {entry["key"]: entry["value"] for entry in postman.collection()["auth"]["oauth2"]}
    [url] = sandbox.authorize_urls
    query = dict(parse_qsl(urlsplit(url).query))

    assert auth["authUrl"] == "{{authorization_host}}/oauth/authorize?response_type=code"
    assert urlsplit(url).path == "/www.threads.net/oauth/authorize"
    assert query["response_type"] == "code"
    assert set(query) == {"client_id", "redirect_uri", "scope", "response_type", "state"}
    assert set(query["scope"].split(",")) <= postman.listed(postman.variables()["scope"])

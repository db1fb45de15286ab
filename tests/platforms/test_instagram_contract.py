"""Every Graph request the Instagram client sends is one Meta's published object specs
(specs/instagram/) describe, and the stand-in's answers have the fields those specs give.

The client is driven through an image post, a carousel of images and a video, a reel, a post
that is processing, check(), find_recent(), a first comment (made, checked, found, deleted),
exists(), metrics and the OAuth flow; then each logged request under /graph.instagram.com/v25.0/
is matched to its node type (user, container = ShadowIGMediaBuilder, media, IGComment) and
edge, and its parameters (query and JSON body) are checked by name, type and requiredness;
`fields=` against the node's documented fields.

What the specs do not cover, and how it is checked instead: the `/v25.0` prefix and request
encodings (JSON bodies, as Instagram's own examples send them); the answers of creation calls
(`{"id"}`) and of edges (`data`/`paging`), checked against the platform notes; the metric
enum values of insights (the spec names the enum only), checked against the notes' list;
and the OAuth endpoints, checked against the form the platform notes give.
"""

from __future__ import annotations

import datetime as dt
import json
from urllib.parse import parse_qs, parse_qsl, urlsplit

import pytest
import requests

from accounts.platforms.base import Connection, OutcomeKind, Post, ReplyTo
from accounts.platforms.instagram import Client
from tests.platforms import instagram_graphspec as spec
from tests.platforms.file_server import serve_files
from tests.platforms.instagram_helpers import ACCOUNT, connection, jpeg, mp4, params_of

GRAPH = "/graph.instagram.com/v25.0/"
NOTED_METRICS = {"views", "reach", "likes", "comments", "shares", "saved", "total_interactions"}
OAUTH_FORMS = {
    "/api.instagram.com/oauth/access_token": {"client_id", "client_secret", "grant_type", "redirect_uri", "code"},
}
OAUTH_QUERIES = {
    "/graph.instagram.com/access_token": {"grant_type", "client_secret", "access_token"},
    "/graph.instagram.com/refresh_access_token": {"grant_type", "access_token"},
}


def _drive(client, sandbox, server):
    conn = connection()
    since = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=1)
    posts = [
        Post(text="image #one", media=[jpeg(server)]),
        Post(text="album", media=[jpeg(server), jpeg(server), mp4(server)]),
        Post(text="reel", media=[mp4(server)]),
    ]
    outcomes = [client.publish(conn, post) for post in posts]
    assert [o.kind for o in outcomes] == [OutcomeKind.PUBLISHED] * 3
    sandbox.outcomes("instagram", "processing")
    pending = client.publish(conn, Post(text="slow", media=[jpeg(server)]))
    assert client.check(conn, pending.ref).kind is OutcomeKind.PUBLISHED
    assert client.check(conn, outcomes[0].ref).kind is OutcomeKind.PUBLISHED
    assert client.find_recent(conn, Post(text="album"), since).kind is OutcomeKind.PUBLISHED
    assert client.metrics(conn, [outcomes[0].post_id]).keys() == {outcomes[0].post_id}
    _drive_comment(client, sandbox, conn, outcomes[0].post_id, since)
    _oauth(client, sandbox)


def _drive_comment(client, sandbox, conn, media_id, since):
    first = Post(text="first!", reply_to=ReplyTo(parent_id=media_id, root_id=media_id))
    comment = client.publish(conn, first)
    sandbox.comment_ids = {comment.post_id}
    assert client.check(conn, comment.ref).kind is OutcomeKind.PUBLISHED
    assert client.find_recent(conn, first, since).kind is OutcomeKind.PUBLISHED
    assert client.exists(conn, media_id, {})
    assert client.exists(conn, comment.post_id, comment.ref)
    assert client.delete(conn, comment.post_id, comment.ref).kind is OutcomeKind.PUBLISHED


def _oauth(client, sandbox):
    redirect = "https://app.example/cb"
    url = client.authorize_url(state="st", code_challenge="c", redirect_uri=redirect, sandbox=True)
    sandbox.authorize_urls.append(url)
    page = requests.get(url, timeout=5).text
    target = page.split('id="approve" href="', 1)[1].split('"', 1)[0].replace("&amp;", "&")
    code = parse_qs(urlsplit(target).query)["code"][0]
    credentials = client.exchange_code(code=code, code_verifier="", redirect_uri=redirect, sandbox=True)
    client.refresh(Connection(credentials, sandbox=True))


@pytest.fixture
def exchange(sandbox):
    """The logged Graph requests and the answers the client received, in order."""
    client = Client()
    client.poll_seconds = 0
    answers = []
    client.session.hooks["response"].append(lambda response, *args, **kwargs: answers.append(response))
    sandbox.authorize_urls = []
    media_server = serve_files()
    server = next(media_server)
    try:
        _drive(client, sandbox, server)
    finally:
        media_server.close()
    logged = [r for r in sandbox.state.requests if r["path"].startswith(GRAPH)]
    return logged, answers, sandbox


def _node_type(sandbox, node_id):
    if node_id in ("me", ACCOUNT) or node_id.startswith("1784"):
        return "IGUserForIGOnlyAPI"
    if node_id in sandbox.state.objects["instagram"].get("containers", {}):
        return "ShadowIGMediaBuilder"
    if sandbox.state.find_post("instagram", node_id) is not None:
        return "IGMediaForIGOnlyAPI"
    if node_id in sandbox.comment_ids:
        return "IGComment"
    raise AssertionError(f"{node_id} is no node the client should address")


def _documented(sandbox, method, path):
    """(node type, api entry, the node type of what it returns) of a Graph path."""
    node_id, _, edge = path.removeprefix(GRAPH).partition("/")
    node_type = _node_type(sandbox, node_id)
    if (node_type, edge) == ("IGUserForIGOnlyAPI", "media_publish"):
        # The IG-only spec names this edge `mediapublish` (codegen); IGUser.json has the real path.
        assert spec.api(node_type, method, "mediapublish") is not None
        return node_type, spec.api("IGUser", method, "media_publish"), "IGMediaForIGOnlyAPI"
    entry = spec.api(node_type, method, edge or None)
    assert entry is not None, f"{method} {node_type}/{edge} is not in Meta's spec"
    returned = {"Media": "IGMediaForIGOnlyAPI", "User": "IGUserForIGOnlyAPI", "Comment": "IGComment"}.get(
        entry["return"], node_type
    )
    return node_type, entry, returned


def test_the_drive_covers_every_edge_the_client_uses(exchange):
    logged, _, sandbox = exchange
    used = set()
    for request in logged:
        node_type, entry, _ = _documented(sandbox, request["method"], request["path"])
        used.add((request["method"], node_type, entry.get("endpoint")))

    assert used == {
        ("POST", "IGUserForIGOnlyAPI", "media"),
        ("GET", "IGUserForIGOnlyAPI", "media"),
        ("POST", "IGUserForIGOnlyAPI", "media_publish"),
        ("GET", "IGUserForIGOnlyAPI", None),
        ("GET", "ShadowIGMediaBuilder", None),
        ("GET", "IGMediaForIGOnlyAPI", None),
        ("POST", "IGMediaForIGOnlyAPI", "comments"),
        ("GET", "IGMediaForIGOnlyAPI", "comments"),
        ("GET", "IGMediaForIGOnlyAPI", "insights"),
        ("GET", "IGComment", None),
        ("DELETE", "IGComment", None),
    }


def test_parameters_are_documented_typed_and_complete(exchange):
    logged, _, sandbox = exchange
    for request in logged:
        _, entry, _ = _documented(sandbox, request["method"], request["path"])
        documented = {name: p["type"] for name, p in spec.params(entry).items()}
        given = params_of(request)
        for name, value in given.items():
            kind = documented.get(name) or spec.GENERIC_PARAMS.get(name)
            assert kind is not None, f"{request['path']}: parameter {name} is not documented"
            assert spec.fits(value, kind), f"{request['path']}: {name}={value!r} is not {kind}"
        required = {name for name, p in spec.params(entry).items() if p.get("required")}
        assert required <= set(given), f"{request['path']}: missing {required - set(given)}"


def test_fields_asked_for_are_fields_of_the_node(exchange):
    logged, _, sandbox = exchange
    asked = 0
    for request in [r for r in logged if r["method"] == "GET"]:
        _, _, returned = _documented(sandbox, "GET", request["path"])
        for name in params_of(request).get("fields", "").split(","):
            if name:
                assert name in spec.fields(returned), f"{request['path']}: {name} is not a field of {returned}"
                asked += 1
    assert asked >= 10


def test_the_token_goes_as_a_bearer_header_never_in_the_url(exchange):
    logged, _, _ = exchange
    for request in logged:
        assert "access_token" not in dict(parse_qsl(request["query"]))
        assert request["headers"]["Authorization"].startswith("Bearer sbx.instagram.")


def test_insight_metrics_are_the_current_ones(exchange):
    logged, _, _ = exchange
    for request in [r for r in logged if r["path"].endswith("/insights")]:
        metrics = set(params_of(request)["metric"].split(","))
        assert metrics <= NOTED_METRICS  # impressions, plays and video_views were removed in 2025


def test_the_stand_in_answers_in_the_documented_shapes(exchange):
    _, answers, sandbox = exchange
    checked = 0
    for answer in [a for a in answers if urlsplit(a.url).path.startswith(GRAPH)]:
        path, body = urlsplit(answer.url).path, answer.json()
        assert answer.status_code == 200, (path, body)
        node_type, entry, returned = _documented(sandbox, answer.request.method, path)
        checked += 1
        if answer.request.method == "DELETE":
            assert body == {"success": True}, path
        elif answer.request.method == "POST":
            assert set(body) == {"id"}, path  # the notes: creation answers {"id": ...}
            assert isinstance(body["id"], str), path
        elif entry.get("endpoint") == "insights":
            for item in body["data"]:
                assert set(item) <= set(spec.fields("InstagramInsightsResult")), item
        elif entry.get("endpoint") in ("media", "comments"):
            assert set(body) <= {"data", "paging"}
            for item in body["data"]:
                assert spec.field_errors(item, returned) == [], item
        else:
            assert spec.field_errors(body, node_type) == [], (path, body)
    assert checked >= 20


def test_the_oauth_calls_follow_the_documented_forms(exchange):
    _, _, sandbox = exchange
    [url] = sandbox.authorize_urls
    query = dict(parse_qsl(urlsplit(url).query))
    assert urlsplit(url).path == "/www.instagram.com/oauth/authorize"
    assert set(query) == {"client_id", "redirect_uri", "response_type", "scope", "state"}
    assert all(scope.startswith("instagram_business_") for scope in query["scope"].split(","))
    oauth = [r for r in sandbox.state.requests if r["path"] in {**OAUTH_FORMS, **OAUTH_QUERIES}]
    assert [r["path"] for r in oauth] == [
        "/api.instagram.com/oauth/access_token",
        "/graph.instagram.com/access_token",
        "/graph.instagram.com/refresh_access_token",
    ]
    for request in oauth:
        if request["path"] in OAUTH_FORMS:
            assert request["method"] == "POST"
            assert request["headers"]["Content-Type"] == "application/x-www-form-urlencoded"
            assert set(dict(parse_qsl(request["body"].decode()))) == OAUTH_FORMS[request["path"]]
        else:
            assert request["method"] == "GET"
            assert set(dict(parse_qsl(request["query"]))) == OAUTH_QUERIES[request["path"]]


def test_the_token_answers_have_the_documented_shapes(exchange):
    _, answers, _ = exchange
    shapes = {
        "/api.instagram.com/oauth/access_token": lambda b: (
            set(b["data"][0]) == {"access_token", "user_id", "permissions"}
        ),
        "/graph.instagram.com/access_token": lambda b: set(b) == {"access_token", "token_type", "expires_in"},
        "/graph.instagram.com/refresh_access_token": lambda b: set(b) == {"access_token", "token_type", "expires_in"},
    }
    seen = [a for a in answers if urlsplit(a.url).path in shapes]
    assert len(seen) == 3
    for answer in seen:
        assert shapes[urlsplit(answer.url).path](json.loads(answer.text))

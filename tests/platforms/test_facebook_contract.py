"""Every Graph request the Facebook client sends is one Meta's published object descriptions
(specs/facebook, Meta's codegen format) accept, and the stand-in's node reads answer only
documented fields.

The client is driven through text, link, one photo, an album, a video, a reel, check,
find_recent (posts, videos, reels), a first comment (made, checked, found), deleting a comment,
a post and a video, exists, metrics and Facebook Login. Then each logged request to
graph.facebook.com / graph-video.facebook.com is matched to its edge in Page.json (page
edges), PagePost.json / AdVideo.json / Photo.json (node reads and their `fields`) and checked:
documented method and edge, every parameter documented (plus Graph's generic `fields`,
`limit`, `access_token`) with a value of the documented type.

What the descriptions do not cover, and so is not checked here: the Comment node (its
`GET`/`DELETE /{comment-id}` and the fields of the `comments` edge: Comment.json is not among
the copied descriptions), enum values (the specs name
enum types only), `/oauth/access_token`, `/me/accounts` (the User node is not copied), the
login dialog, the rupload.facebook.com upload host, and the bodies of create answers
(`{"id"}`, `{"id", "post_id"}`, `{"video_id", "upload_url"}`, `{"success": true}`). Those are
checked against Meta's guides in test_facebook.py instead.
"""

from __future__ import annotations

import datetime as dt
from urllib.parse import parse_qsl, urlsplit

import pytest

from accounts.platforms.base import OutcomeKind, Post, ReplyTo
from accounts.platforms.facebook import Client
from tests.platforms import facebook_specs as specs
from tests.platforms.facebook_helpers import (
    PAGE,
    connection,
    form,
    image,
    video,
)
from tests.platforms.file_server import serve_files
from tests.platforms.test_facebook import _approve, _pkce

GRAPH_HOSTS = ("/graph.facebook.com/v25.0/", "/graph-video.facebook.com/v25.0/")
NOT_DESCRIBED = {"oauth/access_token", "me/accounts"}


@pytest.fixture
def files_server():
    yield from serve_files()


def _drive(client, sandbox, server):
    conn, since = connection(), dt.datetime.now(dt.UTC) - dt.timedelta(minutes=1)
    reel = Post(text="reel", media=[video(None, reel=True)], settings={"postType": "reels"})
    clip = Post(text="clip", media=[video(server)])
    posts = [
        Post(text="text https://example.com"),
        Post(text="one", media=[image(server)]),
        Post(text="album", media=[image(server, "a.png"), image(server, "b.png")]),
        clip,
        reel,
    ]
    outcomes = [client.publish(conn, post) for post in posts]
    assert [o.kind for o in outcomes] == [OutcomeKind.PUBLISHED] * 5
    assert client.check(conn, outcomes[0].ref).kind is OutcomeKind.PUBLISHED
    for post in (posts[0], clip, reel):
        assert client.find_recent(conn, post, since).kind is OutcomeKind.PUBLISHED
    client.metrics(conn, [outcomes[0].post_id, outcomes[3].post_id])
    _drive_comments_and_deletes(client, conn, outcomes[0].post_id, outcomes[3], since)
    verifier, challenge = _pkce()
    url = client.authorize_url(state="s", code_challenge=challenge, redirect_uri="https://a.example/cb", sandbox=True)
    code = _approve(url)["code"][0]
    client.exchange_code(code=code, code_verifier=verifier, redirect_uri="https://a.example/cb", sandbox=True)


def _drive_comments_and_deletes(client, conn, post_id, clip, since):
    first = Post(text="first!", reply_to=ReplyTo(parent_id=post_id, root_id=post_id))
    comment = client.publish(conn, first)
    assert client.check(conn, comment.ref).kind is OutcomeKind.PUBLISHED
    assert client.find_recent(conn, first, since).kind is OutcomeKind.PUBLISHED
    assert client.exists(conn, post_id, {})
    for deleted in (comment.post_id, post_id, clip.post_id):
        assert client.delete(conn, deleted, {}).kind is OutcomeKind.PUBLISHED


@pytest.fixture
def exchange(sandbox, files_server):
    client, answers = Client(), []
    client.session.hooks["response"].append(lambda response, *args, **kwargs: answers.append(response))
    _drive(client, sandbox, files_server)
    logged = [r for r in sandbox.state.requests if r["path"].startswith(GRAPH_HOSTS)]
    return logged, answers


def _relative(path):
    for host in GRAPH_HOSTS:
        if path.startswith(host):
            return path.removeprefix(host)
    return path


def _operation(request):
    """(node type, edge or None, spec api) for a logged Graph request."""
    parts = _relative(request["path"]).split("/")
    node_id, edge = parts[0], (parts[1] if len(parts) > 1 else None)
    node_type = _node_type(node_id)
    return node_type, edge, None if node_type == "Comment" else specs.api(node_type, request["method"], edge)


def _node_type(node_id):
    # posts are `{page}_{n}`, comments `{post or video}_{n}`; the other nodes are videos and reels
    if node_id == PAGE:
        return "Page"
    if "_" in node_id:
        return "PagePost" if node_id.startswith(f"{PAGE}_") else "Comment"
    return "AdVideo"


def _described(logged):
    return [r for r in logged if _relative(r["path"]) not in NOT_DESCRIBED and _operation(r)[0] != "Comment"]


def test_the_drive_covers_every_edge_the_client_uses(exchange):
    logged, _ = exchange
    used = {(_operation(r)[0], r["method"], _operation(r)[1]) for r in _described(logged)}

    assert used == {
        ("Page", "POST", "feed"),
        ("Page", "POST", "photos"),
        ("Page", "POST", "videos"),
        ("Page", "POST", "video_reels"),
        ("Page", "GET", "published_posts"),
        ("Page", "GET", "videos"),
        ("Page", "GET", "video_reels"),
        ("PagePost", "GET", None),
        ("PagePost", "GET", "insights"),
        ("PagePost", "POST", "comments"),
        ("PagePost", "GET", "comments"),
        ("PagePost", "DELETE", None),
        ("AdVideo", "GET", None),
        ("AdVideo", "DELETE", None),
    }


def test_every_request_is_a_documented_edge_with_documented_parameters(exchange):
    logged, _ = exchange
    errors = []
    for request in _described(logged):
        node_type, edge, api = _operation(request)
        if api is None:
            errors.append(f"{request['method']} {node_type}/{edge} is not in {node_type}.json")
            continue
        documented = {p["name"]: p["type"] for p in api["params"]}
        for name, raw in form(request).items():
            base = specs.base_name(name)
            if base in specs.GENERIC_PARAMS:
                continue
            if base not in documented:
                errors.append(f"{node_type}/{edge}: parameter {name} is not documented")
                continue
            errors += [f"{node_type}/{edge} {name}: {e}" for e in specs.value_errors(documented[base], raw)]
    assert errors == []


def test_required_parameters_are_sent(exchange):
    logged, _ = exchange
    for request in _described(logged):
        _, edge, api = _operation(request)
        required = {p["name"] for p in api["params"] if p.get("required")}
        assert required <= set(form(request)), (edge, required)


def test_requested_fields_exist_on_the_node_types(exchange):
    logged, _ = exchange
    for request in _described(logged):
        node_type, edge, api = _operation(request)
        fields = dict(parse_qsl(request["query"])).get("fields")
        if not fields:
            continue
        target = api["return"] if edge else node_type
        if target == "Comment":
            continue
        names = {f.split(".")[0].split("{")[0] for f in fields.split(",")}
        documented = set(specs.field_types(target)) | _edges_of(target)
        assert names <= documented, (target, names - documented)


def _edges_of(node_type):
    """Edges readable as fields with `.summary(...)` (reactions, comments, likes)."""
    return {a["endpoint"] for a in specs.node(node_type)["apis"] if a["method"] == "GET" and a.get("endpoint")} | {
        "reactions"
    }


def test_node_reads_answer_only_documented_fields(exchange):
    _, answers = exchange
    checked = 0
    for answer in answers:
        path = urlsplit(answer.url).path
        if answer.request.method != "GET" or not path.startswith(GRAPH_HOSTS) or _relative(path) in NOT_DESCRIBED:
            continue
        relative = _relative(path)
        node_id, _, edge = relative.partition("/")
        if edge == "comments" or _node_type(node_id) == "Comment":
            continue
        body = answer.json()
        if edge == "insights":
            items, node_type = body["data"], "InsightsResult"
        elif edge:
            items, node_type = body["data"], "PagePost" if edge == "published_posts" else "AdVideo"
        else:
            items, node_type = [body], "PagePost" if "_" in node_id else "AdVideo"
        edges = _edges_of(node_type)
        for item in items:
            plain = {k: v for k, v in item.items() if k not in edges}
            assert specs.answer_errors(node_type, plain) == [], relative
            checked += 1
    assert checked >= 10


def test_video_status_answers_use_the_video_status_fields(exchange):
    _, answers = exchange
    statuses = [a.json()["status"] for a in answers if "status" in a.json() and isinstance(a.json()["status"], dict)]

    assert statuses
    for status in statuses:
        assert specs.answer_errors("VideoStatus", status) == []
        assert status["video_status"] == "ready"

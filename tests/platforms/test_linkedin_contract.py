"""Every request the LinkedIn client sends is one LinkedIn documents, and every success the
stand-in answers has the documented shape.

LinkedIn publishes no machine-readable description (specs/linkedin/README.md), so the check is
against `specs/linkedin/documented.json`, a hand transcription of the facts file §4: operation
paths and methods, the required LinkedIn-Version / X-Restli-Protocol-Version headers, query
parameters, JSON body field names, types and enums, the upload PUTs and the OAuth forms, and
the documented answers (201 + `x-restli-id`, `value{...}` of initializeUpload, status enums,
`elements[].count`, `sub`), and the Comments API's create, get, list and delete and the Posts
API's delete, transcribed from LinkedIn's pages for them. Not covered, because nothing
documents it here: the field sets of a read-back post, the posts finder beyond its parameter
names, error bodies of each endpoint.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path
from urllib.parse import parse_qs, parse_qsl, unquote, urlsplit

import pytest
import requests

from accounts.platforms.base import Connection, OutcomeKind, Post, ReplyTo
from accounts.platforms.linkedin import Client
from sandbox.platforms import linkedin as stand_in
from tests.platforms.linkedin_helpers import connection, image, video

SPEC = json.loads((Path(__file__).parent / "specs" / "linkedin" / "documented.json").read_text())
TYPES = {"string": str, "boolean": bool, "integer": int, "object": dict, "array": list}


def _drive(client, sandbox):
    conn, since = connection(), dt.datetime.now(dt.UTC) - dt.timedelta(minutes=1)
    audience = {"geoLocations": ["urn:li:geo:1"]}
    posts = [
        (conn, Post(text="text (escaped) #tag", settings={"visibility": "LOGGED_IN_MEMBERS"})),
        (conn, Post(text="one image", media=[image()], settings={"title": "T"})),
        (conn, Post(text="", media=[image(media_id=f"i{n}") for n in range(3)])),
        (conn, Post(text="video", media=[video()], settings={"visibility": "CONNECTIONS"})),
        (connection(external_id="urn:li:organization:42"), Post(text="org", settings={"target_audience": audience})),
    ]
    outcomes = [client.publish(c, p) for c, p in posts]
    assert [o.kind for o in outcomes] == [OutcomeKind.PUBLISHED] * 5
    assert client.check(conn, {"post_id": outcomes[0].post_id}).kind is OutcomeKind.PUBLISHED
    assert client.find_recent(conn, posts[0][1], since).kind is OutcomeKind.PUBLISHED
    client.metrics(conn, [outcomes[0].post_id])
    _comment_and_delete(client, conn, outcomes, since)
    _oauth(client, sandbox)


def _comment_and_delete(client, conn, outcomes, since):
    """A first comment created, read back, found, deleted; then a post deleted and read back."""
    to = ReplyTo(parent_id=outcomes[0].post_id, root_id=outcomes[0].post_id)
    comment = client.publish(conn, Post(text="a first comment", reply_to=to))
    assert comment.kind is OutcomeKind.PUBLISHED
    assert client.check(conn, comment.ref).kind is OutcomeKind.PUBLISHED
    assert client.find_recent(conn, Post(text="a first comment", reply_to=to), since).post_id == comment.post_id
    assert client.delete(conn, comment.post_id, comment.ref).kind is OutcomeKind.PUBLISHED
    assert client.delete(conn, outcomes[1].post_id, outcomes[1].ref).kind is OutcomeKind.PUBLISHED
    assert client.exists(conn, outcomes[1].post_id, {}) is False


def _oauth(client, sandbox):
    redirect = "https://app.example/cb"
    url = client.authorize_url(state="st", code_challenge="", redirect_uri=redirect, sandbox=True)
    sandbox.authorize_urls.append(url)
    page = requests.get(url, timeout=5).text
    target = page.split('id="approve" href="', 1)[1].split('"', 1)[0].replace("&amp;", "&")
    code = parse_qs(urlsplit(target).query)["code"][0]
    credentials = client.exchange_code(code=code, code_verifier="", redirect_uri=redirect, sandbox=True)
    client.refresh(Connection(credentials, sandbox=True))


@pytest.fixture
def exchange(sandbox, monkeypatch):
    """The logged LinkedIn requests and the answers the client received, in order."""
    monkeypatch.setattr(stand_in, "PART_BYTES", 1500)
    client, answers = Client(), []
    client.poll_interval_seconds = 0
    client.session.hooks["response"].append(lambda response, *args, **kwargs: answers.append(response))
    sandbox.authorize_urls = []
    _drive(client, sandbox)
    hosts = ("/api.linkedin.com/", "/www.linkedin.com/")
    return [r for r in sandbox.state.requests if r["path"].startswith(hosts)], answers, sandbox


def _template(path):
    path = re.sub(r"/urn:li:[^/]+", "/{urn}", path)
    return re.sub(r"/comments/\d+$", "/comments/{id}", path)


def _operation(request):
    path = _template(request["path"].removeprefix("/api.linkedin.com"))
    query = dict(parse_qsl(request["query"]))
    for operation in SPEC["operations"]:
        fixed = {k: v for k, v in operation.get("query", {}).items() if k == "action"}
        if (operation["method"], operation["path"]) == (request["method"], path) and all(
            query.get(k) == v for k, v in fixed.items()
        ):
            return operation
    return None


def _api(logged):
    return [r for r in logged if r["path"].startswith("/api.linkedin.com/")]


def test_the_drive_covers_every_documented_operation(exchange):
    logged, _, _ = exchange
    used = {(op["method"], op["path"], op.get("query", {}).get("action")) for op in map(_operation, _api(logged)) if op}
    documented = {(op["method"], op["path"], op.get("query", {}).get("action")) for op in SPEC["operations"]}

    assert used == documented - {("GET", "/rest/images/{urn}", None)}  # image status polling is optional


def test_every_api_request_is_a_documented_operation_with_its_headers(exchange):
    logged, _, _ = exchange
    for request in _api(logged):
        operation = _operation(request)
        assert operation is not None, f"{request['method']} {request['path']} is not documented"
        headers = {k.lower(): v for k, v in request["headers"].items()}
        wanted = {"Authorization": SPEC["rest_headers"]["Authorization"]}
        if not operation.get("unversioned"):
            wanted = SPEC["rest_headers"]
        for name, pattern in wanted.items():
            assert re.match(pattern, headers.get(name.lower(), "")), f"{name} on {request['path']}"


def _query_errors(operation, query):
    errors = []
    for name, rule in operation.get("query", {}).items():
        value = query.get(name)
        ok = value in rule if isinstance(rule, list) else bool(re.match(rule, value or "")) or value == rule
        if not ok:
            errors.append(f"{name}={value!r}")
    return errors + [f"undocumented parameter {n}" for n in set(query) - set(operation.get("query", {}))]


def test_query_parameters_are_documented(exchange):
    logged, _, _ = exchange
    for request in _api(logged):
        operation = _operation(request)
        assert _query_errors(operation, dict(parse_qsl(request["query"]))) == [], request["path"]


def _shape_errors(value, shape, where):
    if isinstance(shape, str):
        expected = TYPES[shape]
        return [] if isinstance(value, expected) and not (expected is int and isinstance(value, bool)) else [where]
    if not isinstance(value, dict):
        return [where]
    unknown = [f"{where}.{k} undocumented" for k in set(value) - set(shape)]
    return unknown + [e for k in set(value) & set(shape) for e in _shape_errors(value[k], shape[k], f"{where}.{k}")]


def _post_errors(body):
    rule = SPEC["operations"][0]["body"]
    fields = {**rule["required"], **rule["optional"]}
    errors = [f"missing {k}" for k in rule["required"] if k not in body]
    errors += _shape_errors(body, fields, "body")
    errors += [f"{k}={body[k]!r}" for k, allowed in rule["enums"].items() if body.get(k) not in allowed]
    errors += _shape_errors(body["distribution"], rule["distribution"], "distribution")
    return errors + _content_errors(body.get("content"), rule["content"])


def _content_errors(content, rule):
    if content is None:
        return []
    if "media" in content:
        return _shape_errors(content, {"media": rule["media"]}, "content")
    images, limits = content["multiImage"]["images"], rule["multiImage"]["images"]
    errors = [] if limits["min"] <= len(images) <= limits["max"] else ["multiImage count"]
    return errors + [e for item in images for e in _shape_errors(item, limits["item"], "image")]


def test_json_bodies_have_the_documented_fields_and_types(exchange):
    logged, _, _ = exchange
    for request in _api(logged):
        operation = _operation(request)
        if request["method"] != "POST":
            continue
        body = json.loads(request["body"])
        errors = (
            _post_errors(body) if operation["path"] == "/rest/posts" else _shape_errors(body, operation["body"], "body")
        )
        assert errors == [], f"{request['path']}?{request['query']}: {errors}"


def test_uploads_are_puts_with_the_bearer_token(exchange):
    logged, _, _ = exchange
    puts = [r for r in logged if r["method"] == "PUT"]
    assert len(puts) >= 6  # 4 images and a video in several parts
    for request in puts:
        assert request["path"].startswith(f"/{SPEC['upload_put']['host']}/dms-uploads/")
        assert re.match(SPEC["upload_put"]["headers"]["Authorization"], request["headers"]["Authorization"])


def test_oauth_requests_follow_the_documented_forms(exchange):
    logged, _, sandbox = exchange
    [authorize] = sandbox.authorize_urls
    assert set(parse_qs(urlsplit(authorize).query)) == set(SPEC["oauth"]["authorize"]["query"])
    tokens = [r for r in logged if r["path"].endswith(SPEC["oauth"]["token"]["path"])]
    for request in tokens:
        assert request["headers"]["Content-Type"] == "application/x-www-form-urlencoded"
        form = dict(parse_qsl(request["body"].decode()))
        assert set(form) == set(SPEC["oauth"]["token"][form["grant_type"]])
    assert len(tokens) == 2


def test_the_stand_in_answers_in_the_documented_shapes(exchange):
    _, answers, _ = exchange
    checked = set()
    for response in answers:
        url = urlsplit(response.request.url)
        request = {"method": response.request.method, "path": unquote(url.path), "query": url.query}
        operation = _operation(request)
        if operation is None or response.status_code >= 300:
            continue
        assert response.status_code == operation["response"]["status"], request["path"]
        _check_answer(response, operation["response"])
        checked.add((operation["method"], operation["path"]))
    assert len(checked) == len(SPEC["operations"]) - 1 - 1  # minus image status, and videos twice by action


def _check_answer(response, rule):
    if rule.get("empty_body"):
        assert response.content == b""
    for header in rule.get("headers", []):
        assert re.fullmatch(r"urn:li:(share|ugcPost):\d+", response.headers[header])
    body = response.json() if response.content else {}
    for name, kind in rule.get("value", {}).items():
        assert isinstance(body["value"][name], TYPES[kind]), name
    for name, allowed in rule.get("fields", {}).items():
        assert body[name] in allowed if isinstance(allowed, list) else isinstance(body[name], TYPES[allowed])
    if "elements_field" in rule:
        assert all(isinstance(e[rule["elements_field"]], int) for e in body["elements"])

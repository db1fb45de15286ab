"""Every request the X client sends is one X's published OpenAPI description accepts, and
every success the stand-in answers has the shape that description promises.

The client is driven through text, image, multi-image, video (chunked), reply, quote,
sensitive media, metrics, timeline, deleting and reading back, and the OAuth token exchange
against the sandbox; then each logged request under /api.x.com/ is checked: documented path
template and method, path and query parameters against their schemas, JSON bodies against the
requestBody schema, multipart appends against their form schema. `/2/oauth2/token` is not in
the document (only named as the OAuth flow's tokenUrl), so it is checked against the OAuth 2.0
form X documents instead.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import io
import json
from urllib.parse import parse_qs, parse_qsl, urlsplit

import pytest
import requests
from werkzeug.wrappers import Request

from accounts.platforms.base import Connection, OutcomeKind, Post, ReplyTo
from accounts.platforms.x import Client
from tests.platforms.openapi_spec import SPECS, OpenApiSpec
from tests.platforms.x_helpers import connection, image, video

openapi = OpenApiSpec(SPECS / "x" / "openapi.json")


OAUTH_FORMS = {
    "authorization_code": {"grant_type", "code", "redirect_uri", "code_verifier", "client_id"},
    "refresh_token": {"grant_type", "refresh_token", "client_id"},
}
AUTHORIZE_QUERY = {
    "response_type",
    "client_id",
    "redirect_uri",
    "scope",
    "state",
    "code_challenge",
    "code_challenge_method",
}


def _drive(client, sandbox):
    conn = connection()
    since = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=1)
    original = client.publish(conn, Post(text="text post https://example.com 日本"))
    posts = [
        Post(text="one image", media=[image()], settings={"sensitive": True}),
        Post(text="", media=[image(media_id=f"i{n}") for n in range(4)]),
        Post(text="video", media=[video()]),
        Post(text="reply", settings={"reply_to": original.post_id}),
        Post(text="quote", settings={"quote_tweet": original.post_id, "for_super_followers_only": True}),
    ]
    outcomes = [original, *(client.publish(conn, post) for post in posts)]
    assert [o.kind for o in outcomes] == [OutcomeKind.PUBLISHED] * 6
    assert client.check(conn, {"post_id": original.post_id}).kind is OutcomeKind.PUBLISHED
    assert client.find_recent(conn, Post(text="reply"), since).kind is OutcomeKind.PUBLISHED
    reply_to = ReplyTo(parent_id=original.post_id, root_id=original.post_id)
    reply = client.publish(conn, Post(text="in a thread", reply_to=reply_to))
    assert reply.kind is OutcomeKind.PUBLISHED
    assert client.find_recent(conn, Post(text="in a thread", reply_to=reply_to), since).kind is OutcomeKind.PUBLISHED
    assert client.metrics(conn, [original.post_id, "999"]).keys() == {original.post_id}
    assert client.delete(conn, reply.post_id, {}).kind is OutcomeKind.PUBLISHED
    assert client.exists(conn, reply.post_id, {}) is False
    assert client.exists(conn, original.post_id, {}) is True
    _oauth(client, sandbox)


def _oauth(client, sandbox):
    verifier = "v" * 50
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    redirect = "https://app.example/cb"
    url = client.authorize_url(state="st", code_challenge=challenge, redirect_uri=redirect, sandbox=True)
    sandbox.authorize_urls.append(url)
    query = parse_qs(urlsplit(_approve_target(url)).query)
    credentials = client.exchange_code(
        code=query["code"][0], code_verifier=verifier, redirect_uri=redirect, sandbox=True
    )
    client.refresh(Connection(credentials, sandbox=True))


def _approve_target(url):
    page = requests.get(url, timeout=5).text
    return page.split('id="approve" href="', 1)[1].split('"', 1)[0].replace("&amp;", "&")


@pytest.fixture
def exchange(sandbox):
    """The logged requests under /api.x.com/ and the answers the client received, in order."""
    client = Client()
    client.chunk_bytes = 1500  # several appends for the video
    answers = []
    client.session.hooks["response"].append(lambda response, *args, **kwargs: answers.append(response))
    sandbox.authorize_urls = []
    _drive(client, sandbox)
    logged = [r for r in sandbox.state.requests if r["path"].startswith("/api.x.com/")]
    return logged, answers, sandbox


def _documented(request):
    path = request["path"].removeprefix("/api.x.com")
    found = openapi.operation(request["method"], path)
    assert found is not None, f"{request['method']} {path} is not in X's OpenAPI description"
    return found


def _api_requests(logged):
    return [r for r in logged if not r["path"].endswith("/oauth2/token")]


def test_the_drive_covers_every_operation_the_client_uses(exchange):
    logged, _, _ = exchange
    templates = {(r["method"], _documented(r)[0]) for r in _api_requests(logged)}

    assert templates == {
        ("POST", "/2/tweets"),
        ("GET", "/2/tweets"),
        ("GET", "/2/tweets/{id}"),
        ("DELETE", "/2/tweets/{id}"),
        ("POST", "/2/media/upload/initialize"),
        ("POST", "/2/media/upload/{id}/append"),
        ("POST", "/2/media/upload/{id}/finalize"),
        ("GET", "/2/media/upload"),
        ("POST", "/2/media/metadata"),
        ("GET", "/2/users/me"),
        ("GET", "/2/users/{id}/tweets"),
    }
    assert len([r for r in logged if r["path"].endswith("/append")]) >= 4


def test_path_and_query_parameters_are_documented_and_valid(exchange):
    logged, _, _ = exchange
    for request in _api_requests(logged):
        template, op, values = _documented(request)
        for where, given in (("path", values.items()), ("query", parse_qsl(request["query"]))):
            documented = openapi.parameters(op, where)
            for name, raw in given:
                assert name in documented, f"{template}: {where} parameter {name} is not documented"
                schema = documented[name].get("schema", {})
                assert openapi.errors(openapi.parameter_value(documented[name], raw), schema) == [], (template, name)


def test_json_bodies_fit_the_request_schemas(exchange):
    logged, _, _ = exchange
    checked = 0
    for request in _api_requests(logged):
        template, op, _ = _documented(request)
        if request["headers"].get("Content-Type", "").startswith("application/json"):
            schema = openapi.json_schema_of(op)
            assert schema is not None, f"{template} takes no JSON body"
            assert openapi.errors(json.loads(request["body"]), schema) == [], template
            checked += 1
        elif request["method"] == "POST" and not request["path"].endswith("/append"):
            assert request["body"] == b"", f"{template}: an undocumented body"
    assert checked >= 10


def test_multipart_appends_carry_the_documented_form_fields(exchange):
    logged, _, _ = exchange
    for request in [r for r in logged if r["path"].endswith("/append")]:
        _, op, _ = _documented(request)
        schema = openapi.resolve(openapi.json_schema_of(op, "multipart/form-data"))
        parsed = Request.from_values(
            input_stream=io.BytesIO(request["body"]),
            content_length=len(request["body"]),
            content_type=request["headers"]["Content-Type"],
            method="POST",
        )
        fields = {**parsed.form.to_dict(), **dict.fromkeys(parsed.files, "<binary>")}
        assert set(fields) == set(schema["required"]) <= set(schema["properties"])
        assert openapi.errors({**fields, "segment_index": int(fields["segment_index"])}, schema) == []


def test_the_stand_in_answers_successes_in_the_documented_shapes(exchange):
    _, answers, _ = exchange
    checked = 0
    for answer in answers:
        path = urlsplit(answer.url).path
        if not path.startswith("/api.x.com/") or path.endswith("/oauth2/token"):
            continue
        _, op, _ = openapi.operation(answer.request.method, path.removeprefix("/api.x.com"))
        schema = openapi.success_schema(op, answer.status_code)
        assert schema is not None, f"{path} answered an undocumented {answer.status_code}"
        assert openapi.errors(answer.json(), schema) == [], path
        checked += 1
    assert checked >= 15


def test_the_token_exchange_follows_the_documented_oauth_form(exchange):
    logged, answers, _ = exchange
    token_calls = [r for r in logged if r["path"] == "/api.x.com/2/oauth2/token"]
    flow = openapi.spec()["components"]["securitySchemes"]["OAuth2UserToken"]["flows"]["authorizationCode"]

    assert flow["tokenUrl"] == "https://api.x.com/2/oauth2/token"
    assert [r["method"] for r in token_calls] == ["POST", "POST"]
    for request in token_calls:
        assert request["headers"]["Content-Type"] == "application/x-www-form-urlencoded"
        form = dict(parse_qsl(request["body"].decode()))
        assert set(form) == OAUTH_FORMS[form["grant_type"]]
    for answer in [a for a in answers if a.url.endswith("/oauth2/token")]:
        assert {"token_type", "expires_in", "access_token", "refresh_token", "scope"} <= set(answer.json())
        assert answer.json()["token_type"] == "bearer"


def test_the_authorize_url_asks_only_for_documented_scopes(exchange):
    _, _, sandbox = exchange
    flow = openapi.spec()["components"]["securitySchemes"]["OAuth2UserToken"]["flows"]["authorizationCode"]
    [url] = sandbox.authorize_urls
    query = dict(parse_qsl(urlsplit(url).query))

    assert urlsplit(url).path == "/x.com/i/oauth2/authorize"
    assert set(query) == AUTHORIZE_QUERY
    assert set(query["scope"].split()) <= set(flow["scopes"])
    assert query["code_challenge_method"] == "S256"

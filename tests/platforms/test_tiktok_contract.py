"""Every request the TikTok client sends is one the published description accepts, and every
success the stand-in answers has the documented shape, as far as that description reaches.

The description (specs/tiktok/, an unofficial OpenAPI 3.1 sketch: see its README and SOURCE) covers
creator_info/query, video/init, inbox/video/init and status/fetch. For those the test checks method,
path, that every body field is documented (the sketch's schemas do not forbid extra fields, so this
is checked by name; the official fields the sketch lacks are listed in OFFICIAL_NOT_IN_SKETCH) and
the bodies and answers against the schemas. Its status enum misspells SEND_TO_USER_INBOX
(SENDING_TO_USER_INBOX); the official name is patched in. Not covered by any published description,
and so only listed here (the unit tests check them against the platform docs): photos
(content/init), the chunk PUT on open-upload.tiktokapis.com, OAuth token, user/info, video/list,
video/query.
"""

from __future__ import annotations

import base64
import datetime as dt
import functools
import hashlib
import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import jsonschema
import pytest
import requests
import yaml
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from accounts.platforms.base import Connection, OutcomeKind, Post
from accounts.platforms.tiktok import Client
from tests.platforms.tiktok_helpers import connection, media_server

SPEC = Path(__file__).parent / "specs" / "tiktok" / "tiktok-content-posting-openapi.yml"
BASE = "urn:tiktok-openapi"
API_PREFIX = "/open.tiktokapis.com"
OFFICIAL_NOT_IN_SKETCH = {
    "source_info": {"video_size"},
    "post_info": {"brand_content_toggle", "brand_organic_toggle", "is_aigc"},
}
NOT_DESCRIBED = {
    ("POST", "/v2/post/publish/content/init/"),
    ("POST", "/v2/video/list/"),
    ("POST", "/v2/video/query/"),
    ("GET", "/v2/user/info/"),
    ("POST", "/v2/oauth/token/"),
}

server = pytest.fixture(media_server)


@functools.cache
def spec() -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load(SPEC.read_text())
    status = document["components"]["schemas"]["PublishStatusResponse"]["properties"]["data"]["properties"]["status"]
    status["enum"] = [v.replace("SENDING_TO_USER_INBOX", "SEND_TO_USER_INBOX") for v in status["enum"]]
    return document


def _absolute(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: BASE + v if k == "$ref" and v.startswith("#") else _absolute(v) for k, v in node.items()}
    return [_absolute(item) for item in node] if isinstance(node, list) else node


def errors(instance: Any, schema: dict[str, Any]) -> list[str]:
    registry = Registry().with_resource(BASE, Resource.from_contents(spec(), default_specification=DRAFT202012))
    validator = jsonschema.Draft202012Validator(_absolute(schema), registry=registry)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(instance)]


def resolve(node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        target: Any = spec()
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


def _drive(sandbox, server):
    client, answers = Client(), []
    client.session.hooks["response"].append(lambda response, *args, **kwargs: answers.append(response))
    conn = connection()
    since = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=1)
    settings = {"privacy_level": "PUBLIC_TO_EVERYONE", "allows_duet": False, "brand_content_toggle": True}
    posts = [
        Post(text="photo", media=[server.jpeg()], settings={"title": "T", "auto_add_music": True}),
        Post(text="carousel", media=[server.jpeg(), server.webp()]),
        Post(text="video", media=[server.mp4()], settings=settings),
        Post(text="inbox", media=[server.mp4()], settings={"tiktok_post_mode": "MEDIA_UPLOAD"}),
    ]
    outcomes = [client.publish(conn, post) for post in posts]
    client.video_source = "PULL_FROM_URL"
    outcomes.append(client.publish(conn, Post(text="pulled", media=[server.mp4()])))
    assert [o.kind for o in outcomes] == [OutcomeKind.PUBLISHED] * 3 + [OutcomeKind.PROCESSING, OutcomeKind.PUBLISHED]
    assert client.check(conn, outcomes[3].ref).kind is OutcomeKind.PUBLISHED
    assert client.find_recent(conn, Post(text="video"), since).kind is OutcomeKind.PUBLISHED
    assert client.metrics(conn, [outcomes[0].post_id]).keys() == {outcomes[0].post_id}
    assert client.exists(conn, outcomes[0].post_id, outcomes[0].ref) is True
    assert client.options(conn)["privacy_level_options"]  # the capabilities' creator_info read
    _oauth(client)
    return answers


def _oauth(client):
    verifier = "v" * 64
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    url = client.authorize_url(state="s", code_challenge=challenge, redirect_uri="https://app.example/cb", sandbox=True)
    page = requests.get(url, timeout=5).text
    code = parse_qs(urlsplit(page.split('id="approve" href="', 1)[1].split('"', 1)[0].replace("&amp;", "&")).query)
    credentials = client.exchange_code(
        code=code["code"][0], code_verifier=verifier, redirect_uri="https://app.example/cb", sandbox=True
    )
    client.refresh(Connection(credentials, sandbox=True))


@pytest.fixture
def exchange(sandbox, server):
    answers = _drive(sandbox, server)
    logged = [r for r in sandbox.state.requests if r["path"].startswith(API_PREFIX)]
    return logged, answers


def _operation(method: str, path: str) -> dict[str, Any] | None:
    item = spec()["paths"].get(path, {})
    found: dict[str, Any] | None = item.get(method.lower())
    return found


def _described(logged):
    return [r for r in logged if _operation(r["method"], r["path"].removeprefix(API_PREFIX)) is not None]


def test_every_request_is_described_or_knowingly_outside_the_sketch(exchange):
    logged, _ = exchange
    used = {(r["method"], r["path"].removeprefix(API_PREFIX)) for r in logged}
    described = {(r["method"], r["path"].removeprefix(API_PREFIX)) for r in _described(logged)}

    assert described == {
        ("POST", "/v2/post/publish/creator_info/query/"),
        ("POST", "/v2/post/publish/video/init/"),
        ("POST", "/v2/post/publish/inbox/video/init/"),
        ("POST", "/v2/post/publish/status/fetch/"),
    }
    assert used - described == NOT_DESCRIBED


def _undocumented_names(body: dict[str, Any], schema: dict[str, Any], where: str = "") -> list[str]:
    schema = resolve(schema)
    properties = schema.get("properties", {})
    allowed = set(properties) | OFFICIAL_NOT_IN_SKETCH.get(where, set())
    found = [f"{where}.{name}" for name in body if name not in allowed]
    for name, value in body.items():
        if isinstance(value, dict) and name in properties:
            found += _undocumented_names(value, properties[name], name)
    return found


def test_json_bodies_fit_the_described_request_schemas(exchange):
    logged, _ = exchange
    checked = 0
    for request in _described(logged):
        op = _operation(request["method"], request["path"].removeprefix(API_PREFIX)) or {}
        content = op.get("requestBody", {}).get("content", {}).get("application/json")
        if content is None:
            assert request["body"] == b"", f"{request['path']}: a body the description does not take"
            continue
        assert request["headers"]["Content-Type"].startswith("application/json")
        body = json.loads(request["body"])
        assert errors(body, content["schema"]) == [], request["path"]
        assert _undocumented_names(body, content["schema"]) == [], request["path"]
        checked += 1
    assert checked >= 8


def test_described_answers_have_the_documented_shapes(exchange):
    _, answers = exchange
    checked = 0
    for answer in answers:
        path = urlsplit(answer.url).path.removeprefix(API_PREFIX)
        op = _operation(answer.request.method, path)
        if op is None:
            continue
        schema = op["responses"][str(answer.status_code)]["content"]["application/json"]["schema"]
        assert errors(answer.json(), schema) == [], path
        assert answer.json()["error"]["code"] == "ok"
        checked += 1
    assert checked >= 10


def test_the_options_read_is_a_bodyless_creator_info_query_answered_in_the_documented_shape(exchange):
    logged, answers = exchange
    schema = _operation("POST", "/v2/post/publish/creator_info/query/")["responses"]["200"]["content"]
    reads = [a for a in answers if a.url.endswith("/creator_info/query/")]
    requests_ = [r for r in logged if r["path"].endswith("/creator_info/query/")]

    assert len(reads) == len(requests_) == 6  # five publishes and one options read
    assert all(r["body"] == b"" and r["method"] == "POST" for r in requests_)
    assert all(errors(a.json(), schema["application/json"]["schema"]) == [] for a in reads)


def test_the_status_answers_use_the_official_status_names(exchange):
    _, answers = exchange
    statuses = {a.json()["data"]["status"] for a in answers if a.url.endswith("/status/fetch/")}

    assert statuses == {"PUBLISH_COMPLETE", "SEND_TO_USER_INBOX"}


def test_undescribed_calls_follow_the_documented_platform_shapes(exchange):
    """What no published description covers, checked against TikTok's reference pages."""
    logged, answers = exchange
    token_forms = [parse_qs(r["body"].decode()) for r in logged if r["path"].endswith("/oauth/token/")]
    assert [sorted(f) for f in token_forms] == [
        sorted(["client_key", "client_secret", "code", "grant_type", "redirect_uri", "code_verifier"]),
        sorted(["client_key", "client_secret", "grant_type", "refresh_token"]),
    ]
    for answer in [a for a in answers if a.url.endswith("/oauth/token/")]:
        assert set(answer.json()) == {
            "access_token", "expires_in", "open_id", "refresh_expires_in", "refresh_token", "scope", "token_type"
        }  # fmt: skip
    photo = [json.loads(r["body"]) for r in logged if r["path"].endswith("/content/init/")]
    assert all(set(b) <= {"post_info", "source_info", "post_mode", "media_type"} for b in photo)
    assert all(b["source_info"]["source"] == "PULL_FROM_URL" for b in photo)

"""Every request the Pinterest client sends is one Pinterest's published OpenAPI description
(specs/pinterest/openapi.json, v5.23) accepts, and every success the stand-in answers has the
shape that description promises.

The client is driven through an image pin with every setting, a carousel, a video (register,
S3 upload, status), read-back, analytics, a delete and its read-back, board listing and the
OAuth token exchange; then each
logged request under /api.pinterest.com/v5/ is checked: documented path template and method,
path and query parameters against their schemas, JSON bodies against the requestBody schema,
the token form against the OAuth request schemas. What the description does not cover, and is
checked otherwise or not at all: the S3 upload (only its field names, `upload_parameters`, are
described; the form is checked against them), the authorize page (only its URL and scopes are
described), and the pin's `note` field, which v5.23 no longer lists (the one documented
deviation: it is removed before the body is checked). Error bodies are checked against
`Pinterest.Lib.Error` in test_pinterest.py's refusals; the 204 of S3 has no body.
"""

from __future__ import annotations

import datetime as dt
import io
import json
from urllib.parse import parse_qs, parse_qsl, urlsplit

import pytest
import requests
from werkzeug.wrappers import Request

from accounts.platforms.base import Connection, OutcomeKind, Post
from accounts.platforms.pinterest import Client
from tests.platforms.file_server import serve_files
from tests.platforms.openapi_spec import SPECS, OpenApiSpec
from tests.platforms.pinterest_helpers import ACCOUNT, BOARD, connection, image, video

openapi = OpenApiSpec(SPECS / "pinterest" / "openapi.json", one_of_as_any_of=True)


API = "/api.pinterest.com/v5"
S3 = "/pinterest-media-upload.s3-accelerate.amazonaws.com/"
TOKEN_SCHEMAS = {"authorization_code": "OauthAccessTokenRequestCode", "refresh_token": "OauthAccessTokenRequestRefresh"}
ANSWER_SCHEMAS = {
    "authorization_code": "OauthAccessTokenResponseCode",
    "refresh_token": "OauthAccessTokenResponseRefresh",
}


@pytest.fixture
def origin():
    yield from serve_files()


def _drive(client, sandbox, origin):
    conn = connection()
    since = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=1)
    settings = {"boardId": BOARD, "title": "T", "link": "https://example.com/", "note": "n", "alt_text": "a"}
    posts = [
        Post(text="one image", media=[image(origin)], settings=settings),
        Post(text="carousel", media=[image(origin, media_id=f"i{n}") for n in range(2)], settings={"boardId": BOARD}),
        Post(text="video", media=[video()], settings={"boardId": BOARD, "cover_image_key_frame_time": 1}),
    ]
    outcomes = [client.publish(conn, post) for post in posts]
    assert [o.kind for o in outcomes] == [OutcomeKind.PUBLISHED] * 3
    assert client.check(conn, {"post_id": outcomes[0].post_id}).kind is OutcomeKind.PUBLISHED
    assert client.find_recent(conn, posts[1], since).kind is OutcomeKind.PUBLISHED
    assert client.metrics(conn, [outcomes[0].post_id]).keys() == {outcomes[0].post_id}
    assert client.delete(conn, outcomes[2].post_id, {}).kind is OutcomeKind.PUBLISHED
    assert client.exists(conn, outcomes[2].post_id, {}) is False
    names = [f"Board {n}" for n in range(150)]
    requests.post(f"{sandbox.url}/_sandbox/pinterest/boards", json={"account": ACCOUNT, "names": names}, timeout=5)
    assert len(client.options(conn)["boards"]) == 151  # two pages, the second through `bookmark`
    _oauth(client, sandbox)


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
def exchange(sandbox, origin):
    """The logged requests and the answers the client received, in order."""
    client = Client()
    client.poll_interval_seconds = 0
    answers = []
    client.session.hooks["response"].append(lambda response, *args, **kwargs: answers.append(response))
    sandbox.authorize_urls = []
    _drive(client, sandbox, origin)
    return list(sandbox.state.requests), answers, sandbox


def _api(logged):
    return [r for r in logged if r["path"].startswith(API + "/")]


def _documented(method, path):
    found = openapi.operation(method, path.removeprefix(API))
    assert found is not None, f"{method} {path} is not in Pinterest's OpenAPI description"
    return found


def test_the_drive_covers_every_operation_the_client_uses(exchange):
    logged, _, _ = exchange
    templates = {(r["method"], _documented(r["method"], r["path"])[0]) for r in _api(logged)}

    assert templates == {
        ("POST", "/pins"),
        ("GET", "/pins/{pin_id}"),
        ("DELETE", "/pins/{pin_id}"),
        ("GET", "/pins/{pin_id}/analytics"),
        ("POST", "/media"),
        ("GET", "/media/{media_id}"),
        ("GET", "/boards"),
        ("GET", "/boards/{board_id}/pins"),
        ("GET", "/user_account"),
        ("POST", "/oauth/token"),
    }


def test_path_and_query_parameters_are_documented_and_valid(exchange):
    logged, _, _ = exchange
    for request in _api(logged):
        template, op, values = _documented(request["method"], request["path"])
        for where, given in (("path", values.items()), ("query", parse_qsl(request["query"]))):
            documented = openapi.parameters(op, where)
            for name, raw in given:
                assert name in documented, f"{template}: {where} parameter {name} is not documented"
                schema = documented[name].get("schema", {})
                assert openapi.errors(openapi.parameter_value(documented[name], raw), schema) == [], (template, name)
        required = {n for n, p in openapi.parameters(op, "query").items() if p.get("required")}
        assert required <= {n for n, _ in parse_qsl(request["query"])}, template


def test_json_bodies_fit_the_request_schemas(exchange):
    logged, _, _ = exchange
    checked = 0
    for request in _api(logged):
        template, op, _ = _documented(request["method"], request["path"])
        if request["headers"].get("Content-Type", "").startswith("application/json"):
            body = json.loads(request["body"])
            if template == "/pins":
                body.pop("note", None)  # the documented deviation: older v5 descriptions only
            assert openapi.errors(body, openapi.json_schema_of(op)) == [], template
            checked += 1
        elif request["method"] == "POST" and template != "/oauth/token":
            assert request["body"] == b"", f"{template}: an undocumented body"
    assert checked == 4  # three pins and one media registration


def test_the_pin_bodies_use_the_documented_media_sources(exchange):
    logged, _, _ = exchange
    schemas = openapi.spec()["components"]["schemas"]
    kinds = []
    for request in [r for r in logged if r["method"] == "POST" and r["path"] == f"{API}/pins"]:
        source = json.loads(request["body"])["media_source"]
        mapping = schemas["PinMediaSource"]["discriminator"]["mapping"]
        kinds.append(source["source_type"])
        assert openapi.errors(source, openapi.resolve({"$ref": mapping[source["source_type"]]})) == []
    assert kinds == ["image_url", "multiple_image_urls", "video_id"]


def test_the_token_form_fits_the_oauth_request_schemas(exchange):
    logged, _, _ = exchange
    op = openapi.spec()["paths"]["/oauth/token"]["post"]
    schemas = openapi.spec()["components"]["schemas"]
    calls = [r for r in logged if r["path"] == f"{API}/oauth/token"]
    assert [dict(parse_qsl(r["body"].decode()))["grant_type"] for r in calls] == ["authorization_code", "refresh_token"]
    assert "application/x-www-form-urlencoded" in op["requestBody"]["content"]
    for request in calls:
        form = dict(parse_qsl(request["body"].decode()))
        assert request["headers"]["Authorization"].startswith("Basic ")  # security: basic
        assert openapi.errors(form, schemas[TOKEN_SCHEMAS[form["grant_type"]]]) == []


def test_the_s3_upload_sends_every_upload_parameter_and_the_file(exchange):
    logged, answers, _ = exchange
    registered = next(a.json() for a in answers if a.request.method == "POST" and a.url.endswith("/v5/media"))
    [upload] = [r for r in logged if r["path"] == S3]
    parsed = Request.from_values(
        input_stream=io.BytesIO(upload["body"]),
        content_length=len(upload["body"]),
        content_type=upload["headers"]["Content-Type"],
        method="POST",
    )
    documented = set(openapi.spec()["components"]["schemas"]["MediaUploadParameters"]["properties"])

    assert set(registered["upload_parameters"]) <= documented
    assert parsed.form.to_dict() == registered["upload_parameters"]
    assert list(parsed.files) == ["file"]
    assert urlsplit(registered["upload_url"]).netloc == S3.strip("/")


def test_the_stand_in_answers_successes_in_the_documented_shapes(exchange):
    _, answers, _ = exchange
    checked = 0
    for answer in answers:
        path = urlsplit(answer.url).path
        if not path.startswith(API + "/"):
            continue
        template, op, _ = _documented(answer.request.method, path)
        if template == "/oauth/token":
            continue
        if answer.status_code == 204:  # documented without a body (pins/delete)
            assert "content" not in op["responses"]["204"], path
            assert answer.content == b"", path
            continue
        schema = openapi.success_schema(op, answer.status_code)
        assert schema is not None, f"{path} answered an undocumented {answer.status_code}"
        assert openapi.errors(answer.json(), schema) == [], path
        checked += 1
    assert checked >= 10


def test_the_boards_are_paged_with_the_documented_bookmark(exchange):
    logged, answers, _ = exchange
    reads = [parse_qs(r["query"]) for r in _api(logged) if r["method"] == "GET" and r["path"] == f"{API}/boards"]
    pages = [a.json() for a in answers if urlsplit(a.url).path == f"{API}/boards" and "bookmark=" in a.url]

    assert reads[0] == {"page_size": ["100"]}
    assert reads[1]["bookmark"]
    assert reads[1]["page_size"] == ["100"]
    assert [len(page["items"]) for page in pages] == [51]
    assert pages[0]["bookmark"] is None


def test_the_token_answers_fit_the_documented_responses(exchange):
    _, answers, _ = exchange
    schemas = openapi.spec()["components"]["schemas"]
    token_answers = [a for a in answers if urlsplit(a.url).path == f"{API}/oauth/token"]
    assert len(token_answers) == 2
    for answer in token_answers:
        body = answer.json()
        assert openapi.errors(body, schemas[ANSWER_SCHEMAS[body["response_type"]]]) == []


def test_the_authorize_url_is_the_documented_one_with_documented_scopes(exchange):
    _, _, sandbox = exchange
    flow = openapi.spec()["components"]["securitySchemes"]["pinterest_oauth2"]["flows"]["authorizationCode"]
    [url] = sandbox.authorize_urls
    query = dict(parse_qsl(urlsplit(url).query))

    assert flow["authorizationUrl"] == "https://www.pinterest.com/oauth/"
    assert urlsplit(url).path == "/www.pinterest.com/oauth/"
    assert set(query) == {"client_id", "redirect_uri", "response_type", "scope", "state"}
    assert set(query["scope"].split(",")) <= set(flow["scopes"])
    assert flow["tokenUrl"] == "https://api.pinterest.com/v5/oauth/token"

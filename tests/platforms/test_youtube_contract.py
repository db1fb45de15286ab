"""Every request the YouTube client sends is one Google's Discovery documents describe, and the
stand-in answers in the documented shapes.

The client is driven through an upload with every setting, a chunked upload, the processing
and timeout outcomes settled by check() and find_recent(), metrics, a first comment (created,
read back, found, deleted), deleting the video and reading it back, and the OAuth code flow;
then each logged request is matched to its Discovery method (youtube.v3.json or
youtubeAnalytics.v2.json): HTTP method and path, query parameter names, required parameters,
enums, booleans and integer ranges, the videos.insert body against the `Video` schema and the
commentThreads.insert body against `CommentThread` (closed to their documented fields).
Answers with JSON are checked against the method's response schema.

What the documents do not cover, checked here against Google's guides instead: the resumable
session PUTs (the documents name only the protocol and its path), the `X-Upload-*` headers,
and the OAuth authorize/token endpoints (the documents give only the scope names, which the
authorize URL is checked against).
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
import re
from urllib.parse import parse_qsl, urlsplit

import pytest
import requests

from accounts.platforms.base import Connection, OutcomeKind, Post, ReplyTo
from accounts.platforms.youtube import Client
from tests.platforms import youtube_discovery as discovery
from tests.platforms.youtube_helpers import connection, post, video

GOOGLE_HOSTS = ("/www.googleapis.com/", "/youtubeanalytics.googleapis.com/")
OAUTH_FORMS = {
    "authorization_code": {"grant_type", "code", "redirect_uri", "code_verifier", "client_id"},
    "refresh_token": {"grant_type", "refresh_token", "client_id"},
}
SETTINGS = {
    "privacyStatus": "private",
    "category_id": "22",
    "default_language": "en",
    "default_audio_language": "en-US",
    "tags": ["contract", "two words"],
    "madeForKids": True,
}


def _drive(client, sandbox):
    conn = connection()
    since = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=1)
    first = client.publish(conn, post("every setting", "Contract", **SETTINGS))
    client.chunk_bytes = 256 * 1024
    chunked = client.publish(conn, Post(text="", media=[video(padding=300_000)], settings={"title": "Chunked"}))
    client.chunk_bytes = Client.chunk_bytes
    sandbox.outcomes("youtube", "processing", "timeout")
    processing = client.publish(conn, post("processing", "Processing"))
    while processing.kind is OutcomeKind.PROCESSING:
        processing = client.check(conn, processing.ref)
    assert client.publish(conn, post("timeout", "Timeout")).kind is OutcomeKind.UNKNOWN
    settled = client.check(conn, conn.saved[-1])
    found = client.find_recent(conn, post("timeout", "Timeout"), since)
    assert [o.kind for o in (first, chunked, processing, settled, found)] == [OutcomeKind.PUBLISHED] * 5
    assert client.metrics(conn, [first.post_id, "missing0000"]).keys() == {first.post_id}
    assert client.options(conn)["categories"]
    _comment_and_delete(client, conn, first, since)
    _oauth(client, sandbox)


def _comment_and_delete(client, conn, video_post, since):
    """A first comment created, read back, found, deleted; then the video deleted and read back."""
    to = ReplyTo(parent_id=video_post.post_id, root_id=video_post.post_id)
    comment = client.publish(conn, Post(text="a first comment", reply_to=to))
    assert client.check(conn, comment.ref).kind is OutcomeKind.PUBLISHED
    assert client.find_recent(conn, Post(text="a first comment", reply_to=to), since).post_id == comment.post_id
    assert client.delete(conn, comment.post_id, comment.ref).kind is OutcomeKind.PUBLISHED
    assert client.delete(conn, video_post.post_id, video_post.ref).kind is OutcomeKind.PUBLISHED
    assert client.exists(conn, video_post.post_id, video_post.ref) is False


def _oauth(client, sandbox):
    verifier = "v" * 50
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    redirect = "https://app.example/cb"
    url = client.authorize_url(state="st", code_challenge=challenge, redirect_uri=redirect, sandbox=True)
    sandbox.authorize_urls.append(url)
    page = requests.get(url, timeout=5).text
    target = page.split('id="approve" href="', 1)[1].split('"', 1)[0].replace("&amp;", "&")
    code = dict(parse_qsl(urlsplit(target).query))["code"]
    credentials = client.exchange_code(code=code, code_verifier=verifier, redirect_uri=redirect, sandbox=True)
    client.refresh(Connection(credentials, sandbox=True))


@pytest.fixture
def exchange(sandbox):
    """The logged requests to Google's API hosts and the answers the client received."""
    client = Client()
    answers = []
    client.session.hooks["response"].append(lambda response, *args, **kwargs: answers.append(response))
    sandbox.authorize_urls = []
    _drive(client, sandbox)
    logged = [r for r in sandbox.state.requests if r["path"].startswith(GOOGLE_HOSTS)]
    return logged, answers, sandbox


def _is_session_put(request):
    return request["method"] == "PUT" and "upload_id=" in request["query"]


def _documented(request):
    found = discovery.method_for(request["method"], request["path"])
    assert found is not None, f"{request['method']} {request['path']} is not in the Discovery documents"
    return found


def test_the_drive_covers_every_method_the_client_uses(exchange):
    logged, _, _ = exchange
    ids = {_documented(r)[1]["id"] for r in logged if not _is_session_put(r)}

    assert ids == {
        "youtube.videos.insert",
        "youtube.videos.list",
        "youtube.channels.list",
        "youtube.playlistItems.list",
        "youtube.videoCategories.list",
        "youtubeAnalytics.reports.query",
        "youtube.commentThreads.insert",
        "youtube.commentThreads.list",
        "youtube.comments.delete",
        "youtube.videos.delete",
    }
    assert len([r for r in logged if _is_session_put(r)]) >= 6  # chunks and the session query


def test_query_parameters_are_documented_and_valid(exchange):
    logged, _, _ = exchange
    for request in [r for r in logged if not _is_session_put(r)]:
        doc, method = _documented(request)
        assert discovery.query_errors(doc, method, parse_qsl(request["query"])) == [], method["id"]


def _video_inserts(logged):
    return [r for r in logged if r["method"] == "POST" and "/upload/" in r["path"]]


def test_the_insert_body_fits_the_video_schema(exchange):
    logged, _, _ = exchange
    inserts = _video_inserts(logged)
    for request in inserts:
        _, method = _documented(request)
        assert method["request"]["$ref"] == "Video"
        assert request["headers"]["Content-Type"].startswith("application/json")
        body = json.loads(request["body"])
        assert discovery.errors(discovery.data_api(), body, "Video") == []
        parts = set(dict(parse_qsl(request["query"]))["part"].split(","))
        assert set(body) <= parts
    assert len(inserts) == 4
    first = json.loads(inserts[0]["body"])
    assert first["status"]["selfDeclaredMadeForKids"] is True
    for body in [json.loads(r["body"]) for r in inserts[1:]]:  # the defaults, declared
        assert (body["status"]["selfDeclaredMadeForKids"], body["snippet"]["categoryId"]) == (False, "22")
    assert set(first["snippet"]) == {
        "title",
        "description",
        "tags",
        "categoryId",
        "defaultLanguage",
        "defaultAudioLanguage",
    }


def test_the_comment_body_fits_the_comment_thread_schema(exchange):
    logged, _, _ = exchange
    [request] = [r for r in logged if r["method"] == "POST" and r["path"].endswith("/commentThreads")]
    _, method = _documented(request)

    assert method["request"]["$ref"] == "CommentThread"
    assert discovery.errors(discovery.data_api(), json.loads(request["body"]), "CommentThread") == []
    assert set(dict(parse_qsl(request["query"]))["part"].split(",")) == {"snippet"}


def test_the_deletes_send_only_the_documented_id_and_no_body(exchange):
    logged, answers, _ = exchange
    deletes = [r for r in logged if r["method"] == "DELETE"]

    assert {_documented(r)[1]["id"] for r in deletes} == {"youtube.comments.delete", "youtube.videos.delete"}
    assert all(set(dict(parse_qsl(r["query"]))) == {"id"} and r["body"] == b"" for r in deletes)
    assert {a.status_code for a in answers if a.request.method == "DELETE"} == {204}


def test_the_upload_follows_the_resumable_protocol(exchange):
    logged, _, _ = exchange
    accepted = discovery.data_api()["resources"]["videos"]["methods"]["insert"]["mediaUpload"]["accept"]
    for request in _video_inserts(logged):
        assert dict(parse_qsl(request["query"]))["uploadType"] == "resumable"
        kind = request["headers"]["X-Upload-Content-Type"]
        assert any(kind.startswith(a.rstrip("*")) for a in accepted)
        assert request["headers"]["X-Upload-Content-Length"].isdigit()
    for request in [r for r in logged if _is_session_put(r)]:
        content_range = request["headers"]["Content-Range"]
        assert re.fullmatch(r"bytes (\d+-\d+|\*)/\d+", content_range), content_range
        if content_range.startswith("bytes */"):
            assert request["body"] == b""


def test_the_stand_in_answers_in_the_documented_shapes(exchange):
    _, answers, _ = exchange
    checked = 0
    for answer in answers:
        path = urlsplit(answer.url).path
        found = discovery.method_for(answer.request.method, path)
        if found is None or answer.status_code not in (200, 201) or not answer.content:
            continue
        doc, method = found
        assert discovery.errors(doc, answer.json(), method["response"]["$ref"]) == [], method["id"]
        checked += 1
    assert checked >= 12


def test_the_oauth_calls_follow_googles_documented_forms(exchange):
    _, answers, sandbox = exchange
    scopes = set(discovery.data_api()["auth"]["oauth2"]["scopes"]) | set(
        discovery.analytics_api()["auth"]["oauth2"]["scopes"]
    )
    [url] = sandbox.authorize_urls
    query = dict(parse_qsl(urlsplit(url).query))
    assert urlsplit(url).path == "/accounts.google.com/o/oauth2/v2/auth"
    assert set(query["scope"].split()) <= scopes
    assert (query["response_type"], query["code_challenge_method"]) == ("code", "S256")
    token_calls = [r for r in sandbox.state.requests if r["path"] == "/oauth2.googleapis.com/token"]
    assert len(token_calls) == 2
    for request in token_calls:
        form = dict(parse_qsl(request["body"].decode()))
        assert set(form) == OAUTH_FORMS[form["grant_type"]]
    for answer in [a for a in answers if a.url.endswith("/oauth2.googleapis.com/token")]:
        assert {"access_token", "expires_in", "scope", "token_type"} <= set(answer.json())

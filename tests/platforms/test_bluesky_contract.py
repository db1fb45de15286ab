"""Contract: every XRPC request the Bluesky client sends, and every answer the sandbox gives it,
conforms to the published lexicons saved under specs/bluesky/lexicons."""

from __future__ import annotations

import json
from urllib.parse import parse_qsl, urlsplit

import pytest

from accounts.platforms import base
from accounts.platforms.bluesky import Client
from tests.media import files
from tests.platforms.bluesky_helpers import APP_PASSWORD, HANDLE, media
from tests.platforms.bluesky_lexicon import Lexicons, query_params

XRPC_HOSTS = ("/bsky.social/xrpc/", "/public.api.bsky.app/xrpc/")
# Lexicons the saved specs reference without holding them; refs to them are skipped.
NOT_SAVED = {"app.bsky.actor.defs#profileViewBasic"}


@pytest.fixture(scope="module")
def lexicons():
    return Lexicons()


def _drive_every_feature(sandbox):
    """login, then a post of each kind; returns the client's captured (nsid, method, response)."""
    client, answers = Client(), []
    client.session.hooks["response"].append(lambda r, *a, **k: answers.append(r))
    conn = base.Connection(client.login(identifier=HANDLE, app_password=APP_PASSWORD, sandbox=True), sandbox=True)
    text = client.publish(conn, base.Post(text="Ça marche ✨ https://example.com @bob.bsky.social #atproto"))
    images = [media(files.image("PNG"), "image/png"), media(files.image("JPEG"), "image/jpeg")]
    client.publish(conn, base.Post(text="pics", media=images))
    client.publish(conn, base.Post(text="clip", media=[media(files.video(), "video/mp4", width=640, height=360)]))
    card = {"uri": "https://example.com/a", "title": "A", "description": "B"}
    client.publish(conn, base.Post(text="", settings={"embed": {"external": card}}))
    strong = {"uri": text.ref["uri"], "cid": text.ref["cid"]}
    client.publish(conn, base.Post(text="re", settings={"reply": {"root": strong, "parent": strong}}))
    to = base.ReplyTo(parent_id=strong["uri"], root_id=strong["uri"], parent_cid=strong["cid"], root_cid=strong["cid"])
    item = client.publish(conn, base.Post(text="in a thread", reply_to=to))
    assert client.check(conn, item.ref).kind is base.OutcomeKind.PUBLISHED
    last = client.publish(conn, base.Post(text="main"))
    comment_to = base.ReplyTo(
        parent_id=last.post_id, root_id=last.post_id, parent_cid=last.ref["cid"], root_cid=last.ref["cid"]
    )
    comment = client.publish(conn, base.Post(text="first!", reply_to=comment_to))
    client.check(conn, last.ref)
    client.metrics(conn, [text.post_id, last.post_id])
    assert client.delete(conn, comment.post_id, comment.ref).kind is base.OutcomeKind.PUBLISHED
    assert client.exists(conn, comment.post_id, comment.ref) is False
    return answers


def _xrpc_requests(sandbox):
    return [r for r in sandbox.state.requests if r["path"].startswith(XRPC_HOSTS)]


def _request_errors(lexicons, request):
    nsid = request["path"].rsplit("/", 1)[1]
    main = lexicons.main(nsid)
    expected = {"procedure": "POST", "query": "GET"}.get(main["type"]) if main else None
    if expected != request["method"]:
        return [f"{request['method']} {nsid}: not a {request['method']} endpoint in the lexicons"]
    if main["type"] == "query":
        params = query_params(main.get("parameters", {}), parse_qsl(request["query"]))
        return lexicons.validate(params, main.get("parameters", {"type": "params"}), nsid, nsid)
    return _input_errors(lexicons, nsid, main, request)


def _input_errors(lexicons, nsid, main, request):
    encoding = main.get("input", {}).get("encoding")
    if encoding is None:
        return [f"{nsid}: sent a body to a procedure without input"] if request["body"] else []
    if encoding != "application/json":
        return [] if request["body"] and request["headers"].get("Content-Type") else [f"{nsid}: empty upload"]
    body = json.loads(request["body"])
    errors = lexicons.validate(body, main["input"]["schema"], nsid, nsid)
    if nsid == "com.atproto.repo.createRecord":
        errors += lexicons.validate_record(body["record"], body["collection"])
    return errors


def _answer_errors(lexicons, response):
    """What is wrong with an answer: a success off its output schema, or a refusal that is not
    one of the errors the lexicon declares (getRecord's RecordNotFound after a delete is)."""
    nsid = urlsplit(response.url).path.rsplit("/", 1)[1]
    schema = (lexicons.main(nsid) or {}).get("output", {}).get("schema")
    if not response.ok:
        declared = {e["name"] for e in (lexicons.main(nsid) or {}).get("errors", [])}
        return [] if response.json().get("error") in declared else [f"{nsid}: answered {response.status_code}"]
    if schema is None:
        return []
    return lexicons.validate(response.json(), schema, nsid, f"answer of {nsid}")


def test_every_request_conforms_to_the_lexicons(sandbox, lexicons):
    _drive_every_feature(sandbox)
    requests_sent = _xrpc_requests(sandbox)

    errors = [e for request in requests_sent for e in _request_errors(lexicons, request)]

    assert errors == []
    sent = {r["path"].rsplit("/", 1)[1] for r in requests_sent}
    assert {"com.atproto.server.createSession", "com.atproto.repo.uploadBlob", "com.atproto.repo.createRecord"} <= sent
    assert {"com.atproto.identity.resolveHandle", "com.atproto.repo.getRecord", "app.bsky.feed.getPosts"} <= sent
    assert "com.atproto.repo.deleteRecord" in sent


def test_every_record_created_is_a_valid_post_with_each_embed_kind(sandbox, lexicons):
    _drive_every_feature(sandbox)
    records = [p.extra["record"] for p in sandbox.state.posts_of("bluesky")]

    assert [e for r in records for e in lexicons.validate_record(r, "app.bsky.feed.post")] == []
    embeds = {r["embed"]["$type"] for r in records if "embed" in r}
    assert embeds == {"app.bsky.embed.images", "app.bsky.embed.video", "app.bsky.embed.external"}
    assert sum("reply" in r for r in records) == 2  # the reply setting and a thread's item (the comment is deleted)
    assert any("facets" in r for r in records)


def test_every_answer_of_the_sandbox_conforms_to_the_output_schemas(sandbox, lexicons):
    answers = _drive_every_feature(sandbox)

    errors = [e for response in answers for e in _answer_errors(lexicons, response)]

    assert errors == []
    assert lexicons.skipped <= NOT_SAVED


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (lambda r: r.update(text="x" * 301), "graphemes"),
        (lambda r: r.update(createdAt="yesterday"), "datetime"),
        (lambda r: r["facets"][0]["index"].update(byteStart=-1), "outside"),
        (lambda r: r["facets"][0]["features"][0].update({"$type": "app.bsky.richtext.facet#bold"}), "not one of"),
        (lambda r: r.update(embed={"$type": "app.bsky.embed.images", "images": [{"alt": ""}] * 5}), "items"),
        (lambda r: r.update(reply={"root": {"uri": "https://x", "cid": "bafy"}}), "parent"),
    ],
)
def test_the_validator_catches_what_the_lexicons_forbid(lexicons, change, fragment):
    record = {
        "$type": "app.bsky.feed.post",
        "text": "#tag",
        "createdAt": "2026-01-01T00:00:00.000Z",
        "facets": [
            {
                "index": {"byteStart": 0, "byteEnd": 4},
                "features": [{"$type": "app.bsky.richtext.facet#tag", "tag": "tag"}],
            }
        ],
    }
    assert lexicons.validate_record(record, "app.bsky.feed.post") == []
    change(record)

    assert any(fragment in error for error in lexicons.validate_record(record, "app.bsky.feed.post"))

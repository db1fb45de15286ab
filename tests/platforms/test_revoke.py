"""Revoking an account's token at its platform, against the sandbox over real HTTP: where the
platform has a revoke call the token works, `revoke()` is confirmed, and the stand-in then
refuses the token as it refuses any invalid one; a revoke without the app's credentials is
refused; where the platform has none, `revoke()` answers False and sends nothing.
"""

from __future__ import annotations

import base64
from urllib.parse import parse_qs

import pytest
import requests

from accounts.platforms import bluesky, facebook, instagram, linkedin, pinterest, threads, tiktok, x, youtube
from accounts.platforms.base import Connection, Credentials, OutcomeKind, PlatformError, Post
from sandbox import tokens
from tests.platforms import (
    bluesky_helpers,
    facebook_helpers,
    instagram_helpers,
    linkedin_helpers,
    pinterest_helpers,
    threads_helpers,
    tiktok_helpers,
    youtube_helpers,
)

FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def _pair(platform: str, account: str) -> Connection:
    """An account holding an access token and a refresh token the stand-in issued."""
    credentials = Credentials(
        access_token=tokens.issue(platform, account),
        refresh_token=tokens.issue(platform, account, kind="sbr"),
        external_id=account,
    )
    return Connection(credentials, sandbox=True)


def _revokes(sandbox, path_end: str) -> list[dict]:
    return [r for r in sandbox.state.requests if r["path"].endswith(path_end)]


def _form(request: dict) -> dict[str, str]:
    return {name: values[0] for name, values in parse_qs(request["body"].decode()).items()}


def _refused(call) -> PlatformError:
    with pytest.raises(PlatformError) as refused:
        call()
    return refused.value


# --- X -----------------------------------------------------------------------------------------


def test_x_revokes_the_refresh_token_then_the_access_token(sandbox):
    client, conn = x.Client(), _pair("x", "4242")
    assert client.publish(conn, Post(text="before")).kind is OutcomeKind.PUBLISHED

    assert client.revoke(conn) is True

    after = client.publish(conn, Post(text="after"))
    assert after.kind is OutcomeKind.FAILED
    assert after.auth_failed
    assert _refused(lambda: client.refresh(conn)).outcome.auth_failed
    sent = [_form(r) for r in _revokes(sandbox, "/api.x.com/2/oauth2/revoke")]
    assert [(f["token_type_hint"], f["token"]) for f in sent] == [
        ("refresh_token", conn.credentials.refresh_token),
        ("access_token", conn.credentials.access_token),
    ]
    assert all(f["client_id"] == "sandbox-x-client" for f in sent)


def test_x_authenticates_a_confidential_client_with_basic_as_at_the_token_call(sandbox, settings):
    settings.X_CLIENT_ID, settings.X_CLIENT_SECRET = "my-client", "s3cret"

    assert x.Client().revoke(_pair("x", "4242")) is True

    expected = "Basic " + base64.b64encode(b"my-client:s3cret").decode()
    for request in _revokes(sandbox, "/2/oauth2/revoke"):
        assert request["headers"]["Authorization"] == expected
        assert "s3cret" not in request["body"].decode()


def test_the_x_stand_in_refuses_a_revoke_without_client_authentication(sandbox):
    token = tokens.issue("x", "4242")
    url = f"{sandbox.url}/api.x.com/2/oauth2/revoke"

    refused = requests.post(url, data={"token": token}, timeout=5)
    missing = requests.post(url, data={"client_id": "c"}, timeout=5)
    again = [requests.post(url, data={"token": token, "client_id": "c"}, timeout=5) for _ in range(2)]

    assert (refused.status_code, refused.json()["error"]) == (401, "invalid_client")
    assert (missing.status_code, missing.json()["error"]) == (400, "invalid_request")
    assert [(r.status_code, r.json()) for r in again] == [(200, {"revoked": True})] * 2  # RFC 7009: no error


# --- YouTube (Google) ------------------------------------------------------------------------


def test_youtube_revokes_the_grant_with_its_refresh_token(sandbox):
    client = youtube.Client()
    conn = youtube_helpers.connection()
    assert client.options(conn)

    assert client.revoke(conn) is True

    # Google ends the whole grant: the access token too, though only the refresh token was sent.
    assert _refused(lambda: client.options(conn)).outcome.auth_failed
    assert _refused(lambda: client.refresh(conn)).outcome.auth_failed
    [request] = _revokes(sandbox, "/oauth2.googleapis.com/revoke")
    assert _form(request) == {"token": conn.credentials.refresh_token}
    assert request["query"] == ""  # the token stays out of the URL


def test_google_answers_a_token_it_no_longer_honours_with_invalid_token(sandbox):
    client = youtube.Client()
    conn = youtube_helpers.connection()
    client.revoke(conn)

    refused = _refused(lambda: client.revoke(conn)).outcome

    assert (refused.kind, refused.error_code, refused.http_status) == (OutcomeKind.FAILED, "REVOKE_REFUSED", 400)
    assert "invalid_token" in refused.error_message
    missing = requests.post(f"{sandbox.url}/oauth2.googleapis.com/revoke", headers=FORM, timeout=5)
    assert (missing.status_code, missing.json()["error"]) == (400, "invalid_request")


# --- TikTok ----------------------------------------------------------------------------------


def test_tiktok_revokes_the_access_token_and_disconnects_the_app(sandbox):
    client = tiktok.Client()
    conn = tiktok_helpers.connection()
    assert client.options(conn)

    assert client.revoke(conn) is True

    assert _refused(lambda: client.options(conn)).outcome.auth_failed
    assert _refused(lambda: client.refresh(conn)).outcome.auth_failed
    [request] = _revokes(sandbox, "/open.tiktokapis.com/v2/oauth/revoke/")
    assert _form(request) == {
        "client_key": "sandbox-tiktok-client",
        "client_secret": "sandbox-tiktok-secret",
        "token": conn.credentials.access_token,
    }
    assert request["headers"]["Content-Type"] == "application/x-www-form-urlencoded"


def test_the_tiktok_stand_in_refuses_a_revoke_without_the_client_secret(sandbox):
    token = tokens.issue("tiktok", tiktok_helpers.ACCOUNT)
    url = f"{sandbox.url}/open.tiktokapis.com/v2/oauth/revoke/"

    refused = requests.post(url, data={"client_key": "k", "token": token}, timeout=5)
    unknown = requests.post(url, data={"client_key": "k", "client_secret": "s", "token": "nope"}, timeout=5)

    assert (refused.status_code, refused.json()["error"]) == (401, "invalid_client")
    assert refused.json()["log_id"]
    assert (unknown.status_code, unknown.json()["error"]) == (400, "invalid_request")
    assert tiktok.Client().options(tiktok_helpers.connection(token))  # the refused revoke changed nothing


# --- Facebook --------------------------------------------------------------------------------


def test_facebook_deletes_the_login_permissions_and_the_page_token_stops_working(sandbox):
    client, conn = facebook.Client(), _pair("facebook", facebook_helpers.PAGE)
    assert client.publish(conn, Post(text="before")).kind is OutcomeKind.PUBLISHED

    assert client.revoke(conn) is True

    after = client.publish(conn, Post(text="after"))
    assert (after.kind, after.auth_failed) == (OutcomeKind.FAILED, True)
    assert _refused(lambda: client.refresh(conn)).outcome.auth_failed
    [request] = _revokes(sandbox, "/graph.facebook.com/v25.0/me/permissions")
    assert request["method"] == "DELETE"
    assert request["headers"]["Authorization"] == f"Bearer {conn.credentials.refresh_token}"


def test_facebook_without_a_user_token_sends_nothing_and_a_page_token_cannot_revoke(sandbox):
    page_token = tokens.issue("facebook", facebook_helpers.PAGE)

    assert facebook.Client().revoke(facebook_helpers.connection(page_token)) is False
    assert not sandbox.state.requests

    url = f"{sandbox.url}/graph.facebook.com/v25.0/me/permissions"
    refused = requests.delete(url, headers={"Authorization": f"Bearer {page_token}"}, timeout=5)
    assert (refused.status_code, refused.json()["error"]["code"]) == (400, 100)


# --- Bluesky ---------------------------------------------------------------------------------


def test_bluesky_deletes_the_session_with_its_refresh_token(sandbox):
    client = bluesky.Client()
    handle, password = bluesky_helpers.HANDLE, bluesky_helpers.APP_PASSWORD
    credentials = client.login(identifier=handle, app_password=password, sandbox=True)
    conn = Connection(credentials, sandbox=True)

    assert client.revoke(conn) is True

    assert _refused(lambda: client.refresh(conn)).outcome.auth_failed
    [request] = _revokes(sandbox, "/bsky.social/xrpc/com.atproto.server.deleteSession")
    assert request["headers"]["Authorization"] == f"Bearer {credentials.refresh_token}"
    assert request["body"] == b""


def test_the_bluesky_stand_in_refuses_deleting_a_session_with_the_access_token(sandbox):
    url = f"{sandbox.url}/bsky.social/xrpc/com.atproto.server.deleteSession"
    access = tokens.issue("bluesky", bluesky_helpers.DID)

    refused = requests.post(url, headers={"Authorization": f"Bearer {access}"}, timeout=5)
    anonymous = requests.post(url, timeout=5)

    assert (refused.status_code, refused.json()["error"]) == (400, "InvalidToken")
    assert (anonymous.status_code, anonymous.json()["error"]) == (401, "AuthRequired")


def test_a_revoke_that_gets_no_answer_raises(settings):
    settings.SANDBOX_URL = "http://127.0.0.1:9"  # nothing listens on the discard port

    refused = _refused(lambda: bluesky.Client().revoke(bluesky_helpers.connection())).outcome

    assert refused.kind is OutcomeKind.NOT_SENT


# --- platforms without a revoke call ---------------------------------------------------------


@pytest.mark.parametrize(
    ("client", "conn"),
    [
        (linkedin.Client(), linkedin_helpers.connection),
        (pinterest.Client(), pinterest_helpers.connection),
        (instagram.Client(), instagram_helpers.connection),
        (threads.Client(), threads_helpers.connection),
    ],
    ids=["linkedin", "pinterest", "instagram", "threads"],
)
def test_a_platform_without_a_revoke_call_answers_false_and_sends_nothing(sandbox, client, conn):
    assert client.revoke(conn()) is False
    assert not sandbox.state.requests

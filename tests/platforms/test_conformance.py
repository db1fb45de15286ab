"""Every platform client against its stand-in, over one matrix of outcomes.

Each platform is one row of `PLATFORMS`: what a valid post there needs, which kinds of post it
takes, where the stand-in's `processing` outcome applies, and the platform's own words for a
refusal. Every test runs once per row (or per row and kind of post), through the clients'
public interface only: `client_for`, `problems`, `publish`, `check`, `find_recent` and
`metrics`. What one platform alone does (payload shapes, text counting, settings, OAuth, its
specs) is tested in `test_<platform>.py`; adding a platform here is adding a row.
"""

from __future__ import annotations

import datetime as dt
import io
import re
import socket
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest
import requests

from accounts.platforms.base import Connection, Credentials, Media, Outcome, OutcomeKind, Post
from accounts.platforms.registry import client_for
from sandbox import tokens
from sandbox.app import create_app
from sandbox.http import Context
from sandbox.platforms.bluesky import did_for
from sandbox.server import make_sandbox_server
from sandbox.state import State
from tests.conftest import PATIENT_SECONDS, Sandbox
from tests.media import files
from tests.platforms.file_server import FileServer, serve_files

DAY = 86400
IMAGE = files.image("JPEG", (1080, 1080))
VIDEO = files.video(seconds=5.0, width=1080, height=1920)
DID = did_for("acme-demo.bsky.social")
MEDIA_KINDS = ("image", "video", "carousel")
ALL_KINDS = ("text", *MEDIA_KINDS)  # the kinds of post a platform may take
TOKEN_REFUSALS = ("expired", "revoked", "garbage", "other-platform")  # the ways a token is refused here


def _no_settings(text: str) -> Mapping[str, Any]:
    return {}


def _outcome_ref(outcome: Outcome) -> Mapping[str, str]:
    return outcome.ref


def _post_id_ref(outcome: Outcome) -> Mapping[str, str]:
    return {"post_id": outcome.post_id}


@dataclass(frozen=True)
class Refusal:
    """How a platform says no: its HTTP status, its error code, and words from its message."""

    status: int
    code: str
    words: str = ""


@dataclass(frozen=True)
class RateLimit:
    code: str
    retry_after: tuple[float, float]  # the least and the most seconds the client may say to wait


@dataclass(frozen=True)
class Platform:
    name: str
    account: str  # the id the stand-in files the account's posts under
    url: str  # a published post's URL, as a regex in which {id} stands for the post id
    error: Refusal  # the answer to the `error` outcome
    rate_limit: RateLimit  # the answer to the `rate_limited` outcome
    auth_status: int  # the HTTP status of a refused token
    token_codes: Mapping[str, str]  # the error code of each refused token it answers (TOKEN_REFUSALS)
    missing_ref: Mapping[str, str]  # a ref naming a post the platform does not have
    # The id of a post it does not have, which metrics() leaves out; "" where the platform
    # refuses the whole lookup instead.
    missing_id: str
    kinds: tuple[str, ...] = ALL_KINDS  # the kinds of post it takes, the plainest first
    processing: tuple[str, ...] = ()  # the kinds of post the `processing` outcome holds back
    processing_checks: int = 0  # the check() calls that take such a post to PUBLISHED
    saves_ref: tuple[str, ...] = ()  # the kinds of post whose ref is saved before the call that creates it
    views: bool = True  # whether the platform counts views
    # The platform_settings a valid post needs, given its text.
    settings: Callable[[str], Mapping[str, Any]] = field(default=_no_settings)
    # The ref by which check() reads a published post back.
    post_ref: Callable[[Outcome], Mapping[str, str]] = field(default=_outcome_ref)


PLATFORMS = (
    Platform(
        name="x",
        account="4242",
        url=r"https://x\.com/i/web/status/{id}",
        error=Refusal(403, "FORBIDDEN", "not permitted"),
        rate_limit=RateLimit("RATE_LIMITED", (800, 900)),
        auth_status=401,
        token_codes=dict.fromkeys(TOKEN_REFUSALS, "UNAUTHORIZED"),
        missing_ref={"post_id": "999"},
        missing_id="999",
        post_ref=_post_id_ref,
    ),
    Platform(
        name="instagram",
        account="17841400000000001",
        url=r"https://www\.instagram\.com/(p|reel)/[\w-]+/?",
        error=Refusal(400, "36003/2207009", "aspect ratio"),
        rate_limit=RateLimit("80002", (60, 60)),
        auth_status=400,
        token_codes={"expired": "190/463", "revoked": "190/458", "garbage": "190", "other-platform": "190"},
        missing_ref={"media_id": "999"},
        missing_id="999",
        kinds=MEDIA_KINDS,
        processing=MEDIA_KINDS,
        processing_checks=1,
        saves_ref=MEDIA_KINDS,
    ),
    Platform(
        name="tiktok",
        account="tiktok-open-4242",
        url=r"https://www\.tiktok\.com/@tiktok_open_4242/(photo|video)/{id}",
        error=Refusal(403, "spam_risk_user_banned_from_posting"),
        rate_limit=RateLimit("rate_limit_exceeded", (60, 60)),
        auth_status=401,
        token_codes=dict.fromkeys(TOKEN_REFUSALS, "access_token_invalid"),
        missing_ref={"publish_id": "v_pub_file~v2.1"},
        missing_id="999",
        kinds=MEDIA_KINDS,
        processing=MEDIA_KINDS,
        processing_checks=3,
        saves_ref=("video",),
    ),
    Platform(
        name="youtube",
        account="UCsandboxChannel00000001",
        url=r"https://www\.youtube\.com/watch\?v={id}",
        error=Refusal(403, "forbidden"),
        rate_limit=RateLimit("rateLimitExceeded", (30, 30)),
        auth_status=401,
        token_codes=dict.fromkeys(TOKEN_REFUSALS, "authError"),
        missing_ref={"video_id": "nope0000000"},
        missing_id="missing0000",
        kinds=("video",),
        processing=("video",),
        processing_checks=3,
        saves_ref=("video",),
        settings=lambda text: {"title": text},
    ),
    Platform(
        name="facebook",
        account="104242424242",
        url=r"https://www\.facebook\.com/(104242424242/videos/)?{id}",
        error=Refusal(400, "368", "abusive"),
        rate_limit=RateLimit("32", (900, 900)),
        auth_status=400,
        token_codes={"expired": "190.463", "revoked": "190.460", "garbage": "190", "other-platform": "190"},
        missing_ref={"post_id": "104242424242_999"},
        missing_id="",
        processing=("video",),
        processing_checks=3,
        # Only a reel's id exists before the post does (test_facebook.py); the rest is found by find_recent().
    ),
    Platform(
        name="linkedin",
        account="abc123XYZ",
        url=r"https://www\.linkedin\.com/feed/update/{id}/",
        error=Refusal(403, "ACCESS_DENIED", "Not enough permissions"),
        rate_limit=RateLimit("RATE_LIMITED", (0, DAY)),  # until midnight UTC
        auth_status=401,
        token_codes={
            "expired": "EXPIRED_ACCESS_TOKEN",
            "revoked": "REVOKED_ACCESS_TOKEN",
            "garbage": "INVALID_ACCESS_TOKEN",
            "other-platform": "INVALID_ACCESS_TOKEN",
        },
        missing_ref={"post_id": "urn:li:share:999"},
        missing_id="",
        processing=("video",),
        processing_checks=1,
        saves_ref=MEDIA_KINDS,
        post_ref=_post_id_ref,
    ),
    Platform(
        name="pinterest",
        account="7700112233",
        url=r"https://www\.pinterest\.com/pin/{id}/",
        error=Refusal(403, "PINTEREST_29", "not permitted"),
        rate_limit=RateLimit("RATE_LIMITED", (60, 60)),
        auth_status=401,
        token_codes=dict.fromkeys(TOKEN_REFUSALS, "PINTEREST_2"),
        missing_ref={"post_id": "999"},
        missing_id="999",
        kinds=MEDIA_KINDS,
        processing=("video",),
        processing_checks=2,
        saves_ref=MEDIA_KINDS,
        settings=lambda text: {"boardId": "549755885175"},
        post_ref=_post_id_ref,
    ),
    Platform(
        name="threads",
        account="7100000000000001",
        url=r"https://www\.threads\.net/@sandbox_\w+/post/[\w-]+",
        error=Refusal(400, "10", "can't publish"),
        rate_limit=RateLimit("4/2446079", (900, 900)),
        auth_status=401,
        token_codes={"expired": "190/463", "revoked": "190/458", "garbage": "190/467", "other-platform": "190/467"},
        missing_ref={"post_id": "999"},
        missing_id="999",
        processing=ALL_KINDS,
        processing_checks=1,
        saves_ref=ALL_KINDS,
    ),
    Platform(
        name="bluesky",
        account=DID,
        url=r"https://bsky\.app/profile/[\w:]+/post/\w+",
        error=Refusal(400, "InvalidRequest"),
        rate_limit=RateLimit("RateLimitExceeded", (1, 31)),
        auth_status=401,
        # An expired access token is refreshed with the refresh token instead (test_bluesky.py).
        token_codes={"revoked": "InvalidToken", "garbage": "InvalidToken", "other-platform": "InvalidToken"},
        missing_ref={"repo": DID, "rkey": "3jzfcijpj2z2a"},
        missing_id=f"at://{DID}/app.bsky.feed.post/3jzfcijpj2z2a",
        saves_ref=ALL_KINDS,
        views=False,
    ),
)


def each_platform(keep: Callable[[Platform], bool] = lambda p: True) -> pytest.MarkDecorator:
    """Run the test once per platform that `keep` selects."""
    return pytest.mark.parametrize("platform", [pytest.param(p, id=p.name) for p in PLATFORMS if keep(p)])


def each_kind(select: Callable[[Platform], tuple[str, ...]] = lambda p: p.kinds) -> pytest.MarkDecorator:
    """Run the test once per platform and kind of post that `select` picks for it."""
    cases = [pytest.param(p, kind, id=f"{p.name}-{kind}") for p in PLATFORMS for kind in select(p)]
    return pytest.mark.parametrize(("platform", "kind"), cases)


# --- an account, its media and its posts ---------------------------------------------------------

# The files each kind of post carries: four images make a carousel, the most X and Bluesky take.
FILES_OF_KIND = {
    "text": (),
    "image": ("image.jpg",),
    "video": ("video.mp4",),
    "carousel": tuple(f"image-{n}.jpg" for n in range(4)),
}


def _media(server: FileServer, name: str) -> Media:
    """The file `name` (an image or a video) on the file server, as a client sees it."""
    is_video = name.endswith(".mp4")
    data, content_type = (VIDEO, "video/mp4") if is_video else (IMAGE, "image/jpeg")
    url = server.add(name, data, content_type)
    return Media(
        id=name,
        content_type=content_type,
        size_bytes=len(data),
        width=1080,
        height=1920 if is_video else 1080,
        duration_seconds=5.0 if is_video else None,
        open=lambda: io.BytesIO(data),
        pull_url=lambda: url,
    )


@dataclass
class Account:
    """A platform's sandbox account: its client, a connection, and the refs the client saved."""

    platform: Platform
    files: FileServer
    token: str = ""
    saved: list[dict[str, str]] = field(default_factory=list)

    @property
    def client(self) -> Any:
        return client_for(self.platform.name)

    @property
    def conn(self) -> Connection:
        name, account = self.platform.name, self.platform.account
        credentials = Credentials(
            access_token=self.token or tokens.issue(name, account, lifetime_seconds=60 * DAY),
            refresh_token=tokens.issue(name, account, kind="sbr"),
            external_id=account,
        )
        return Connection(credentials, sandbox=True, save_ref=lambda ref: self.saved.append(dict(ref)))

    def post(self, text: str, kind: str = "") -> Post:
        """A valid post of that kind (the platform's plainest by default)."""
        media = [_media(self.files, name) for name in FILES_OF_KIND[kind or self.platform.kinds[0]]]
        return Post(text=text, media=media, settings=self.platform.settings(text))

    def publish(self, text: str, kind: str = "") -> Outcome:
        return self.client.publish(self.conn, self.post(text, kind))

    def settle(self, outcome: Outcome, checks: int) -> list[Outcome]:
        """`outcome`, then what each of `checks` check() calls made of it."""
        seen = [outcome]
        for _ in range(checks):
            seen.append(self.client.check(self.conn, seen[-1].ref))
        return seen


@pytest.fixture(scope="module")
def files_server() -> Iterator[FileServer]:
    yield from serve_files()


@pytest.fixture(scope="module")
def stand_in() -> Iterator[tuple[str, State]]:
    """One sandbox for the whole matrix: stopping a server takes up to half a second, and the
    matrix has some three hundred cases. `sandbox` resets its state before each."""
    state = State()
    server = make_sandbox_server("127.0.0.1", 0, create_app(Context(state=state, hold_seconds=6.0)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}", state
    server.shutdown()
    server.server_close()


@pytest.fixture
def sandbox(stand_in: tuple[str, State], settings: Any) -> Sandbox:
    """The conftest `sandbox` on the module's one stand-in: the same read timeout and hold, and
    nothing left of the case before (every stand-in stores a post before holding its answer)."""
    url, state = stand_in
    state.reset()
    settings.PLATFORM_TIMEOUT_SECONDS = PATIENT_SECONDS
    settings.SANDBOX_URL = url
    return Sandbox(url, state, settings)


@pytest.fixture
def account(platform: Platform, files_server: FileServer) -> Account:
    return Account(platform, files_server)


def _since() -> dt.datetime:
    return dt.datetime.now(dt.UTC) - dt.timedelta(seconds=5)


def _ids(sandbox: Sandbox, platform: Platform) -> list[str]:
    return [p["id"] for p in sandbox.posts(platform.name)]


def _refused_token(sandbox: Sandbox, platform: Platform, how: str) -> str:
    name, account = platform.name, platform.account
    if how == "expired":
        return tokens.issue(name, account, lifetime_seconds=-10)
    if how == "garbage":
        return "not-a-token"
    if how == "other-platform":
        return tokens.issue("bluesky" if name == "x" else "x", account)
    token = tokens.issue(name, account)
    requests.post(f"{sandbox.url}/_sandbox/tokens/revoke", json={"token": token}, timeout=5)
    return token


# --- publishing ----------------------------------------------------------------------------------


@each_kind()
def test_ok_publishes_each_kind_of_post_once_with_its_id_and_url(sandbox, account, platform, kind):
    post = account.post(f"A {kind} post for {platform.name}", kind)
    assert account.client.problems(post) == []
    sandbox.outcomes(platform.name, "ok")

    outcome = account.client.publish(account.conn, post)

    assert outcome.kind is OutcomeKind.PUBLISHED, (outcome.error_code, outcome.error_message)
    assert outcome.post_id
    assert re.fullmatch(platform.url.format(id=re.escape(outcome.post_id)), outcome.url), outcome.url
    [stored] = sandbox.posts(platform.name)
    expected = (outcome.post_id, post.text, platform.account, len(post.media))
    assert (stored["id"], stored["text"], stored["account"], stored["media_count"]) == expected


@each_platform()
def test_check_reads_a_published_post_back_and_says_not_found_for_one_it_lacks(sandbox, account, platform):
    published = account.publish("read me back")

    again = account.client.check(account.conn, platform.post_ref(published))
    missing = account.client.check(account.conn, platform.missing_ref)

    assert (again.kind, again.post_id) == (OutcomeKind.PUBLISHED, published.post_id)
    assert (missing.kind, missing.error_code) == (OutcomeKind.FAILED, "NOT_FOUND")
    assert _ids(sandbox, platform) == [published.post_id]


# --- refusals ------------------------------------------------------------------------------------


@each_kind()
def test_error_is_failed_with_the_platforms_code_and_words_and_nothing_created(sandbox, account, platform, kind):
    sandbox.outcomes(platform.name, "error")

    outcome = account.publish("refused", kind)

    error = platform.error
    assert (outcome.kind, outcome.http_status, outcome.error_code) == (OutcomeKind.FAILED, error.status, error.code)
    assert outcome.error_message
    assert error.words in outcome.error_message
    assert not outcome.auth_failed
    assert sandbox.posts(platform.name) == []


@each_kind()
def test_rate_limited_is_not_sent_with_retry_after_and_nothing_created(sandbox, account, platform, kind):
    sandbox.outcomes(platform.name, "rate_limited")

    outcome = account.publish("later", kind)

    limit = platform.rate_limit
    assert (outcome.kind, outcome.http_status, outcome.error_code) == (OutcomeKind.NOT_SENT, 429, limit.code)
    least, most = limit.retry_after
    assert outcome.retry_after is not None
    assert least <= outcome.retry_after <= most
    assert sandbox.posts(platform.name) == []


@pytest.mark.parametrize(
    ("platform", "how"), [pytest.param(p, how, id=f"{p.name}-{how}") for p in PLATFORMS for how in p.token_codes]
)
def test_a_refused_token_is_failed_with_auth_failed(sandbox, account, platform, how):
    account.token = _refused_token(sandbox, platform, how)

    outcome = account.publish("refused")

    assert (outcome.kind, outcome.auth_failed) == (OutcomeKind.FAILED, True)
    assert (outcome.http_status, outcome.error_code) == (platform.auth_status, platform.token_codes[how])
    assert account.token not in outcome.error_message
    assert sandbox.posts(platform.name) == []


@each_kind()
def test_a_revoked_token_is_refused_for_every_kind_of_post(sandbox, account, platform, kind):
    account.token = _refused_token(sandbox, platform, "revoked")

    outcome = account.publish("refused", kind)

    assert (outcome.kind, outcome.auth_failed) == (OutcomeKind.FAILED, True)
    assert (outcome.http_status, outcome.error_code) == (platform.auth_status, platform.token_codes["revoked"])
    assert account.token not in outcome.error_message
    assert sandbox.posts(platform.name) == []


@each_kind()
def test_a_closed_port_is_not_sent(settings, account, platform, kind):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings.SANDBOX_URL = f"http://127.0.0.1:{port}"

    outcome = account.publish("nowhere", kind)

    assert (outcome.kind, outcome.error_code) == (OutcomeKind.NOT_SENT, "CONNECTION_FAILED")


# --- unknown outcomes ----------------------------------------------------------------------------


@each_kind()
def test_a_lost_answer_is_unknown_then_settled_to_the_one_post(sandbox, account, platform, kind):
    """find_recent() finds the post; where a ref was saved before the call that created it,
    check() reads the same post back from that ref."""
    since, post = _since(), account.post("Did it land? ☕", kind)
    sandbox.outcomes(platform.name, "timeout")

    outcome = account.client.publish(account.conn, post)
    found = account.client.find_recent(account.conn, post, since)
    settled = account.client.check(account.conn, account.saved[-1]) if kind in platform.saves_ref else found
    missing = account.client.find_recent(account.conn, account.post("never sent"), since)

    assert outcome.kind is OutcomeKind.UNKNOWN
    assert (found.kind, settled.kind, settled.post_id) == (OutcomeKind.PUBLISHED, OutcomeKind.PUBLISHED, found.post_id)
    assert _ids(sandbox, platform) == [found.post_id]
    assert (missing.kind, missing.error_code) == (OutcomeKind.FAILED, "NOT_FOUND")


# --- processing ----------------------------------------------------------------------------------


@each_kind(lambda p: p.processing)
def test_processing_is_followed_by_check_until_published(sandbox, account, platform, kind):
    sandbox.outcomes(platform.name, "processing")

    first = account.publish("patience", kind)
    assert first.kind is OutcomeKind.PROCESSING
    assert sandbox.posts(platform.name) == []
    *waiting, last = account.settle(first, platform.processing_checks)

    assert [o.kind for o in waiting] == [OutcomeKind.PROCESSING] * len(waiting)
    assert last.kind is OutcomeKind.PUBLISHED
    assert _ids(sandbox, platform) == [last.post_id]


@each_kind(lambda p: tuple(k for k in p.kinds if k not in p.processing))
def test_processing_on_a_post_published_at_once_is_published(sandbox, account, platform, kind):
    sandbox.outcomes(platform.name, "processing")

    outcome = account.publish("at once", kind)

    assert outcome.kind is OutcomeKind.PUBLISHED
    assert _ids(sandbox, platform) == [outcome.post_id]


# --- metrics -------------------------------------------------------------------------------------


@each_platform()
def test_metrics_are_read_back_for_published_posts(sandbox, account, platform):
    first, second = account.publish("counted").post_id, account.publish("not counted").post_id
    body = {"platform": platform.name, "post_id": first, "views": 100, "likes": 7, "comments": 3, "shares": 2}
    requests.post(f"{sandbox.url}/_sandbox/metrics", json=body, timeout=5)

    unknown = [platform.missing_id] if platform.missing_id else []
    found = account.client.metrics(account.conn, [first, second, *unknown])

    assert found.keys() == {first, second}
    counted, other = found[first], found[second]
    views = 100 if platform.views else None
    assert (counted.views, counted.likes, counted.comments, counted.shares) == (views, 7, 3, 2)
    assert (other.likes, other.comments, other.shares) == (0, 0, 0)

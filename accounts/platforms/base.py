"""The one interface every platform client implements, and the HTTP plumbing they share.

A client turns a post into calls to the platform's real public API and every answer into an
`Outcome` of one of five kinds. The kinds are what keeps publishing safe:

- `PUBLISHED`: the platform gave the post's id.
- `PROCESSING`: accepted, not final yet (a container, an upload being processed); `ref`
  holds what `check()` needs to follow it.
- `FAILED`: the platform said no, definitively; `error_code`/`error_message` keep its words.
- `UNKNOWN`: the request may have created the post (a timeout or a dropped connection after
  the request went out, a 5xx). Never send again blindly: `check()` or `find_recent()` first.
- `NOT_SENT`: nothing was created (connection refused, DNS failure, a 429 before any write),
  so the same call may be retried after `retry_after`.

Every client talks to the real hosts through `Connection.url()`; for a sandbox account the same
URL is prefixed with SANDBOX_URL (CONTRACT.md "Sandbox addressing"), so one code path serves
the real platform and the local stand-in. Outside development a sandbox account's calls raise
`SandboxUnavailable` there instead: production never sends to the sandbox.

`HttpClient` holds what every client does the same way over HTTP: sending with the account's
token and explicit timeouts, the success check, classifying any other answer into an `Outcome`
from the platform's own error words (`ErrorWords`), the guard that turns an unknown outcome
before the creating call into NOT_SENT, the platform app's credentials, and the OAuth 2.0
authorize URL, token and revoke requests. A platform module keeps only what is its own: endpoints,
payloads, limits and its error codes as data. Every failure a client raises is a
`PlatformError` whose outcome says what happened.
"""

from __future__ import annotations

import abc
import datetime as dt
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Generic, TypeVar
from urllib.parse import urlencode

import requests
import urllib3
from django.conf import settings

from accounts.platforms.interface import PlatformClient
from accounts.platforms.types import (
    FIT_SETTING,
    Connection,
    Credentials,
    Media,
    Metrics,
    Outcome,
    OutcomeKind,
    PlatformError,
    Post,
    Problem,
    ReplyTo,
    SettingType,
    setting_type_problems,
)

__all__ = [
    "FIT_SETTING",
    "MAX_RECENT_PAGES",
    "UNKNOWN_STATUSES",
    "AppCredentials",
    "Connection",
    "Credentials",
    "ErrorWords",
    "HttpClient",
    "Media",
    "Metrics",
    "NoAnswer",
    "Outcome",
    "OutcomeKind",
    "PlatformClient",
    "PlatformError",
    "Post",
    "Problem",
    "ReplyTo",
    "SettingType",
    "bare_connection",
    "before_create",
    "chunks",
    "failed",
    "json_object",
    "oauth_error",
    "outcome_of_exception",
    "retry_after_seconds",
    "setting_type_problems",
    "token_credentials",
    "unsettled",
]

# --- answers -----------------------------------------------------------------------------------

# After the request went out, these statuses say nothing about whether the post was created.
UNKNOWN_STATUSES = frozenset({500, 502, 503, 504})
# find_recent() reads an account's posts newest first, page by page, at most this many pages:
# a busy account may post more than one page between a lost answer and its reconciliation.
MAX_RECENT_PAGES = 10


def json_object(response: requests.Response) -> dict[str, Any]:
    """The JSON object a platform answered, or {} for anything else (HTML error pages, lists)."""
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def retry_after_seconds(response: requests.Response, *reset_headers: str) -> float | None:
    """Seconds to wait from Retry-After, or from an epoch-seconds reset header."""
    value = response.headers.get("Retry-After", "")
    if value.isascii() and value.isdigit():
        return float(value)
    for name in reset_headers:
        reset = response.headers.get(name, "")
        if reset.isascii() and reset.isdigit():
            return max(0.0, float(reset) - dt.datetime.now(dt.UTC).timestamp())
    return None


def _never_sent(exc: requests.RequestException) -> bool:
    if isinstance(exc, requests.ConnectTimeout):
        return True
    if isinstance(exc, requests.ConnectionError) and not isinstance(exc, requests.ReadTimeout):
        # requests wraps urllib3's error; only a connection that was never made proves nothing
        # was sent (refused, DNS failure). A reset mid-request is not that.
        reason = getattr(exc.args[0], "reason", None) if exc.args else None
        return isinstance(reason, urllib3.exceptions.NewConnectionError)
    return False


def outcome_of_exception(exc: requests.RequestException) -> Outcome:
    """A transport error: NOT_SENT if the request surely never reached the platform."""
    if _never_sent(exc):
        return Outcome(OutcomeKind.NOT_SENT, error_code="CONNECTION_FAILED", error_message=type(exc).__name__)
    return Outcome(OutcomeKind.UNKNOWN, error_code="NO_ANSWER", error_message=type(exc).__name__)


def chunks(media: Media, size: int) -> Iterator[bytes]:
    """The media's bytes in pieces of `size` (the last one shorter), read as they are sent."""
    with media.open() as stream:
        while piece := stream.read(size):
            yield piece


def before_create(outcome: Outcome) -> Outcome:
    """A failure before the call that creates the post (an upload, a lookup, a container that
    is not the post yet) created nothing, so an UNKNOWN there is NOT_SENT."""
    return replace(outcome, kind=OutcomeKind.NOT_SENT) if outcome.kind is OutcomeKind.UNKNOWN else outcome


def failed(code: str, message: str = "", status: int | None = None) -> Outcome:
    """A definitive no of the client's own (no id in an answer, a step that failed)."""
    return Outcome(OutcomeKind.FAILED, error_code=code, error_message=message, http_status=status)


def unsettled(outcome: Outcome) -> Outcome:
    """What a read-back's refusal says: only a definitive no (FAILED) settles anything; a
    throttle, a 5xx or no answer leaves the post UNKNOWN (never NOT_SENT: it may exist)."""
    return outcome if outcome.kind is OutcomeKind.FAILED else replace(outcome, kind=OutcomeKind.UNKNOWN)


def oauth_error(response: requests.Response) -> str:
    """An OAuth error (`error`, `error_description`) without echoing anything secret."""
    body = json_object(response)
    words = f"{body.get('error', '')} {body.get('error_description', '')}".strip() if body else ""
    return f"HTTP {response.status_code} {words}".strip()


class NoAnswer(PlatformError):
    """A request that got no answer (refused connection, timeout, reset): the outcome is
    NOT_SENT when it surely never left, else UNKNOWN."""


@dataclass(frozen=True)
class ErrorWords:
    """What a refusal says in the platform's own terms; `HttpClient.refusal` turns it into an
    Outcome. The flags carry what the platform says beyond the HTTP status."""

    code: str
    message: str
    throttled: bool = False  # a rate limit or quota, whatever the status (429 always is)
    retry_after: float | None = None  # the platform's own wait; else Retry-After/reset headers
    transient: bool = False  # the platform cannot say whether the call took effect
    auth: bool = False  # the token was refused: the account must be re-authorized


@dataclass(frozen=True)
class AppCredentials:
    """The platform app's OAuth client (<PLATFORM>_CLIENT_ID and _SECRET in settings)."""

    client_id: str
    client_secret: str


def token_credentials(
    token: Mapping[str, Any], *, lifetime: int, refresh_token: str = "", metadata: Mapping[str, Any] = {}, **who: str
) -> Credentials:
    """Credentials from an OAuth token answer: its access token; its refresh token, else
    `refresh_token` (platforms that do not rotate it keep the old one); the expiry from
    `expires_in`, else the platform's documented `lifetime` in seconds; the scope granted, with
    `metadata`. `who` names the account: external_id, handle, display_name."""
    seconds = int(token.get("expires_in") or lifetime)
    return Credentials(
        access_token=str(token["access_token"]),
        refresh_token=str(token.get("refresh_token") or refresh_token),
        expires_at=dt.datetime.now(dt.UTC) + dt.timedelta(seconds=seconds),
        metadata={"scope": str(token.get("scope", "")), **metadata},
        **who,
    )


def bare_connection(sandbox: bool, access_token: str = "") -> Connection:
    """A connection with only a token (or none): for connecting, before an account exists."""
    return Connection(credentials=Credentials(access_token=access_token), sandbox=sandbox)


Prepared = TypeVar("Prepared")


class HttpClient(PlatformClient, Generic[Prepared]):
    """A platform client over HTTP. `publish()` runs `prepare()` (uploads, containers: anything
    before the creating call) and then `create()`; a failure in `prepare()` created nothing."""

    # The real API's base URL; `send()` takes paths below it or absolute URLs.
    api: ClassVar[str] = ""
    # Headers holding an epoch-seconds reset time, read when a 429 has no Retry-After.
    reset_headers: ClassVar[tuple[str, ...]] = ()
    # The error_code of a rate-limited answer; "" keeps the platform's own code.
    rate_limited_code: ClassVar[str] = "RATE_LIMITED"
    # OAuth 2.0: where users authorize the app, the scopes asked for, and the stand-in app's
    # secret for sandbox accounts of platforms whose token call needs one.
    authorize_endpoint: ClassVar[str] = ""
    scopes: ClassVar[str] = ""
    sandbox_client_secret: ClassVar[str] = ""
    pkce: ClassVar[bool] = True  # whether the authorize request carries a PKCE challenge

    # --- publishing ------------------------------------------------------------------------

    def publish(self, conn: Connection, post: Post) -> Outcome:
        try:
            prepared = self.prepare(conn, post)
        except PlatformError as exc:
            return before_create(exc.outcome)
        try:
            return self.create(conn, post, prepared)
        except PlatformError as exc:
            return exc.outcome

    @abc.abstractmethod
    def prepare(self, conn: Connection, post: Post) -> Prepared:
        """Everything before the call that creates the post; raises PlatformError."""

    @abc.abstractmethod
    def create(self, conn: Connection, post: Post, prepared: Prepared) -> Outcome:
        """The call that creates the post, and what follows it; raises PlatformError."""

    def finish_processing(
        self, ref: Mapping[str, str], ready: Callable[[], bool], create: Callable[[], Outcome]
    ) -> Outcome:
        """Settle a PROCESSING outcome whose post is not created yet: `create()` once `ready()`
        says the media are. No answer leaves it PROCESSING; a refusal created nothing."""
        try:
            if not ready():
                return Outcome(OutcomeKind.PROCESSING, ref=ref)
        except NoAnswer as exc:  # the media may still be processing
            return replace(exc.outcome, kind=OutcomeKind.PROCESSING, ref=ref)
        except PlatformError as exc:
            return before_create(exc.outcome)
        try:
            return create()
        except PlatformError as exc:
            return exc.outcome

    def text_problems(self, post: Post, length: int, *, empty: str, too_long: str) -> list[Problem]:
        """EMPTY_POST (`empty`) for a post with neither text nor media; TEXT_TOO_LONG when the
        text's `length`, counted the platform's way, passes the limits table (`too_long` is
        formatted with length and limit)."""
        if not post.text.strip() and not post.media:
            return [Problem("text", "EMPTY_POST", empty)]
        limit = self.limits.text.max_length
        if limit is not None and length > limit:
            return [Problem("text", "TEXT_TOO_LONG", too_long.format(length=length, limit=limit))]
        return []

    # --- reading back ----------------------------------------------------------------------

    def read_back(self, conn: Connection, path: str, post_id: str, published: Callable[[], Outcome]) -> Outcome:
        """Settle an outcome by reading the post at `path`: `published()` when the answer is
        that post, FAILED NOT_FOUND on a 404, else what `unsettled()` makes of the refusal."""
        try:
            response = self.send(conn, "GET", path)
        except NoAnswer as exc:
            return replace(exc.outcome, kind=OutcomeKind.UNKNOWN)
        if response.status_code == 200 and self.body(response).get("id") == post_id:
            return published()
        if response.status_code == 404:
            return failed("NOT_FOUND", self.refusal(response).error_message, 404)
        return unsettled(self.refusal(response))

    def metrics(self, conn: Connection, post_ids: Sequence[str]) -> dict[str, Metrics]:
        """The posts' metrics, `metrics_batch_size` posts a `metrics_batch()` call; a post the
        platform does not know is left out. A refused call raises PlatformError."""
        found: dict[str, Metrics] = {}
        for start in range(0, len(post_ids), self.metrics_batch_size):
            found.update(self.metrics_batch(conn, post_ids[start : start + self.metrics_batch_size]))
        return found

    def metrics_batch(self, conn: Connection, post_ids: Sequence[str]) -> dict[str, Metrics]:
        """One read of up to `metrics_batch_size` posts (clients that override `metrics()`
        instead need not implement it)."""
        raise NotImplementedError(f"{self.platform} reads metrics its own way")

    # --- HTTP ------------------------------------------------------------------------------

    def headers(self, conn: Connection) -> dict[str, str]:
        """Headers of every call for this account: its token as a Bearer by default."""
        token = conn.credentials.access_token
        return {"Authorization": f"Bearer {token}"} if token else {}

    def send(self, conn: Connection, method: str, path: str, **kwargs: Any) -> requests.Response:
        """One request to `api + path` (or an absolute URL); a transport error raises NoAnswer."""
        url = path if path.startswith(("http://", "https://")) else self.api + path
        headers = {**self.headers(conn), **kwargs.pop("headers", {})}
        try:
            return self.session.request(method, conn.url(url), headers=headers, timeout=self.timeout, **kwargs)
        except requests.RequestException as exc:
            raise NoAnswer(outcome_of_exception(exc)) from exc

    def call(self, conn: Connection, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        """`send()`, then the answer's body if it is a success; any other answer raises
        PlatformError with `refusal()`'s outcome."""
        response = self.send(conn, method, path, **kwargs)
        if not self.succeeded(response):
            raise PlatformError(self.refusal(response))
        return self.body(response)

    def succeeded(self, response: requests.Response) -> bool:
        return 200 <= response.status_code < 300

    def delete_at(self, conn: Connection, path: str, post_id: str, **kwargs: Any) -> Outcome:
        """`delete()` by one DELETE request: a success, or a 404 (the post is already gone), is
        PUBLISHED (done); no answer is its outcome (UNKNOWN: read back, never sent again
        blindly); any other answer is `refusal()`'s."""
        try:
            response = self.send(conn, "DELETE", path, **kwargs)
        except NoAnswer as exc:
            return exc.outcome
        if self.succeeded(response) or response.status_code == 404:
            return Outcome(OutcomeKind.PUBLISHED, post_id=post_id, http_status=response.status_code)
        return self.refusal(response)

    def body(self, response: requests.Response) -> dict[str, Any]:
        """What a successful answer carries (platforms with an envelope unwrap it here)."""
        return json_object(response)

    # --- classifying -----------------------------------------------------------------------

    @abc.abstractmethod
    def error_words(self, response: requests.Response) -> ErrorWords:
        """The platform's code and message of a refusal, and what its codes say."""

    def refusal(self, response: requests.Response) -> Outcome:
        """Any answer that is not a success, as an Outcome: NOT_SENT when throttled (the call
        was refused before doing anything), UNKNOWN on a 5xx or a code that leaves it open,
        else FAILED with the platform's code and words."""
        status, words = response.status_code, self.error_words(response)
        outcome = Outcome(OutcomeKind.FAILED, error_code=words.code, error_message=words.message, http_status=status)
        if status == 429 or words.throttled:
            wait = words.retry_after
            wait = retry_after_seconds(response, *self.reset_headers) if wait is None else wait
            code = self.rate_limited_code or words.code
            return replace(outcome, kind=OutcomeKind.NOT_SENT, error_code=code, retry_after=wait)
        if status in UNKNOWN_STATUSES or status >= 500 or words.transient:
            return replace(outcome, kind=OutcomeKind.UNKNOWN)
        return replace(outcome, auth_failed=status == 401 or words.auth)

    # --- the platform app and OAuth 2.0 ----------------------------------------------------

    def app(self, sandbox: bool) -> AppCredentials:
        """The app's credentials from settings; a sandbox account without them uses the
        stand-in's public test app."""
        name = self.platform.upper()
        client_id = str(getattr(settings, f"{name}_CLIENT_ID", "") or "")
        secret = str(getattr(settings, f"{name}_CLIENT_SECRET", "") or "")
        if sandbox:
            return AppCredentials(client_id or f"sandbox-{self.platform}-client", secret or self.sandbox_client_secret)
        return AppCredentials(client_id, secret)

    def authorize_params(self, *, state: str, code_challenge: str, redirect_uri: str, sandbox: bool) -> dict[str, str]:
        """The authorization request's query (RFC 6749 §4.1.1, with PKCE S256 where `pkce`)."""
        params = {
            "response_type": "code",
            "client_id": self.app(sandbox).client_id,
            "redirect_uri": redirect_uri,
            "scope": self.scopes,
            "state": state,
        }
        if self.pkce:
            params.update(code_challenge=code_challenge, code_challenge_method="S256")
        return params

    def authorize_url(self, *, state: str, code_challenge: str, redirect_uri: str, sandbox: bool) -> str:
        params = self.authorize_params(
            state=state, code_challenge=code_challenge, redirect_uri=redirect_uri, sandbox=sandbox
        )
        return bare_connection(sandbox).url(f"{self.authorize_endpoint}?{urlencode(params)}")

    def token_request(self, sandbox: bool, method: str, url: str, **kwargs: Any) -> dict[str, Any]:
        """A call to the platform's OAuth token endpoint; a refusal raises PlatformError
        (FAILED with auth_failed for a 4xx: the grant is no good)."""
        try:
            response = self.session.request(method, bare_connection(sandbox).url(url), timeout=self.timeout, **kwargs)
        except requests.RequestException as exc:
            raise NoAnswer(outcome_of_exception(exc)) from exc
        body = json_object(response)
        if response.ok and body.get("access_token"):
            return body
        return self.token_refused(response)

    def token_refused(self, response: requests.Response) -> dict[str, Any]:
        message = f"{self.platform} refused the token request: {oauth_error(response)}"
        status = response.status_code
        kind = OutcomeKind.UNKNOWN if status >= 500 else OutcomeKind.FAILED
        outcome = Outcome(kind, error_code="TOKEN_REFUSED", error_message=message, http_status=status)
        raise PlatformError(replace(outcome, auth_failed=kind is OutcomeKind.FAILED))

    def revocation(self, conn: Connection, method: str, url: str, **kwargs: Any) -> requests.Response:
        """A call to the platform's revoke endpoint for `conn`'s account, sent without its token
        unless `kwargs` carries one: the answer when it is a success (a 2xx without an OAuth
        `error`: some platforms refuse inside a 200); else PlatformError (REVOKE_REFUSED, UNKNOWN
        on a 5xx), or NoAnswer."""
        try:
            response = self.session.request(method, conn.url(url), timeout=self.timeout, **kwargs)
        except requests.RequestException as exc:
            raise NoAnswer(outcome_of_exception(exc)) from exc
        if response.ok and not json_object(response).get("error"):
            return response
        message = f"{self.platform} refused to revoke the token: {oauth_error(response)}"
        status = response.status_code
        kind = OutcomeKind.UNKNOWN if status >= 500 else OutcomeKind.FAILED
        raise PlatformError(Outcome(kind, error_code="REVOKE_REFUSED", error_message=message, http_status=status))

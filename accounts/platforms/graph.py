"""Meta's Graph API dialect, spoken by the Facebook, Instagram and Threads clients alike.

What the three hosts (graph.facebook.com, graph.instagram.com, graph.threads.net) share:

- A refusal is `{"error": {message, type, code, error_subcode, error_user_msg}}`; the
  reel upload host answers `debug_info` instead, and api.instagram.com's token endpoint puts
  the fields at the top level. `error_code` keeps Graph's numbers: "<code>" or
  "<code><separator><subcode>" (Facebook's outcomes write "190.463", the others "190/463").
- A rate limit is named by its code (4, 17, 32, 613...) with any HTTP status, so the
  platform's code is kept rather than RATE_LIMITED; the wait comes from the
  `X-Business-Use-Case-Usage` header (`estimated_time_to_regain_access`, in minutes), else
  from Retry-After. What each code means differs by product, so every client names its own
  in `GraphCodes`.
- A node that does not exist is a 404 or code 100 with subcode 33 (`GraphClient.node` raises
  `Missing`). Every node, a post, a video, a reply or a comment, is deleted with
  `DELETE /{id}` answering `{"success": true}` (`GraphClient.delete`), and one that is gone is
  already deleted. Containers, videos and reels process after the call and are polled
  (`GraphClient.poll`). Timestamps look like 2017-08-31T18:10:00+0000; insights are read one
  post at a time and carry `values[0].value` or `total_value.value`.
- An edge pages by cursor: `paging.cursors.after` goes back as `after`; Graph says to stop
  where the answer links no `next` page (`GraphClient.edge_pages`).
- OAuth: Graph's token endpoints answer a refusal in the error shape above, not as OAuth's
  `error`/`error_description` strings; Instagram and Threads document no PKCE.
"""

from __future__ import annotations

import abc
import datetime as dt
import json
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, TypeVar

import requests

from accounts.platforms.base import (
    MAX_RECENT_PAGES,
    Connection,
    ErrorWords,
    HttpClient,
    Metrics,
    NoAnswer,
    Outcome,
    OutcomeKind,
    PlatformError,
    failed,
    json_object,
)

USAGE_HEADER = "X-Business-Use-Case-Usage"
MISSING = (100, 33)  # code 100, subcode 33: "Object with ID ... does not exist"

Prepared = TypeVar("Prepared")
Read = TypeVar("Read")


@dataclass(frozen=True)
class GraphCodes:
    """What a product's Graph error codes mean."""

    auth: frozenset[int]  # the token is dead: the account must be re-authorized
    throttled: frozenset[int]  # rate limits, whatever the HTTP status
    quota: frozenset[tuple[int, int]] = frozenset()  # (code, subcode) pairs that are a quota reached
    transient: frozenset[int] = frozenset()  # Graph cannot say whether the call took effect
    subcode_separator: str = "/"


class Missing(PlatformError):
    """Graph says the node does not exist: FAILED with code NOT_FOUND."""


# --- answers -----------------------------------------------------------------------------------


def graph_error(response: requests.Response) -> dict[str, Any]:
    """The error object: Graph's `error`, the upload host's `debug_info`, or the flat body."""
    body = json_object(response)
    error = body.get("error") or body.get("debug_info")
    return error if isinstance(error, dict) else body


def _number(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def error_words(response: requests.Response, codes: GraphCodes) -> ErrorWords:
    """Graph's code and words, and what `codes` says they mean."""
    error = graph_error(response)
    code, subcode = _number(error.get("code")), _number(error.get("error_subcode"))
    name = f"HTTP_{response.status_code}" if code is None else str(code)
    if code is not None and subcode:
        name += f"{codes.subcode_separator}{subcode}"
    message = str(error.get("error_user_msg") or error.get("message") or error.get("error_message") or "")
    return ErrorWords(
        name,
        message,
        throttled=code in codes.throttled or (code, subcode) in codes.quota,
        retry_after=regain_seconds(response),
        transient=code in codes.transient,
        auth=code in codes.auth,
    )


def regain_seconds(response: requests.Response) -> float | None:
    """The longest `estimated_time_to_regain_access` (minutes) of the usage header, in seconds;
    None when it names no wait, so that Retry-After is read instead."""
    try:
        usage = json.loads(response.headers.get(USAGE_HEADER, "") or "{}")
    except ValueError:
        return None
    minutes = [
        entry.get("estimated_time_to_regain_access")
        for entries in (usage.values() if isinstance(usage, dict) else [])
        for entry in (entries if isinstance(entries, list) else [])
        if isinstance(entry, dict)
    ]
    longest = max((float(m) for m in minutes if isinstance(m, int | float)), default=0.0)
    return longest * 60 if longest > 0 else None


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def read_failure(exc: PlatformError) -> Outcome:
    """What a read-back that failed says: no answer settles nothing (UNKNOWN); a refusal is
    its own outcome."""
    return replace(exc.outcome, kind=OutcomeKind.UNKNOWN) if isinstance(exc, NoAnswer) else exc.outcome


def is_missing(response: requests.Response) -> bool:
    error = graph_error(response)
    return response.status_code == 404 or (error.get("code"), error.get("error_subcode")) == MISSING


def graph_time(value: Any) -> dt.datetime | None:
    """A Graph timestamp (2017-08-31T18:10:00+0000) or our own ISO time; UTC when naive."""
    try:
        parsed = dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)


def created_since(value: Any, since: dt.datetime) -> bool:
    """Whether a Graph timestamp is at or after `since` (Graph counts whole seconds)."""
    created = graph_time(value)
    return created is not None and created >= since.replace(microsecond=0)


def reaches_before(items: Sequence[Mapping[str, Any]], field: str, since: dt.datetime) -> bool:
    """Whether a page listed newest first holds an item created before `since`: every item on
    the later pages is older still."""
    created = [graph_time(item.get(field)) for item in items]
    return any(moment is not None and moment < since.replace(microsecond=0) for moment in created)


def insight_values(body: Mapping[str, Any]) -> dict[str, int]:
    """Each insight's number, by name: `values[0].value`, or `total_value.value`."""
    items = [item for item in body.get("data") or [] if isinstance(item, dict)]
    found = {item.get("name"): _insight_value(item) for item in items}
    return {name: value for name, value in found.items() if isinstance(name, str) and isinstance(value, int)}


def _insight_value(item: Mapping[str, Any]) -> Any:
    first = (item.get("values") or [{}])[0]
    value = first.get("value") if isinstance(first, dict) else None
    return (item.get("total_value") or {}).get("value") if value is None else value


# --- the client --------------------------------------------------------------------------------


class GraphClient(HttpClient[Prepared]):
    """A client of one of Meta's Graph APIs; each names its error codes in `codes`."""

    codes: ClassVar[GraphCodes]
    rate_limited_code = ""  # Graph's code says which limit was reached
    status_polls = 1  # status reads inside publish() before answering PROCESSING
    poll_seconds = 2.0  # between those reads

    def error_words(self, response: requests.Response) -> ErrorWords:
        return error_words(response, self.codes)

    def node(self, conn: Connection, path: str, **kwargs: Any) -> dict[str, Any]:
        """GET a node; one that does not exist raises Missing, other refusals PlatformError."""
        response = self.send(conn, "GET", path, **kwargs)
        if is_missing(response):
            words = self.error_words(response)
            outcome = Outcome(OutcomeKind.FAILED, error_code="NOT_FOUND", error_message=words.message)
            raise Missing(replace(outcome, http_status=response.status_code))
        if not self.succeeded(response):
            raise PlatformError(self.refusal(response))
        return self.body(response)

    def delete(self, conn: Connection, post_id: str, ref: Mapping[str, str]) -> Outcome:
        """`DELETE /{id}`; a node Graph says does not exist is deleted already."""
        try:
            response = self.send(conn, "DELETE", f"/{post_id}")
        except PlatformError as exc:
            return exc.outcome
        if is_missing(response):
            return Outcome(OutcomeKind.PUBLISHED, post_id=post_id)
        if not self.succeeded(response):
            return self.refusal(response)
        if self.body(response).get("success") is not True:
            return failed("NOT_DELETED", "Graph did not confirm the delete.", response.status_code)
        return Outcome(OutcomeKind.PUBLISHED, post_id=post_id)

    def exists(self, conn: Connection, post_id: str, ref: Mapping[str, str]) -> bool:
        try:
            self.node(conn, f"/{post_id}", params={"fields": "id"})
        except Missing:
            return False
        return True

    def edge_pages(
        self, conn: Connection, path: str, params: Mapping[str, Any], *, needs_next: bool = True
    ) -> Iterator[list[dict[str, Any]]]:
        """The items of an edge, page after page (at most MAX_RECENT_PAGES), each page's
        `paging.cursors.after` sent back as `after`. Graph's rule ends it where the answer links
        no `next` page; with `needs_next=False` (an API that documents the cursors alone) it
        ends at a page without items or without an `after` cursor. An edge of a node that does
        not exist raises Missing; another refusal PlatformError."""
        after = ""
        for _ in range(MAX_RECENT_PAGES):
            body = self.node(conn, path, params={**params, **({"after": after} if after else {})})
            yield [item for item in body.get("data") or [] if isinstance(item, dict)]
            paging = _object(body.get("paging"))
            after = str(_object(paging.get("cursors")).get("after") or "")
            last = not paging.get("next") if needs_next else not body.get("data")
            if not after or last:
                return

    def metrics(self, conn: Connection, post_ids: Sequence[str]) -> dict[str, Metrics]:
        """One read per post; posts without insights are left out."""
        found = {post_id: self.post_metrics(conn, post_id) for post_id in post_ids}
        return {post_id: metrics for post_id, metrics in found.items() if metrics is not None}

    @abc.abstractmethod
    def post_metrics(self, conn: Connection, post_id: str) -> Metrics | None:
        """The post's counts, or None for a post that has none (or no longer exists)."""

    def poll(self, read: Callable[[], Read], pending: Callable[[Read], bool], polls: int) -> Read:
        """`read()`, then again `poll_seconds` apart while `pending` says so: `polls` reads at most."""
        found = read()
        for _ in range(polls - 1):
            if not pending(found):
                break
            time.sleep(self.poll_seconds)
            found = read()
        return found

    def token_refused(self, response: requests.Response) -> dict[str, Any]:
        """The base's refusal, worded from Graph's error object."""
        try:
            return super().token_refused(response)
        except PlatformError as exc:
            words = self.error_words(response)
            said = f"HTTP {response.status_code} {words.code} {words.message}".strip()
            message = f"{self.platform} refused the token request: {said}"
            raise PlatformError(replace(exc.outcome, error_message=message)) from exc

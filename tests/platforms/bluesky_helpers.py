"""Shared pieces of the Bluesky tests: a sandbox connection, media, and the created records."""

from __future__ import annotations

import io
import json
from typing import Any

from accounts.platforms import base
from sandbox import tokens
from sandbox.platforms.bluesky import did_for

HANDLE = "acme-demo.bsky.social"
DID = did_for(HANDLE)
APP_PASSWORD = "abcd-efgh-ijkl-mnop"


def connection(*, access_token: str | None = None, refresh_token: str | None = None) -> base.Connection:
    saved: list[dict[str, str]] = []
    credentials = base.Credentials(
        access_token=access_token if access_token is not None else tokens.issue("bluesky", DID),
        refresh_token=refresh_token if refresh_token is not None else tokens.issue("bluesky", DID, kind="sbr"),
        external_id=DID,
        handle=HANDLE,
    )
    conn = base.Connection(credentials, sandbox=True, save_ref=lambda ref: saved.append(dict(ref)))
    conn.saved = saved  # type: ignore[attr-defined]
    return conn


def media(data: bytes, content_type: str, *, size: int | None = None, **facts: Any) -> base.Media:
    return base.Media(
        id=f"m-{len(data)}",
        content_type=content_type,
        size_bytes=len(data) if size is None else size,
        width=facts.get("width", 64),
        height=facts.get("height", 48),
        duration_seconds=facts.get("duration"),
        open=lambda: io.BytesIO(data),
        pull_url=lambda: "http://unused",
    )


def logged(sandbox: Any, nsid: str) -> list[dict[str, Any]]:
    return [r for r in sandbox.state.requests if r["path"].endswith(f"/xrpc/{nsid}")]


def created_records(sandbox: Any) -> list[dict[str, Any]]:
    """The JSON bodies of every createRecord call the sandbox received, in order."""
    return [json.loads(r["body"]) for r in logged(sandbox, "com.atproto.repo.createRecord")]


def stored(sandbox: Any) -> list[Any]:
    return sandbox.state.posts_of("bluesky")

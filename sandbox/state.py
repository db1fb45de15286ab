"""Everything the sandbox remembers, in memory and behind one lock."""

from __future__ import annotations

import datetime as dt
import itertools
import threading
from collections import defaultdict, deque
from dataclasses import dataclass, field
from typing import Any

OUTCOMES = ("ok", "error", "rate_limited", "timeout", "processing")
PLATFORMS = ("x", "instagram", "tiktok", "youtube", "facebook", "linkedin", "pinterest", "threads", "bluesky")


@dataclass
class SandboxPost:
    id: str
    platform: str
    account: str
    text: str
    media_count: int
    created_at: str
    extra: dict[str, Any] = field(default_factory=dict)
    # The id of the post this one replies to (X, Bluesky and Threads), else None.
    reply_to: str | None = None

    def public(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "platform": self.platform,
            "account": self.account,
            "text": self.text,
            "media_count": self.media_count,
            "created_at": self.created_at,
            "reply_to": self.reply_to,
        }


@dataclass
class SandboxComment:
    """A comment on a post, on the networks whose comments are not posts (Facebook, Instagram,
    LinkedIn, YouTube)."""

    id: str
    platform: str
    post_id: str
    account: str
    text: str
    created_at: str
    extra: dict[str, Any] = field(default_factory=dict)

    def public(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "platform": self.platform,
            "post_id": self.post_id,
            "account": self.account,
            "text": self.text,
            "created_at": self.created_at,
        }


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat().replace("+00:00", "Z")


class State:
    def __init__(self) -> None:
        self.lock = threading.RLock()
        self._ids = itertools.count(1_000_000_000_000)
        self.reset()

    def reset(self) -> None:
        with self.lock:
            self.posts: list[SandboxPost] = []
            self.comments: list[SandboxComment] = []
            # Posts taken down (by their owner, through a network's delete call or the control
            # API): gone from every read, kept here for the viewer and for tests.
            self.removed: list[SandboxPost] = []
            self.outcomes: dict[str, deque[str]] = defaultdict(deque)
            self.metrics: dict[tuple[str, str], dict[str, int]] = {}
            self.revoked: set[str] = set()
            # (platform, account) pairs whose user took back the app's authorization (a revoke
            # that ends the grant): every token of the account is refused since.
            self.deauthorized: set[tuple[str, str]] = set()
            # Beyond the contract: every platform answer is held this long after the work is
            # done (a platform slower than its clients' timeout), until set back to 0.
            self.latency_seconds = 0.0
            # Beyond the contract: media upload bodies are read at most this fast (None: as
            # fast as they come), as a platform's ingest caps each upload.
            self.upload_bytes_per_second: float | None = None
            # Per-platform scratch space for uploads, containers, sessions, processing jobs.
            self.objects: dict[str, dict[str, Any]] = defaultdict(dict)
            # Every platform request received, for contract tests: method, path, query, headers, body.
            self.requests: deque[dict[str, Any]] = deque(maxlen=10_000)

    def next_id(self) -> str:
        with self.lock:
            return str(next(self._ids))

    def queue_outcomes(self, platform: str, outcomes: list[str]) -> None:
        with self.lock:
            self.outcomes[platform].extend(outcomes)

    def take_outcome(self, platform: str) -> str:
        """The outcome for the next publish call to `platform`; `ok` when none is queued."""
        with self.lock:
            queue = self.outcomes[platform]
            return queue.popleft() if queue else "ok"

    def store(self, platform: str, kind: str) -> dict[str, Any]:
        """The platform's scratch objects of one kind (uploads, containers, codes, ...), by id."""
        with self.lock:
            found: dict[str, Any] = self.objects[platform].setdefault(kind, {})
        return found

    def take_outcome_if(self, platform: str, outcome: str) -> bool:
        """Take the next queued outcome only when it is `outcome` (a slow upload takes a queued
        `processing` before its publish call does)."""
        with self.lock:
            queue = self.outcomes[platform]
            if queue and queue[0] == outcome:
                queue.popleft()
                return True
        return False

    def add_post(
        self, platform: str, account: str, text: str, media_count: int, *, reply_to: str | None = None, **extra: Any
    ) -> SandboxPost:
        post = SandboxPost(
            id=extra.pop("post_id", None) or self.next_id(),
            platform=platform,
            account=account,
            text=text,
            media_count=media_count,
            created_at=_now(),
            extra=extra,
            reply_to=reply_to or None,
        )
        with self.lock:
            self.posts.append(post)
        return post

    def find_post(self, platform: str, post_id: str) -> SandboxPost | None:
        with self.lock:
            return next((p for p in self.posts if p.platform == platform and p.id == post_id), None)

    def posts_of(self, platform: str | None = None) -> list[SandboxPost]:
        with self.lock:
            return [p for p in self.posts if platform is None or p.platform == platform]

    def remove_post(self, platform: str, post_id: str) -> SandboxPost | None:
        """Take a post down as its owner would: gone from every read, with its comments (a
        reply is a post of its own and stays, as on the networks). None when there is none."""
        with self.lock:
            post = self.find_post(platform, post_id)
            if post is None:
                return None
            self.posts.remove(post)
            self.removed.append(post)
            self.comments = [c for c in self.comments if not (c.platform == platform and c.post_id == post_id)]
            return post

    def add_comment(self, platform: str, post_id: str, account: str, text: str, **extra: Any) -> SandboxComment:
        comment = SandboxComment(
            id=extra.pop("comment_id", None) or self.next_id(),
            platform=platform,
            post_id=post_id,
            account=account,
            text=text,
            created_at=_now(),
            extra=extra,
        )
        with self.lock:
            self.comments.append(comment)
        return comment

    def find_comment(self, platform: str, comment_id: str) -> SandboxComment | None:
        with self.lock:
            return next((c for c in self.comments if c.platform == platform and c.id == comment_id), None)

    def comments_of(self, platform: str | None = None, post_id: str | None = None) -> list[SandboxComment]:
        with self.lock:
            return [
                c
                for c in self.comments
                if (platform is None or c.platform == platform) and (post_id is None or c.post_id == post_id)
            ]

    def remove_comment(self, platform: str, comment_id: str) -> SandboxComment | None:
        with self.lock:
            comment = self.find_comment(platform, comment_id)
            if comment is not None:
                self.comments.remove(comment)
            return comment

    def metrics_of(self, platform: str, post_id: str) -> dict[str, int]:
        with self.lock:
            return dict(self.metrics.get((platform, post_id), {"views": 0, "likes": 0, "comments": 0, "shares": 0}))

"""The mixed load of `make test-long`, run headless by tests/long/test_mixed_load.py:

    locust -f tests/long/locustfile.py --headless -u 14 -r 7 -t 90s --host http://127.0.0.1:PORT

Clients of three teams, each with a key of its own (a key's rate limit is its own budget):
creates (immediate, scheduled 2-5 s ahead, drafts confirmed later), reads, lists, media uploads
(declare, PUT, confirm, then publish with it), retries of failed publishes, and in the team
that requires approval a member's creates that an admin approves or rejects (the admin also
creates, ungated). One more client keeps queueing platform outcomes at the sandbox (ok, error,
timeout, processing; rate_limited on Bluesky), so every kind of answer reaches the workers
while the load runs.

Every create carries an Idempotency-Key and, answered 503 (or not at all), is sent again with
that key after the Retry-After the service gave, as a careful client does; a 409 saying the key
is still in use is waited out the same way.

LONG_CONFIG names a JSON file: {"keys": {client: [key, ...]}, "accounts": {team: {platform:
id}}, "sandbox_url", "record", "creates"}. When the run stops, every request is appended to
"record" (one JSON line: time, method, name, status, 0 when no answer came, and the error type
of a 5xx or the exception of no answer) and every create to "creates" (its content, final status, publish id and tries).
"""

from __future__ import annotations

import datetime as dt
import io
import itertools
import json
import os
import time
import uuid
from collections import defaultdict, deque
from pathlib import Path
from secrets import SystemRandom
from typing import Any

from locust import HttpUser, between, events, task
from PIL import Image

CONFIG: dict[str, Any] = json.loads(Path(os.environ["LONG_CONFIG"]).read_text(encoding="utf-8"))
TEXT_PLATFORMS = ("x", "bluesky", "linkedin")
OUTCOMES = {"ok": 6, "error": 2, "rate_limited": 1, "timeout": 1, "processing": 1}
# The workers wait out the reset a 429 announces: 15 minutes on X, the next UTC day on LinkedIn's
# member-day limit, longer than the run; Bluesky's 30 s fits, so only Bluesky answers 429.
RATE_LIMITED_PLATFORMS = ("bluesky",)
RNG = SystemRandom()
RECORDS: list[dict[str, Any]] = []
CREATES: list[dict[str, Any]] = []
# A create answered 503, no answer, or "key still in use" is sent again this many times in all.
CREATE_TRIES = 12
MAX_PAUSE_SECONDS = 5.0
_key_numbers: dict[str, itertools.count[int]] = defaultdict(itertools.count)
# Publishes a review member created that wait for an approver (users share one process).
AWAITING_APPROVAL: deque[str] = deque()
DECISIONS = itertools.count()


@events.request.add_listener
def _record(request_type: str, name: str, response: Any = None, exception: Any = None, **_: Any) -> None:
    status = int(getattr(response, "status_code", 0) or 0)
    record = {"t": time.time(), "method": request_type, "name": name, "status": status}
    if status >= 500:
        record["error"] = _error_of(response).get("type", "")
    elif status == 0:  # what the client saw instead of an answer (a create marks it success to try again)
        error = exception or getattr(response, "error", None)
        record["error"] = f"{type(error).__name__}: {error}"[:300]
    RECORDS.append(record)


def _error_of(response: Any) -> dict[str, Any]:
    try:
        error = response.json().get("error")
    except (ValueError, AttributeError):
        return {}
    return error if isinstance(error, dict) else {}


@events.test_stop.add_listener
def _write_records(**_: Any) -> None:
    for name, records in (("record", RECORDS), ("creates", CREATES)):
        with open(CONFIG[name], "a", encoding="utf-8") as out:
            out.writelines(json.dumps(record) + "\n" for record in records)
        records.clear()


def _jpeg() -> bytes:
    """A small JPEG (Instagram takes no PNG) of a colour of its own, so no two uploads match."""
    out = io.BytesIO()
    Image.new("RGB", (64, 48), tuple(os.urandom(3))).save(out, "JPEG")
    return out.getvalue()


def _try_again(answer: Any) -> bool:
    """Whether a careful client sends the same create again: the service could not take it now
    (503), no answer came, or a request with the same key is still being processed."""
    status = answer.status_code or 0
    return status in (0, 503) or (status == 409 and _error_of(answer).get("code") == "IDEMPOTENCY_KEY_IN_USE")


def _soon(seconds: float) -> str:
    return (dt.datetime.now(dt.UTC) + dt.timedelta(seconds=seconds)).isoformat().replace("+00:00", "Z")


class ApiClient(HttpUser):
    """A client of one team with a key of its own."""

    abstract = True
    client_name = ""
    team = ""
    wait_time = between(1.0, 2.0)

    def on_start(self) -> None:
        keys = CONFIG["keys"][self.client_name]
        self.key = keys[next(_key_numbers[self.client_name]) % len(keys)]
        self.client.headers["Authorization"] = f"Bearer {self.key}"
        self.accounts: dict[str, str] = CONFIG["accounts"][self.team]
        self.mine: list[str] = []
        self.drafts: list[str] = []

    def targets(self, platforms: tuple[str, ...] = TEXT_PLATFORMS) -> list[dict[str, str]]:
        chosen = RNG.sample(platforms, k=RNG.randint(1, len(platforms)))
        return [{"account_id": self.accounts[p]} for p in chosen]

    def create(self, name: str, **body: Any) -> str | None:
        """POST /publishes, sent again with its Idempotency-Key while the service answers that
        it cannot take it now; the publish id once created."""
        body = {"content": f"Load {uuid.uuid4().hex[:12]}", "targets": self.targets(), **body}
        headers = {"Idempotency-Key": uuid.uuid4().hex}
        publish_id, status, tries = None, 0, 0
        while tries < CREATE_TRIES:
            tries += 1
            with self.client.post(
                "/api/v1/publishes", json=body, headers=headers, name=name, catch_response=True
            ) as answer:
                status = answer.status_code or 0
                if status == 201:
                    publish_id = answer.json()["data"]["id"]
                elif status == 429:
                    answer.success()  # the documented limit at work, not a failure
                if not _try_again(answer):
                    break
                answer.success()  # the client waits and sends it again
            time.sleep(min(float(answer.headers.get("Retry-After") or 1), MAX_PAUSE_SECONDS))
        CREATES.append({"content": body["content"], "status": status, "publish_id": publish_id, "tries": tries})
        if publish_id:
            self.mine.append(publish_id)
        return publish_id

    @task(4)
    def create_immediate(self) -> None:
        self.create("POST /publishes (immediate)")

    @task(2)
    def create_scheduled(self) -> None:
        self.create("POST /publishes (scheduled)", scheduled_at=_soon(RNG.uniform(2, 5)))

    @task(2)
    def create_draft(self) -> None:
        if draft := self.create("POST /publishes (draft)", publish_mode="draft"):
            self.drafts.append(draft)

    @task(2)
    def confirm_draft(self) -> None:
        if not self.drafts:
            return
        body = RNG.choice([{}, {"scheduled_at": _soon(RNG.uniform(2, 5))}])
        draft = self.drafts.pop(0)
        self.client.post(f"/api/v1/publishes/{draft}/confirm", json=body, name="POST /publishes/{id}/confirm")

    @task(3)
    def read(self) -> None:
        if self.mine:
            self.client.get(f"/api/v1/publishes/{RNG.choice(self.mine)}", name="GET /publishes/{id}")

    @task(2)
    def list_publishes(self) -> None:
        status = RNG.choice(["", "published", "failed,partial", "processing,publishing"])
        query = f"?page_size=20&status={status}" if status else "?page_size=20"
        self.client.get(f"/api/v1/publishes{query}", name="GET /publishes")

    @task(2)
    def retry_failed(self) -> None:
        listing = self.client.get("/api/v1/publishes?status=failed,partial&page_size=5", name="GET /publishes")
        if listing.status_code != 200 or not listing.json()["data"]:
            return
        publish = RNG.choice(listing.json()["data"])
        with self.client.post(
            f"/api/v1/publishes/{publish['id']}/retry", json={}, name="POST /publishes/{id}/retry", catch_response=True
        ) as answer:
            if answer.status_code in (409, 429):  # another client retried it first; or the limit
                answer.success()

    @task(1)
    def publish_with_media(self) -> None:
        if media_id := self.upload():
            targets = [{"account_id": self.accounts[p]} for p in ("x", "instagram")]
            self.create("POST /publishes (media)", media_ids=[media_id], targets=targets)

    def upload(self) -> str | None:
        data = _jpeg()
        declared = self.client.post(
            "/api/v1/media/uploads",
            json={"filename": "load.jpg", "content_type": "image/jpeg", "size_bytes": len(data)},
            name="POST /media/uploads",
        )
        if declared.status_code != 201:
            return None
        upload = declared.json()["data"]
        put = self.client.put(upload["upload_url"], data=data, headers=upload["headers"], name="PUT upload_url")
        if put.status_code >= 300:
            return None
        confirmed = self.client.post(
            f"/api/v1/media/uploads/{upload['media_id']}/confirm", name="POST /media/uploads/{id}/confirm"
        )
        return str(upload["media_id"]) if confirmed.status_code == 200 else None


class AcmeClient(ApiClient):
    weight = 6
    client_name = team = "acme"


class OtherClient(ApiClient):
    weight = 2
    client_name = team = "other"


class ReviewMember(ApiClient):
    """A member of the team that requires approval: everything they send waits for approval."""

    weight = 3
    client_name, team = "review_member", "review"

    def create(self, name: str, **body: Any) -> str | None:
        publish_id = super().create(name, **body)
        if publish_id and body.get("publish_mode") != "draft":
            AWAITING_APPROVAL.append(publish_id)
        return publish_id

    @task(2)
    def confirm_draft(self) -> None:
        if not self.drafts:
            return
        draft = self.drafts.pop(0)
        answer = self.client.post(f"/api/v1/publishes/{draft}/confirm", json={}, name="POST /publishes/{id}/confirm")
        if answer.status_code in (200, 201, 202):
            AWAITING_APPROVAL.append(draft)


class ReviewApprover(ApiClient):
    """An admin of the team that requires approval: approves four in five of what waits, rejects the rest."""

    weight = 2
    client_name, team = "review_approver", "review"

    @task(6)
    def decide(self) -> None:
        if not AWAITING_APPROVAL:
            self.client.get("/api/v1/approvals?page_size=20", name="GET /approvals")
            return
        publish_id = AWAITING_APPROVAL.popleft()
        if next(DECISIONS) % 5 == 4:  # one in five
            path, body = "reject", {"reason": "Not this week."}
        else:
            path, body = "approve", {}
        self.client.post(f"/api/v1/publishes/{publish_id}/{path}", json=body, name=f"POST /publishes/{{id}}/{path}")


class PlatformWeather(HttpUser):
    """Keeps a few outcomes queued at the sandbox for every platform the load publishes to."""

    fixed_count = 1
    wait_time = between(0.5, 1.0)

    @task
    def queue_outcomes(self) -> None:
        for platform in (*TEXT_PLATFORMS, "instagram"):
            mix = {k: v for k, v in OUTCOMES.items() if k != "rate_limited" or platform in RATE_LIMITED_PLATFORMS}
            names, weights = list(mix), list(mix.values())
            self.client.post(
                f"{CONFIG['sandbox_url']}/_sandbox/outcomes",
                json={"platform": platform, "outcomes": RNG.choices(names, weights, k=2)},
                name="sandbox: POST /_sandbox/outcomes",
            )

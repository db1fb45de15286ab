"""Schemathesis over every operation of the OpenAPI document, in process through the WSGI app,
with a key holding every scope: whatever the input, no answer is a 500, and every answer is
the one documented (status code, content type, headers, body schema).

Random ids rarely name a real object and random targets rarely name a connected account, so
hooks swap in the seeded data part of the time: path ids, and in bodies the account, media,
target and team ids, and platform_settings drawn from each platform's keys (spec §2) with
values of every JSON type. Each operation is its own test, on its own fresh database, so
nothing needs excluding: an operation that deletes the team or revokes the key (DELETE
/teams/{team_id}) only leaves its own later examples answering 401.

Bounded for CI: FUZZ_MAX_EXAMPLES examples per operation (25 by default) in the fuzzing phase,
plus schemathesis's coverage cases, derandomized so a run is repeatable; raise it locally
(`FUZZ_MAX_EXAMPLES=500 pytest tests/config/test_fuzz.py`) to search harder. Nothing reaches a
platform: Celery is not eager here, so dispatched jobs wait in the broker and no worker takes
them.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from accounts import connect_links
from accounts.models import Platform
from config.celery import app as celery_app
from config.wsgi import application
from demo.seed import sandbox_account
from teams import services
from teams.models import SCOPES, Role
from tests.factories import UserFactory
from tests.media import files
from webhooks import services as webhook_services

# The WSGI app commits: each test truncates the tables after itself.
pytestmark = pytest.mark.django_db(transaction=True)

MAX_EXAMPLES = int(os.environ.get("FUZZ_MAX_EXAMPLES", "25"))
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]

schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", application)

# Ids of the seeded objects by kind, filled by the `seeded` fixture of the running test; the
# hooks below read it while Hypothesis draws.
SEEDED: dict[str, list[str]] = {}
PLATFORMS: dict[str, str] = {}  # seeded account id -> its platform

# The path prefix of each operation family -> the kind of id its path names.
_PATH_KINDS = (
    ("/api/v1/publishes/", "publishes"),
    ("/api/v1/analytics/posts/", "publishes"),
    ("/api/v1/accounts/", "accounts"),
    ("/api/v1/media/", "media"),
    ("/api/v1/webhooks/", "webhooks"),
    ("/api/v1/teams/", "teams"),
    ("/api/v1/connect-links/", "connect_links"),
)
# Path parameters that name another kind than their path's family.
_PARAMETER_KINDS = {"key_id": "team_keys"}

# The platform_settings keys of each platform (spec §2), drawn with values of every JSON type.
_SETTING_KEYS = {
    "x": ("reply_to", "quote_tweet", "sensitive", "for_super_followers_only"),
    "linkedin": ("title", "visibility", "target_audience"),
    "facebook": ("postType",),
    "instagram": ("first_comment",),
    "threads": ("link_attachment", "topic_tag"),
    "bluesky": ("first_comment", "reply", "embed"),
    "pinterest": ("boardId", "title", "link", "note", "alt_text", "cover_image_key_frame_time", "per_account"),
    "youtube": (
        *("title", "privacyStatus", "category_id", "default_language", "default_audio_language", "tags"),
        "madeForKids",
    ),
    "tiktok": (
        *("tiktok_post_mode", "title", "privacy_level", "allows_comments", "allows_duet", "allows_stitch"),
        *("brand_content_toggle", "brand_organic_toggle", "auto_add_music"),
    ),
}
_GOOD_VALUES = (
    *(True, False, "PUBLIC", "CONNECTIONS", "reels", "post", "public", "private", "DIRECT_POST", "SELF_ONLY"),
    *("1234567890", "549755885175", "https://example.com/a", "en", "22", ["a", "b"], 1.5, 0),
)
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)


def _settings_for(account_id: str) -> st.SearchStrategy[dict[str, Any]]:
    """Settings of the account's platform's keys, or of unknown keys (ignored, but stored)."""
    known = st.sampled_from(_SETTING_KEYS.get(PLATFORMS.get(account_id, ""), ("title",)))
    values = st.sampled_from(_GOOD_VALUES) | _json
    return st.dictionaries(known, values, min_size=1, max_size=4) | st.dictionaries(st.text(max_size=8), _json)


def _is_uuid(value: object) -> bool:
    try:
        uuid.UUID(str(value))
    except ValueError:
        return False
    return isinstance(value, str)


def _pick(rnd: Any, kind: str, value: object) -> object:
    """Half the time a seeded id of `kind` for a well-formed id; anything else stays."""
    if SEEDED.get(kind) and _is_uuid(value) and rnd.random() < 0.5:
        return rnd.choice(SEEDED[kind])
    return value


@schema.hook
def flatmap_path_parameters(context: Any, path_parameters: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    path = context.operation.path + "/"
    kind = next((kind for prefix, kind in _PATH_KINDS if path.startswith(prefix)), None)
    if kind is None or not isinstance(path_parameters, dict):
        return st.just(path_parameters)
    return st.randoms(use_true_random=False).map(
        lambda rnd: {
            name: _pick(rnd, _PARAMETER_KINDS.get(name, kind), value) for name, value in path_parameters.items()
        }
    )


def _seeded_target(rnd: Any, target: object, account_id: str, platform_settings: dict[str, Any]) -> object:
    if not isinstance(target, dict):
        return target
    target = {**target}
    if _is_uuid(target.get("account_id")) and rnd.random() < 0.7:
        target["account_id"] = account_id
    if "target_id" in target:
        target["target_id"] = _pick(rnd, "targets", target["target_id"])
    if isinstance(target.get("media_ids"), list):
        target["media_ids"] = [_pick(rnd, "media", m) for m in target["media_ids"]]
    if rnd.random() < 0.5:
        target["platform_settings"] = platform_settings
    return target


def _seeded_targets(rnd: Any, targets: list[Any], accounts: list[str], all_settings: list[dict[str, Any]]) -> list[Any]:
    """The drawn targets with seeded ids, or (half the time) new ones: up to three distinct
    accounts with drawn settings, so that the platform rules are reached often."""
    if rnd.random() < 0.5:
        count = rnd.randint(1, len(all_settings))
        return [
            {"account_id": a, "content": "Hello", "platform_settings": p}
            for a, p in zip(accounts, all_settings[:count], strict=False)
        ]
    return [
        _seeded_target(rnd, target, accounts[i % len(accounts)], all_settings[i % len(all_settings)])
        for i, target in enumerate(targets)
    ]


def _seeded_body(body: Any, rnd: Any, accounts: list[str], all_settings: list[dict[str, Any]]) -> Any:
    if not isinstance(body, dict):
        return body
    body = {**body}
    if isinstance(body.get("media_ids"), list):
        body["media_ids"] = [_pick(rnd, "media", m) for m in body["media_ids"]]
    if isinstance(body.get("targets"), list) and accounts:
        body["targets"] = _seeded_targets(rnd, body["targets"], accounts, all_settings)
    if isinstance(body.get("scheduled_at"), str) and rnd.random() < 0.5:
        body["scheduled_at"] = "2099-01-01T00:00:00Z"
    if "destination_team_id" in body:
        body["destination_team_id"] = _pick(rnd, "teams", body["destination_team_id"])
    if isinstance(body.get("url"), str) and rnd.random() < 0.5:
        body["url"] = "http://127.0.0.1:9/hook"  # a webhook URL that resolves, without DNS
    return body


@schema.hook
def map_case(context: Any, case: Any) -> Any:
    # Idempotency-Key is documented as any string, but only 1-255 printable characters are
    # taken: a key the API refuses is dropped (the header is optional), or nearly every create
    # would stop at it and the body behind it would go untested.
    key = case.headers.get("Idempotency-Key") if case.headers else None
    if key is not None and not (isinstance(key, str) and 0 < len(key) <= 255 and key.isprintable()):
        del case.headers["Idempotency-Key"]
    return case


@schema.hook
def flatmap_body(context: Any, body: Any) -> st.SearchStrategy[Any]:
    # Each seeded account at most once, in a drawn order (repeats would mostly stop at
    # DUPLICATE_TARGET), and for the first three, settings of their platforms' keys.
    def seeded(accounts: list[str]) -> st.SearchStrategy[Any]:
        settings_ = st.tuples(*(_settings_for(a) for a in accounts[:3])).map(list)
        return st.builds(_seeded_body, st.just(body), st.randoms(use_true_random=False), st.just(accounts), settings_)

    return st.permutations(SEEDED.get("accounts", [])).flatmap(seeded)


def _client(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


def _publish(client: APIClient, **body: Any) -> dict[str, Any]:
    response = client.post("/api/v1/publishes", body, format="json")
    assert response.status_code == 201, response.json()
    data: dict[str, Any] = response.json()["data"]
    return data


@contextmanager
def _sending_to_the_sandbox() -> Iterator[None]:
    saved = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    try:
        yield
    finally:
        celery_app.conf.task_always_eager = saved


@pytest.fixture
def seeded(settings: Any, tmp_path: Any, sandbox: Any) -> Iterator[str]:
    """A team needing approval, with an account on every platform (and an expired one), ready
    and unconfirmed media, a webhook and publishes in most states: a draft, a scheduled one, one
    sending, one partly failed (sent to the sandbox while seeding) and one a member submitted,
    pending approval. Yields the owner's key with every scope. Rate limits are raised so the
    fuzzer is never throttled, and Celery is not eager, so what it queues is never sent."""
    settings.RATE_LIMITS = dict.fromkeys(settings.RATE_LIMITS, 1_000_000)
    settings.MEDIA_ROOT = str(tmp_path / "media")
    settings.SSRF_ALLOW_PRIVATE = True
    owner, member = UserFactory(username="owner"), UserFactory(username="member")
    team = services.team_create(name="Acme", owner=owner, approval_required=True)
    services.membership_add(team=team, user=member, role=Role.MEMBER)
    second = services.team_create(name="Second", owner=owner)
    accounts = {platform: sandbox_account(team, platform) for platform in Platform.values}
    expired = sandbox_account(team, Platform.X, suffix="_expired", status="expired")
    media = [
        files.stored_upload(team, files.image(), "image/png", "photo.png"),
        files.stored_upload(team, files.image("JPEG"), "image/jpeg", "photo.jpg"),
        files.stored_upload(team, files.video(), "video/mp4", "clip.mp4"),
    ]
    unconfirmed = files.stored_upload(team, files.image(), "image/png", "later.png", confirmed=False)
    _, key = services.api_key_create(user=owner, name="fuzz", scopes=SCOPES, team=team)
    _, member_key = services.api_key_create(user=member, name="member", scopes=SCOPES, team=team)
    team_key, _ = services.api_key_create(user=owner, name="CI", scopes=["posts:read"], team=team)
    owner_client = _client(key)
    targets = [{"account_id": str(accounts["x"].pk)}, {"account_id": str(accounts["bluesky"].pk)}]
    sandbox.outcomes("bluesky", "error")
    with _sending_to_the_sandbox():
        partial = _publish(owner_client, content="Half", targets=targets)
    assert owner_client.get(f"/api/v1/publishes/{partial['id']}").json()["data"]["status"] == "partial"
    publishes = [
        partial,
        _publish(owner_client, content="A draft", targets=targets, publish_mode="draft"),
        _publish(owner_client, content="Later", targets=targets, scheduled_at="2099-01-01T00:00:00Z"),
        _publish(owner_client, content="Now", targets=targets),
        _publish(_client(member_key), content="May I?", targets=targets),
    ]
    hook = webhook_services.subscription_create(team=team, url="http://127.0.0.1:9/hook", events=["post.failed"])
    PLATFORMS.update({str(a.pk): a.platform for a in [*accounts.values(), expired]})
    SEEDED.update(
        accounts=list(PLATFORMS),
        media=[*media, unconfirmed],
        publishes=[p["id"] for p in publishes],
        targets=[t["id"] for p in publishes for t in p["targets"]],
        webhooks=[str(hook.pk)],
        teams=[str(team.pk), str(second.pk)],
        team_keys=[str(team_key.pk)],
        connect_links=[str(connect_links.link_create(team=team, redirect_url="http://localhost:9/done").pk)],
    )
    yield key
    SEEDED.clear()
    PLATFORMS.clear()


@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    # The seeded data is shared by the examples of an operation on purpose.
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.function_scoped_fixture],
)
def test_no_input_gets_a_500_or_an_undocumented_answer(case: Any, seeded: str) -> None:
    case.call_and_validate(headers={"Authorization": f"Bearer {seeded}"}, checks=CHECKS)

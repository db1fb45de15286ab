from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_healthz_answers_without_authentication(client):
    response = client.get("/healthz")

    assert response.status_code == 200
    assert response.json() == {"status": "ok", "checks": {"database": "ok", "broker": "ok"}}


def test_healthz_is_503_when_the_broker_is_down(client, settings):
    from config.redis import get_redis

    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    get_redis.cache_clear()
    try:
        response = client.get("/healthz")
    finally:
        get_redis.cache_clear()

    assert response.status_code == 503
    assert response.json()["checks"]["broker"] == "down"

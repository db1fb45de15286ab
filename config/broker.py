"""Whether the message broker answers: Redis when configured, else the local folder broker."""

from __future__ import annotations

import os

import redis
from django.conf import settings

from config.redis import get_redis


def broker_reachable() -> bool:
    client = get_redis()
    if client is not None:
        try:
            return bool(client.ping())
        except redis.RedisError:
            return False
    folder = str(settings.CELERY_BROKER_TRANSPORT_OPTIONS["data_folder_in"])
    return os.path.isdir(folder) and os.access(folder, os.W_OK)

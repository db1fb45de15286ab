"""Finds the client of a platform: the module `accounts.platforms.<platform>` and its `Client`."""

from __future__ import annotations

import functools
import importlib

from accounts.platforms.base import PlatformClient


class NoClient(LookupError):
    pass


@functools.cache
def client_for(platform: str) -> PlatformClient:
    """The process's one client for `platform` (clients hold a pooled HTTP session)."""
    try:
        module = importlib.import_module(f"accounts.platforms.{platform}")
    except ModuleNotFoundError as exc:
        raise NoClient(f"No client for platform {platform!r} yet") from exc
    client: PlatformClient = module.Client()
    return client

"""Password logins (the dashboard's and the admin's) slow down after failures, per address.

A failed login counts against two keys: the client's address with the username typed, and
the address alone. Once a key holds LOGIN_FAILURE_LIMIT failures (LOGIN_ADDRESS_FAILURE_LIMIT
for the address alone, which an office behind one address shares), the next attempt from that
address waits LOGIN_DELAY_SECONDS, and each further failure doubles the wait up to
LOGIN_DELAY_MAX_SECONDS. An attempt during a wait is refused without being counted ("try again
in N seconds", 429), so waiting it out is all it takes. Nothing is keyed on the username alone:
guessing at someone's password from one address never stops them logging in from theirs. A
success forgets the failures of its (address, username), not those of the address, so logging
in to one's own account does not reset the guessing at others. Failures are forgotten
LOGIN_FAILURE_MEMORY_SECONDS after the last one.

The address is `config.proxies.client_address` (TRUSTED_PROXY_COUNT). The counts live in the
cache: Redis in production, shared by every web process.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.core.cache import cache
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render, resolve_url
from django.urls import reverse
from django.utils import timezone

from config.proxies import client_address


def _keys(address: str, username: str) -> list[tuple[str, int]]:
    """The two counters an attempt touches, each with its failure limit."""
    pair = hashlib.sha256(f"{address}\n{username.casefold()}".encode()).hexdigest()
    alone = hashlib.sha256(address.encode()).hexdigest()
    prefix = f"{settings.RATE_LIMIT_KEY_PREFIX}:login"  # the rate limits' namespace (tests make one each)
    return [
        (f"{prefix}:pair:{pair}", settings.LOGIN_FAILURE_LIMIT),
        (f"{prefix}:address:{alone}", settings.LOGIN_ADDRESS_FAILURE_LIMIT),
    ]


def _now() -> float:
    return timezone.now().timestamp()


def wait_seconds(*, address: str, username: str) -> int:
    """How long an attempt from `address` for `username` must still wait; 0 when it may try."""
    waits = [float(cache.get(f"{key}:until", 0.0)) - _now() for key, _ in _keys(address, username)]
    return max(0, math.ceil(max(waits)))


def _delay(failures: int, limit: int) -> float:
    if failures < limit:
        return 0.0
    doublings = min(failures - limit, 32)  # the cap is reached long before
    return float(min(settings.LOGIN_DELAY_SECONDS * 2**doublings, settings.LOGIN_DELAY_MAX_SECONDS))


def record_failure(*, address: str, username: str) -> None:
    memory = settings.LOGIN_FAILURE_MEMORY_SECONDS
    for key, limit in _keys(address, username):
        cache.add(key, 0, memory)
        try:
            failures = cache.incr(key)  # atomic: concurrent failures all count
        except ValueError:  # expired since the add
            cache.set(key, failures := 1, memory)
        cache.touch(key, memory)
        if delay := _delay(failures, limit):
            cache.set(f"{key}:until", _now() + delay, memory)


def record_success(*, address: str, username: str) -> None:
    (pair, _), _ = _keys(address, username)
    cache.delete_many([pair, f"{pair}:until"])


@receiver(user_login_failed)
def _failed(credentials: dict[str, Any], request: HttpRequest | None = None, **_: Any) -> None:
    if request is not None:
        record_failure(address=client_address(request), username=str(credentials.get("username", "")))


@receiver(user_logged_in)
def _succeeded(request: HttpRequest | None, user: Any, **_: Any) -> None:
    if request is not None:
        record_success(address=client_address(request), username=user.get_username())


class LoginThrottleMiddleware:
    """A POST to the dashboard's or the admin's login page from an address that must wait is
    answered 429 with the wait before the password is looked at; so is the failure that starts
    a wait."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method != "POST" or request.path_info not in _login_paths():
            return self.get_response(request)
        address, username = client_address(request), request.POST.get("username", "")
        if wait := wait_seconds(address=address, username=username):
            return too_many_attempts(request, wait)
        response = self.get_response(request)
        if response.status_code == 200 and (wait := wait_seconds(address=address, username=username)):
            return too_many_attempts(request, wait)  # the form again would invite a try that is refused
        return response


def _login_paths() -> set[str]:
    return {resolve_url(settings.LOGIN_URL), reverse("admin:login")}


def too_many_attempts(request: HttpRequest, wait: int) -> HttpResponse:
    response = render(request, "registration/locked_out.html", {"wait": wait}, status=429)
    response["Retry-After"] = str(wait)
    return response

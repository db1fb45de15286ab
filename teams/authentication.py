"""`Authorization: Bearer sk_...` authentication.

A request is authenticated as a `Caller`: the key, the user it acts as, the team it acts in and
the user's role there. Team keys act in their team; user keys in their active team (the user's
default team when none is set). A key whose user has left that team stops working.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.utils import timezone
from rest_framework.authentication import BaseAuthentication
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.request import Request

from teams import caller_cache, keys
from teams.models import ApiKey, Membership, Role, Team
from teams.services import api_key_mark_used


@dataclass(frozen=True)
class Caller:
    key: ApiKey
    user: User
    team: Team
    role: Role

    @property
    def pk(self) -> object:  # what the rate limiter keys on
        return self.key.pk

    @property
    def is_team_admin(self) -> bool:
        return self.role in (Role.OWNER, Role.ADMIN)


def get_caller(request: Request) -> Caller:
    """The authenticated caller of an API view (HasScope has already refused anyone else)."""
    caller = request.auth
    assert isinstance(caller, Caller)  # noqa: S101 - guaranteed by the permission class
    return caller


def _fail(code: str, message: str) -> AuthenticationFailed:
    return AuthenticationFailed(message, code=code)


def _membership(key: ApiKey) -> Membership | None:
    memberships = Membership.objects.select_related("team__plan").filter(user_id=key.user_id)
    if key.team_id is not None:
        return memberships.filter(team_id=key.team_id).first()
    if key.active_team_id is not None:
        active = memberships.filter(team_id=key.active_team_id).first()
        if active is not None:
            return active
    return memberships.order_by("-is_default", "created_at").first()


def _lookup(prefix: str) -> caller_cache.Entry | None:
    # Without the user's password hash, which has no business in the cache.
    key = ApiKey.objects.select_related("user").defer("user__password").filter(prefix=prefix).first()
    return None if key is None else (key, _membership(key))


class ApiKeyAuthentication(BaseAuthentication):
    def authenticate(self, request: Request) -> tuple[User, Caller] | None:
        header = request.headers.get("Authorization", "")
        if not header:
            return None  # DRF answers 401 MISSING_API_KEY through the permission check
        scheme, _, plaintext = header.partition(" ")
        plaintext = plaintext.strip()
        if scheme.lower() != "bearer" or not plaintext:
            raise _fail("malformed_authorization", "Send the key as 'Authorization: Bearer sk_...'.")
        prefix = keys.parse_prefix(plaintext)
        if prefix is None:
            raise _fail("malformed_api_key", "The API key is malformed.")
        epoch, entry = caller_cache.cached_caller(prefix)
        if entry is None:
            entry = _lookup(prefix)
            if entry is not None:
                caller_cache.remember(prefix, epoch, entry)
        key, membership = entry or (None, None)
        if key is None or not keys.matches(plaintext, key.secret_hash):
            raise _fail("invalid_api_key", "The API key is not valid.")
        # Past this point the caller proved they hold the key, so saying why it fails leaks nothing.
        if key.revoked_at is not None:
            raise _fail("api_key_revoked", "The API key has been revoked.")
        if key.expires_at is not None and key.expires_at <= timezone.now():
            raise _fail("api_key_expired", "The API key has expired.")
        if not key.user.is_active or membership is None:
            raise _fail("invalid_api_key", "The API key's user no longer has access to its team.")
        if api_key_mark_used(api_key=key):
            caller_cache.remember(prefix, epoch, (key, membership))
        caller = Caller(key=key, user=key.user, team=membership.team, role=Role(membership.role))
        return key.user, caller

    def authenticate_header(self, request: Request) -> str:  # noqa: ARG002 - DRF's signature
        return 'Bearer realm="api"'

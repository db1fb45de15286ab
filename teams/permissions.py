"""Scope enforcement. Every API view names the scope it needs; a view that names none is closed."""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import MethodNotAllowed, PermissionDenied
from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from teams.authentication import Caller


def required_scope(view: Any) -> str | None:
    """The scope for this request: `required_scopes[action]` on viewsets, else `required_scope`."""
    per_action: dict[str, str] = getattr(view, "required_scopes", {})
    action = getattr(view, "action", None)
    if action in per_action:
        return per_action[action]
    return getattr(view, "required_scope", None)


class HasScope(BasePermission):
    def has_permission(self, request: Request, view: Any) -> bool:
        caller = request.auth
        if not isinstance(caller, Caller):
            return False  # DRF turns this into 401, as no key was sent
        scope = required_scope(view)
        if scope is None:
            # A method the path does not serve is a 405 (DRF checks the method only after the
            # permissions); OPTIONS is not offered either: the OpenAPI document describes the API.
            if request.method == "OPTIONS" or not hasattr(view, (request.method or "").lower()):
                raise MethodNotAllowed(request.method or "")
            raise PermissionDenied("This operation is not available to API keys.", code="forbidden")
        if scope not in caller.key.scopes:
            raise PermissionDenied(f"This key lacks the scope {scope}.", code="missing_scope")
        return True

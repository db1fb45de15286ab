"""A team's keys over the API: GET and POST /api/v1/teams/{team_id}/keys, DELETE
/api/v1/teams/{team_id}/keys/{key_id}.

These are the keys a SaaS mints for each customer's team after creating it with a user key.
Every operation wants the team's owner and a key bound to the team: a team key of that team, or
a user key of its owner naming any team the user owns (`_owned_team`). A minted key is a team key
acting as the owner, with at most the calling key's scopes. The plaintext is answered once, by
the create; lists show the public `prefix` only, never the key or its hash.
"""

from __future__ import annotations

import uuid
from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiResponse
from rest_framework import serializers, status, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from config.errors import Forbidden
from config.pagination import PagePagination
from config.schema import api_operation, data_envelope, error_response
from config.serializers import represented, validated
from teams import selectors, services
from teams.api import bound_team
from teams.authentication import Caller, get_caller
from teams.forms import NAME_MAX_LENGTH
from teams.models import SCOPES, ApiKey, Role, Team


class TeamKeySerializer(serializers.ModelSerializer[ApiKey]):
    prefix = serializers.CharField(read_only=True, help_text="Public id of the key, which starts `sk_<prefix>_`.")
    scopes = serializers.ListField(child=serializers.ChoiceField(choices=SCOPES), read_only=True)

    class Meta:
        model = ApiKey
        fields = ["id", "name", "prefix", "scopes", "created_at", "last_used_at", "expires_at"]


class TeamKeyCreatedSerializer(TeamKeySerializer):
    key = serializers.CharField(help_text="The key itself, `sk_...`: shown once, here only. Store it now.")

    class Meta(TeamKeySerializer.Meta):
        fields = [*TeamKeySerializer.Meta.fields, "key"]


class TeamKeyCreateSerializer(serializers.Serializer[Any]):
    name = serializers.CharField(max_length=NAME_MAX_LENGTH, help_text="What the key is for, to tell keys apart.")
    scopes = serializers.ListField(
        child=serializers.ChoiceField(choices=SCOPES),
        allow_empty=False,
        max_length=len(SCOPES),
        help_text="At least one, each held by the calling key (else 403 `SCOPE_ESCALATION`).",
    )
    expires_at = serializers.DateTimeField(
        required=False,
        allow_null=True,
        help_text="ISO 8601, in the future. From then on the key answers 401 `API_KEY_EXPIRED`. "
        "Omitted or null: it never expires.",
    )


_BOUND = (
    "The key must be bound to the team: a team key of that team, or a user key of its owner (which "
    "may name any team its user owns). Otherwise 403 `TEAM_MISMATCH`, also for a team the user is "
    "not in or an id that names no team; a member who is not the owner gets 403 `NOT_TEAM_OWNER`."
)
_CREATE_RULES = (
    "Creates a team key locked to the team, acting as its owner: give it to the customer the "
    "team serves, or keep it to act in that team. The answer shows the key once (`key`); only "
    "its hash is stored.\n\n"
    f"{_BOUND}\n\n"
    "**Scopes**: at least one, each one the calling key holds: a key never mints a stronger key "
    "(403 `SCOPE_ESCALATION`, `details.missing_scopes` naming those it lacks; nothing is "
    "created). An unknown scope is a 400 `VALIDATION_ERROR`. `expires_at` must be in the future "
    "(400 `EXPIRES_AT_NOT_FUTURE`)."
)
_MALFORMED_ID = error_response(404, "A path id that is not a UUID matches no route (`not_found`).")


def _owned_team(caller: Caller, team_id: str) -> Team:
    """The team named in the path, when the key is bound to it and its user owns it."""
    team = bound_team(caller, team_id, acting_only=False)
    if selectors.role_in(team=team, user=caller.user) != Role.OWNER:
        raise Forbidden("Only the team's owner can manage its keys.", code="NOT_TEAM_OWNER")
    return team


class TeamKeyViewSet(viewsets.GenericViewSet[ApiKey]):
    lookup_url_kwarg = "key_id"
    required_scopes = {"list": "teams:read", "create": "teams:write", "destroy": "teams:write"}
    serializer_class = TeamKeySerializer
    pagination_class = PagePagination

    @api_operation(
        scope="teams:read",
        summary="List a team's keys",
        description=(
            "The team's team keys that are not revoked, whoever made them, newest first, expired "
            "ones included (see `expires_at`): name, public prefix, scopes and when each was made "
            f"and last used (to the minute). Never the key itself.\n\n{_BOUND}"
        ),
        responses={200: TeamKeySerializer(many=True), 404: _MALFORMED_ID},
        errors=(400,),
    )
    def list(self, request: Request, team_id: str) -> Response:
        team = _owned_team(get_caller(request), team_id)
        paginator = PagePagination()
        page = paginator.paginate_queryset(selectors.team_keys_of(team=team), request, view=self)
        return paginator.get_paginated_response(represented(TeamKeySerializer(page, many=True)))

    @api_operation(
        scope="teams:write",
        summary="Create a team key",
        description=_CREATE_RULES,
        request=TeamKeyCreateSerializer,
        examples=[
            OpenApiExample(
                "A customer's publishing key",
                request_only=True,
                value={
                    "name": "Customer 4821",
                    "scopes": ["posts:read", "posts:write", "accounts:read"],
                    "expires_at": "2030-01-01T00:00:00Z",
                },
            )
        ],
        responses={
            201: OpenApiResponse(data_envelope("TeamKeyCreatedResponse", TeamKeyCreatedSerializer())),
            404: _MALFORMED_ID,
        },
        errors=(400,),
    )
    def create(self, request: Request, team_id: str) -> Response:
        caller = get_caller(request)
        team = _owned_team(caller, team_id)
        body = validated(TeamKeyCreateSerializer(data=request.data))
        api_key, plaintext = services.team_key_mint(
            user=caller.user,
            team=team,
            name=body["name"],
            scopes=body["scopes"],
            granted=caller.key.scopes,
            expires_at=body.get("expires_at"),
        )
        data = {**represented(TeamKeySerializer(api_key)), "key": plaintext}
        return Response({"data": data}, status=status.HTTP_201_CREATED)

    @api_operation(
        scope="teams:write",
        summary="Revoke a team key",
        description=(
            "Revokes the team key at once: from the next request it answers 401 `API_KEY_REVOKED`. "
            "404 `API_KEY_NOT_FOUND` for a key that is not a live team key of this team (another "
            f"team's, a user key, an unknown id, or one already revoked).\n\n{_BOUND}"
        ),
        responses={204: OpenApiResponse(description="Revoked; no body.")},
        errors=(404,),
    )
    def destroy(self, request: Request, team_id: str, key_id: str) -> Response:
        caller = get_caller(request)
        services.team_key_revoke(user=caller.user, team=_owned_team(caller, team_id), key_id=uuid.UUID(key_id))
        return Response(status=status.HTTP_204_NO_CONTENT)

"""GET and POST /api/v1/teams, PATCH /api/v1/teams/{team_id}/default, DELETE
/api/v1/teams/{team_id}, GET /api/v1/usage. A team's keys are in `teams.key_api`."""

from __future__ import annotations

import uuid
from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiResponse, inline_serializer
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.errors import Forbidden
from config.schema import ApiAutoSchema, api_operation, data_envelope, error_response
from config.serializers import represented, validated
from teams import selectors, services
from teams.authentication import Caller, get_caller
from teams.models import ApiKeyKind, Plan, Role, Team


class TeamSerializer(serializers.ModelSerializer[Team]):
    is_default = serializers.BooleanField(help_text="The owner's selected default team, protected from deletion.")
    plan = serializers.SlugRelatedField[Plan](slug_field="code", read_only=True)
    time_zone = serializers.CharField(
        read_only=True,
        help_text="IANA name of the zone the dashboard shows the team's times in (set there). "
        "Every time the API reads or answers is UTC whatever it is.",
    )

    class Meta:
        model = Team
        fields = [
            "id",
            "name",
            "is_default",
            "approval_required",
            "block_duplicates",
            "duplicate_window_hours",
            "time_zone",
            "plan",
            "created_at",
        ]
        # Set on the dashboard's team settings page; the API has no write of team settings.
        read_only_fields = ["approval_required", "block_duplicates", "duplicate_window_hours"]


TeamListResponse = data_envelope("TeamListResponse", TeamSerializer(many=True))
TeamCreatedResponse = data_envelope("TeamCreatedResponse", TeamSerializer())


class TeamCreateSerializer(serializers.Serializer[Any]):
    name = serializers.CharField(
        max_length=Team._meta.get_field("name").max_length,
        help_text="Surrounding spaces are dropped; deleting the team asks for this name exactly.",
    )


_CREATE_RULES = (
    "Creates a team owned by the key's user, who can then mint its keys (`POST "
    "/teams/{team_id}/keys`). For a SaaS that publishes for its own customers: one team per "
    "customer, each with its accounts, publishes, media and webhooks apart.\n\n"
    "**User keys only**: a team key is locked to its team and answers 403 `USER_KEY_REQUIRED`. "
    "The new team is on the plan of the team the key acts in, so making teams never escapes a "
    "plan's limits. It is not the default team (`is_default: false`) and the key keeps acting "
    "in the team it acted in. 400 `VALIDATION_ERROR` for a missing, blank or too long `name`."
)
TeamDefaultResponse = inline_serializer(
    name="TeamDefaultResponse",
    fields={
        "data": TeamSerializer(),
        "already_default": serializers.BooleanField(help_text="True when the team was already the default."),
    },
)


class TeamDeleteSerializer(serializers.Serializer[Any]):
    destination_team_id = serializers.UUIDField(help_text="Another team you own; it receives the content.")
    confirmation_name = serializers.CharField(
        trim_whitespace=False, help_text="The name of the team being deleted, exactly (case and spaces count)."
    )


TeamDeletedResponse = data_envelope(
    "TeamDeletedResponse",
    inline_serializer(
        name="TeamDeleted",
        fields={
            "deleted_team_id": serializers.UUIDField(),
            "destination_team_id": serializers.UUIDField(),
            "moved": inline_serializer(
                name="TeamDeletedMoved",
                fields={
                    "accounts": serializers.IntegerField(help_text="Accounts now in the destination team."),
                    "merged_accounts": serializers.IntegerField(
                        help_text="Accounts the destination already had: folded into its account."
                    ),
                    "publishes": serializers.IntegerField(help_text="Publishes, with targets and schedules."),
                    "media": serializers.IntegerField(),
                },
            ),
            "removed": inline_serializer(
                name="TeamDeletedRemoved",
                fields={
                    "team_keys": serializers.IntegerField(help_text="Team keys of the deleted team."),
                    "webhooks": serializers.IntegerField(),
                    "memberships": serializers.IntegerField(),
                },
            ),
            "revoked_keys": serializers.IntegerField(
                help_text="User keys whose active team was the deleted team, the calling key included."
            ),
        },
    ),
)

_DELETE_RULES = (
    "Deletes the team and moves its content to `destination_team_id`, in one transaction.\n\n"
    "**Who**: the team's owner, with a key bound to the team: a team key of that team, or a user "
    "key whose active team it is. The owner's selected default team is protected: select another "
    "default first.\n\n"
    "**Checks, in order**: 403 `TEAM_MISMATCH` when the key does not act in this team (also when "
    "its user is not a member of it, or no such team exists); 403 `NOT_TEAM_OWNER`; 403 "
    "`DEFAULT_TEAM_PROTECTED`; 400 `VALIDATION_ERROR` for missing or malformed fields; 400 "
    "`CONFIRMATION_MISMATCH` unless `confirmation_name` equals the team name exactly (case and "
    "spaces count); 400 `INVALID_DESTINATION` unless the destination is another team the same "
    "user owns (an unknown id, the team itself or a team owned by someone else all count as "
    "invalid).\n\n"
    "**Moves**: connected accounts, publishes with their targets, attempts, analytics and "
    "schedules (a scheduled publish keeps its time and is sent from the destination), and media. "
    "An account the destination already has (same platform and platform account id) is merged: "
    "its publishes point to the destination's account, whose tokens and status are kept. Posts "
    "already counted against the plan are added to the destination's monthly count; moved "
    "accounts and media count against the destination's plan from now on, even above its "
    "limits.\n\n"
    "**Removes**: team keys of the team, webhooks with their pending deliveries, memberships, "
    "and the stored Idempotency-Keys. User keys whose active team was the team are revoked, not "
    "moved. The key that made the request is revoked (or deleted, for a team key): it answers "
    "401 from now on."
)


def _documents_delete_body(view_method: Any) -> Any:
    """drf-spectacular documents bodies only for PUT, PATCH and POST; the spec gives this
    DELETE one. Set before `api_operation`, which builds on it."""

    class DeleteWithBodySchema(ApiAutoSchema):
        def _get_request_body(self, direction: str = "request") -> Any:
            method, self.method = self.method, "POST"
            try:
                return super()._get_request_body(direction)  # type: ignore[no-untyped-call]
            finally:
                self.method = method

    view_method.schema = DeleteWithBodySchema
    return view_method


def bound_team(caller: Caller, team_id: str, *, acting_only: bool) -> Team:
    """The team named in the path, when the calling key is bound to it; otherwise 403
    `TEAM_MISMATCH`, the same answer for another user's team and for an id that names no team,
    so the answer tells nothing about teams the caller is not in.

    A team key is bound to its team. A user key is bound to the team it acts in; to select a
    default (`acting_only=False`) it may also name any team its user belongs to, since a user
    key acts across its user's teams. Deleting is stricter, so that a key pointed at one team
    cannot delete another by naming it."""
    if acting_only or caller.key.team_id is not None:
        team = caller.team if caller.team.pk == uuid.UUID(str(team_id)) else None
    else:
        team = Team.objects.filter(pk=team_id, memberships__user=caller.user).first()
    if team is None:
        raise Forbidden("This key is not bound to that team.", code="TEAM_MISMATCH")
    return team


# Any id of no team is a 403 (`bound_team`); only a path whose team_id is not a UUID at all
# matches no route and is a 404.
_MALFORMED_TEAM_ID = error_response(404, "`team_id` is not a UUID: no such path (`not_found`).")


class TeamViewSet(viewsets.GenericViewSet[Team]):
    lookup_url_kwarg = "team_id"
    required_scopes = {
        "list": "teams:read",
        "create": "teams:write",
        "default": "teams:write",
        "destroy": "teams:write",
    }
    serializer_class = TeamSerializer
    pagination_class = None

    @api_operation(
        scope="teams:read",
        summary="List owned teams",
        description="Teams owned by the key's user, in creation order, with `is_default`.",
        responses={200: OpenApiResponse(TeamListResponse)},
    )
    def list(self, request: Request) -> Response:
        teams = selectors.teams_owned(user=get_caller(request).user)
        return Response({"data": represented(TeamSerializer(teams, many=True))})

    @api_operation(
        scope="teams:write",
        summary="Create a team",
        description=_CREATE_RULES,
        request=TeamCreateSerializer,
        examples=[OpenApiExample("A customer's team", request_only=True, value={"name": "Customer 4821"})],
        responses={201: OpenApiResponse(TeamCreatedResponse)},
        errors=(400,),
    )
    def create(self, request: Request) -> Response:
        caller = get_caller(request)
        if caller.key.kind != ApiKeyKind.USER:
            raise Forbidden("A team key is locked to its team: create teams with a user key.", code="USER_KEY_REQUIRED")
        body = validated(TeamCreateSerializer(data=request.data))
        team = services.team_create(name=body["name"], owner=caller.user, plan=caller.team.plan)
        team = selectors.teams_owned(user=caller.user).get(pk=team.pk)
        return Response({"data": represented(TeamSerializer(team))}, status=status.HTTP_201_CREATED)

    @api_operation(
        scope="teams:write",
        summary="Select the default team",
        description=(
            "Makes the team the user's default: protected from deletion, the fallback when the "
            "user leaves a shared team and the preselected destination of a team deletion. The "
            "key must be bound to the team (a team key of that team, or a user key of one of its "
            "members): otherwise 403 `TEAM_MISMATCH`, also for a team the user is not in or an id "
            "that names no team. Its user must own it (403 `NOT_TEAM_OWNER`). Idempotent: selecting "
            "the current default answers 200 with `already_default: true`."
        ),
        request=None,
        responses={200: OpenApiResponse(TeamDefaultResponse), 404: _MALFORMED_TEAM_ID},
    )
    @action(detail=True, methods=["patch"])
    def default(self, request: Request, team_id: str) -> Response:
        caller = get_caller(request)
        team = bound_team(caller, team_id, acting_only=False)
        changed = services.team_set_default(user=caller.user, team=team)
        team = selectors.teams_owned(user=caller.user).get(pk=team.pk)
        return Response({"data": represented(TeamSerializer(team)), "already_default": not changed})

    @api_operation(
        scope="teams:write",
        summary="Delete a team, moving its content",
        description=_DELETE_RULES,
        request=TeamDeleteSerializer,
        examples=[
            OpenApiExample(
                "Move everything to another team",
                request_only=True,
                value={"destination_team_id": "0193c1d2-7a4e-7c3b-9f10-2b5e8d6a4c01", "confirmation_name": "Acme"},
            )
        ],
        responses={200: OpenApiResponse(TeamDeletedResponse), 404: _MALFORMED_TEAM_ID},
        errors=(400,),
    )
    @_documents_delete_body
    def destroy(self, request: Request, team_id: str) -> Response:
        caller = get_caller(request)
        team = bound_team(caller, team_id, acting_only=True)
        if caller.role != Role.OWNER:  # checked again under lock by the service
            raise Forbidden("Only the team's owner can delete it.", code="NOT_TEAM_OWNER")
        body = validated(TeamDeleteSerializer(data=request.data))
        deletion = services.team_delete(
            user=caller.user,
            team=team,
            destination_id=body["destination_team_id"],
            confirmation_name=body["confirmation_name"],
            used_key=caller.key,
        )
        return Response({"data": _deletion_body(deletion)})


def _deletion_body(deletion: services.TeamDeletion) -> dict[str, Any]:
    return {
        "deleted_team_id": deletion.deleted_team_id,
        "destination_team_id": deletion.destination_team_id,
        "moved": {
            "accounts": deletion.moved_accounts,
            "merged_accounts": deletion.merged_accounts,
            "publishes": deletion.moved_publishes,
            "media": deletion.moved_media,
        },
        "removed": {
            "team_keys": deletion.deleted_keys,
            "webhooks": deletion.removed_webhooks,
            "memberships": deletion.removed_memberships,
        },
        "revoked_keys": deletion.revoked_keys,
    }


class UsageSerializer(serializers.Serializer[Any]):
    can_publish = serializers.BooleanField(help_text="False once the month's publishing quota is used up.")
    plan = inline_serializer(
        name="UsagePlan", fields={"code": serializers.CharField(), "name": serializers.CharField()}
    )
    limits = inline_serializer(
        name="UsageLimits",
        fields={
            "posts_per_month": serializers.IntegerField(allow_null=True, help_text="null = unlimited"),
            "social_accounts": serializers.IntegerField(allow_null=True, help_text="null = unlimited"),
            "media_storage_gb": serializers.IntegerField(allow_null=True, help_text="null = unlimited"),
        },
    )
    usage = inline_serializer(
        name="UsageCounters",
        fields={
            "posts_this_month": serializers.IntegerField(help_text="Posts counted against this month's quota."),
            "social_accounts": serializers.IntegerField(help_text="Connected accounts that are not disabled."),
            "media_storage_bytes": serializers.IntegerField(
                help_text="Bytes of ready media and uploads in progress, counted against media_storage_gb."
            ),
        },
    )
    period = inline_serializer(
        name="UsagePeriod",
        fields={"start": serializers.DateField(), "end": serializers.DateField(help_text="Last day, inclusive.")},
    )


UsageResponse = data_envelope("UsageResponse", UsageSerializer())


def _usage_body(usage: selectors.Usage) -> dict[str, Any]:
    plan = usage.team.plan
    return {
        "can_publish": usage.can_publish,
        "plan": {"code": plan.code, "name": plan.name},
        "limits": {
            "posts_per_month": plan.posts_per_month,
            "social_accounts": plan.social_accounts,
            "media_storage_gb": plan.media_storage_gb,
        },
        "usage": {
            "posts_this_month": usage.posts_this_month,
            "social_accounts": usage.social_accounts,
            "media_storage_bytes": usage.media_storage_bytes,
        },
        "period": {"start": usage.period_start.isoformat(), "end": usage.period_end.isoformat()},
    }


class UsageView(APIView):
    required_scope = "billing:read"

    @api_operation(
        scope="billing:read",
        summary="Plan limits and usage",
        description="The plan limits of the key's team (null = unlimited) and this month's counters.",
        responses={200: OpenApiResponse(UsageResponse)},
    )
    def get(self, request: Request) -> Response:
        return Response({"data": _usage_body(selectors.usage_for(team=get_caller(request).team))})

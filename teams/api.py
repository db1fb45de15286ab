"""GET /api/v1/teams, PATCH /api/v1/teams/{team_id}/default, GET /api/v1/usage."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, inline_serializer
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.errors import Forbidden, NotFound
from config.schema import api_operation, data_envelope
from teams import selectors, services
from teams.authentication import get_caller
from teams.models import Plan, Team


class TeamSerializer(serializers.ModelSerializer[Team]):
    is_default = serializers.BooleanField(help_text="The owner's selected default team, protected from deletion.")
    plan = serializers.SlugRelatedField[Plan](slug_field="code", read_only=True)

    class Meta:
        model = Team
        fields = ["id", "name", "is_default", "approval_required", "plan", "created_at"]


TeamListResponse = data_envelope("TeamListResponse", TeamSerializer(many=True))
TeamDefaultResponse = inline_serializer(
    name="TeamDefaultResponse",
    fields={
        "data": TeamSerializer(),
        "already_default": serializers.BooleanField(help_text="True when the team was already the default."),
    },
)


class TeamViewSet(viewsets.GenericViewSet[Team]):
    lookup_url_kwarg = "team_id"
    required_scopes = {"list": "teams:read", "default": "teams:write"}
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
        return Response({"data": TeamSerializer(teams, many=True).data})

    @api_operation(
        scope="teams:write",
        summary="Select the default team",
        description=(
            "Makes the team the user's default: protected from deletion, the fallback when the "
            "user leaves a shared team and the preselected destination of a team deletion. The "
            "key must be bound to the team (a team key of that team, or a user key of one of its "
            "members) and its user must own it. Idempotent: selecting the current default "
            "answers 200 with `already_default: true`."
        ),
        request=None,
        responses={200: OpenApiResponse(TeamDefaultResponse)},
        errors=(404,),
    )
    @action(detail=True, methods=["patch"])
    def default(self, request: Request, team_id: str) -> Response:
        caller = get_caller(request)
        team = Team.objects.filter(pk=team_id, memberships__user=caller.user).first()
        if team is None:
            raise NotFound("No such team.")
        if caller.key.team_id is not None and caller.key.team_id != team.pk:
            raise Forbidden("This key is bound to another team.", code="TEAM_MISMATCH")
        changed = services.team_set_default(user=caller.user, team=team)
        team = selectors.teams_owned(user=caller.user).get(pk=team.pk)
        return Response({"data": TeamSerializer(team).data, "already_default": not changed})


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

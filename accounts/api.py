"""GET /api/v1/accounts and /api/v1/accounts/{id}."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema_field
from rest_framework import serializers, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.models import AccountStatus, Platform, SocialAccount
from accounts.platforms.limits import limits_for
from accounts.selectors import accounts_for_team
from config.errors import NotFound
from config.fields import CommaSeparatedChoiceField
from config.schema import api_operation, data_envelope
from config.serializers import represented, validated
from teams.authentication import get_caller

_CAPABILITIES_SCHEMA = {
    "type": "object",
    "description": "What a post to this account may contain: text, images, videos, title, with limits.",
    "properties": {
        "text": {"type": "object", "additionalProperties": True},
        "images": {"type": "object", "additionalProperties": True},
        "videos": {"type": "object", "additionalProperties": True},
        "title": {"type": "object", "additionalProperties": True},
        "mixed_media": {"type": "boolean"},
        "max_media_per_post": {"type": "integer"},
        "requires_media": {"type": "boolean"},
        "notes": {"type": "array", "items": {"type": "string"}},
    },
}


class AccountSerializer(serializers.ModelSerializer[SocialAccount]):
    capabilities = serializers.SerializerMethodField()

    class Meta:
        model = SocialAccount
        fields = [
            "id",
            "platform",
            "status",
            "status_reason",
            "handle",
            "display_name",
            "avatar_url",
            "external_id",
            "sandbox",
            "token_expires_at",
            "capabilities",
            "created_at",
            "updated_at",
        ]

    @extend_schema_field(_CAPABILITIES_SCHEMA)
    def get_capabilities(self, account: SocialAccount) -> dict[str, Any]:
        return limits_for(account.platform).capabilities()


AccountResponse = data_envelope("AccountResponse", AccountSerializer())


class AccountFilterSerializer(serializers.Serializer[Any]):
    platform = CommaSeparatedChoiceField(choices=Platform.values, required=False)
    status = CommaSeparatedChoiceField(choices=AccountStatus.values, required=False)


class AccountViewSet(viewsets.GenericViewSet[SocialAccount]):
    required_scope = "accounts:read"
    page_size_default = 50
    serializer_class = AccountSerializer

    @api_operation(
        scope="accounts:read",
        summary="List connected accounts",
        description="The team's connected accounts, oldest first, each with its capabilities.",
        parameters=[AccountFilterSerializer],
        responses={200: AccountSerializer(many=True)},
        errors=(400,),
    )
    def list(self, request: Request) -> Response:
        filters = validated(AccountFilterSerializer(data=request.query_params))
        accounts = accounts_for_team(
            team=get_caller(request).team,
            platforms=filters.get("platform", ()),
            statuses=filters.get("status", ()),
        )
        page = self.paginate_queryset(accounts)
        return self.get_paginated_response(represented(AccountSerializer(page, many=True)))

    @api_operation(
        scope="accounts:read",
        summary="Get one account",
        responses={200: OpenApiResponse(AccountResponse)},
        errors=(404,),
    )
    def retrieve(self, request: Request, pk: str) -> Response:
        account = accounts_for_team(team=get_caller(request).team).filter(pk=pk).first()
        if account is None:
            raise NotFound("No such account in this team.", code="ACCOUNT_NOT_FOUND")
        return Response({"data": represented(AccountSerializer(account))})

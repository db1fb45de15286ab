"""GET/POST /api/v1/webhooks and DELETE /api/v1/webhooks/{id}."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiResponse, inline_serializer
from rest_framework import serializers, status, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from config.schema import api_operation, data_envelope
from config.serializers import represented, validated
from teams.authentication import get_caller
from webhooks import services
from webhooks.models import SUBSCRIBABLE_EVENTS, Subscription


class SubscriptionCreateSerializer(serializers.Serializer[Any]):
    url = serializers.URLField(max_length=2048, help_text="https URL that receives POSTed events.")
    events = serializers.ListField(
        child=serializers.ChoiceField(choices=SUBSCRIBABLE_EVENTS),
        allow_empty=False,
        max_length=len(SUBSCRIBABLE_EVENTS),
    )
    secret = serializers.CharField(
        required=False,
        max_length=200,
        help_text="Optional: your own `whsec_<base64 of 24-64 bytes>` secret. Generated when omitted.",
    )


class SubscriptionSerializer(serializers.ModelSerializer[Subscription]):
    disabled = serializers.SerializerMethodField(help_text="True once deliveries have stopped; see disabled_reason.")
    health = serializers.SerializerMethodField()

    class Meta:
        model = Subscription
        fields = ["id", "url", "events", "disabled", "disabled_at", "disabled_reason", "health", "created_at"]

    def get_disabled(self, subscription: Subscription) -> bool:
        return subscription.disabled_at is not None

    def get_health(self, subscription: Subscription) -> dict[str, Any]:
        return {
            "last_success_at": subscription.last_success_at,
            "last_failure_at": subscription.last_failure_at,
            "last_failure_reason": subscription.last_failure_reason,
            "consecutive_failures": subscription.consecutive_failures,
        }


class SubscriptionCreatedSerializer(SubscriptionSerializer):
    secret = serializers.CharField(help_text="Shown once: store it to verify signatures.")

    class Meta(SubscriptionSerializer.Meta):
        fields = [*SubscriptionSerializer.Meta.fields, "secret"]


_SIGNATURES = (
    'Every delivery is a POST of `{"id", "type", "created_at", "team_id", "data"}` with '
    "`X-Service-Signature: sha256=<hex HMAC-SHA256 of the raw body keyed with the secret>` and the "
    "Standard Webhooks headers `webhook-id`, `webhook-timestamp`, `webhook-signature`. A 2xx "
    "answer within 10 s is a success; anything else (a redirect included) is retried after 1 min, "
    "5 min, 30 min, 2 h and 12 h (6 attempts), honouring `Retry-After`. `410 Gone` disables the "
    "webhook at once, and so do 5 events in a row whose every attempt failed."
)


class WebhookViewSet(viewsets.GenericViewSet[Subscription]):
    required_scopes = {"list": "webhooks:read", "create": "webhooks:write", "destroy": "webhooks:write"}
    serializer_class = SubscriptionSerializer
    pagination_class = None

    @api_operation(
        scope="webhooks:read",
        summary="List webhooks",
        description="The team's webhooks with their delivery health. Secrets are never shown again.",
        responses={200: OpenApiResponse(data_envelope("WebhookListResponse", SubscriptionSerializer(many=True)))},
    )
    def list(self, request: Request) -> Response:
        subscriptions = Subscription.objects.filter(team=get_caller(request).team)
        return Response({"data": represented(SubscriptionSerializer(subscriptions, many=True))})

    @api_operation(
        scope="webhooks:write",
        summary="Create a webhook",
        description=_SIGNATURES,
        request=SubscriptionCreateSerializer,
        examples=[
            OpenApiExample(
                "Publishing outcomes",
                request_only=True,
                value={"url": "https://example.com/hooks/social", "events": ["post.published", "post.failed"]},
            )
        ],
        responses={201: OpenApiResponse(data_envelope("WebhookCreatedResponse", SubscriptionCreatedSerializer()))},
        errors=(400,),
    )
    def create(self, request: Request) -> Response:
        body = validated(SubscriptionCreateSerializer(data=request.data))
        subscription = services.subscription_create(team=get_caller(request).team, **body)
        return Response(
            {"data": represented(SubscriptionCreatedSerializer(subscription))}, status=status.HTTP_201_CREATED
        )

    @api_operation(
        scope="webhooks:write",
        summary="Delete a webhook",
        description="Stops every future delivery to it at once, retries included.",
        responses={
            200: OpenApiResponse(
                inline_serializer(
                    "WebhookDeletedResponse",
                    {
                        "data": inline_serializer(
                            "WebhookDeleted", {"id": serializers.UUIDField(), "deleted": serializers.BooleanField()}
                        )
                    },
                )
            )
        },
        errors=(404,),
    )
    def destroy(self, request: Request, pk: str) -> Response:
        services.subscription_delete(team=get_caller(request).team, subscription_id=pk)
        return Response({"data": {"id": pk, "deleted": True}})

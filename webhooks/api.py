"""The webhooks API: subscriptions (GET/POST /webhooks, GET/DELETE /webhooks/{id}) and the
tooling around them: a signed test event, the delivery log with each delivery's attempts,
redelivery, secret rotation with a day of overlap, and re-enabling a disabled webhook."""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema_field, inline_serializer
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from config.fields import CommaSeparatedChoiceField
from config.pagination import PagePagination
from config.routers import UUID_PATTERN
from config.schema import api_operation, data_envelope
from config.serializers import represented, validated
from config.throttling import KeyRateThrottle, ObjectRateThrottle
from teams.authentication import get_caller
from webhooks import selectors, services
from webhooks.models import SUBSCRIBABLE_EVENTS, Delivery, DeliveryState, EventType, Subscription


class SubscriptionCreateSerializer(serializers.Serializer[Any]):
    url = serializers.URLField(max_length=2048, help_text="https URL that receives POSTed events.")
    events = serializers.ListField(
        child=serializers.ChoiceField(choices=SUBSCRIBABLE_EVENTS),
        allow_empty=False,
        max_length=len(SUBSCRIBABLE_EVENTS),
        help_text="The events to receive. Publishing: `post.published` (to all or some platforms), `post.failed`, "
        "`post.pending_approval`, `post.approved`, `post.rejected`, `post.removed` (a published post taken down "
        "by unpublish, or found gone from its platform), `post.at_risk` (a scheduled post's checks before its "
        "time found a problem). Accounts: `account.connected` (connected or "
        "re-authorized), `account.disconnected`, `account.expired` (a platform refused the token and it could "
        "not be renewed: re-authorize it), `account.expiring` (a token that cannot be renewed expires within "
        "7 days; once per account per expiry).",
    )
    secret = serializers.CharField(
        required=False,
        max_length=200,
        help_text="Optional: your own `whsec_<base64 of 24-64 bytes>` secret. Generated when omitted.",
    )


class SubscriptionSerializer(serializers.ModelSerializer[Subscription]):
    disabled = serializers.SerializerMethodField(help_text="True once deliveries have stopped; see disabled_reason.")
    health = serializers.SerializerMethodField()
    circuit_open_until = serializers.DateTimeField(
        read_only=True,
        allow_null=True,
        help_text="Set while the webhook's circuit is open: its receiver timed out or refused connections "
        "on several attempts in a row, so its deliveries wait (pending, no attempt counted) until then, "
        "when one is tried as a probe. A success closes the circuit (null again) and the waiting "
        "deliveries go out; a failure opens it again, for twice as long.",
    )
    previous_secret_expires_at = serializers.SerializerMethodField(
        help_text="After a secret rotation: until when the replaced secret still signs beside the new one; "
        "null when no replaced secret signs."
    )

    class Meta:
        model = Subscription
        fields = [
            "id",
            "url",
            "events",
            "disabled",
            "disabled_at",
            "disabled_reason",
            "health",
            "circuit_open_until",
            "previous_secret_expires_at",
            "created_at",
        ]

    def get_disabled(self, subscription: Subscription) -> bool:
        return subscription.disabled_at is not None

    @extend_schema_field(serializers.DateTimeField(allow_null=True))
    def get_previous_secret_expires_at(self, subscription: Subscription) -> Any:
        expires = subscription.previous_secret_signs_until(timezone.now())
        return None if expires is None else serializers.DateTimeField().to_representation(expires)

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


class RotatedSecretSerializer(serializers.Serializer[Any]):
    secret = serializers.CharField(
        required=False,
        max_length=200,
        help_text="Optional: your own new `whsec_<base64 of 24-64 bytes>` secret. Generated when omitted.",
    )


class SecretRotationSerializer(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    secret = serializers.CharField(help_text="The new secret, shown once: store it to verify signatures.")
    previous_secret_expires_at = serializers.DateTimeField(
        help_text="Until then the replaced secret signs each delivery beside the new one."
    )


class DeliveryFilterSerializer(serializers.Serializer[Any]):
    status = CommaSeparatedChoiceField(choices=DeliveryState.values, required=False)
    event_type = CommaSeparatedChoiceField(choices=EventType.values, required=False)


class WebhookDeliverySerializer(serializers.ModelSerializer[Delivery]):
    """One event's delivery to the webhook, as its latest attempt left it."""

    webhook_id = serializers.UUIDField(source="subscription_id")
    event_id = serializers.UUIDField()
    event_type = serializers.CharField(source="event.type")
    status = serializers.ChoiceField(
        source="state",
        choices=DeliveryState.choices,
        help_text="`pending` (waiting for `next_attempt_at`), `sending` (an attempt is under way), `succeeded`, "
        "`failed` (every attempt failed, or 410 Gone) or `cancelled` (the webhook was disabled first).",
    )
    attempt = serializers.IntegerField(
        source="attempts", help_text="Attempts made so far (a redelivery starts a new series at 1)."
    )
    response_status_code = serializers.IntegerField(
        source="last_status_code", allow_null=True, help_text="The receiver's HTTP status at the latest attempt."
    )
    duration_ms = serializers.IntegerField(source="last_duration_ms", allow_null=True)
    error = serializers.CharField(source="last_error", help_text="Why the latest attempt failed; empty otherwise.")

    class Meta:
        model = Delivery
        fields = [
            "id",
            "webhook_id",
            "event_id",
            "event_type",
            "status",
            "attempt",
            "response_status_code",
            "duration_ms",
            "error",
            "next_attempt_at",
            "delivered_at",
            "created_at",
        ]


class DeliveryAttemptSerializer(serializers.Serializer[Any]):
    number = serializers.IntegerField()
    status_code = serializers.IntegerField(allow_null=True)
    error = serializers.CharField()
    duration_ms = serializers.IntegerField()
    attempted_at = serializers.DateTimeField(source="created_at")


class WebhookDeliveryDetailSerializer(WebhookDeliverySerializer):
    attempts = DeliveryAttemptSerializer(source="attempt_log.all", many=True, help_text="Every attempt, oldest first.")
    payload = serializers.SerializerMethodField(help_text="The event exactly as it is sent (before signing).")

    class Meta(WebhookDeliverySerializer.Meta):
        fields = [*WebhookDeliverySerializer.Meta.fields, "attempts", "payload"]

    @extend_schema_field(serializers.DictField())
    def get_payload(self, delivery: Delivery) -> dict[str, object]:
        return services.envelope(delivery.event)


_SIGNATURES = (
    'Every delivery is a POST of `{"id", "type", "created_at", "team_id", "data"}` with '
    "`X-Service-Signature: sha256=<hex HMAC-SHA256 of the raw body keyed with the secret>` and the "
    "Standard Webhooks headers `webhook-id`, `webhook-timestamp`, `webhook-signature`. A 2xx "
    "answer within 10 s is a success; anything else (a redirect included) is retried after 1 min, "
    "5 min, 30 min, 2 h and 12 h (6 attempts), honouring `Retry-After`. `410 Gone` disables the "
    "webhook at once, and so do 5 events in a row whose every attempt failed. After 5 attempts in a row "
    "that time out or cannot connect, the webhook's circuit opens (`circuit_open_until`): its deliveries "
    "wait, pending, for a minute (doubling at each reopening), then one is tried; a success lets the "
    "rest go out. After a secret "
    "rotation the replaced secret signs beside the new one for 24 hours: `webhook-signature` lists "
    "both (`v1,<new> v1,<old>`) and `X-Service-Signature-Previous` carries the old secret's `sha256=`.\n\n"
    "The `data` of a `post.*` event is the publish: `publish_id`, `status`, `approval_status` and its "
    "`targets`. The `data` of an `account.*` event is the account, never a token:\n\n"
    "```json\n"
    '{"account": {"id": "<uuid>", "platform": "linkedin", "handle": "acme", "display_name": "Acme", '
    '"status": "active", "status_reason": "", "token_expires_at": "2026-01-31T09:00:00Z", "sandbox": false}}\n'
    "```\n\n"
    "with, for `account.connected`, `reauthorized` (true when the account was connected already: a "
    "re-authorization or a new connect of the same platform identity) and `connect_link_id` (the connect "
    "link it came through, else null); for `account.expired`, `expired_at`; for `account.expiring`, "
    "`expires_at`, when the token expires (`status` is still `active`: re-authorize the account before then). "
    "`account.disconnected` carries the account as the disconnect left it."
)


def _one(serializer: type[serializers.Serializer[Any]], name: str) -> OpenApiResponse:
    return OpenApiResponse(data_envelope(name, serializer()))


_DELIVERY_ID = f"(?P<delivery_id>{UUID_PATTERN})"


class WebhookViewSet(viewsets.GenericViewSet[Subscription]):
    required_scopes = {
        "list": "webhooks:read",
        "retrieve": "webhooks:read",
        "create": "webhooks:write",
        "destroy": "webhooks:write",
        "send_test": "webhooks:write",
        "deliveries": "webhooks:read",
        "delivery": "webhooks:read",
        "redeliver": "webhooks:write",
        "rotate_secret": "webhooks:write",
        "enable": "webhooks:write",
    }
    serializer_class = SubscriptionSerializer
    pagination_class = None
    # Each test event or redelivery is an attempt (retried up to six times) at the team's own
    # receiver: counted per webhook, on top of the key's limit.
    throttle_classes = [KeyRateThrottle, ObjectRateThrottle]
    object_throttle_scopes = {"send_test": "webhook_test", "redeliver": "webhook_test"}

    def _subscription(self, request: Request, pk: str) -> Subscription:
        return selectors.subscription_of(team=get_caller(request).team, subscription_id=pk)

    @api_operation(
        scope="webhooks:read",
        summary="List webhooks",
        description=(
            "The team's webhooks with their delivery health and circuit (`circuit_open_until`). Secrets are "
            "never shown again."
        ),
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
            ),
            OpenApiExample(
                "Account events",
                request_only=True,
                value={
                    "url": "https://example.com/hooks/accounts",
                    "events": ["account.connected", "account.disconnected", "account.expired", "account.expiring"],
                },
            ),
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

    @api_operation(
        scope="webhooks:read",
        summary="Get a webhook",
        description=(
            "One webhook with its delivery health and circuit (`circuit_open_until`). 404 for another team's webhook."
        ),
        responses={200: _one(SubscriptionSerializer, "WebhookResponse")},
        errors=(404,),
    )
    def retrieve(self, request: Request, pk: str) -> Response:
        return Response({"data": represented(SubscriptionSerializer(self._subscription(request, pk)))})

    @api_operation(
        scope="webhooks:write",
        summary="Send a test event",
        description=(
            "Sends a `webhook.test` event to this webhook only, signed, retried and logged like every "
            "delivery. Answers 202 with the delivery; follow it in the delivery log. 409 `WEBHOOK_DISABLED` "
            "for a disabled webhook (enable it first). Test events and redeliveries of one webhook share a "
            "limit of `WEBHOOK_TEST_PER_MINUTE` a minute (5 by default): past it, 429 `RATE_LIMITED`."
        ),
        request=None,
        responses={202: _one(WebhookDeliverySerializer, "WebhookTestResponse")},
        errors=(404, 409),
    )
    @action(detail=True, methods=["post"], url_path="test")
    def send_test(self, request: Request, pk: str) -> Response:
        delivery = services.subscription_send_test(subscription=self._subscription(request, pk))
        return Response({"data": represented(WebhookDeliverySerializer(delivery))}, status=status.HTTP_202_ACCEPTED)

    @api_operation(
        scope="webhooks:read",
        summary="List a webhook's deliveries",
        description=(
            "Its deliveries, newest first, each as its latest attempt left it: status, attempt number, the "
            "receiver's response code, duration and error. Kept for 30 days."
        ),
        parameters=[DeliveryFilterSerializer],
        responses={200: WebhookDeliverySerializer(many=True)},
        errors=(400, 404),
    )
    @action(detail=True, methods=["get"], pagination_class=PagePagination)
    def deliveries(self, request: Request, pk: str) -> Response:
        subscription = self._subscription(request, pk)
        filters = validated(DeliveryFilterSerializer(data=request.query_params))
        deliveries = selectors.deliveries_of(subscription=subscription)
        if "status" in filters:
            deliveries = deliveries.filter(state__in=filters["status"])
        if "event_type" in filters:
            deliveries = deliveries.filter(event__type__in=filters["event_type"])
        paginator = PagePagination()
        page = paginator.paginate_queryset(deliveries, request, view=self)
        return paginator.get_paginated_response(represented(WebhookDeliverySerializer(page, many=True)))

    @api_operation(
        scope="webhooks:read",
        summary="Get a delivery",
        description="One delivery with every attempt and the payload sent.",
        responses={200: _one(WebhookDeliveryDetailSerializer, "WebhookDeliveryResponse")},
        errors=(404,),
    )
    @action(detail=True, methods=["get"], url_path=f"deliveries/{_DELIVERY_ID}")
    def delivery(self, request: Request, pk: str, delivery_id: str) -> Response:
        delivery = selectors.delivery_of(subscription=self._subscription(request, pk), delivery_id=delivery_id)
        return Response({"data": represented(WebhookDeliveryDetailSerializer(delivery))})

    @api_operation(
        scope="webhooks:write",
        summary="Redeliver a delivery",
        description=(
            "Sends the delivery again now, with a new series of attempts, whatever its status: the same "
            "event id (`webhook-id`), so a receiver that already has it can tell. 409 `DELIVERY_IN_FLIGHT` "
            "while an attempt is under way, `WEBHOOK_DISABLED` while the webhook is disabled. Counts against "
            "the webhook's limit of test events and redeliveries (429 `RATE_LIMITED` past it)."
        ),
        request=None,
        responses={202: _one(WebhookDeliverySerializer, "WebhookRedeliveryResponse")},
        errors=(404, 409),
    )
    @action(detail=True, methods=["post"], url_path=f"deliveries/{_DELIVERY_ID}/redeliver")
    def redeliver(self, request: Request, pk: str, delivery_id: str) -> Response:
        delivery = services.delivery_redeliver(subscription=self._subscription(request, pk), delivery_id=delivery_id)
        return Response({"data": represented(WebhookDeliverySerializer(delivery))}, status=status.HTTP_202_ACCEPTED)

    @api_operation(
        scope="webhooks:write",
        summary="Rotate a webhook's secret",
        description=(
            "Replaces the secret (generated, or yours) and shows the new one once. The replaced secret keeps "
            "signing beside it for 24 hours (`previous_secret_expires_at`), so the receiver can switch without "
            "refusing a delivery: `webhook-signature` lists both signatures and `X-Service-Signature-Previous` "
            "carries the old secret's. Rotating again within that time drops the older secret."
        ),
        request=RotatedSecretSerializer,
        responses={200: _one(SecretRotationSerializer, "WebhookSecretRotationResponse")},
        errors=(400, 404),
    )
    @action(detail=True, methods=["post"], url_path="rotate-secret")
    def rotate_secret(self, request: Request, pk: str) -> Response:
        body = validated(RotatedSecretSerializer(data=request.data))
        subscription = services.subscription_rotate_secret(subscription=self._subscription(request, pk), **body)
        return Response({"data": represented(SecretRotationSerializer(subscription))})

    @api_operation(
        scope="webhooks:write",
        summary="Enable a webhook",
        description=(
            "Re-enables a disabled webhook (its failure counts start again from zero): events from now on "
            "are delivered to it. Deliveries cancelled while it was disabled stay cancelled; redeliver the "
            "ones you need. Enabling an enabled webhook changes nothing."
        ),
        request=None,
        responses={200: _one(SubscriptionSerializer, "WebhookEnabledResponse")},
        errors=(404,),
    )
    @action(detail=True, methods=["post"])
    def enable(self, request: Request, pk: str) -> Response:
        subscription = self._subscription(request, pk)
        services.subscription_enable(subscription=subscription)
        subscription.refresh_from_db()
        return Response({"data": represented(SubscriptionSerializer(subscription))})

"""POST/GET /api/v1/connect-links, GET/DELETE /api/v1/connect-links/{id}: hosted pages where
someone outside the team connects their accounts into it (`accounts.connect_links`)."""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema_field
from rest_framework import serializers, status, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import connect_links
from accounts.connect_links import LIFETIME_DEFAULT_SECONDS, LIFETIME_MAX_SECONDS, LIFETIME_MIN_SECONDS, STATUSES
from accounts.models import ConnectLink, Platform
from config.schema import api_operation, data_envelope
from config.serializers import represented, validated
from teams.authentication import get_caller


class BrandingInputSerializer(serializers.Serializer[Any]):
    name = serializers.CharField(max_length=100, help_text="Shown as “Connect your accounts to <name>”.")
    logo_url = serializers.URLField(
        max_length=2048,
        required=False,
        help_text="A PNG, JPEG or GIF of at most 256 KB, fetched once, now, through the service's SSRF-safe "
        "client and served from this service: the visitor's browser never requests it. One that cannot be "
        "fetched (a private address, too large, not an image) is left out: `branding.logo_shown` says.",
    )
    accent_color = serializers.RegexField(
        connect_links.ACCENT_COLOR.pattern, required=False, help_text="`#rrggbb`, the page's buttons and links."
    )


class ConnectLinkCreateSerializer(serializers.Serializer[Any]):
    redirect_url = serializers.CharField(
        max_length=2048,
        help_text="Where the browser goes after each connection or a cancel, with `connect_link`, `status` "
        "(`connected` or `cancelled`) and `accounts` (comma-separated ids) added to its query. https only; "
        "plain http only to localhost, in development; no credentials in it.",
    )
    platforms = serializers.ListField(
        child=serializers.ChoiceField(choices=Platform.values),
        required=False,
        allow_empty=False,
        max_length=len(Platform.values),
        help_text="The platforms the page offers, in this order. Default: every platform this service can connect now.",
    )
    expires_in = serializers.IntegerField(
        required=False,
        default=LIFETIME_DEFAULT_SECONDS,
        min_value=LIFETIME_MIN_SECONDS,
        max_value=LIFETIME_MAX_SECONDS,
        help_text="Seconds the link stays usable, from now.",
    )
    branding = BrandingInputSerializer(required=False)


class BrandingSerializer(serializers.Serializer[Any]):
    name = serializers.CharField(source="branding_name")
    logo_url = serializers.CharField(source="branding_logo_url")
    accent_color = serializers.CharField(source="branding_accent_color")
    logo_shown = serializers.SerializerMethodField(help_text="Whether the logo could be fetched and is shown.")

    def get_logo_shown(self, link: ConnectLink) -> bool:
        return bool(link.logo)


class LinkAccountSerializer(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    platform = serializers.ChoiceField(choices=Platform.choices)
    handle = serializers.CharField()
    display_name = serializers.CharField()
    status = serializers.CharField(help_text="The account's status now (`active`, `expired`, `disconnected`...).")


class ConnectLinkSerializer(serializers.ModelSerializer[ConnectLink]):
    url = serializers.SerializerMethodField(help_text="The page to send your customer to. Needs no login.")
    status = serializers.SerializerMethodField(
        help_text="`pending` (not used yet), `connected` (an account was connected through it), `cancelled` "
        "(the last visit was cancelled and none was connected), `expired` or `revoked`. A link stays usable "
        "until it expires or is revoked, whatever happened before."
    )
    branding = serializers.SerializerMethodField()
    accounts = serializers.SerializerMethodField(help_text="Accounts connected through the link, oldest first.")

    class Meta:
        model = ConnectLink
        fields = [
            "id",
            "url",
            "status",
            "redirect_url",
            "platforms",
            "expires_at",
            "revoked_at",
            "branding",
            "accounts",
            "created_at",
        ]

    def get_url(self, link: ConnectLink) -> str:
        return connect_links.page_url(link)

    @extend_schema_field(serializers.ChoiceField(choices=STATUSES))
    def get_status(self, link: ConnectLink) -> str:
        return connect_links.link_status(link, self.context.get("now"))

    @extend_schema_field(BrandingSerializer(allow_null=True))
    def get_branding(self, link: ConnectLink) -> dict[str, Any] | None:
        if not (link.branding_name or link.branding_logo_url or link.branding_accent_color):
            return None
        return dict(BrandingSerializer(link).data)

    @extend_schema_field(LinkAccountSerializer(many=True))
    def get_accounts(self, link: ConnectLink) -> list[dict[str, Any]]:
        accounts = sorted(link.accounts.all(), key=lambda account: (account.created_at, account.pk))
        return [dict(item) for item in LinkAccountSerializer(accounts, many=True).data]


ConnectLinkResponse = data_envelope("ConnectLinkResponse", ConnectLinkSerializer())

_FLOW = (
    "The link's `url` is a page on this service that needs no login. It shows the branding and one "
    "“Connect” per platform; each runs the platform's authorization (in development, the sandbox's) "
    "and connects the account into this team (webhook `account.connected`, with `connect_link_id`), "
    "then sends the browser to `redirect_url?connect_link=<id>&status=connected&accounts=<id>`. "
    "A person who declines at the platform, or presses Cancel, is sent back with `status=cancelled` "
    "and no accounts. Bluesky is connected with a handle and an app password on the page itself. "
    "The link can be used again until it expires or is revoked; an expired or revoked link's page "
    "answers 410 and shows nothing of the team."
)


class ConnectLinkViewSet(viewsets.GenericViewSet[ConnectLink]):
    required_scopes = {
        "list": "accounts:read",
        "retrieve": "accounts:read",
        "create": "accounts:write",
        "destroy": "accounts:write",
    }
    serializer_class = ConnectLinkSerializer
    page_size_default = 50

    def _represent(self, link: ConnectLink) -> dict[str, Any]:
        return dict(represented(ConnectLinkSerializer(link, context={"now": timezone.now()})))

    @api_operation(
        scope="accounts:read",
        summary="List connect links",
        description="The team's connect links, newest first, expired and revoked ones included.",
        responses={200: ConnectLinkSerializer(many=True)},
        errors=(400,),
    )
    def list(self, request: Request) -> Response:
        page = self.paginate_queryset(connect_links.links_of_team(team=get_caller(request).team))
        body = ConnectLinkSerializer(page, many=True, context={"now": timezone.now()})
        return self.get_paginated_response(represented(body))

    @api_operation(
        scope="accounts:write",
        summary="Create a connect link",
        description=_FLOW
        + "\n\n400 `VALIDATION_ERROR` for a malformed field (an unknown platform, `expires_in` outside "
        f"{LIFETIME_MIN_SECONDS}..{LIFETIME_MAX_SECONDS}), `INVALID_REDIRECT_URL` for a redirect that is not "
        "https (http only to localhost, in development) or carries credentials, `PLATFORM_UNAVAILABLE` for a "
        "platform this service cannot connect now.",
        request=ConnectLinkCreateSerializer,
        examples=[
            OpenApiExample(
                "A branded link for X and Bluesky",
                request_only=True,
                value={
                    "redirect_url": "https://app.example.com/socials/done",
                    "platforms": ["x", "bluesky"],
                    "expires_in": 86400,
                    "branding": {"name": "Acme Studio", "accent_color": "#0a7cff"},
                },
            )
        ],
        responses={201: OpenApiResponse(ConnectLinkResponse)},
        errors=(400,),
    )
    def create(self, request: Request) -> Response:
        body = validated(ConnectLinkCreateSerializer(data=request.data))
        link = connect_links.link_create(
            team=get_caller(request).team,
            redirect_url=body["redirect_url"],
            platforms=body.get("platforms"),
            expires_in=body["expires_in"],
            branding=body.get("branding"),
        )
        return Response({"data": self._represent(link)}, status=status.HTTP_201_CREATED)

    @api_operation(
        scope="accounts:read",
        summary="Get a connect link",
        description="Its status and the accounts connected through it. Another team's link is a 404.",
        responses={200: OpenApiResponse(ConnectLinkResponse)},
        errors=(404,),
    )
    def retrieve(self, request: Request, pk: str) -> Response:
        link = connect_links.link_of_team(team=get_caller(request).team, link_id=pk)
        return Response({"data": self._represent(link)})

    @api_operation(
        scope="accounts:write",
        summary="Revoke a connect link",
        description=(
            "Its page answers 410 from now on, and an authorization started from it connects nothing. "
            "Accounts already connected through it stay connected. Revoking it again answers the same."
        ),
        responses={200: OpenApiResponse(ConnectLinkResponse)},
        errors=(404,),
    )
    def destroy(self, request: Request, pk: str) -> Response:
        link = connect_links.link_of_team(team=get_caller(request).team, link_id=pk)
        return Response({"data": self._represent(connect_links.link_revoke(link=link))})

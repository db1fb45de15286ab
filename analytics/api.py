"""GET /api/v1/analytics/posts and /api/v1/analytics/posts/{id}: validate the query, call one
selector, shape the answer. Sums, sorting and paging happen in the database."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema_field
from rest_framework import serializers, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.models import Platform
from analytics.models import PostMetrics
from analytics.selectors import ORDERS, SORTS, analytics_listing, analytics_posts
from config.errors import NotFound
from config.fields import CommaSeparatedChoiceField
from config.schema import api_operation, data_envelope
from config.serializers import represented, validated
from publishing.models import Publish, Target
from teams.authentication import get_caller

# --- input -----------------------------------------------------------------------------------


class AnalyticsFilterSerializer(serializers.Serializer[Any]):
    platform = CommaSeparatedChoiceField(
        choices=Platform.values,
        required=False,
        help_text="Count only targets on these platforms (comma-separated); posts without one are left out.",
    )
    sort = serializers.ChoiceField(
        choices=SORTS,
        required=False,
        default="published_at",
        help_text="`published_at` (the first target's publication) or a total; ties are ordered by post id.",
    )
    order = serializers.ChoiceField(choices=ORDERS, required=False, default="desc", help_text="`desc` or `asc`.")


# --- output ----------------------------------------------------------------------------------


class PostTotalsSerializer(serializers.Serializer[Any]):
    total_views = serializers.IntegerField(help_text="Platforms that report no views add nothing.")
    total_likes = serializers.IntegerField()
    total_comments = serializers.IntegerField()
    total_shares = serializers.IntegerField()
    last_sync_at = serializers.DateTimeField(allow_null=True, help_text="Latest read; null until the first.")


class AnalyticsPostSerializer(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    content = serializers.CharField()
    published_at = serializers.DateTimeField(
        source="first_published_at", help_text="When the first target was published."
    )
    platforms = serializers.SerializerMethodField(help_text="Platforms of the published targets counted.")
    metrics = PostTotalsSerializer(source="*", help_text="Sums over the published targets counted.")

    @extend_schema_field(serializers.ListField(child=serializers.ChoiceField(choices=Platform.choices)))
    def get_platforms(self, publish: Publish) -> list[str]:
        return sorted({target.platform for target in _published_targets(publish)})


class TargetMetricsSerializer(serializers.Serializer[Any]):
    views = serializers.IntegerField(allow_null=True, help_text="Null where the platform reports no views.")
    likes = serializers.IntegerField()
    comments = serializers.IntegerField()
    shares = serializers.IntegerField()
    last_sync_at = serializers.DateTimeField(allow_null=True)


class PlatformMetricsSerializer(serializers.Serializer[Any]):
    platform = serializers.ChoiceField(choices=Platform.choices)
    account_id = serializers.UUIDField()
    platform_post_id = serializers.CharField()
    platform_post_url = serializers.CharField(allow_null=True, help_text="The live post.")
    metrics = TargetMetricsSerializer()
    platform_specific_data = serializers.DictField(help_text="The platform's own fields: impressions, reach, saves...")
    sync_error = serializers.CharField(allow_null=True, help_text="Why the last read failed; null when fine.")


class AnalyticsPostDetailSerializer(AnalyticsPostSerializer):
    platforms = serializers.SerializerMethodField(help_text="One entry per published target.")

    @extend_schema_field(PlatformMetricsSerializer(many=True))
    def get_platforms(self, publish: Publish) -> list[dict[str, Any]]:  # type: ignore[override]
        return [dict(represented(PlatformMetricsSerializer(_platform_entry(t)))) for t in _published_targets(publish)]


AnalyticsPostResponse = data_envelope("AnalyticsPostResponse", AnalyticsPostDetailSerializer())


def _published_targets(publish: Publish) -> list[Target]:
    return list(getattr(publish, "published_targets", []))


def _platform_entry(target: Target) -> dict[str, Any]:
    metrics: PostMetrics | None = getattr(target, "metrics", None)
    return {
        "platform": target.platform,
        "account_id": target.account_id,
        "platform_post_id": target.platform_post_id,
        "platform_post_url": target.platform_post_url or None,
        "metrics": {
            "views": metrics.views if metrics else None,
            "likes": metrics.likes if metrics else 0,
            "comments": metrics.comments if metrics else 0,
            "shares": metrics.shares if metrics else 0,
            "last_sync_at": metrics.last_sync_at if metrics else None,
        },
        "platform_specific_data": metrics.extra if metrics else {},
        "sync_error": (metrics.sync_error or None) if metrics else None,
    }


_LIST_DESCRIPTION = """\
The team's posts that reached `published` on at least one target, each with `metrics` summed
over its published targets only (`last_sync_at` is null until the first sync; totals are 0
before). `platform` limits both which targets count and which posts are listed. `sort` is
`published_at` (the first target's publication, the default), `total_views`, `total_likes`,
`total_comments` or `total_shares`; `order` is `desc` (default) or `asc`. Ties keep a stable
order by post id."""


class AnalyticsPostViewSet(viewsets.GenericViewSet[Publish]):
    required_scope = "analytics:read"
    page_size_default = 20
    serializer_class = AnalyticsPostSerializer

    @api_operation(
        scope="analytics:read",
        summary="List posts with metrics",
        description=_LIST_DESCRIPTION,
        parameters=[AnalyticsFilterSerializer],
        responses={200: AnalyticsPostSerializer(many=True)},
        errors=(400,),
    )
    def list(self, request: Request) -> Response:
        filters = validated(AnalyticsFilterSerializer(data=request.query_params))
        f = filters
        listed = analytics_listing(
            team=get_caller(request).team, platforms=f.get("platform", ()), sort=f["sort"], order=f["order"]
        )
        page = self.paginate_queryset(listed)  # type: ignore[arg-type]  # PagePagination pages a Keyed list
        return self.get_paginated_response(represented(AnalyticsPostSerializer(page, many=True)))

    @api_operation(
        scope="analytics:read",
        summary="Get one post's metrics",
        description="The post's totals and, per published target, its platform's metrics, live link and "
        "platform-specific fields. 404 for a post of another team or one with no published target.",
        responses={200: OpenApiResponse(AnalyticsPostResponse)},
        errors=(404,),
    )
    def retrieve(self, request: Request, pk: str) -> Response:
        publish = analytics_posts(team=get_caller(request).team).filter(pk=pk).first()
        if publish is None:
            raise NotFound("No such published post.", code="POST_NOT_FOUND")
        return Response({"data": represented(AnalyticsPostDetailSerializer(publish))})

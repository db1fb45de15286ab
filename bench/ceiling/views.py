"""Bare DRF views over the service's rows.

POST /api/v1/publishes writes what a create of the service writes for an immediate publish
(1 publish, one target per account, one outbox job per target) in one transaction, then pushes
one message per job to Redis in one pipeline, and answers 201 with the publish and its targets.
POST /api/v1/publishes/bulk writes the same rows for every row of `publishes`, one INSERT per table.
GET /api/v1/publishes/{id} reads a publish with its targets; GET /api/v1/publishes?team_id=
answers a page of 20 of a team's publishes, newest first, with their targets.
"""

from __future__ import annotations

import base64
import functools
import json
import os
import socket
import uuid
from typing import Any

import redis
from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import SocialAccount
from publishing.models import DeliveryJob, JobState, Publish, PublishMode, PublishStatus, Target, TargetState

HOST = socket.gethostname()
# The Redis list the ceiling pushes its delivery messages to (the service's go to `dispatch`).
QUEUE = "bench:ceiling:dispatch"


class TargetSerializer(serializers.ModelSerializer[Target]):
    class Meta:
        model = Target
        fields = [
            "id",
            "account",
            "platform",
            "content",
            "media_ids",
            "platform_settings",
            "state",
            "attempt_count",
            "platform_post_id",
            "platform_post_url",
            "error_code",
            "error_message",
            "published_at",
            "created_at",
            "updated_at",
        ]


class PublishFieldsSerializer(serializers.ModelSerializer[Publish]):
    class Meta:
        model = Publish
        fields = [
            "id",
            "team",
            "status",
            "approval_status",
            "content",
            "media_ids",
            "publish_mode",
            "scheduled_at",
            "confirmed",
            "created_by",
            "approved_by",
            "approved_at",
            "rejected_by",
            "rejected_at",
            "rejection_reason",
            "created_at",
            "updated_at",
            "released_at",
            "completed_at",
        ]


class PublishSerializer(PublishFieldsSerializer):
    targets = TargetSerializer(many=True, read_only=True)

    class Meta(PublishFieldsSerializer.Meta):
        fields = [*PublishFieldsSerializer.Meta.fields, "targets"]


class TargetInputSerializer(serializers.Serializer[Any]):
    account_id = serializers.UUIDField()


class CreateSerializer(serializers.Serializer[Any]):
    team_id = serializers.UUIDField()
    content = serializers.CharField(allow_blank=True, default="", max_length=100_000, trim_whitespace=False)
    publish_mode = serializers.ChoiceField(choices=[PublishMode.IMMEDIATE], default=PublishMode.IMMEDIATE)
    targets = TargetInputSerializer(many=True, allow_empty=False, max_length=50)  # type: ignore[call-arg]


@functools.cache
def _redis() -> redis.Redis:
    return redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=2, socket_timeout=2)


def _message(job: DeliveryJob) -> bytes:
    """A message of the size and shape of the Celery message the service sends for a job."""
    body = [[str(job.pk)], {}, {"callbacks": None, "errbacks": None, "chain": None, "chord": None}]
    headers: dict[str, Any] = {
        "lang": "py",
        "task": "publishing.deliver",
        "id": job.dispatch_id,
        "shadow": None,
        "eta": None,
        "expires": None,
        "group": None,
        "group_index": None,
        "retries": 0,
        "timelimit": [None, None],
        "root_id": job.dispatch_id,
        "parent_id": None,
        "argsrepr": f"('{job.pk}',)",
        "kwargsrepr": "{}",
        "origin": f"gen{os.getpid()}@{HOST}",
        "ignore_result": True,
        "replaced_task_nesting": 0,
        "stamped_headers": None,
        "stamps": {},
    }
    properties = {
        "correlation_id": job.dispatch_id,
        "reply_to": str(uuid.uuid4()),
        "delivery_mode": 2,
        "delivery_info": {"exchange": "", "routing_key": "dispatch"},
        "priority": 0,
        "body_encoding": "base64",
        "delivery_tag": str(uuid.uuid4()),
    }
    envelope = {
        "body": base64.b64encode(json.dumps(body).encode()).decode(),
        "content-encoding": "utf-8",
        "content-type": "application/json",
        "headers": headers,
        "properties": properties,
    }
    return json.dumps(envelope).encode()


def _accounts(team_id: uuid.UUID, account_ids: list[uuid.UUID]) -> dict[uuid.UUID, str]:
    """Platform of each of the team's accounts named; 400 when one is not the team's."""
    found = dict(SocialAccount.objects.filter(team_id=team_id, pk__in=account_ids).values_list("pk", "platform"))
    if len(found) != len(set(account_ids)):
        raise ValidationError({"targets": "Every account must be one of the team's, once."})
    return found


class BulkRowSerializer(serializers.Serializer[Any]):
    content = serializers.CharField(allow_blank=True, default="", max_length=100_000, trim_whitespace=False)
    publish_mode = serializers.ChoiceField(choices=[PublishMode.IMMEDIATE], default=PublishMode.IMMEDIATE)
    targets = TargetInputSerializer(many=True, allow_empty=False, max_length=50)  # type: ignore[call-arg]


class BulkSerializer(serializers.Serializer[Any]):
    team_id = serializers.UUIDField()
    publishes = BulkRowSerializer(many=True, allow_empty=False, max_length=500)  # type: ignore[call-arg]


def _create(data: dict[str, Any]) -> tuple[Publish, list[Target], list[DeliveryJob]]:
    with transaction.atomic():
        return _write(data)


def _write(data: dict[str, Any]) -> tuple[Publish, list[Target], list[DeliveryJob]]:
    """One publish's rows, inside the caller's transaction."""
    account_ids = [t["account_id"] for t in data["targets"]]
    platforms = _accounts(data["team_id"], account_ids)
    now = timezone.now()
    publish = Publish.objects.create(
        team_id=data["team_id"],
        content=data["content"],
        media_ids=[],
        publish_mode=data["publish_mode"],
        status=PublishStatus.PUBLISHING,
        confirmed=True,
        released_at=now,
    )
    targets = Target.objects.bulk_create(
        Target(publish=publish, account_id=a, platform=platforms[a], state=TargetState.QUEUED) for a in account_ids
    )
    jobs = DeliveryJob.objects.bulk_create(
        DeliveryJob(target=t, number=1, dispatch_id=f"deliver:{t.pk}:1", state=JobState.PENDING, not_before=now)
        for t in targets
    )
    return publish, targets, jobs


def _push(jobs: list[DeliveryJob]) -> None:
    pipe = _redis().pipeline(transaction=False)
    for job in jobs:
        pipe.lpush(QUEUE, _message(job))
    pipe.execute()


def _with_targets() -> QuerySet[Publish]:
    return Publish.objects.prefetch_related("targets")


class Page(PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = 100


class Publishes(APIView):
    def get(self, request: Request) -> Response:
        team_id = request.query_params.get("team_id")
        if not team_id:
            raise ValidationError({"team_id": "Required."})
        paginator = Page()
        page = paginator.paginate_queryset(_with_targets().filter(team_id=team_id), request, view=self)
        return paginator.get_paginated_response(PublishSerializer(page, many=True).data)

    def post(self, request: Request) -> Response:
        body = CreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        publish, targets, jobs = _create(body.validated_data)
        _push(jobs)
        data = {**PublishFieldsSerializer(publish).data, "targets": TargetSerializer(targets, many=True).data}
        return Response({"data": data}, status=status.HTTP_201_CREATED)


class PublishDetail(APIView):
    def get(self, request: Request, pk: uuid.UUID) -> Response:
        publish = _with_targets().filter(pk=pk).first()
        if publish is None:
            raise NotFound("No such publish.")
        return Response({"data": PublishSerializer(publish).data})


class BulkPublishes(APIView):
    """The floor of a batch: every row's publish, targets and jobs written with one INSERT per
    table, no checks beyond the accounts being the team's."""

    def post(self, request: Request) -> Response:
        body = BulkSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        team_id = body.validated_data["team_id"]
        rows = body.validated_data["publishes"]
        platforms = _accounts(team_id, list({t["account_id"] for row in rows for t in row["targets"]}))
        now = timezone.now()
        publishes = [
            Publish(
                team_id=team_id,
                content=row["content"],
                media_ids=[],
                publish_mode=row["publish_mode"],
                status=PublishStatus.PUBLISHING,
                confirmed=True,
                released_at=now,
            )
            for row in rows
        ]
        targets = [
            [
                Target(
                    publish=p, account_id=t["account_id"], platform=platforms[t["account_id"]], state=TargetState.QUEUED
                )
                for t in row["targets"]
            ]
            for p, row in zip(publishes, rows, strict=True)
        ]
        flat = [target for group in targets for target in group]
        jobs = [
            DeliveryJob(target=t, number=1, dispatch_id=f"deliver:{t.pk}:1", state=JobState.PENDING, not_before=now)
            for t in flat
        ]
        with transaction.atomic():
            Publish.objects.bulk_create(publishes)
            Target.objects.bulk_create(flat)
            DeliveryJob.objects.bulk_create(jobs)
        _push(jobs)
        answers = [
            {**PublishFieldsSerializer(p).data, "targets": TargetSerializer(group, many=True).data}
            for p, group in zip(publishes, targets, strict=True)
        ]
        return Response({"data": answers}, status=status.HTTP_201_CREATED)

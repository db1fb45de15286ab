"""/api/v1/publishes and /api/v1/approvals: validate, call one lifecycle function, shape the
answer. A transition hands its own jobs to the broker after its commit; when the broker
refuses them, the answer is 503 PUBLISH_DISPATCH_UNCERTAIN naming the publish."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from config.errors import NotFound, ServiceUnavailable
from config.parsers import BoundedCSVParser, BoundedJSONParser
from config.schema import api_operation
from config.serializers import validated
from publishing import approval, bulk, checks, handover, idempotency, inputs, lifecycle
from publishing.models import IdempotencyKey, Publish
from publishing.selectors import approvals_for, has_targets, publish_by_id, publishes_for, publishes_matching
from publishing.serializers import (
    ApproveResponse,
    BulkCreateEnvelope,
    BulkCreateSerializer,
    BulkDryRunResponse,
    BulkQuerySerializer,
    BulkResponse,
    ConfirmSerializer,
    CreatePublishSerializer,
    DiscardResponse,
    PublishCreatedResponse,
    PublishFilterSerializer,
    PublishResponse,
    PublishSerializer,
    RejectSerializer,
    RescheduleSerializer,
    RetryPublishSerializer,
    UnpublishSerializer,
    UpdatePublishSerializer,
    ValidationResponse,
    publish_data,
    publishes_data,
    retry_edits,
    update_changes,
)
from teams.authentication import Caller, get_caller


def _caller(caller: Caller) -> inputs.Caller:
    return inputs.Caller(user=caller.user, key=caller.key, can_approve=caller.is_team_admin)


def _create_arguments(data: dict[str, Any], caller: Caller) -> dict[str, Any]:
    """A validated create body as `lifecycle.publish_create` (and its dry run,
    `checks.publish_check`) take it: without `publish_mode`, a body with `scheduled_at` is
    scheduled and one without is immediate."""
    return {"team": caller.team, "caller": _caller(caller), **bulk.request_fields(data)}


def _shape(publish: Publish) -> dict[str, Any]:
    """The publish as committed: one a transition that hands jobs over returned answers from
    memory (its targets loaded), any other is read back."""
    return publish_data(publish if has_targets(publish) else publishes_for().get(pk=publish.pk))


def _created_body(publish: Publish) -> dict[str, Any]:
    """The create's answer: the publish, and the texts its accounts already got (`warnings`)."""
    return {"data": _shape(publish), "warnings": [w.as_dict() for w in publish.duplicate_warnings]}


@contextmanager
def _uncertain_is_503() -> Iterator[None]:
    """A transition committed but the broker refused its jobs: 503 naming the publish."""
    try:
        yield
    except handover.PublishDispatchUncertain as exc:
        raise ServiceUnavailable(
            "The publish was saved but handing it to the queue is uncertain. Repeat the request "
            "(with the same Idempotency-Key) to send this same publish; no other is created.",
            code="PUBLISH_DISPATCH_UNCERTAIN",
            details={"publish_id": str(exc.publish.pk)},
        ) from exc


_CREATE_DESCRIPTION = """\
Creates one publish with one target per account. `publish_mode` is `immediate` (answers
`publishing`; poll `GET /publishes/{id}`), `scheduled` (needs a future `scheduled_at`) or
`draft` (nothing sent until `POST /publishes/{id}/confirm`). Without `publish_mode`, a
request with `scheduled_at` is scheduled and one without is immediate.

Each target's effective post (its own content/media_ids/platform_settings, else the
publish's) is checked against its platform's limits; a problem is 400 with its code and
`details.targets[]` naming the target. In a team that requires approval, a request from a
member's key waits as `approval_status: pending_approval`. Immediate and scheduled publishes
count against `posts_per_month` (429 `quota_exceeded` when used up); drafts count when confirmed.

**Duplicate content**: when a target's text (trimmed, whitespace collapsed) went, or is set to
go, to the same account within the team's window (`duplicate_window_hours`, 72 by default,
before or after this publish's time), the answer's `warnings` names it:
`{"code": "DUPLICATE_CONTENT", "account_id", "publish_id"}` (the most recent such publish),
one per target at most; `[]` when none. Failed targets, unconfirmed drafts and rejected or
discarded publishes do not count. In a team with `block_duplicates`, the create is refused
instead: 409 `DUPLICATE_CONTENT` with `details.account_id` and `details.publish_id`, nothing
created.

**Idempotency-Key** (optional header, 1-255 characters, kept 24 hours per team): a repeat
with the same body replays the first answer; 409 while the first is in flight or for a
different body. After a 503 `PUBLISH_DISPATCH_UNCERTAIN` the same request with the same key
sends that publish (`details.publish_id`) and creates no other."""

_EXAMPLE = OpenApiExample(
    "Post now to two accounts",
    request_only=True,
    value={
        "content": "We are live!",
        "media_ids": ["0193a6c2-7d3e-7c1a-9f51-5b1c0e2d4a10"],
        "targets": [
            {"account_id": "0193a6c0-1111-7aaa-8bbb-000000000001"},
            {
                "account_id": "0193a6c0-1111-7aaa-8bbb-000000000002",
                "content": "We are live! Details in bio.",
                "platform_settings": {"first_comment": "#launch"},
            },
        ],
        "publish_mode": "immediate",
    },
)

_IDEMPOTENCY_HEADER = OpenApiParameter(
    "Idempotency-Key",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    required=False,
    pattern=r"^[ -~]{1,255}$",
    description=(
        "Makes the create safe to repeat for 24 hours (per team): 1 to 255 printable characters "
        "(else 400 `INVALID_IDEMPOTENCY_KEY`)."
    ),
)


_VALIDATE_DESCRIPTION = """\
Runs every check `POST /publishes` would run on the same body (fields, accounts, media,
each platform's limits and settings, the time, the month's quota, approval) and creates,
sends and counts nothing. Always 200 for a body the create would judge:

- `valid`: whether the create would accept it now; `status`: what it would answer (201, 400,
  409 or 429); `error`: its error object exactly (`details.targets` as in its 400), null when valid.
- `problems`: every problem of the request as a whole; `targets`: every target, in request
  order, with all of its problems and its text length and limit as its platform counts them
  (the create stops at its first error; this reports them all).
- `approval_required`: the publish would wait as `pending_approval` (a member's key in a team
  that requires approval).
- `warnings`: the create's duplicate-content warnings (see the create), `[]` when none. In a
  team that blocks duplicates each is also a `DUPLICATE_CONTENT` problem of its target, and
  the create's answer is the 409.

A create can still fail after a valid answer if something changes in between (an account
expires, the quota is used up by another request). Malformed JSON is a 400 here as anywhere."""


_BULK_DESCRIPTION = f"""\
Creates up to {bulk.MAX_ROWS} publishes in one request, all of them or none. Each row is a
create body (`POST /publishes`), `publish_mode: queue` included.

- JSON: `{{"publishes": [<create body>, ...], "dry_run": false}}`.
- CSV (`Content-Type: text/csv`, RFC 4180, UTF-8, a header row): columns `content`,
  `account_ids` (space-separated), `publish_mode`, `scheduled_at`, `media_ids`
  (space-separated); an empty cell is a field not given, another column is a 400. Add
  `?dry_run=true` for a dry run.

Every row is checked first, as the create checks one. When any row would be refused, nothing
is created: 400 `INVALID_ROWS` with `error.details.rows = [{{"index", "problems"}}]`, the problem
objects of `POST /publishes/validate` (a target's field named like `targets[0].content`).
Otherwise 201 with the publishes in row order and `warnings`: the duplicate-content warnings of
`POST /publishes`, each with its row's `index` (`[]` when none). Rows see the rows before them:
queued rows take successive slots, and a row repeating an earlier row's text to the same account
is warned of (refused, in a team that blocks duplicates). `dry_run: true` answers 200 with each
row's verdict (the validate answer, with its `index`) and `meta.valid`/`meta.status` for the
whole batch, and creates nothing.

Every row submitted (not a draft) counts against `posts_per_month`: a batch over what is left
is a 429 and creates nothing. The rate limit counts the request as one create. An
`Idempotency-Key` covers the whole batch: a repeat replays the first answer. The body is at
most 1 MB."""

_BULK_EXAMPLE = OpenApiExample(
    "Two posts, one queued",
    request_only=True,
    media_type="application/json",
    value={
        "publishes": [
            {"content": "Monday tip", "targets": [{"account_id": "0193a6c0-1111-7aaa-8bbb-000000000001"}]},
            {
                "content": "Into the next free slot",
                "targets": [{"account_id": "0193a6c0-1111-7aaa-8bbb-000000000001"}],
                "publish_mode": "queue",
            },
        ],
        "dry_run": False,
    },
)

_BULK_CSV_EXAMPLE = OpenApiExample(
    "The same as CSV",
    request_only=True,
    media_type="text/csv",
    value=(
        "content,account_ids,publish_mode,scheduled_at,media_ids\r\n"
        "Monday tip,0193a6c0-1111-7aaa-8bbb-000000000001,,,\r\n"
        '"Into the next free slot, again",0193a6c0-1111-7aaa-8bbb-000000000001,queue,,\r\n'
    ),
)


def _bulk_bodies(request: Request) -> tuple[list[Any], bool]:
    """The batch's create bodies and whether it is a dry run."""
    query = validated(BulkQuerySerializer(data=request.query_params))
    if (request.content_type or "").split(";")[0].strip().lower() == "text/csv":
        return bulk.bodies_from_csv(request.data), query["dry_run"]  # type: ignore[arg-type]  # the CSV parser's dict
    data = validated(BulkCreateEnvelope(data=request.data))
    return data["publishes"], data["dry_run"] or query["dry_run"]


def _bulk_create(bodies: list[Any], caller: Caller, record: IdempotencyKey | None = None) -> dict[str, Any]:
    answer: dict[str, Any] = {}

    def finish(publishes: list[Publish]) -> None:
        answer["data"] = [publish_data(publish) for publish in publishes]
        answer["warnings"] = [
            {**warning.as_dict(), "index": index}
            for index, publish in enumerate(publishes)
            for warning in publish.duplicate_warnings
        ]
        if record is not None:
            idempotency.idempotency_finish(record=record, status=status.HTTP_201_CREATED, body=answer)

    bulk.create_rows(bodies, team=caller.team, caller=_caller(caller), finish=finish)
    return answer


class PublishViewSet(viewsets.GenericViewSet[Publish]):
    required_scopes = {
        "list": "posts:read",
        "retrieve": "posts:read",
        "create": "posts:write",
        "partial_update": "posts:write",
        "destroy": "posts:write",
        "retry": "posts:write",
        "unpublish": "posts:write",
        "confirm": "posts:write",
        "reschedule": "posts:write",
        "unschedule": "posts:write",
        "approve": "posts:write",
        "reject": "posts:write",
        "validate_create": "posts:write",
        "bulk": "posts:write",
    }
    serializer_class = PublishSerializer
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]

    @property
    def throttle_scope(self) -> str:
        # A batch counts as one create against the rate limit (its rows count against the quota).
        return {"create": "create_publish", "bulk": "create_publish", "retry": "retry"}.get(
            self.action or "", "default"
        )

    @api_operation(
        scope="posts:write",
        summary="Create a publish",
        description=_CREATE_DESCRIPTION,
        request=CreatePublishSerializer,
        parameters=[_IDEMPOTENCY_HEADER],
        examples=[_EXAMPLE],
        responses={201: OpenApiResponse(PublishCreatedResponse)},
        errors=(400, 409, 503),
    )
    def create(self, request: Request) -> Response:
        caller = get_caller(request)
        key = request.headers.get("Idempotency-Key")
        if key is None:
            with _uncertain_is_503():
                publish = self._create(request, caller)
            return Response(_created_body(publish), status=status.HTTP_201_CREATED)
        record = idempotency.idempotency_begin(team=caller.team, key=key, digest=idempotency.body_hash(request.data))
        if record.state == "done":
            return Response(record.response_body, status=record.response_status)
        with _uncertain_is_503():
            if record.publish_id is None:
                publish = self._create_keyed(request, caller, record)
            else:  # a repeat after a 503: the same publish's jobs, handed over again
                publish = handover.publish_send_jobs(team=caller.team, publish_id=record.publish_id)
        response = Response(_created_body(publish), status=status.HTTP_201_CREATED)
        idempotency.idempotency_finish(record=record, status=response.status_code, body=response.data)
        return response

    def _create(self, request: Request, caller: Caller, record: IdempotencyKey | None = None) -> Publish:
        data = validated(CreatePublishSerializer(data=request.data))
        return lifecycle.publish_create(**_create_arguments(data, caller), idempotency_key=record)

    def _create_keyed(self, request: Request, caller: Caller, record: IdempotencyKey) -> Publish:
        try:
            return self._create(request, caller, record)
        except handover.PublishDispatchUncertain:
            raise  # committed, the key pointing at the publish: a repeat hands its jobs over
        except Exception:
            idempotency.idempotency_abandon(record=record)
            raise

    @api_operation(
        scope="posts:write",
        summary="Validate a create without creating",
        description=_VALIDATE_DESCRIPTION,
        request=CreatePublishSerializer,
        examples=[_EXAMPLE],
        responses={200: OpenApiResponse(ValidationResponse)},
    )
    @action(detail=False, methods=["post"], url_path="validate")
    def validate_create(self, request: Request) -> Response:
        caller = get_caller(request)
        try:
            data = validated(CreatePublishSerializer(data=request.data))
        except ValidationError as exc:
            return Response({"data": bulk.invalid_body(exc)})
        return Response({"data": bulk.validation_body(checks.publish_check(**_create_arguments(data, caller)))})

    @api_operation(
        scope="posts:write",
        summary="Create many publishes at once",
        description=_BULK_DESCRIPTION,
        request={"application/json": BulkCreateSerializer, "text/csv": OpenApiTypes.STR},
        parameters=[_IDEMPOTENCY_HEADER, BulkQuerySerializer],
        examples=[_BULK_EXAMPLE, _BULK_CSV_EXAMPLE],
        responses={201: OpenApiResponse(BulkResponse), 200: OpenApiResponse(BulkDryRunResponse)},
        errors=(400, 409, 413),
    )
    @action(detail=False, methods=["post"], url_path="bulk", parser_classes=[BoundedJSONParser, BoundedCSVParser])
    def bulk(self, request: Request) -> Response:
        caller = get_caller(request)
        bodies, dry_run = _bulk_bodies(request)
        bulk.check_row_count(bodies)
        if dry_run:
            return Response(bulk.dry_run(bodies, team=caller.team, caller=_caller(caller)))
        key = request.headers.get("Idempotency-Key")
        if key is None:
            return Response(_bulk_create(bodies, caller), status=status.HTTP_201_CREATED)
        digest = idempotency.body_hash({"publishes": bodies})
        record = idempotency.idempotency_begin(team=caller.team, key=key, digest=digest)
        if record.state == "done":
            return Response(record.response_body, status=record.response_status)
        try:
            answer = _bulk_create(bodies, caller, record)
        except Exception:
            idempotency.idempotency_abandon(record=record)
            raise
        return Response(answer, status=status.HTTP_201_CREATED)

    @api_operation(
        scope="posts:read",
        summary="List publishes",
        description="The team's publishes, newest first, with their targets.",
        parameters=[PublishFilterSerializer],
        responses={200: PublishSerializer(many=True)},
        errors=(400,),
    )
    def list(self, request: Request) -> Response:
        filters = validated(PublishFilterSerializer(data=request.query_params))
        page = self.paginate_queryset(publishes_matching(team=get_caller(request).team, **filters))
        return self.get_paginated_response(publishes_data(page))

    @api_operation(
        scope="posts:read",
        summary="Get a publish",
        description="The publish with every target's status, platform post id, live URL and failure evidence.",
        responses={200: OpenApiResponse(PublishResponse)},
        errors=(404,),
    )
    def retrieve(self, request: Request, pk: str) -> Response:
        publish = publish_by_id(team=get_caller(request).team, publish_id=pk)
        if publish is None:
            raise NotFound("No such publish.", code="PUBLISH_NOT_FOUND")
        return Response({"data": publish_data(publish)})

    @api_operation(
        scope="posts:write",
        summary="Edit a draft or scheduled publish",
        description=(
            "Edits an unconfirmed draft or a scheduled publish not yet sent, in place (same id). Omitted "
            "fields keep their values; `targets`, when given, is the complete set (kept targets keep omitted "
            "fields); top-level `media_ids` replaces the media of kept targets unless an entry gives its own. "
            "A scheduled publish keeps its time (move it with /reschedule). In a team that requires approval, "
            "a member's edit of a submitted publish (approved or not, whoever submitted it) waits for approval "
            "again (`approval_status: pending_approval`, event `post.pending_approval`) and nothing of it is "
            "sent before. 400 with no editable field, an "
            "invalid account or media; 422 `NOT_EDITABLE` in any other state, or for media the platform "
            "does not take."
        ),
        request=UpdatePublishSerializer,
        responses={200: OpenApiResponse(PublishResponse)},
        errors=(400, 404, 422),
    )
    def partial_update(self, request: Request, pk: str) -> Response:
        # Not partial=True: that would also make each target's account_id optional.
        changes = update_changes(validated(UpdatePublishSerializer(data=request.data)))
        caller = get_caller(request)
        publish = lifecycle.publish_update(team=caller.team, publish_id=pk, changes=changes, caller=_caller(caller))
        return Response({"data": _shape(publish)})

    @api_operation(
        scope="posts:write",
        summary="Discard a draft",
        description="Deletes an unconfirmed draft permanently. 422 for anything else.",
        responses={200: OpenApiResponse(DiscardResponse)},
        errors=(404, 422),
    )
    def destroy(self, request: Request, pk: str) -> Response:
        publish_id = lifecycle.publish_discard(team=get_caller(request).team, publish_id=pk)
        return Response({"data": {"id": publish_id, "discarded": True}})

    @api_operation(
        scope="posts:write",
        summary="Retry failed targets",
        description=(
            "For a `failed` or `partial` publish (else 400): re-sends only the targets that failed with "
            "evidence; published targets and those whose outcome is unknown are never re-sent. Optional "
            "`targets[]` edits failed targets first: each entry names one by `target_id` (or `account_id`) and "
            "may set `content`, `media_ids`, `platform_settings`. An entry for a target that did not fail is "
            "400; media the platform does not take is 422. In a team that requires approval, a member's "
            "retry that changes what a target sends does not re-send: the publish answers "
            "`approval_status: pending_approval` and approving it re-sends the edited targets (rejecting it "
            "keeps every target's outcome). A publish waiting for that approval, or rejected, cannot be "
            "retried (400 `NOT_RETRYABLE`)."
        ),
        request=RetryPublishSerializer,
        responses={200: OpenApiResponse(PublishResponse)},
        errors=(400, 404, 422),
    )
    @action(detail=True, methods=["post"])
    def retry(self, request: Request, pk: str) -> Response:
        edits = retry_edits(validated(RetryPublishSerializer(data=request.data)))
        caller = get_caller(request)
        try:
            publish = lifecycle.publish_retry(team=caller.team, publish_id=pk, caller=_caller(caller), edits=edits)
        except handover.PublishDispatchUncertain as exc:
            publish = exc.publish  # retried: the relay sends the jobs the broker refused
        return Response({"data": _shape(publish)})

    @api_operation(
        scope="posts:write",
        summary="Take a publish's posts down",
        description=(
            "Deletes the publish's posts on their networks: every published target, or those named in "
            "`target_ids`. Answers 202 at once with the publish; each target's post is then deleted once "
            "(a delete that got no answer is read back, never sent twice blindly). When a post is gone, its "
            'target shows `removed_at` and `removed_by: "user"`, and `post.removed` fires. On X, Bluesky and '
            "Threads the thread's replies and the first comment are deleted with it (elsewhere the network "
            "removes comments with their post); replies not yet sent are not sent. A network without a delete "
            "call (TikTok, Instagram), or one that refuses, leaves the target's `removal_error` in plain words. "
            "A target already being taken down is not asked twice. 400 `UNKNOWN_TARGET` for an id not of this "
            "publish; 409 `NOTHING_PUBLISHED` when none of the targets is published (or each is removed)."
        ),
        request=UnpublishSerializer,
        responses={202: OpenApiResponse(PublishResponse)},
        errors=(400, 404, 409),
    )
    @action(detail=True, methods=["post"])
    def unpublish(self, request: Request, pk: str) -> Response:
        body = validated(UnpublishSerializer(data=request.data))
        target_ids = [str(i) for i in body["target_ids"]] if "target_ids" in body else None
        caller = get_caller(request)
        try:
            publish = lifecycle.publish_unpublish(team=caller.team, publish_id=pk, target_ids=target_ids)
        except handover.PublishDispatchUncertain as exc:
            publish = exc.publish  # taken down: the relay sends the jobs the broker refused
        return Response({"data": _shape(publish)}, status=status.HTTP_202_ACCEPTED)

    @api_operation(
        scope="posts:write",
        summary="Confirm a draft",
        description=(
            "Queues an unconfirmed draft now, or schedules it when `scheduled_at` is given or already set "
            "(send `{}` to publish now). 422 `NOT_A_DRAFT` otherwise; 400 for a bad or past time. "
            "A 503 `PUBLISH_DISPATCH_UNCERTAIN` is safe to retry with the same request: the same jobs "
            "are sent again."
        ),
        request=ConfirmSerializer,
        responses={200: OpenApiResponse(PublishResponse)},
        errors=(400, 404, 422, 503),
    )
    @action(detail=True, methods=["post"])
    def confirm(self, request: Request, pk: str) -> Response:
        body = validated(ConfirmSerializer(data=request.data))
        caller = get_caller(request)
        with _uncertain_is_503():
            publish = lifecycle.publish_confirm(
                team=caller.team,
                publish_id=pk,
                caller=_caller(caller),
                scheduled_at=body.get("scheduled_at"),
            )
        return Response({"data": _shape(publish)})

    @api_operation(
        scope="posts:write",
        summary="Move a scheduled publish",
        description=(
            "A scheduled publish not yet sent moves to a new future time (400 otherwise); else 422. In a team "
            "that requires approval, a member's move waits for approval again (`approval_status: "
            "pending_approval`); moving it to the time it has changes nothing."
        ),
        request=RescheduleSerializer,
        responses={200: OpenApiResponse(PublishResponse)},
        errors=(400, 404, 422),
    )
    @action(detail=True, methods=["post"])
    def reschedule(self, request: Request, pk: str) -> Response:
        body = validated(RescheduleSerializer(data=request.data))
        caller = get_caller(request)
        publish = lifecycle.publish_reschedule(
            team=caller.team, publish_id=pk, scheduled_at=body["scheduled_at"], caller=_caller(caller)
        )
        return Response({"data": _shape(publish)})

    @api_operation(
        scope="posts:write",
        summary="Unschedule a publish",
        description=(
            "A scheduled publish not yet sent becomes an unconfirmed draft (same id, content, media and "
            "targets; its time is cleared, and its approval, pending or given, is withdrawn: confirming "
            "again decides it afresh). 422 otherwise."
        ),
        request=None,
        responses={200: OpenApiResponse(PublishResponse)},
        errors=(404, 422),
    )
    @action(detail=True, methods=["post"])
    def unschedule(self, request: Request, pk: str) -> Response:
        publish = lifecycle.publish_unschedule(team=get_caller(request).team, publish_id=pk)
        return Response({"data": _shape(publish)})

    @api_operation(
        scope="posts:write",
        summary="Approve a pending publish",
        description=(
            "Owners and admins of the team only (404 for anyone else). Releases the publish (a scheduled one "
            "at its time) and records approved_by/approved_at. Approving again answers "
            "`already_approved: true` and re-sends only jobs that never reached the queue. 400 when it is "
            "not pending approval; 503 `PUBLISH_DISPATCH_UNCERTAIN` when the queue did not take the jobs "
            "(approve again to re-send them)."
        ),
        request=None,
        responses={200: OpenApiResponse(ApproveResponse)},
        errors=(400, 404, 503),
    )
    @action(detail=True, methods=["post"])
    def approve(self, request: Request, pk: str) -> Response:
        caller = get_caller(request)
        with _uncertain_is_503():
            publish, already = approval.publish_approve(team=caller.team, publish_id=pk, caller=_caller(caller))
        return Response({"data": {**_shape(publish), "already_approved": already}, "already_approved": already})

    @api_operation(
        scope="posts:write",
        summary="Reject a pending publish",
        description=(
            "Owners and admins of the team only (404 for anyone else). Terminal: the publish is never sent. "
            "The optional reason is recorded and delivered with the `post.rejected` event. 400 when it is "
            "not pending approval."
        ),
        request=RejectSerializer,
        responses={200: OpenApiResponse(PublishResponse)},
        errors=(400, 404),
    )
    @action(detail=True, methods=["post"])
    def reject(self, request: Request, pk: str) -> Response:
        body = validated(RejectSerializer(data=request.data))
        caller = get_caller(request)
        publish = approval.publish_reject(
            team=caller.team, publish_id=pk, caller=_caller(caller), reason=body["reason"]
        )
        return Response({"data": _shape(publish)})


class ApprovalViewSet(viewsets.GenericViewSet[Publish]):
    required_scope = "posts:read"
    serializer_class = PublishSerializer

    @api_operation(
        scope="posts:read",
        summary="List publishes waiting for approval",
        description="Owners and admins see every pending publish of the team; members only their own.",
        responses={200: PublishSerializer(many=True)},
        errors=(400,),
    )
    def list(self, request: Request) -> Response:
        caller = get_caller(request)
        query = approvals_for(team=caller.team, user=None if caller.is_team_admin else caller.user)
        page = self.paginate_queryset(query)
        return self.get_paginated_response(publishes_data(page))

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.removed_by_enum import RemovedByEnum
from ..models.target_status_enum import TargetStatusEnum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.attempt import Attempt
    from ..models.first_comment import FirstComment
    from ..models.target_error_type_0 import TargetErrorType0
    from ..models.target_media_sent_type_0 import TargetMediaSentType0
    from ..models.thread_item import ThreadItem


T = TypeVar("T", bound="Target")


@_attrs_define
class Target:
    """
    Attributes:
        id (UUID):
        account_id (UUID):
        platform (str): The account's platform, kept for filters.
        status (TargetStatusEnum): * `draft` - draft
            * `scheduled` - scheduled
            * `publishing` - publishing
            * `processing` - processing
            * `published` - published
            * `failed` - failed
        outcome (str): Finer delivery state: draft, scheduled, queued, sending, processing, unknown (the platform may
            have the post; being reconciled, never re-sent), published, failed.
        platform_post_id (None | str): The platform's content id once published.
        platform_post_url (None | str): The live post's URL once published.
        error (None | TargetErrorType0): Failure evidence: the platform's or the delivery's error.
        removed_at (datetime.datetime | None): When the published post was found gone from its platform or taken down;
            null while it is there.
        removed_by (None | RemovedByEnum): Who took the post down: `user` (removed through this service) or `platform`
            (deleted on the network by its owner, or removed by moderation: noticed by a read-back or a metrics sync); null
            when not removed.
        removal_error (None | str): Why a removal that was asked for could not be done, in plain words; null when there
            is none.
        attempts (list[Attempt]):
        thread (list[ThreadItem]): The target's later posts, in order ([] when it has none); each its own reply.
        first_comment (FirstComment | None): The first comment `platform_settings.first_comment` asked for, sent once
            the post is published (a reply by the same account on X, Bluesky and Threads; a comment elsewhere); null when
            none.
        media_sent (None | TargetMediaSentType0): The files the last attempt sent: each upload, or the rendition fitted
            to the platform that went in its place (`rendition` names it; null: the upload as it is). Null before any
            attempt.
        updated_at (datetime.datetime):
        content (None | str | Unset):
        media_ids (Any | Unset):
        platform_settings (Any | Unset):
        attempt_count (int | Unset):
        published_at (datetime.datetime | None | Unset):
    """

    id: UUID
    account_id: UUID
    platform: str
    status: TargetStatusEnum
    outcome: str
    platform_post_id: None | str
    platform_post_url: None | str
    error: None | TargetErrorType0
    removed_at: datetime.datetime | None
    removed_by: None | RemovedByEnum
    removal_error: None | str
    attempts: list[Attempt]
    thread: list[ThreadItem]
    first_comment: FirstComment | None
    media_sent: None | TargetMediaSentType0
    updated_at: datetime.datetime
    content: None | str | Unset = UNSET
    media_ids: Any | Unset = UNSET
    platform_settings: Any | Unset = UNSET
    attempt_count: int | Unset = UNSET
    published_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.first_comment import FirstComment
        from ..models.target_error_type_0 import TargetErrorType0
        from ..models.target_media_sent_type_0 import TargetMediaSentType0

        id = str(self.id)

        account_id = str(self.account_id)

        platform = self.platform

        status = self.status.value

        outcome = self.outcome

        platform_post_id: None | str
        platform_post_id = self.platform_post_id

        platform_post_url: None | str
        platform_post_url = self.platform_post_url

        error: dict[str, Any] | None
        if isinstance(self.error, TargetErrorType0):
            error = self.error.to_dict()
        else:
            error = self.error

        removed_at: None | str
        if isinstance(self.removed_at, datetime.datetime):
            removed_at = self.removed_at.isoformat()
        else:
            removed_at = self.removed_at

        removed_by: None | str
        if isinstance(self.removed_by, RemovedByEnum):
            removed_by = self.removed_by.value
        else:
            removed_by = self.removed_by

        removal_error: None | str
        removal_error = self.removal_error

        attempts = []
        for attempts_item_data in self.attempts:
            attempts_item = attempts_item_data.to_dict()
            attempts.append(attempts_item)

        thread = []
        for thread_item_data in self.thread:
            thread_item = thread_item_data.to_dict()
            thread.append(thread_item)

        first_comment: dict[str, Any] | None
        if isinstance(self.first_comment, FirstComment):
            first_comment = self.first_comment.to_dict()
        else:
            first_comment = self.first_comment

        media_sent: dict[str, Any] | None
        if isinstance(self.media_sent, TargetMediaSentType0):
            media_sent = self.media_sent.to_dict()
        else:
            media_sent = self.media_sent

        updated_at = self.updated_at.isoformat()

        content: None | str | Unset
        if isinstance(self.content, Unset):
            content = UNSET
        else:
            content = self.content

        media_ids = self.media_ids

        platform_settings = self.platform_settings

        attempt_count = self.attempt_count

        published_at: None | str | Unset
        if isinstance(self.published_at, Unset):
            published_at = UNSET
        elif isinstance(self.published_at, datetime.datetime):
            published_at = self.published_at.isoformat()
        else:
            published_at = self.published_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "account_id": account_id,
                "platform": platform,
                "status": status,
                "outcome": outcome,
                "platform_post_id": platform_post_id,
                "platform_post_url": platform_post_url,
                "error": error,
                "removed_at": removed_at,
                "removed_by": removed_by,
                "removal_error": removal_error,
                "attempts": attempts,
                "thread": thread,
                "first_comment": first_comment,
                "media_sent": media_sent,
                "updated_at": updated_at,
            }
        )
        if content is not UNSET:
            field_dict["content"] = content
        if media_ids is not UNSET:
            field_dict["media_ids"] = media_ids
        if platform_settings is not UNSET:
            field_dict["platform_settings"] = platform_settings
        if attempt_count is not UNSET:
            field_dict["attempt_count"] = attempt_count
        if published_at is not UNSET:
            field_dict["published_at"] = published_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.attempt import Attempt
        from ..models.first_comment import FirstComment
        from ..models.target_error_type_0 import TargetErrorType0
        from ..models.target_media_sent_type_0 import TargetMediaSentType0
        from ..models.thread_item import ThreadItem

        d = dict(src_dict)
        id = UUID(d.pop("id"))

        account_id = UUID(d.pop("account_id"))

        platform = d.pop("platform")

        status = TargetStatusEnum(d.pop("status"))

        outcome = d.pop("outcome")

        def _parse_platform_post_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        platform_post_id = _parse_platform_post_id(d.pop("platform_post_id"))

        def _parse_platform_post_url(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        platform_post_url = _parse_platform_post_url(d.pop("platform_post_url"))

        def _parse_error(data: object) -> None | TargetErrorType0:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_0 = TargetErrorType0.from_dict(data)

                return error_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TargetErrorType0, data)

        error = _parse_error(d.pop("error"))

        def _parse_removed_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                removed_at_type_0 = datetime.datetime.fromisoformat(data)

                return removed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        removed_at = _parse_removed_at(d.pop("removed_at"))

        def _parse_removed_by(data: object) -> None | RemovedByEnum:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                removed_by_type_1 = RemovedByEnum(data)

                return removed_by_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RemovedByEnum, data)

        removed_by = _parse_removed_by(d.pop("removed_by"))

        def _parse_removal_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        removal_error = _parse_removal_error(d.pop("removal_error"))

        attempts = []
        _attempts = d.pop("attempts")
        for attempts_item_data in _attempts:
            attempts_item = Attempt.from_dict(attempts_item_data)

            attempts.append(attempts_item)

        thread = []
        _thread = d.pop("thread")
        for thread_item_data in _thread:
            thread_item = ThreadItem.from_dict(thread_item_data)

            thread.append(thread_item)

        def _parse_first_comment(data: object) -> FirstComment | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                first_comment_type_1 = FirstComment.from_dict(data)

                return first_comment_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FirstComment | None, data)

        first_comment = _parse_first_comment(d.pop("first_comment"))

        def _parse_media_sent(data: object) -> None | TargetMediaSentType0:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                media_sent_type_0 = TargetMediaSentType0.from_dict(data)

                return media_sent_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TargetMediaSentType0, data)

        media_sent = _parse_media_sent(d.pop("media_sent"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        def _parse_content(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        content = _parse_content(d.pop("content", UNSET))

        media_ids = d.pop("media_ids", UNSET)

        platform_settings = d.pop("platform_settings", UNSET)

        attempt_count = d.pop("attempt_count", UNSET)

        def _parse_published_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                published_at_type_0 = datetime.datetime.fromisoformat(data)

                return published_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        published_at = _parse_published_at(d.pop("published_at", UNSET))

        target = cls(
            id=id,
            account_id=account_id,
            platform=platform,
            status=status,
            outcome=outcome,
            platform_post_id=platform_post_id,
            platform_post_url=platform_post_url,
            error=error,
            removed_at=removed_at,
            removed_by=removed_by,
            removal_error=removal_error,
            attempts=attempts,
            thread=thread,
            first_comment=first_comment,
            media_sent=media_sent,
            updated_at=updated_at,
            content=content,
            media_ids=media_ids,
            platform_settings=platform_settings,
            attempt_count=attempt_count,
            published_at=published_at,
        )

        target.additional_properties = d
        return target

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties

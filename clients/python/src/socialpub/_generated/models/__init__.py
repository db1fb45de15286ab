"""Contains all the data models used in inputs/outputs"""

from .account import Account
from .account_capabilities import AccountCapabilities
from .account_capabilities_first_comment import AccountCapabilitiesFirstComment
from .account_capabilities_formats import AccountCapabilitiesFormats
from .account_capabilities_formats_images import AccountCapabilitiesFormatsImages
from .account_capabilities_formats_videos import AccountCapabilitiesFormatsVideos
from .account_capabilities_formats_videos_aspect_ratio_type_0 import (
    AccountCapabilitiesFormatsVideosAspectRatioType0,
)
from .account_capabilities_limits import AccountCapabilitiesLimits
from .account_capabilities_limits_images import AccountCapabilitiesLimitsImages
from .account_capabilities_limits_text import AccountCapabilitiesLimitsText
from .account_capabilities_limits_title import AccountCapabilitiesLimitsTitle
from .account_capabilities_limits_videos import AccountCapabilitiesLimitsVideos
from .account_capabilities_live import AccountCapabilitiesLive
from .account_capabilities_live_error_type_0 import AccountCapabilitiesLiveErrorType0
from .account_capabilities_object import AccountCapabilitiesObject
from .account_capabilities_object_images import AccountCapabilitiesObjectImages
from .account_capabilities_object_text import AccountCapabilitiesObjectText
from .account_capabilities_object_title import AccountCapabilitiesObjectTitle
from .account_capabilities_object_videos import AccountCapabilitiesObjectVideos
from .account_capabilities_platform_settings_schema import (
    AccountCapabilitiesPlatformSettingsSchema,
)
from .account_capabilities_response import AccountCapabilitiesResponse
from .account_capabilities_unpublish import AccountCapabilitiesUnpublish
from .account_disconnected_response import AccountDisconnectedResponse
from .account_response import AccountResponse
from .account_status_enum import AccountStatusEnum
from .analytics_post import AnalyticsPost
from .analytics_post_detail import AnalyticsPostDetail
from .analytics_post_response import AnalyticsPostResponse
from .analytics_posts_list_order import AnalyticsPostsListOrder
from .analytics_posts_list_sort import AnalyticsPostsListSort
from .approval_status_enum import ApprovalStatusEnum
from .approve import Approve
from .approve_response import ApproveResponse
from .attempt import Attempt
from .attempt_state_enum import AttemptStateEnum
from .blank_enum import BlankEnum
from .branding import Branding
from .branding_input_request import BrandingInputRequest
from .bulk_create_request import BulkCreateRequest
from .bulk_dry_run_response import BulkDryRunResponse
from .bulk_meta import BulkMeta
from .bulk_response import BulkResponse
from .bulk_verdict import BulkVerdict
from .bulk_warning import BulkWarning
from .confirm_request import ConfirmRequest
from .connect_link import ConnectLink
from .connect_link_create_platforms_enum import ConnectLinkCreatePlatformsEnum
from .connect_link_create_request import ConnectLinkCreateRequest
from .connect_link_response import ConnectLinkResponse
from .connect_link_status_enum import ConnectLinkStatusEnum
from .content_type_enum import ContentTypeEnum
from .create_mode_enum import CreateModeEnum
from .create_publish_request import CreatePublishRequest
from .delivery_attempt import DeliveryAttempt
from .discard_response import DiscardResponse
from .discarded import Discarded
from .duplicate_warning import DuplicateWarning
from .error_object import ErrorObject
from .error_object_details import ErrorObjectDetails
from .error_response import ErrorResponse
from .events_enum import EventsEnum
from .fetch_status_enum import FetchStatusEnum
from .first_comment import FirstComment
from .first_comment_error_type_0 import FirstCommentErrorType0
from .link_account import LinkAccount
from .media import Media
from .media_confirm_request import MediaConfirmRequest
from .media_confirmed_response import MediaConfirmedResponse
from .media_create_request import MediaCreateRequest
from .media_created import MediaCreated
from .media_created_headers import MediaCreatedHeaders
from .media_created_response import MediaCreatedResponse
from .media_probe import MediaProbe
from .media_probe_error_type_0 import MediaProbeErrorType0
from .media_state_enum import MediaStateEnum
from .media_updated_response import MediaUpdatedResponse
from .media_upload import MediaUpload
from .media_upload_response import MediaUploadResponse
from .paginated_account_list import PaginatedAccountList
from .paginated_account_list_pagination import PaginatedAccountListPagination
from .paginated_analytics_post_list import PaginatedAnalyticsPostList
from .paginated_analytics_post_list_pagination import (
    PaginatedAnalyticsPostListPagination,
)
from .paginated_connect_link_list import PaginatedConnectLinkList
from .paginated_connect_link_list_pagination import PaginatedConnectLinkListPagination
from .paginated_media_list import PaginatedMediaList
from .paginated_media_list_pagination import PaginatedMediaListPagination
from .paginated_publish_list import PaginatedPublishList
from .paginated_publish_list_pagination import PaginatedPublishListPagination
from .paginated_team_key_list import PaginatedTeamKeyList
from .paginated_team_key_list_pagination import PaginatedTeamKeyListPagination
from .paginated_webhook_delivery_list import PaginatedWebhookDeliveryList
from .paginated_webhook_delivery_list_pagination import (
    PaginatedWebhookDeliveryListPagination,
)
from .patched_media_update_request import PatchedMediaUpdateRequest
from .patched_update_publish_request import PatchedUpdatePublishRequest
from .platform_enum import PlatformEnum
from .platform_metrics import PlatformMetrics
from .platform_metrics_platform_specific_data import PlatformMetricsPlatformSpecificData
from .post_totals import PostTotals
from .posting_schedule import PostingSchedule
from .posting_schedule_input_request import PostingScheduleInputRequest
from .posting_schedule_response import PostingScheduleResponse
from .preflight import Preflight
from .preflight_problem import PreflightProblem
from .problem import Problem
from .publish import Publish
from .publish_created_response import PublishCreatedResponse
from .publish_mode_enum import PublishModeEnum
from .publish_response import PublishResponse
from .publish_status_enum import PublishStatusEnum
from .reject_request import RejectRequest
from .removed_by_enum import RemovedByEnum
from .reschedule_request import RescheduleRequest
from .retry_publish_request import RetryPublishRequest
from .retry_target_request import RetryTargetRequest
from .retry_target_request_platform_settings_type_0 import (
    RetryTargetRequestPlatformSettingsType0,
)
from .rotated_secret_request import RotatedSecretRequest
from .schedule_slot import ScheduleSlot
from .schedule_slot_request import ScheduleSlotRequest
from .scopes_enum import ScopesEnum
from .secret_rotation import SecretRotation
from .subscription import Subscription
from .subscription_create_request import SubscriptionCreateRequest
from .subscription_created import SubscriptionCreated
from .subscription_created_health import SubscriptionCreatedHealth
from .subscription_health import SubscriptionHealth
from .target import Target
from .target_error_type_0 import TargetErrorType0
from .target_input_request import TargetInputRequest
from .target_input_request_platform_settings_type_0 import (
    TargetInputRequestPlatformSettingsType0,
)
from .target_media_sent_type_0 import TargetMediaSentType0
from .target_metrics import TargetMetrics
from .target_status_enum import TargetStatusEnum
from .target_validation import TargetValidation
from .team import Team
from .team_create_request import TeamCreateRequest
from .team_created_response import TeamCreatedResponse
from .team_default_response import TeamDefaultResponse
from .team_delete_request import TeamDeleteRequest
from .team_deleted import TeamDeleted
from .team_deleted_moved import TeamDeletedMoved
from .team_deleted_removed import TeamDeletedRemoved
from .team_deleted_response import TeamDeletedResponse
from .team_key import TeamKey
from .team_key_create_request import TeamKeyCreateRequest
from .team_key_created import TeamKeyCreated
from .team_key_created_response import TeamKeyCreatedResponse
from .team_list_response import TeamListResponse
from .thread_item import ThreadItem
from .thread_item_error_type_0 import ThreadItemErrorType0
from .thread_item_input_request import ThreadItemInputRequest
from .unpublish_request import UnpublishRequest
from .usage import Usage
from .usage_counters import UsageCounters
from .usage_limits import UsageLimits
from .usage_period import UsagePeriod
from .usage_plan import UsagePlan
from .usage_response import UsageResponse
from .user_ref import UserRef
from .validation_response import ValidationResponse
from .validation_result import ValidationResult
from .warning_code_enum import WarningCodeEnum
from .webhook_created_response import WebhookCreatedResponse
from .webhook_deleted import WebhookDeleted
from .webhook_deleted_response import WebhookDeletedResponse
from .webhook_delivery import WebhookDelivery
from .webhook_delivery_detail import WebhookDeliveryDetail
from .webhook_delivery_detail_payload import WebhookDeliveryDetailPayload
from .webhook_delivery_response import WebhookDeliveryResponse
from .webhook_delivery_status_enum import WebhookDeliveryStatusEnum
from .webhook_enabled_response import WebhookEnabledResponse
from .webhook_list_response import WebhookListResponse
from .webhook_redelivery_response import WebhookRedeliveryResponse
from .webhook_response import WebhookResponse
from .webhook_secret_rotation_response import WebhookSecretRotationResponse
from .webhook_test_response import WebhookTestResponse
from .weekday_enum import WeekdayEnum

__all__ = (
    "Account",
    "AccountCapabilities",
    "AccountCapabilitiesFirstComment",
    "AccountCapabilitiesFormats",
    "AccountCapabilitiesFormatsImages",
    "AccountCapabilitiesFormatsVideos",
    "AccountCapabilitiesFormatsVideosAspectRatioType0",
    "AccountCapabilitiesLimits",
    "AccountCapabilitiesLimitsImages",
    "AccountCapabilitiesLimitsText",
    "AccountCapabilitiesLimitsTitle",
    "AccountCapabilitiesLimitsVideos",
    "AccountCapabilitiesLive",
    "AccountCapabilitiesLiveErrorType0",
    "AccountCapabilitiesObject",
    "AccountCapabilitiesObjectImages",
    "AccountCapabilitiesObjectText",
    "AccountCapabilitiesObjectTitle",
    "AccountCapabilitiesObjectVideos",
    "AccountCapabilitiesPlatformSettingsSchema",
    "AccountCapabilitiesResponse",
    "AccountCapabilitiesUnpublish",
    "AccountDisconnectedResponse",
    "AccountResponse",
    "AccountStatusEnum",
    "AnalyticsPost",
    "AnalyticsPostDetail",
    "AnalyticsPostResponse",
    "AnalyticsPostsListOrder",
    "AnalyticsPostsListSort",
    "ApprovalStatusEnum",
    "Approve",
    "ApproveResponse",
    "Attempt",
    "AttemptStateEnum",
    "BlankEnum",
    "Branding",
    "BrandingInputRequest",
    "BulkCreateRequest",
    "BulkDryRunResponse",
    "BulkMeta",
    "BulkResponse",
    "BulkVerdict",
    "BulkWarning",
    "ConfirmRequest",
    "ConnectLink",
    "ConnectLinkCreatePlatformsEnum",
    "ConnectLinkCreateRequest",
    "ConnectLinkResponse",
    "ConnectLinkStatusEnum",
    "ContentTypeEnum",
    "CreateModeEnum",
    "CreatePublishRequest",
    "DeliveryAttempt",
    "DiscardResponse",
    "Discarded",
    "DuplicateWarning",
    "ErrorObject",
    "ErrorObjectDetails",
    "ErrorResponse",
    "EventsEnum",
    "FetchStatusEnum",
    "FirstComment",
    "FirstCommentErrorType0",
    "LinkAccount",
    "Media",
    "MediaConfirmRequest",
    "MediaConfirmedResponse",
    "MediaCreateRequest",
    "MediaCreated",
    "MediaCreatedHeaders",
    "MediaCreatedResponse",
    "MediaProbe",
    "MediaProbeErrorType0",
    "MediaStateEnum",
    "MediaUpdatedResponse",
    "MediaUpload",
    "MediaUploadResponse",
    "PaginatedAccountList",
    "PaginatedAccountListPagination",
    "PaginatedAnalyticsPostList",
    "PaginatedAnalyticsPostListPagination",
    "PaginatedConnectLinkList",
    "PaginatedConnectLinkListPagination",
    "PaginatedMediaList",
    "PaginatedMediaListPagination",
    "PaginatedPublishList",
    "PaginatedPublishListPagination",
    "PaginatedTeamKeyList",
    "PaginatedTeamKeyListPagination",
    "PaginatedWebhookDeliveryList",
    "PaginatedWebhookDeliveryListPagination",
    "PatchedMediaUpdateRequest",
    "PatchedUpdatePublishRequest",
    "PlatformEnum",
    "PlatformMetrics",
    "PlatformMetricsPlatformSpecificData",
    "PostTotals",
    "PostingSchedule",
    "PostingScheduleInputRequest",
    "PostingScheduleResponse",
    "Preflight",
    "PreflightProblem",
    "Problem",
    "Publish",
    "PublishCreatedResponse",
    "PublishModeEnum",
    "PublishResponse",
    "PublishStatusEnum",
    "RejectRequest",
    "RemovedByEnum",
    "RescheduleRequest",
    "RetryPublishRequest",
    "RetryTargetRequest",
    "RetryTargetRequestPlatformSettingsType0",
    "RotatedSecretRequest",
    "ScheduleSlot",
    "ScheduleSlotRequest",
    "ScopesEnum",
    "SecretRotation",
    "Subscription",
    "SubscriptionCreateRequest",
    "SubscriptionCreated",
    "SubscriptionCreatedHealth",
    "SubscriptionHealth",
    "Target",
    "TargetErrorType0",
    "TargetInputRequest",
    "TargetInputRequestPlatformSettingsType0",
    "TargetMediaSentType0",
    "TargetMetrics",
    "TargetStatusEnum",
    "TargetValidation",
    "Team",
    "TeamCreateRequest",
    "TeamCreatedResponse",
    "TeamDefaultResponse",
    "TeamDeleteRequest",
    "TeamDeleted",
    "TeamDeletedMoved",
    "TeamDeletedRemoved",
    "TeamDeletedResponse",
    "TeamKey",
    "TeamKeyCreateRequest",
    "TeamKeyCreated",
    "TeamKeyCreatedResponse",
    "TeamListResponse",
    "ThreadItem",
    "ThreadItemErrorType0",
    "ThreadItemInputRequest",
    "UnpublishRequest",
    "Usage",
    "UsageCounters",
    "UsageLimits",
    "UsagePeriod",
    "UsagePlan",
    "UsageResponse",
    "UserRef",
    "ValidationResponse",
    "ValidationResult",
    "WarningCodeEnum",
    "WebhookCreatedResponse",
    "WebhookDeleted",
    "WebhookDeletedResponse",
    "WebhookDelivery",
    "WebhookDeliveryDetail",
    "WebhookDeliveryDetailPayload",
    "WebhookDeliveryResponse",
    "WebhookDeliveryStatusEnum",
    "WebhookEnabledResponse",
    "WebhookListResponse",
    "WebhookRedeliveryResponse",
    "WebhookResponse",
    "WebhookSecretRotationResponse",
    "WebhookTestResponse",
    "WeekdayEnum",
)

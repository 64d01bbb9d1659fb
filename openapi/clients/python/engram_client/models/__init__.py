"""Contains all the data models used in inputs/outputs"""

from .append_request import AppendRequest
from .append_response import AppendResponse
from .attempt_out import AttemptOut
from .audit_event_out import AuditEventOut
from .audit_event_out_ids import AuditEventOutIds
from .audit_settings import AuditSettings
from .audit_settings_out import AuditSettingsOut
from .counts import Counts
from .delivery_detail import DeliveryDetail
from .delivery_detail_payload import DeliveryDetailPayload
from .delivery_detail_status import DeliveryDetailStatus
from .delivery_out import DeliveryOut
from .delivery_out_payload import DeliveryOutPayload
from .delivery_out_status import DeliveryOutStatus
from .endpoint_create import EndpointCreate
from .endpoint_create_events_item import EndpointCreateEventsItem
from .endpoint_created import EndpointCreated
from .endpoint_out import EndpointOut
from .extract_accepted import ExtractAccepted
from .extraction_state import ExtractionState
from .fact_event_out import FactEventOut
from .fact_in import FactIn
from .fact_in_metadata import FactInMetadata
from .fact_kind import FactKind
from .fact_out import FactOut
from .fact_out_metadata import FactOutMetadata
from .fact_patch import FactPatch
from .fact_patch_metadata_type_0 import FactPatchMetadataType0
from .fact_ref import FactRef
from .fact_ref_metadata import FactRefMetadata
from .failed_item import FailedItem
from .filters import Filters
from .filters_metadata_type_0 import FiltersMetadataType0
from .healthz_response_healthz import HealthzResponseHealthz
from .import_result import ImportResult
from .indexing_state import IndexingState
from .indexing_status import IndexingStatus
from .job_state import JobState
from .key_create import KeyCreate
from .key_created import KeyCreated
from .key_out import KeyOut
from .kind import Kind
from .list_deliveries_status_type_0 import ListDeliveriesStatusType0
from .memory_out import MemoryOut
from .message_in import MessageIn
from .message_in_metadata import MessageInMetadata
from .message_out import MessageOut
from .message_out_metadata import MessageOutMetadata
from .message_patch import MessagePatch
from .message_patch_metadata_type_0 import MessagePatchMetadataType0
from .mode import Mode
from .omitted import Omitted
from .order import Order
from .page_audit_event_out import PageAuditEventOut
from .page_delivery_out import PageDeliveryOut
from .page_endpoint_out import PageEndpointOut
from .page_fact_event_out import PageFactEventOut
from .page_fact_out import PageFactOut
from .page_failed_item import PageFailedItem
from .page_key_out import PageKeyOut
from .page_message_out import PageMessageOut
from .page_session_out import PageSessionOut
from .page_summary_out import PageSummaryOut
from .page_tenant_out import PageTenantOut
from .page_user_out import PageUserOut
from .problem import Problem
from .problem_errors_type_0_item import ProblemErrorsType0Item
from .recency import Recency
from .retry_request import RetryRequest
from .retry_result import RetryResult
from .role import Role
from .score_parts import ScoreParts
from .search_hit import SearchHit
from .search_hit_metadata import SearchHitMetadata
from .search_request import SearchRequest
from .search_response import SearchResponse
from .search_response_mode import SearchResponseMode
from .session_create import SessionCreate
from .session_create_metadata import SessionCreateMetadata
from .session_out import SessionOut
from .session_out_metadata import SessionOutMetadata
from .session_patch import SessionPatch
from .session_patch_metadata_type_0 import SessionPatchMetadataType0
from .session_stats import SessionStats
from .session_stats_messages_by_role import SessionStatsMessagesByRole
from .summarize_accepted import SummarizeAccepted
from .summary_out import SummaryOut
from .summary_ref import SummaryRef
from .summary_state import SummaryState
from .tenant_limits import TenantLimits
from .tenant_limits_out import TenantLimitsOut
from .tenant_out import TenantOut
from .user_out import UserOut
from .user_out_metadata import UserOutMetadata
from .user_upsert import UserUpsert
from .user_upsert_metadata import UserUpsertMetadata

__all__ = (
    "AppendRequest",
    "AppendResponse",
    "AttemptOut",
    "AuditEventOut",
    "AuditEventOutIds",
    "AuditSettings",
    "AuditSettingsOut",
    "Counts",
    "DeliveryDetail",
    "DeliveryDetailPayload",
    "DeliveryDetailStatus",
    "DeliveryOut",
    "DeliveryOutPayload",
    "DeliveryOutStatus",
    "EndpointCreate",
    "EndpointCreated",
    "EndpointCreateEventsItem",
    "EndpointOut",
    "ExtractAccepted",
    "ExtractionState",
    "FactEventOut",
    "FactIn",
    "FactInMetadata",
    "FactKind",
    "FactOut",
    "FactOutMetadata",
    "FactPatch",
    "FactPatchMetadataType0",
    "FactRef",
    "FactRefMetadata",
    "FailedItem",
    "Filters",
    "FiltersMetadataType0",
    "HealthzResponseHealthz",
    "ImportResult",
    "IndexingState",
    "IndexingStatus",
    "JobState",
    "KeyCreate",
    "KeyCreated",
    "KeyOut",
    "Kind",
    "ListDeliveriesStatusType0",
    "MemoryOut",
    "MessageIn",
    "MessageInMetadata",
    "MessageOut",
    "MessageOutMetadata",
    "MessagePatch",
    "MessagePatchMetadataType0",
    "Mode",
    "Omitted",
    "Order",
    "PageAuditEventOut",
    "PageDeliveryOut",
    "PageEndpointOut",
    "PageFactEventOut",
    "PageFactOut",
    "PageFailedItem",
    "PageKeyOut",
    "PageMessageOut",
    "PageSessionOut",
    "PageSummaryOut",
    "PageTenantOut",
    "PageUserOut",
    "Problem",
    "ProblemErrorsType0Item",
    "Recency",
    "RetryRequest",
    "RetryResult",
    "Role",
    "ScoreParts",
    "SearchHit",
    "SearchHitMetadata",
    "SearchRequest",
    "SearchResponse",
    "SearchResponseMode",
    "SessionCreate",
    "SessionCreateMetadata",
    "SessionOut",
    "SessionOutMetadata",
    "SessionPatch",
    "SessionPatchMetadataType0",
    "SessionStats",
    "SessionStatsMessagesByRole",
    "SummarizeAccepted",
    "SummaryOut",
    "SummaryRef",
    "SummaryState",
    "TenantLimits",
    "TenantLimitsOut",
    "TenantOut",
    "UserOut",
    "UserOutMetadata",
    "UserUpsert",
    "UserUpsertMetadata",
)

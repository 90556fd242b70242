//! Request and response bodies of the HTTP contract (SPEC §6). Field names are the
//! wire names (camelCase). Request bodies refuse unknown fields; the server turns them
//! into domain values at the edge. Timestamps travel as RFC 3339 strings.

use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Timestamps are RFC 3339 strings in UTC, as the server formats them.
pub type Timestamp = String;

// ---------------------------------------------------------------- public (§6.2)

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigResponse {
    /// `"clerk"` or `"local"`.
    pub identity: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub publishable_key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub identity_dev_url: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PublicNotice {
    pub version: i32,
    pub purpose: String,
    pub contact_text: String,
    pub retention_text: String,
    pub published_at: Timestamp,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PublicProgram {
    pub slug: String,
    pub signup_open: bool,
    pub notice: PublicNotice,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SignupRequest {
    pub request_key: Uuid,
    pub email: String,
    pub notice_version: i32,
    pub permission: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignupResponse {
    /// Always `"received"`: the same answer for a new and a known email.
    pub status: String,
}

// ---------------------------------------------------------------- recipient (§6.3)

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MeResponse {
    pub user_id: String,
    pub csrf_token: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InvitationStatus {
    pub state: String,
    pub expires_at: Timestamp,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnWaitlistStatus {
    pub state: String,
    pub joined_at: Timestamp,
    pub notice_version: i32,
    pub invitation: Option<InvitationStatus>,
    /// 1-based place among waiting entries of the program, while waiting.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub position: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnEntry {
    pub program_slug: String,
    pub state: String,
    pub joined_at: Timestamp,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub position: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WithdrawResponse {
    pub state: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedeemRequest {
    pub code: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RedeemResponse {
    pub program_slug: String,
    pub state: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EarlyAccessContent {
    pub slug: String,
    pub revision: i64,
    pub body: String,
}

// ---------------------------------------------------------------- owner (§6.4)

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Workspace {
    pub id: Uuid,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateProgramRequest {
    pub workspace_id: Uuid,
    pub slug: String,
    pub purpose: String,
    pub queue_cap: i32,
    pub hourly_cap: i32,
    pub seat_cap: i32,
    pub max_invite_days: i32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PatchProgramRequest {
    pub expected_revision: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signup_open: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_cap: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hourly_cap: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat_cap: Option<i32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProgramCounts {
    /// Non-withdrawn entries (what the queue cap limits).
    pub queue: i64,
    /// Admissions in the current UTC hour (what the hourly cap limits).
    pub hour: i64,
    /// Active grants plus unexpired issued invitations (what the seat cap limits).
    pub seats: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Notice {
    pub version: i32,
    pub purpose: String,
    pub contact_text: String,
    pub retention_text: String,
    pub published_at: Timestamp,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Program {
    pub id: Uuid,
    pub workspace_id: Uuid,
    pub slug: String,
    pub purpose: String,
    pub signup_open: bool,
    pub access_enabled: bool,
    pub queue_cap: i32,
    pub hourly_cap: i32,
    pub seat_cap: i32,
    pub max_invite_days: i32,
    pub revision: i64,
    pub counts: ProgramCounts,
    pub notice: Option<Notice>,
    pub has_content: bool,
    pub created_at: Timestamp,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PublishNoticeRequest {
    pub purpose: String,
    pub contact_text: String,
    pub retention_text: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EntrySummary {
    pub id: Uuid,
    pub email: String,
    pub state: String,
    pub created_at: Timestamp,
    pub notice_version: i32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EntryPage {
    pub entries: Vec<EntrySummary>,
    pub next_cursor: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Invitation {
    pub id: Uuid,
    pub state: String,
    pub issued_at: Timestamp,
    pub expires_at: Timestamp,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivery: Option<DeliveryRecord>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryRecord {
    pub recorded_at: Timestamp,
    pub channel: String,
    pub reference: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Grant {
    pub id: Uuid,
    pub active: bool,
    pub granted_at: Timestamp,
    pub revoked_at: Option<Timestamp>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditEvent {
    pub id: i64,
    #[serde(rename = "type")]
    pub kind: String,
    pub entry_id: Option<Uuid>,
    pub actor_kind: String,
    pub at: Timestamp,
    pub details: serde_json::Value,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EntryDetail {
    pub id: Uuid,
    pub email: String,
    pub state: String,
    pub created_at: Timestamp,
    /// When the applicant ticked the box for `notice` (the exact choice time).
    pub permission_at: Timestamp,
    pub notice: Notice,
    pub invitations: Vec<Invitation>,
    pub grant: Option<Grant>,
    pub events: Vec<AuditEvent>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SelectRequest {
    pub reason_code: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DeclineRequest {
    pub reason_code: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OwnerWithdrawRequest {
    pub basis: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EntryStateResponse {
    pub id: Uuid,
    pub state: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IssueInvitationRequest {
    pub request_key: Uuid,
    pub expires_at: Timestamp,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IssuedInvitation {
    pub invitation: Invitation,
    /// Present only in the one response that created the invitation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DeliveryRecordRequest {
    pub request_key: Uuid,
    pub channel: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PutContentRequest {
    pub expected_revision: i64,
    pub body: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Content {
    pub revision: i64,
    pub body: String,
    pub updated_at: Timestamp,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventPage {
    pub events: Vec<AuditEvent>,
    pub next_cursor: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Owner {
    pub clerk_user_id: String,
    pub active: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnerHistoryEvent {
    pub id: i64,
    pub action: String,
    pub clerk_user_id: String,
    pub approval_ref: String,
    pub at: Timestamp,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnersResponse {
    pub owners: Vec<Owner>,
    pub history: Vec<OwnerHistoryEvent>,
}

/// Allow-lists of the owner decisions (SPEC §6.4).
pub const SELECT_REASONS: &[&str] = &["meets_policy", "priority_group", "capacity_available", "owner_discretion"];
pub const DECLINE_REASONS: &[&str] = &["not_eligible", "duplicate_person", "capacity_reached", "owner_discretion"];
pub const WITHDRAW_BASES: &[&str] = &["applicant_request", "owner_policy", "retention_expiry"];

// ---------------------------------------------------------------- owner dashboard

/// One UTC hour of admissions (`intake_hours`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IntakeHour {
    pub bucket_start: Timestamp,
    pub admitted: i64,
}

/// `GET /api/owner/programs/{id}/stats`: the last 48 UTC hours that admitted anyone,
/// oldest first, and how many entries are in each state (every state is present).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProgramStats {
    pub intake_hours: Vec<IntakeHour>,
    pub states: std::collections::BTreeMap<String, i64>,
}

/// `GET /api/owner/programs?workspaceId=`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProgramListQuery {
    pub workspace_id: Uuid,
}

// ---------------------------------------------------------------- owner bulk actions (§6.4, issue 4)

/// Most entries one bulk selection may move from waiting to selected.
pub const BULK_SELECT_MAX: i32 = 1000;
/// Most entries one bulk issue may name (keeps the body well under 32 KiB).
pub const BULK_ISSUE_MAX: usize = 500;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BulkSelectRequest {
    /// How many waiting entries to select, first in queue order (1–[`BULK_SELECT_MAX`]).
    pub count: i32,
    pub reason_code: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BulkSelectResponse {
    /// The entries now selected, in queue order (fewer than asked when fewer were waiting).
    pub selected: Vec<Uuid>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BulkIssueRequest {
    pub request_key: Uuid,
    /// Distinct selected entries of the program (1–[`BULK_ISSUE_MAX`]).
    pub entry_ids: Vec<Uuid>,
    pub expires_at: Timestamp,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BulkIssuedInvitation {
    pub entry_id: Uuid,
    pub invitation: Invitation,
}

/// The answer to a replayed bulk issue: what the batch created, never the codes
/// (those were in the one CSV response).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BulkIssueReceipt {
    pub batch_id: Uuid,
    pub invitations: Vec<BulkIssuedInvitation>,
}

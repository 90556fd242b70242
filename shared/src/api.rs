//! Request and response bodies of the HTTP contract (SPEC §6). Field names are the
//! wire names (camelCase). Request bodies refuse unknown fields; the server turns them
//! into domain values at the edge. Timestamps travel as RFC 3339 strings.

pub use crate::edge::*;
use crate::questions::{Answers, JoinWith, Question};
use crate::states::{ActorKind, EntryState, EventType, InvitationState};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Timestamps are RFC 3339 strings in UTC, as the server formats them.
pub type Timestamp = String;

// ---------------------------------------------------------------- public (§6.2)

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ConfigResponse {
    /// `"clerk"` or `"local"`.
    pub identity: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub publishable_key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub identity_dev_url: Option<String>,
}

/// The notice as the public form shows it: the same fields the owner sees.
pub type PublicNotice = Notice;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PublicProgram {
    pub slug: String,
    /// The program's display title (1–80 characters), when the owner gave one.
    #[serde(default)]
    pub title: Option<String>,
    /// A short plain-text description (1–500 characters), when the owner gave one.
    #[serde(default)]
    pub description: Option<String>,
    pub signup_open: bool,
    pub notice: PublicNotice,
    /// Whether the signup needs a solved challenge (`GET …/challenge`) in `altcha`.
    #[serde(default)]
    pub proof_of_work: PowLevel,
    /// The origins allowed to frame the embedded form (`/embed/waitlist/{slug}`); the
    /// frame posts its height only to one of them.
    #[serde(default)]
    pub embed_origins: Vec<String>,
    /// `account`: the form signs the applicant in and joins with one of their verified
    /// addresses (`POST /api/me/waitlist/{slug}/join`, the same body as the public
    /// signup's); the public signup refuses a new key.
    #[serde(default)]
    pub join_with: JoinWith,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "openapi", schema(example = json!({"requestKey": "0b6f3f4e-8a4c-4f57-9d2e-5d3c1a7e9b21", "email": "ada@example.com", "noticeVersion": 1, "permission": true})))]
pub struct SignupRequest {
    pub request_key: Uuid,
    #[cfg_attr(feature = "openapi", schema(min_length = 3, max_length = 254))]
    pub email: String,
    pub notice_version: i32,
    pub permission: bool,
    /// Where the applicant came from (`?ref=` of the page): 1–40 characters of
    /// `a-z 0-9 _ -`; anything else is dropped, never refused.
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(max_length = 40))]
    pub source: Option<String>,
    /// The solved challenge, as ALTCHA's base64 payload, when the program asks for proof
    /// of work. Checked after the request key's receipt: a replay needs none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(max_length = 1000))]
    pub altcha: Option<String>,
    /// The answers to the notice's questions, by question id: a string, or a list of
    /// strings for `manyChoices`. Part of the request key's binding.
    #[serde(default, skip_serializing_if = "Answers::is_empty")]
    #[cfg_attr(feature = "openapi", schema(value_type = std::collections::BTreeMap<String, crate::questions::Answer>))]
    pub answers: Answers,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SignupResponse {
    /// Always `"received"`: the same answer for a new and a known email.
    pub status: String,
}

// ---------------------------------------------------------------- recipient (§6.3)

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct MeResponse {
    pub user_id: String,
    pub csrf_token: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct InvitationStatus {
    pub state: InvitationState,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub expires_at: Timestamp,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct OwnWaitlistStatus {
    pub state: EntryState,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub joined_at: Timestamp,
    pub notice_version: i32,
    pub invitation: Option<InvitationStatus>,
    /// 1-based place among waiting entries of the program, while waiting.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub position: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct OwnEntry {
    pub program_slug: String,
    pub state: EntryState,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub joined_at: Timestamp,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub position: Option<i64>,
}

/// `GET /api/me/emails`: the verified addresses of the signed-in account, as the identity
/// provider reports them now (the header's "Signed in as …").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct OwnEmails {
    pub emails: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct WithdrawResponse {
    pub state: EntryState,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RedeemRequest {
    /// An invitation code (43 characters of unpadded base64url) or a cohort code (16
    /// characters of Crockford base32, e.g. `K7QF-2MXP-9TRD-A4HW`, case-insensitive).
    pub code: String,
    /// Cohort codes only: the version of the notice the user accepted (the one a
    /// `notice_required` answer showed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notice_version: Option<i32>,
    /// Cohort codes only: the ticked box; must be `true` with `noticeVersion`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission: Option<bool>,
    /// Cohort codes only, with `noticeVersion`: the answers to that notice's questions,
    /// checked as on the waitlist form (a bad answer is 400 `invalid_answer`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answers: Option<crate::questions::Answers>,
}

impl RedeemRequest {
    /// A request with the code alone (an invitation, or a cohort code's first step).
    pub fn code(code: impl Into<String>) -> Self {
        RedeemRequest { code: code.into(), notice_version: None, permission: None, answers: None }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct RedeemResponse {
    pub program_slug: String,
    pub state: EntryState,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EarlyAccessContent {
    pub slug: String,
    pub revision: i64,
    /// The owner's text: the safe Markdown subset (raw HTML is shown as text).
    pub body: String,
    /// The program's display title, when the owner gave one (the page falls back to the slug).
    #[serde(default)]
    pub title: Option<String>,
}

// ---------------------------------------------------------------- owner (§6.4)

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Workspace {
    pub id: Uuid,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateProgramRequest {
    pub workspace_id: Uuid,
    #[cfg_attr(feature = "openapi", schema(pattern = r"^[a-z0-9-]{3,60}$"))]
    pub slug: String,
    #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 1000))]
    pub purpose: String,
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 100_000))]
    pub queue_cap: i32,
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 100_000))]
    pub hourly_cap: i32,
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 100_000))]
    pub seat_cap: i32,
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 30))]
    pub max_invite_days: i32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PatchProgramRequest {
    pub expected_revision: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signup_open: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 100_000))]
    pub queue_cap: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 100_000))]
    pub hourly_cap: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 100_000))]
    pub seat_cap: Option<i32>,
    /// "On grant, in Clerk": replaces the setting (`publicMetadata: false` without an
    /// organization switches it off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clerk: Option<crate::clerk_sync::ClerkSyncSetting>,
    /// The display title, 1–80 characters; `""` removes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(max_length = 80))]
    pub title: Option<String>,
    /// The plain-text description, 1–500 characters; `""` removes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(max_length = 500))]
    pub description: Option<String>,
    /// The signup form's proof of work.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proof_of_work: Option<PowLevel>,
    /// The exact `https` origins allowed to frame the embedded form, at most 10; `[]`
    /// allows none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(max_items = 10))]
    pub embed_origins: Option<Vec<String>>,
    /// How applicants join: `email` or `account`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub join_with: Option<JoinWith>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ProgramCounts {
    /// Non-withdrawn entries (what the queue cap limits).
    pub queue: i64,
    /// Admissions in the current UTC hour (what the hourly cap limits).
    pub hour: i64,
    /// Active grants plus unexpired issued invitations (what the seat cap limits).
    pub seats: i64,
    /// Every entry of the program, whatever its state (the unfiltered queue's length).
    #[serde(default)]
    pub entries: i64,
    /// Entries waiting in the queue.
    #[serde(default)]
    pub waiting: i64,
    /// Entries selected that hold no live invitation (a code is still to be issued).
    #[serde(default)]
    pub selected: i64,
    /// Entries whose code was redeemed and who hold access.
    #[serde(default)]
    pub active: i64,
    /// Unexpired issued invitations whose delivery is not recorded (cannot be redeemed yet).
    #[serde(default)]
    pub not_sent: i64,
    /// Unexpired issued invitations that expire within 48 hours.
    #[serde(default)]
    pub expiring_soon: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Notice {
    pub version: i32,
    pub purpose: String,
    pub contact_text: String,
    pub retention_text: String,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub published_at: Timestamp,
    /// The questions this version asks (part of its immutable snapshot).
    #[serde(default)]
    pub questions: Vec<Question>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Program {
    pub id: Uuid,
    pub workspace_id: Uuid,
    pub slug: String,
    pub purpose: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub proof_of_work: PowLevel,
    /// The origins allowed to frame the embedded form.
    #[serde(default)]
    pub embed_origins: Vec<String>,
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
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: Timestamp,
    /// "On grant, in Clerk", when on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clerk: Option<crate::clerk_sync::ClerkSyncSetting>,
    /// How applicants join: `email` (default) or `account` (signed in, a verified address).
    #[serde(default)]
    pub join_with: JoinWith,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "openapi", schema(example = json!({"purpose": "Early access to the beta", "contactText": "We write once, when your invitation is ready.", "retentionText": "Twelve months after the program closes."})))]
pub struct PublishNoticeRequest {
    #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 1000))]
    pub purpose: String,
    #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 2000))]
    pub contact_text: String,
    #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 1000))]
    pub retention_text: String,
    /// At most 10 questions for the form (`shared::questions` has the rules).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "openapi", schema(max_items = 10))]
    pub questions: Vec<Question>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct EntrySummary {
    pub id: Uuid,
    pub email: String,
    pub state: EntryState,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: Timestamp,
    pub notice_version: i32,
    /// The entry's issued invitation, while it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invitation: Option<QueuedInvitation>,
    /// The source the applicant came from (`?ref=`), if any.
    #[serde(default, rename = "ref")]
    pub source: Option<String>,
    /// What admission noticed about the address (issue 15).
    #[serde(default)]
    pub flags: Vec<EntryFlag>,
    /// With `possible_duplicate`: the program's earliest entry of the same mailbox.
    #[serde(default)]
    pub duplicate_of: Option<Uuid>,
    /// The answers to its notice version's questions (empty once redacted).
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = std::collections::BTreeMap<String, crate::questions::Answer>))]
    pub answers: Answers,
    /// When it joined signed in, with an address its account had verified.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub verified_at_join: Option<Timestamp>,
}

/// What the queue shows of an entry's issued invitation: when it expires, whether the
/// owner recorded sending it, and when it was issued (its lifetime, for "expires soon").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct QueuedInvitation {
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub expires_at: Timestamp,
    pub sent: bool,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub issued_at: Timestamp,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct EntryPage {
    pub entries: Vec<EntrySummary>,
    pub next_cursor: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Invitation {
    pub id: Uuid,
    pub state: InvitationState,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub issued_at: Timestamp,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub expires_at: Timestamp,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivery: Option<DeliveryRecord>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct DeliveryRecord {
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub recorded_at: Timestamp,
    pub channel: String,
    pub reference: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Grant {
    pub id: Uuid,
    pub active: bool,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub granted_at: Timestamp,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub revoked_at: Option<Timestamp>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AuditEvent {
    pub id: i64,
    #[serde(rename = "type")]
    pub kind: EventType,
    pub entry_id: Option<Uuid>,
    pub actor_kind: ActorKind,
    /// For an owner's event: that owner's name (their Clerk first and last name, else
    /// their primary email), resolved when read and never stored; absent when the
    /// identity provider cannot say or for any other actor (an applicant is never named).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor_name: Option<String>,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub at: Timestamp,
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub details: serde_json::Value,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct EntryDetail {
    pub id: Uuid,
    pub email: String,
    pub state: EntryState,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: Timestamp,
    /// When the applicant ticked the box for `notice` (the exact choice time).
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub permission_at: Timestamp,
    pub notice: Notice,
    pub invitations: Vec<Invitation>,
    pub grant: Option<Grant>,
    pub events: Vec<AuditEvent>,
    #[serde(default, rename = "ref")]
    pub source: Option<String>,
    #[serde(default)]
    pub flags: Vec<EntryFlag>,
    #[serde(default)]
    pub duplicate_of: Option<Uuid>,
    /// The answers to `notice.questions` (empty once redacted).
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = std::collections::BTreeMap<String, crate::questions::Answer>))]
    pub answers: Answers,
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub verified_at_join: Option<Timestamp>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SelectRequest {
    #[cfg_attr(feature = "openapi", schema(schema_with = schema::select_reasons))]
    pub reason_code: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DeclineRequest {
    #[cfg_attr(feature = "openapi", schema(schema_with = schema::decline_reasons))]
    pub reason_code: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OwnerWithdrawRequest {
    #[cfg_attr(feature = "openapi", schema(schema_with = schema::withdraw_bases))]
    pub basis: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct EntryStateResponse {
    pub id: Uuid,
    pub state: EntryState,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IssueInvitationRequest {
    pub request_key: Uuid,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub expires_at: Timestamp,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct IssuedInvitation {
    pub invitation: Invitation,
    /// Present only in the one response that created the invitation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DeliveryRecordRequest {
    pub request_key: Uuid,
    #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 80))]
    pub channel: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 160))]
    pub reference: Option<String>,
}

/// `POST /api/owner/programs/{id}/invitations/delivery-records`: mark the issued
/// invitations of these entries sent through one channel, in one audited step (after a
/// bulk issue). Invitations already marked are left as they were, so a retry is harmless.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BulkDeliveryRequest {
    /// Distinct entries of the program, each with an issued, unexpired invitation (1–[`BULK_ISSUE_MAX`]).
    #[cfg_attr(feature = "openapi", schema(min_items = 1, max_items = 500))]
    pub entry_ids: Vec<Uuid>,
    #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 80))]
    pub channel: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 160))]
    pub reference: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct BulkDeliveryResponse {
    /// Invitations marked sent by this request.
    pub marked: i64,
    /// Invitations that were marked sent before (left as they were).
    pub already_marked: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PutContentRequest {
    #[cfg_attr(feature = "openapi", schema(minimum = 0))]
    pub expected_revision: i64,
    #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 20_000))]
    pub body: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Content {
    pub revision: i64,
    pub body: String,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub updated_at: Timestamp,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct EventPage {
    pub events: Vec<AuditEvent>,
    pub next_cursor: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Owner {
    pub clerk_user_id: String,
    pub active: bool,
    /// The owner's Clerk name, else primary email; absent when the provider cannot say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct OwnerHistoryEvent {
    pub id: i64,
    pub action: String,
    pub clerk_user_id: String,
    /// The owner's Clerk name, else primary email; absent when the provider cannot say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub approval_ref: String,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub at: Timestamp,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct OwnersResponse {
    pub owners: Vec<Owner>,
    pub history: Vec<OwnerHistoryEvent>,
}

/// Allow-lists of the owner decisions (SPEC §6.4).
pub const SELECT_REASONS: &[&str] = &["meets_policy", "priority_group", "capacity_available", "owner_discretion"];
pub const DECLINE_REASONS: &[&str] = &["not_eligible", "duplicate_person", "capacity_reached", "owner_discretion"];
pub const WITHDRAW_BASES: &[&str] = &["applicant_request", "owner_policy", "retention_expiry"];

/// The allow-lists above as JSON Schema enums, for the server's OpenAPI document.
#[cfg(feature = "openapi")]
mod schema {
    use utoipa::openapi::{Object, ObjectBuilder, Type};

    fn one_of(list: &[&str]) -> Object {
        ObjectBuilder::new().schema_type(Type::String).enum_values(Some(list.iter().copied())).build()
    }

    pub fn select_reasons() -> Object {
        one_of(super::SELECT_REASONS)
    }

    pub fn decline_reasons() -> Object {
        one_of(super::DECLINE_REASONS)
    }

    pub fn withdraw_bases() -> Object {
        one_of(super::WITHDRAW_BASES)
    }
}

// ---------------------------------------------------------------- owner dashboard

/// One UTC hour of admissions (`intake_hours`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct IntakeHour {
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub bucket_start: Timestamp,
    pub admitted: i64,
}

/// `GET /api/owner/programs/{id}/stats`: the last 48 UTC hours that admitted anyone,
/// oldest first, and how many entries are in each state (every state is present).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ProgramStats {
    pub intake_hours: Vec<IntakeHour>,
    pub states: std::collections::BTreeMap<EntryState, i64>,
    /// The same 48 hours split by where the entries came from (`?ref=`, issue 15): the
    /// entries still in the program, per source, the sources with most entries first (at
    /// most 10; the rest are left out), `source` null for entries without a ref.
    #[serde(default)]
    pub intake_sources: Vec<IntakeSource>,
}

/// One source's entries per UTC hour, oldest first (hours without entries are absent).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct IntakeSource {
    #[serde(rename = "ref")]
    pub source: Option<String>,
    pub hours: Vec<IntakeHour>,
}

/// `GET /api/owner/programs?workspaceId=`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::IntoParams), into_params(parameter_in = Query))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BulkSelectRequest {
    /// How many waiting entries to select, first in queue order (1–[`BULK_SELECT_MAX`]).
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 1000))]
    pub count: i32,
    #[cfg_attr(feature = "openapi", schema(schema_with = schema::select_reasons))]
    pub reason_code: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BulkSelectResponse {
    /// The entries now selected, in queue order (fewer than asked when fewer were waiting).
    pub selected: Vec<Uuid>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BulkIssueRequest {
    pub request_key: Uuid,
    /// Distinct selected entries of the program (1–[`BULK_ISSUE_MAX`]).
    #[cfg_attr(feature = "openapi", schema(min_items = 1, max_items = 500))]
    pub entry_ids: Vec<Uuid>,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub expires_at: Timestamp,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct BulkIssuedInvitation {
    pub entry_id: Uuid,
    pub invitation: Invitation,
}

/// The answer to a replayed bulk issue: what the batch created, never the codes
/// (those were in the one CSV response).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct BulkIssueReceipt {
    pub batch_id: Uuid,
    pub invitations: Vec<BulkIssuedInvitation>,
}

/// `POST /api/owner/programs/{id}/entries/search`: the listing's parameters plus an
/// email fragment, sent in a body so that no email ever appears in a URL.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct EntrySearch {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 100))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<i64>,
    /// A case-insensitive fragment of the email (1–254 characters).
    #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 254))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub q: Option<String>,
    /// Only entries that came from this source (`?ref=`).
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Only entries carrying this flag (`disposable_domain`, `possible_duplicate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flag: Option<String>,
    /// Only entries whose live invitation is `unsent` (not marked sent) or `expiring`
    /// (within 48 hours), by the database clock.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<crate::queue::InvitationFilter>))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invitation: Option<String>,
    /// With `choice`: only entries whose answer to this question (its id) is, or
    /// includes, that choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choice: Option<String>,
    /// Only entries that joined with a verified account (`true`) or not (`false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verified: Option<bool>,
}

#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    fn json_value() -> impl Strategy<Value = serde_json::Value> {
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::from),
            any::<i64>().prop_map(serde_json::Value::from),
            any::<f64>().prop_map(serde_json::Value::from),
            "\\PC{0,40}".prop_map(serde_json::Value::from),
            Just(serde_json::Value::from("6f1c1a4e-5a4b-4f7e-9a55-2f3b1c0d9e8f")),
        ];
        leaf.prop_recursive(3, 24, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::from),
                prop::collection::btree_map(
                    prop_oneof![
                        Just("requestKey".to_owned()),
                        Just("email".to_owned()),
                        Just("noticeVersion".to_owned()),
                        Just("permission".to_owned()),
                        Just("code".to_owned()),
                        "[a-zA-Z]{1,12}",
                    ],
                    inner,
                    0..6
                )
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(10_000))]

        /// Arbitrary JSON never panics the request types, and whatever object they accept
        /// has exactly the known fields and re-serializes to an equal value. (serde would
        /// also take a JSON array in field order; the API's body extractor refuses any
        /// body that is not an object before these types see it.)
        #[test]
        fn request_bodies_accept_only_their_shape(v in json_value().prop_filter("objects", |v| v.is_object())) {
            if let Ok(req) = serde_json::from_value::<SignupRequest>(v.clone()) {
                let back = serde_json::to_value(&req).unwrap();
                prop_assert_eq!(back.as_object().unwrap().len(), 4);
                prop_assert_eq!(serde_json::from_value::<SignupRequest>(back).unwrap(), req);
            }
            if let Ok(req) = serde_json::from_value::<RedeemRequest>(v.clone()) {
                prop_assert!(v.as_object().is_some_and(|o| o.contains_key("code") && o.len() <= 3));
                let _ = req;
            }
            let _ = serde_json::from_value::<PatchProgramRequest>(v.clone());
            let _ = serde_json::from_value::<IssueInvitationRequest>(v);
        }

        /// Arbitrary text as a body never panics the decoder.
        #[test]
        fn arbitrary_text_never_panics(s in "\\PC{0,200}") {
            let _ = serde_json::from_str::<SignupRequest>(&s);
            let _ = serde_json::from_str::<RedeemRequest>(&s);
        }
    }
}

//! Bodies of issue 16's features, kept apart from `api.rs`: the audit checkpoint, the
//! lottery draw, erasure and the personal data export. Same conventions as `api.rs`:
//! camelCase wire names, timestamps as RFC 3339 strings, request bodies refuse unknown
//! fields. Hashes travel as lowercase hex.

use crate::api::Timestamp;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// The `format` of an [`AuditCheckpoint`] (a new canonical form would be a new format).
pub const CHECKPOINT_FORMAT: &str = "vestibule-audit-checkpoint/1";

/// A program's audit chain as it stood: its last event, how many events it held and
/// the head hash. Saved by an owner, it later proves (`vestibule verify --checkpoint`)
/// that today's history still begins with exactly that history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AuditCheckpoint {
    /// Always [`CHECKPOINT_FORMAT`].
    pub format: String,
    pub program_id: Uuid,
    pub last_event_id: i64,
    /// Events in the chain up to and including `last_event_id`.
    pub count: i64,
    /// SHA-256 chain hash of `last_event_id`, lowercase hex.
    pub head_hash: String,
    /// When the checkpoint was taken (the database clock).
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub at: Timestamp,
}

// ---------------------------------------------------------------- erasure

/// Why an owner erases an entry (the applicant's own erasure is `applicant_request`).
pub const ERASE_REASONS: &[&str] = &["applicant_request", "consent_withdrawn", "legal_obligation"];

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "openapi", schema(example = json!({"reasonCode": "applicant_request"})))]
pub struct EraseRequest {
    /// One of [`ERASE_REASONS`].
    pub reason_code: String,
}

/// The receipt of an erasure: its id is the person's proof that it happened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ErasureReceipt {
    pub receipt_id: Uuid,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub erased_at: Timestamp,
}

// ---------------------------------------------------------------- export

/// Everything Vestibule holds about the signed-in person (`GET /api/me/export`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PersonalDataExport {
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub generated_at: Timestamp,
    /// The verified emails the entries were found by.
    pub emails: Vec<String>,
    pub entries: Vec<ExportedEntry>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ExportedEntry {
    pub program_slug: String,
    pub email: String,
    pub state: crate::EntryState,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub joined_at: Timestamp,
    /// When the box was ticked for `notice` (the exact choice time).
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub choice_at: Timestamp,
    /// The notice text the choice was made under.
    pub notice: crate::api::Notice,
    /// Invitations, without codes.
    pub invitations: Vec<ExportedInvitation>,
    pub grants: Vec<ExportedGrant>,
    /// Lottery tickets of this entry.
    #[serde(default)]
    pub draws: Vec<OwnDrawTicket>,
    /// The answers given to `notice.questions` (empty once redacted).
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = std::collections::BTreeMap<String, crate::questions::Answer>))]
    pub answers: crate::questions::Answers,
    /// When the entry joined signed in, with an address the account had verified.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub verified_at_join: Option<Timestamp>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ExportedInvitation {
    pub state: crate::InvitationState,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub issued_at: Timestamp,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub expires_at: Timestamp,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub delivered_at: Option<Timestamp>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ExportedGrant {
    pub active: bool,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub granted_at: Timestamp,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub revoked_at: Option<Timestamp>,
}

// ---------------------------------------------------------------- lottery

/// An applicant's ticket in one draw of a program, and whether it was drawn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct OwnDrawTicket {
    pub draw_id: Uuid,
    /// SHA-256(program id ‖ entry id), lowercase hex.
    pub ticket: String,
    /// `open`, `closed` (frozen, the beacon round awaited), `run` or `cancelled`.
    pub draw_state: String,
    /// Whether this ticket was among the winners (false until the draw has run).
    pub drawn: bool,
    /// Whether the ticket was excluded at the close (the entry had left the queue).
    #[serde(default)]
    pub excluded: bool,
}

pub use crate::draw_filter::{DrawFilter, FlagFilter};

/// The `format` of a [`DrawRecord`] of a draw opened between migrations V53 and V110: it
/// names its [`DrawFilter`], and its tickets hash covers the filter (see
/// `api/src/draw/seeded.rs`). Draws opened since are format 3 ([`crate::draws`]).
pub const DRAW_FORMAT: &str = "vestibule-draw/2";

/// The `format` of records of draws opened before filters existed (all over every
/// waiting entry): no `filter`, the tickets hash covers the tickets only. Such records
/// stay verifiable as they were downloaded.
pub const DRAW_FORMAT_V1: &str = "vestibule-draw/1";

/// Most winners one draw may have.
pub const DRAW_MAX_WINNERS: i32 = 10_000;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OpenDrawRequest {
    /// How many winners (1–10 000). The candidates are the program's waiting entries,
    /// narrowed by `source` and `flag` when given.
    pub winners: i32,
    /// Only entries that came from this source (`?ref=`; the queue's grammar).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<crate::SourceRef>,
    /// Only entries carrying this flag, or (`unflagged`) carrying none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flag: Option<FlagFilter>,
    /// When entries close (RFC 3339, in the future, within 90 days); absent: at once.
    /// Until then, new signups matching the rule join the draw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub closes_at: Option<Timestamp>,
}

impl OpenDrawRequest {
    pub fn filter(&self) -> DrawFilter {
        DrawFilter { source: self.source.clone(), flag: self.flag }
    }
}

/// A draw as an owner lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct DrawSummary {
    pub id: Uuid,
    /// The record format: 3 (public randomness), or 1 and 2 (a server seed, before V110).
    pub format: i16,
    pub state: crate::draws::DrawState,
    pub winners: i32,
    /// Which waiting entries it is over (draws opened before filters: every one).
    pub filter: DrawFilter,
    /// Tickets so far (format 3: those frozen at the opening until the close).
    pub candidates: i32,
    /// Formats 1 and 2 only.
    pub seed_commitment: Option<String>,
    /// Format 3: after the close.
    pub tickets_hash: Option<String>,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub opened_at: Timestamp,
    /// Format 3: when entries close, and the beacon round with its scheduled time.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub closes_at: Option<Timestamp>,
    pub round: Option<u64>,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub round_at: Option<Timestamp>,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub run_at: Option<Timestamp>,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub cancelled_at: Option<Timestamp>,
}

/// Everything needed to recompute a draw offline (`vestibule verify-draw FILE`): the
/// filter, the commitment, the sorted tickets, and once run the seed, the tickets no
/// longer waiting when it ran, and the winners' tickets in draw order. All hashes
/// lowercase hex.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DrawRecord {
    /// [`DRAW_FORMAT`], or [`DRAW_FORMAT_V1`] for a draw opened before filters.
    pub format: String,
    pub draw_id: Uuid,
    pub program_id: Uuid,
    /// `open` or `run`.
    pub state: String,
    pub winners: i32,
    /// Which waiting entries got tickets. Always present in format 2; absent in format 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<DrawFilter>,
    /// SHA-256 of the seed.
    pub seed_commitment: String,
    /// Format 2: SHA-256 of the filter's canonical line and then the sorted tickets'
    /// bytes, so the commitment covers the population too. Format 1: SHA-256 of the
    /// sorted tickets' bytes, concatenated.
    pub tickets_hash: String,
    /// Every candidate's ticket, sorted.
    pub tickets: Vec<String>,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub opened_at: Timestamp,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub run_at: Option<Timestamp>,
    /// The seed, revealed when the draw has run.
    pub seed: Option<String>,
    /// Tickets whose entries were no longer waiting when the draw ran (skipped).
    pub ineligible: Vec<String>,
    /// The winners' tickets, in draw order.
    pub drawn: Vec<String>,
}

//! Lottery draws on public randomness (issue 29): the wire types of format 3. A draw fixes
//! at opening its entrant rule, its number of winners, the instant entries close and a
//! future round of a drand beacon; it runs on that round's signature, so nobody — the
//! operator included — can know or steer the result before the round is published.
//! The recipe is in `api/src/draw/beacon.rs` and the README ("Lottery draws"); the
//! records of formats 1 and 2 (a server seed) stay in [`crate::trust`].
//! Same conventions as `api.rs`: camelCase, RFC 3339 times, hashes as lowercase hex.

use crate::api::Timestamp;
use crate::draw_filter::DrawFilter;
use serde::{Deserialize, Serialize};
use std::fmt;
use uuid::Uuid;

/// The `format` of a draw on public randomness.
pub const BEACON_DRAW_FORMAT: &str = "vestibule-draw/3";

/// Where a draw stands. `open`: entries may still join (until `closesAt`); `closed`: the
/// tickets and exclusions are frozen and published, the beacon round is awaited;
/// `run`: the winners are drawn; `cancelled`: it will never run (public, audited).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum DrawState {
    Open,
    Closed,
    Run,
    Cancelled,
}

impl DrawState {
    pub const ALL: [DrawState; 4] = [DrawState::Open, DrawState::Closed, DrawState::Run, DrawState::Cancelled];

    pub fn as_str(self) -> &'static str {
        match self {
            DrawState::Open => "open",
            DrawState::Closed => "closed",
            DrawState::Run => "run",
            DrawState::Cancelled => "cancelled",
        }
    }

    pub fn parse(s: &str) -> Option<DrawState> {
        DrawState::ALL.into_iter().find(|d| d.as_str() == s)
    }
}

impl fmt::Display for DrawState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a draw was cancelled: an owner's reason, or `closed_late` (the server could not
/// freeze the tickets before the beacon round was due, so the draw cannot be shown fair).
pub const CANCEL_REASONS: &[&str] = &["opened_in_error", "seats_unavailable", "owner_discretion"];

/// The system's cancel reason (see [`CANCEL_REASONS`]).
pub const CANCEL_CLOSED_LATE: &str = "closed_late";

/// `POST /api/owner/programs/{id}/draws/{drawId}/cancel`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "openapi", schema(example = json!({"reasonCode": "opened_in_error"})))]
pub struct CancelDrawRequest {
    /// One of `opened_in_error`, `seats_unavailable`, `owner_discretion`.
    pub reason_code: String,
}

/// A round's signature as published by drand (`GET {relay}/public/{round}`), pasted by an
/// owner when no relay is configured or reachable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BeaconInput {
    /// Must be the draw's round.
    pub round: u64,
    /// The round's BLS signature, hex.
    pub signature: String,
}

/// `POST …/draws/{drawId}/run`: with the beacon, or without a body (or `{}`) to fetch it
/// from the configured relay.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunDrawRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beacon: Option<BeaconInput>,
}

/// The beacon a draw is fixed to, and once run the round's signature and randomness.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DrawBeacon {
    /// The chain's BLS public key, hex (quicknet's unless the server was configured otherwise).
    pub public_key: String,
    /// The chain's first round, Unix seconds.
    pub genesis: i64,
    /// Seconds between rounds.
    pub period: u32,
    /// drand's scheme id, e.g. `bls-unchained-g1-rfc9380`.
    pub scheme: String,
    /// The round: the first one scheduled after the close (see the README).
    pub round: u64,
    /// When the round is scheduled: `genesis + (round − 1) × period`.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub round_at: Timestamp,
    /// The round's signature, hex (once run).
    pub signature: Option<String>,
    /// SHA-256 of the signature, hex (once run): the draw's randomness.
    pub randomness: Option<String>,
}

/// An excluded ticket and the chained audit event that excluded it (its entry left the
/// queue between the opening and the close: declined, withdrawn or selected by hand).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExcludedTicket {
    pub ticket: String,
    /// The id of the event in `events` that excluded it.
    pub event_id: i64,
}

/// One audit event as chained (see the README, "Audit chain"): enough to recompute its
/// hash. Events hold ids, codes, numbers and times only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ChainedEvent {
    pub id: i64,
    pub chain_seq: i64,
    pub prev_id: Option<i64>,
    pub entry_id: Option<Uuid>,
    pub actor_kind: String,
    pub actor_staff_id: Option<Uuid>,
    #[serde(rename = "type")]
    pub event_type: String,
    /// RFC 3339 with microseconds (the canonical bytes use the microseconds).
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub at: Timestamp,
    /// The details' JSON text exactly as chained.
    pub details: String,
    pub prev_hash: String,
    pub hash: String,
}

/// A draw's record in format 3: what `GET /api/public/programs/{slug}/draws/{drawId}`
/// publishes and `vestibule verify-draw` / `tools/verify_draw.py` recompute.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BeaconDrawRecord {
    /// Always [`BEACON_DRAW_FORMAT`].
    pub format: String,
    pub draw_id: Uuid,
    pub program_id: Uuid,
    pub state: DrawState,
    pub winners: i32,
    /// The entrant rule.
    pub filter: DrawFilter,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub opened_at: Timestamp,
    /// When entries close (fixed at opening).
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub closes_at: Timestamp,
    /// When the tickets were frozen (at or just after `closesAt`).
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub closed_at: Option<Timestamp>,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub run_at: Option<Timestamp>,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub cancelled_at: Option<Timestamp>,
    pub cancel_reason: Option<String>,
    pub beacon: DrawBeacon,
    /// After the close: SHA-256 over the rule and the tickets with their exclusion marks.
    pub tickets_hash: Option<String>,
    /// After the close: every ticket, sorted (a ticket is SHA-256(program id ‖ entry id)).
    pub tickets: Vec<String>,
    /// Tickets excluded between opening and close, each with its chained reason.
    pub excluded: Vec<ExcludedTicket>,
    /// Once run: the winning tickets in draw order.
    pub drawn: Vec<String>,
    /// Winning tickets whose entries had left the queue by the run (not selected; their
    /// seats are not passed on).
    pub not_selected: Vec<String>,
    /// The program's audit chain from the `draw_opened` event to the `draw_closed` event.
    pub events: Vec<ChainedEvent>,
}

/// A draw as the public list shows it (format 3 draws only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PublicDraw {
    pub id: Uuid,
    pub state: DrawState,
    pub winners: i32,
    pub filter: DrawFilter,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub opened_at: Timestamp,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub closes_at: Timestamp,
    pub round: u64,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub round_at: Timestamp,
    /// After the close.
    pub tickets_hash: Option<String>,
    /// After the close: how many tickets (excluded ones included).
    pub tickets: Option<i32>,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub run_at: Option<Timestamp>,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub cancelled_at: Option<Timestamp>,
}

/// What an owner's draw routes answer: a format 3 record, or the record of a draw opened
/// before public randomness (formats 1 and 2, [`crate::trust::DrawRecord`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(untagged)]
pub enum AnyDrawRecord {
    Beacon(Box<BeaconDrawRecord>),
    Seeded(Box<crate::trust::DrawRecord>),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_round_trip_by_name() {
        for s in DrawState::ALL {
            assert_eq!(DrawState::parse(s.as_str()), Some(s));
            assert_eq!(serde_json::to_value(s).unwrap(), serde_json::json!(s.as_str()));
        }
        assert_eq!(DrawState::parse("reopened"), None);
    }

    #[test]
    fn a_run_request_may_be_empty() {
        let empty: RunDrawRequest = serde_json::from_str("{}").unwrap();
        assert_eq!(empty.beacon, None);
        let pasted: RunDrawRequest = serde_json::from_str(r#"{"beacon": {"round": 7, "signature": "ab"}}"#).unwrap();
        assert_eq!(pasted.beacon.map(|b| b.round), Some(7));
        assert!(serde_json::from_str::<RunDrawRequest>(r#"{"seed": "ab"}"#).is_err());
    }
}

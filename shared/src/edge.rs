//! The public edge's wire types (issue 15): entry flags and the bulk decline of flagged
//! entries. Re-exported from [`crate::api`] with the rest of the contract.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use uuid::Uuid;

/// What admission noticed about an address; flagged, never blocked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum EntryFlag {
    /// The domain is on the disposable-mail list.
    DisposableDomain,
    /// Another entry of the program is the same mailbox under its provider's alias rules
    /// (`duplicateOf` names the earliest).
    PossibleDuplicate,
}

impl EntryFlag {
    pub const ALL: [EntryFlag; 2] = [EntryFlag::DisposableDomain, EntryFlag::PossibleDuplicate];

    pub fn as_str(self) -> &'static str {
        match self {
            EntryFlag::DisposableDomain => "disposable_domain",
            EntryFlag::PossibleDuplicate => "possible_duplicate",
        }
    }
}

impl fmt::Display for EntryFlag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for EntryFlag {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        EntryFlag::ALL.into_iter().find(|f| f.as_str() == s).ok_or(())
    }
}

/// Most entries one bulk decline may move.
pub const DECLINE_FLAGGED_MAX: i32 = 1000;

/// `POST /api/owner/programs/{id}/entries/decline-flagged`: declines the first `count`
/// waiting entries carrying `flag`, in queue order, with one reason code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DeclineFlaggedRequest {
    pub flag: EntryFlag,
    /// 1–[`DECLINE_FLAGGED_MAX`].
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 1000))]
    pub count: i32,
    /// One of the decline reason codes.
    pub reason_code: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DeclineFlaggedResponse {
    /// The entries now declined, in queue order (fewer than asked when fewer were waiting).
    pub declined: Vec<Uuid>,
}

/// How much work a program's signup form asks of the applicant's browser (issue 15).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum PowLevel {
    /// No challenge: the signup body needs no `altcha`.
    Off,
    /// A few hundred milliseconds on a phone, solved while the applicant types.
    #[default]
    Normal,
    /// About ten times `normal`, for a program under a bot wave.
    Strict,
}

impl PowLevel {
    pub const ALL: [PowLevel; 3] = [PowLevel::Off, PowLevel::Normal, PowLevel::Strict];

    pub fn as_str(self) -> &'static str {
        match self {
            PowLevel::Off => "off",
            PowLevel::Normal => "normal",
            PowLevel::Strict => "strict",
        }
    }
}

impl fmt::Display for PowLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for PowLevel {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        PowLevel::ALL.into_iter().find(|l| l.as_str() == s).ok_or(())
    }
}

/// `GET /api/public/programs/{slug}/challenge`: ALTCHA's challenge, field for field
/// (lowercase names, as ALTCHA clients expect them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Challenge {
    /// Always `"SHA-256"`.
    pub algorithm: String,
    /// hex(SHA-256(salt ‖ number)) for the secret number.
    pub challenge: String,
    /// The secret number is in `0..=maxnumber`.
    pub maxnumber: u64,
    /// Random, with the expiry, level and program as parameters after `?`.
    pub salt: String,
    /// hex(HMAC-SHA-256(server key, challenge)).
    pub signature: String,
}

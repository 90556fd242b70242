//! Cohort codes (issue 14): multi-use codes an owner hands to a group, redeemed at the
//! same route as invitations after the program's notice is accepted. Here: the code's
//! grammar (one function for the server and the SPA) and the wire types.
//!
//! A code is 16 characters of Crockford's base32 (80 bits), shown in groups of four
//! (`K7QF-2MXP-9TRD-A4HW`). Reading is forgiving as Crockford's alphabet intends:
//! case-insensitive, dashes and spaces ignored, `I`/`L` read as `1` and `O` as `0`.

use crate::api::{Notice, Timestamp};
use crate::states::EntryState;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Crockford's base32 alphabet: no I, L, O or U.
pub const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
/// Characters of a code, without separators.
pub const CODE_CHARS: usize = 16;
pub const MAX_USES: i32 = 10_000;
pub const LABEL_MAX_CHARS: usize = 80;
pub const NOTE_MAX_CHARS: usize = 500;

/// The canonical form of a typed code (16 upper-case alphabet characters), or `None`
/// when it is not one.
pub fn canonical_code(typed: &str) -> Option<String> {
    let mut out = String::with_capacity(CODE_CHARS);
    for c in typed.trim().chars() {
        let c = match c.to_ascii_uppercase() {
            '-' | ' ' => continue,
            'I' | 'L' => '1',
            'O' => '0',
            c => c,
        };
        if !c.is_ascii() || !ALPHABET.contains(&(c as u8)) || out.len() == CODE_CHARS {
            return None;
        }
        out.push(c);
    }
    (out.len() == CODE_CHARS).then_some(out)
}

/// The canonical code in groups of four, as it is shown.
pub fn display_code(canonical: &str) -> String {
    let chars: Vec<char> = canonical.chars().collect();
    chars.chunks(4).map(|g| g.iter().collect::<String>()).collect::<Vec<_>>().join("-")
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateCohortCodeRequest {
    #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 80))]
    pub label: String,
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 10_000))]
    pub max_uses: i32,
    /// Within the program's `maxInviteDays` from now.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub expires_at: Timestamp,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 500))]
    pub note: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum CohortCodeState {
    Active,
    /// Every use is taken.
    Exhausted,
    Expired,
    Revoked,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CohortCode {
    pub id: Uuid,
    pub label: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub max_uses: i32,
    pub uses: i32,
    pub state: CohortCodeState,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: Timestamp,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub expires_at: Timestamp,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub revoked_at: Option<Timestamp>,
}

/// The answer to a create: the only one that ever holds the code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CreatedCohortCode {
    pub cohort_code: CohortCode,
    /// Shown once, in groups of four (`K7QF-2MXP-9TRD-A4HW`).
    pub code: String,
}

/// The one value of [`RedeemNoticeStep::state`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum NoticeRequired {
    NoticeRequired,
}

/// A usable cohort code redeemed without (or with an outdated) acceptance: nothing was
/// written; send the same code again with this notice's `noticeVersion` and
/// `permission: true`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct RedeemNoticeStep {
    pub program_slug: String,
    pub state: NoticeRequired,
    pub notice: Notice,
}

/// What `POST /api/me/invitations/redeem` answers with 200: the grant is active, or (a
/// cohort code only) the notice must be accepted first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(untagged)]
pub enum RedeemReply {
    Redeemed(crate::api::RedeemResponse),
    NoticeRequired(RedeemNoticeStep),
}

impl RedeemReply {
    /// The program's slug, either way.
    pub fn program_slug(&self) -> &str {
        match self {
            RedeemReply::Redeemed(r) => &r.program_slug,
            RedeemReply::NoticeRequired(s) => &s.program_slug,
        }
    }

    pub fn is_active(&self) -> bool {
        matches!(self, RedeemReply::Redeemed(r) if r.state == EntryState::Active)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_codes_read_forgivingly() {
        let c = canonical_code("k7qf-2mxp-9trd-a4hw").unwrap();
        assert_eq!(c, "K7QF2MXP9TRDA4HW");
        assert_eq!(canonical_code(" K7QF 2MXP 9TRD A4HW "), Some(c.clone()));
        assert_eq!(display_code(&c), "K7QF-2MXP-9TRD-A4HW");
        assert_eq!(canonical_code("IOLO-0000-0000-0000"), Some("1010000000000000".into()));
    }

    #[test]
    fn other_text_is_not_a_code() {
        for bad in
            ["", "K7QF-2MXP-9TRD-A4H", "K7QF-2MXP-9TRD-A4HWX", "K7QF-2MXP-9TRD-A4HU", "K7QF_2MXP9TRDA4HW", "ÄÄÄÄ"]
        {
            assert_eq!(canonical_code(bad), None, "{bad}");
        }
        assert_eq!(canonical_code(&"A".repeat(43)), None);
    }

    #[test]
    fn both_replies_decode_as_what_they_are() {
        let active = r#"{"programSlug":"beta","state":"active"}"#;
        assert!(serde_json::from_str::<RedeemReply>(active).unwrap().is_active());
        let step = r#"{"programSlug":"beta","state":"notice_required","notice":{"version":2,"purpose":"p",
            "contactText":"c","retentionText":"r","publishedAt":"2026-01-01T00:00:00Z"}}"#;
        let reply: RedeemReply = serde_json::from_str(step).unwrap();
        assert!(matches!(reply, RedeemReply::NoticeRequired(ref s) if s.notice.version == 2));
        assert_eq!(reply.program_slug(), "beta");
    }
}

//! Turning request fields into bounded domain values at the edge: every failure is a
//! 400 with its code, before any lock or write.

use crate::http::ApiError;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use shared::text::Lines;
use shared::ErrorCode;

/// One line of free text: 1..=`max` characters, not only white space, no control
/// character (`shared::text`).
pub fn bounded_text(text: String, max: usize, code: ErrorCode) -> Result<String, ApiError> {
    checked_text(text, max, Lines::One, code)
}

/// Free text edited as several lines: as [`bounded_text`], with newline, carriage
/// return and tab allowed.
pub fn bounded_lines(text: String, max: usize, code: ErrorCode) -> Result<String, ApiError> {
    checked_text(text, max, Lines::Many, code)
}

fn checked_text(text: String, max: usize, lines: Lines, code: ErrorCode) -> Result<String, ApiError> {
    if !shared::text::acceptable(&text, max, lines) {
        return Err(ApiError::BadRequest(code));
    }
    Ok(text)
}

/// The allow-listed `&'static str` equal to `value`.
pub fn allowed(list: &'static [&'static str], value: &str, code: ErrorCode) -> Result<&'static str, ApiError> {
    list.iter().copied().find(|v| *v == value).ok_or(ApiError::BadRequest(code))
}

/// Page size bounds (SPEC §6.4: at most 100).
const DEFAULT_LIMIT: i64 = 50;
const MAX_LIMIT: i64 = 100;

/// `limit` when given must be 1–100.
pub fn page_limit(limit: Option<i64>) -> Result<i64, ApiError> {
    match limit {
        None => Ok(DEFAULT_LIMIT),
        Some(n) if (1..=MAX_LIMIT).contains(&n) => Ok(n),
        Some(_) => Err(ApiError::BadRequest(ErrorCode::InvalidLimit)),
    }
}

/// The opaque cursor of a log paged by a `bigint` id (webhook and Clerk deliveries).
pub fn encode_cursor(id: i64) -> String {
    URL_SAFE_NO_PAD.encode(id.to_be_bytes())
}

pub fn decode_cursor(s: &str) -> Option<i64> {
    let bytes: [u8; 8] = URL_SAFE_NO_PAD.decode(s).ok()?.try_into().ok()?;
    Some(i64::from_be_bytes(bytes)).filter(|id| *id > 0)
}

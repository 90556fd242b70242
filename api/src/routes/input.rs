//! Turning request fields into bounded domain values at the edge: every failure is a
//! 400 with its code, before any lock or write.

use crate::http::ApiError;
use crate::usecases::queue::{Cursor, Filter};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use shared::api::{EntryFlag, EntrySearch};
use shared::text::Lines;
use shared::{EntryState, ErrorCode, SourceRef};

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

/// The queue's filter from the listing's parameters (the search's body, or a query string
/// turned into one), for every read of entries: the owner's listing, search and export
/// and the server API's listing. So a value one refuses, the others refuse too.
impl TryFrom<&EntrySearch> for Filter {
    type Error = ApiError;

    fn try_from(q: &EntrySearch) -> Result<Filter, ApiError> {
        let bad = ApiError::BadRequest;
        let state = q.state.as_deref().map(|s| s.parse::<EntryState>().map_err(|_| bad(ErrorCode::InvalidState)));
        let after = q.cursor.as_deref().map(|c| Cursor::decode(c).ok_or(bad(ErrorCode::InvalidCursor)));
        let email_fragment = match &q.q {
            Some(f) if f.is_empty() || f.chars().count() > 254 || f.chars().any(char::is_control) => {
                return Err(bad(ErrorCode::InvalidSearch))
            }
            other => other.clone(),
        };
        let source = match q.source.as_deref() {
            Some(s) => Some(SourceRef::parse(s).ok_or(bad(ErrorCode::InvalidRef))?),
            None => None,
        };
        let flag = q.flag.as_deref().map(|f| f.parse::<EntryFlag>().map_err(|_| bad(ErrorCode::InvalidFlag)));
        let invitation =
            q.invitation.as_deref().map(|f| f.parse().map_err(|_| bad(ErrorCode::InvalidInvitationFilter)));
        Ok(Filter {
            state: state.transpose()?,
            email_fragment,
            source,
            flag: flag.transpose()?,
            invitation: invitation.transpose()?,
            choice: choice_filter(q)?,
            verified: q.verified,
            after: after.transpose()?,
        })
    }
}

/// The filter by choice: a question id and one of its choices, both or neither.
fn choice_filter(q: &EntrySearch) -> Result<Option<(String, String)>, ApiError> {
    match (&q.question, &q.choice) {
        (None, None) => Ok(None),
        (Some(question), Some(choice))
            if (1..=shared::questions::MAX_ID).contains(&question.len())
                && question.bytes().all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'_' | b'-'))
                && shared::text::acceptable(choice, shared::questions::MAX_CHOICE, shared::text::Lines::One) =>
        {
            Ok(Some((question.clone(), choice.clone())))
        }
        _ => Err(ApiError::BadRequest(ErrorCode::InvalidQuery)),
    }
}

/// Declares the query string of an owner's read of the queue: its own fields, then the
/// filters the listing and the export share (`ref`, `flag`, `invitation`), documented
/// once here for the OpenAPI document; unknown parameters are refused. The struct turns
/// into an [`EntrySearch`] without an email fragment (an email never travels in a URL),
/// and so into a [`Filter`] by the one parser above.
macro_rules! queue_query {
    ($(#[$meta:meta])* struct $name:ident { $($(#[$field_meta:meta])* $field:ident: $ty:ty),* $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
        #[into_params(parameter_in = Query)]
        #[serde(deny_unknown_fields)]
        struct $name {
            $($(#[$field_meta])* $field: $ty,)*
            /// Only entries from this source (`?ref=` of the signup page).
            #[serde(rename = "ref")]
            #[param(max_length = 40)]
            source: Option<String>,
            /// Only entries with this flag: `disposable_domain` or `possible_duplicate`.
            flag: Option<String>,
            /// Only entries whose live invitation is not marked sent (`unsent`) or expires within
            /// 48 hours (`expiring`), by the database clock.
            #[param(inline, value_type = Option<shared::queue::InvitationFilter>)]
            invitation: Option<String>,
            /// With `choice`: only entries whose answer to this question (its id) is, or
            /// includes, the choice.
            #[param(max_length = 32)]
            question: Option<String>,
            #[param(max_length = 100)]
            choice: Option<String>,
            /// Only entries that joined with a verified account (`true`) or not (`false`).
            verified: Option<bool>,
        }

        impl From<$name> for shared::api::EntrySearch {
            fn from(q: $name) -> Self {
                shared::api::EntrySearch {
                    $($field: q.$field,)*
                    source: q.source,
                    flag: q.flag,
                    invitation: q.invitation,
                    question: q.question,
                    choice: q.choice,
                    verified: q.verified,
                    ..shared::api::EntrySearch::default()
                }
            }
        }
    };
}
pub(crate) use queue_query;

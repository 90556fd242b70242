//! Where a signup came from: the `?ref=` of a waitlist or embed URL (issue 15). Policy:
//! 1–40 characters of `a-z 0-9 _ -`; anything else is dropped (no entry is refused for a
//! bad source), so the SPA and the server parse it with this one function.

use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct SourceRef(String);

/// The longest source kept.
pub const MAX_LEN: usize = 40;

impl SourceRef {
    /// The source when `input` follows the grammar, else `None`.
    pub fn parse(input: &str) -> Option<SourceRef> {
        let ok = (1..=MAX_LEN).contains(&input.len())
            && input.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-');
        ok.then(|| SourceRef(input.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for SourceRef {
    type Error = &'static str;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        SourceRef::parse(&value).ok_or("a source is 1 to 40 characters of a-z, 0-9, _ and -")
    }
}

impl From<SourceRef> for String {
    fn from(value: SourceRef) -> Self {
        value.0
    }
}

impl fmt::Display for SourceRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// In the OpenAPI document a source is a string with its pattern.
#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for SourceRef {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::Type::String)
            .pattern(Some(r"^[a-z0-9_-]{1,40}$"))
            .into()
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for SourceRef {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grammar_keeps_short_lowercase_sources_only() {
        for ok in ["a", "newsletter", "hn_launch-2", &"x".repeat(40)] {
            assert_eq!(SourceRef::parse(ok).map(|r| r.to_string()).as_deref(), Some(ok));
        }
        for bad in ["", "Twitter", "a b", "a.b", "ü", &"x".repeat(41), "a/b", "a%20"] {
            assert_eq!(SourceRef::parse(bad), None, "{bad:?}");
        }
    }
}

//! Program slugs: `^[a-z0-9-]{3,60}$`, the public name of a program in URLs.

use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("a slug is 3 to 60 characters of a-z, 0-9 and -")]
pub struct SlugError;

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Slug(String);

impl Slug {
    pub fn parse(input: &str) -> Result<Self, SlugError> {
        let ok = (3..=60).contains(&input.len())
            && input.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if ok {
            Ok(Slug(input.to_owned()))
        } else {
            Err(SlugError)
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for Slug {
    type Error = SlugError;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        Slug::parse(&value)
    }
}

impl From<Slug> for String {
    fn from(value: Slug) -> Self {
        value.0
    }
}

impl fmt::Display for Slug {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// In the OpenAPI document a slug is a string with its pattern.
#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for Slug {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::Type::String)
            .pattern(Some(r"^[a-z0-9-]{3,60}$"))
            .into()
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for Slug {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_grammar() {
        for s in ["abc", "beta-2026", &"a".repeat(60), "---"] {
            assert!(Slug::parse(s).is_ok(), "{s}");
        }
    }

    #[test]
    fn refuses_everything_else() {
        for s in ["ab", "", &"a".repeat(61), "Abc", "a_b", "a b", "ab/", "añb", "abc\n"] {
            assert_eq!(Slug::parse(s), Err(SlugError), "{s:?}");
        }
    }
}

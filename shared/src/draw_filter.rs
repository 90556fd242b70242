//! Which waiting entries a lottery draw is over (issue 16). Built from the queue's own
//! filter vocabulary — [`SourceRef`] (the `?ref=` grammar) and [`EntryFlag`] — so a draw's
//! population is one the owner can list in the queue first. Policy: the flag part is
//! either "carries this flag" (as the queue's `flag` filter) or `unflagged` ("carries no
//! flag at all"), because the draw owners usually want is the one that leaves suspected
//! fakes out; there is no "lacks this one flag". Both parts given: entries matching both.

use crate::edge::EntryFlag;
use crate::SourceRef;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The flag part of a draw's filter; on the wire `disposable_domain`,
/// `possible_duplicate` (entries carrying it) or `unflagged` (entries carrying none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum FlagFilter {
    Has(EntryFlag),
    Unflagged,
}

impl FlagFilter {
    pub const ALL: [FlagFilter; 3] = [
        FlagFilter::Unflagged,
        FlagFilter::Has(EntryFlag::DisposableDomain),
        FlagFilter::Has(EntryFlag::PossibleDuplicate),
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            FlagFilter::Has(flag) => flag.as_str(),
            FlagFilter::Unflagged => "unflagged",
        }
    }
}

impl fmt::Display for FlagFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for FlagFilter {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        FlagFilter::ALL.into_iter().find(|f| f.as_str() == s).ok_or(())
    }
}

impl TryFrom<String> for FlagFilter {
    type Error = &'static str;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        value.parse().map_err(|()| "a flag filter is disposable_domain, possible_duplicate or unflagged")
    }
}

impl From<FlagFilter> for String {
    fn from(value: FlagFilter) -> Self {
        value.as_str().to_owned()
    }
}

/// In the OpenAPI document the flag filter is a string of three values.
#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for FlagFilter {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::Type::String)
            .enum_values(Some(FlagFilter::ALL.map(FlagFilter::as_str)))
            .into()
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for FlagFilter {}

/// A draw's population: the program's waiting entries, narrowed by each part given.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DrawFilter {
    /// Only entries that came from this source (`?ref=`); null: any source or none.
    pub source: Option<SourceRef>,
    /// Only entries carrying this flag, or (`unflagged`) carrying none; null: any.
    pub flag: Option<FlagFilter>,
}

impl DrawFilter {
    pub fn is_everyone(&self) -> bool {
        self.source.is_none() && self.flag.is_none()
    }

    /// The population in plain words, e.g. `waiting entries from source “newsletter”
    /// without flags`.
    pub fn describe(&self) -> String {
        if self.is_everyone() {
            return "every waiting entry".to_owned();
        }
        let mut words = "waiting entries".to_owned();
        if let Some(source) = &self.source {
            words.push_str(&format!(" from source “{source}”"));
        }
        words.push_str(match self.flag {
            None => "",
            Some(FlagFilter::Unflagged) => " without flags",
            Some(FlagFilter::Has(EntryFlag::DisposableDomain)) => " flagged as a disposable domain",
            Some(FlagFilter::Has(EntryFlag::PossibleDuplicate)) => " flagged as a possible duplicate",
        });
        words
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_filters_are_the_queue_flags_plus_unflagged() {
        for f in FlagFilter::ALL {
            assert_eq!(f.as_str().parse::<FlagFilter>(), Ok(f));
            assert_eq!(serde_json::to_value(f).unwrap(), serde_json::json!(f.as_str()));
        }
        for flag in EntryFlag::ALL {
            assert_eq!(flag.as_str().parse::<FlagFilter>(), Ok(FlagFilter::Has(flag)));
        }
        for bad in ["", "none", "Unflagged", "disposable"] {
            assert!(serde_json::from_value::<FlagFilter>(serde_json::json!(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_filter_refuses_a_bad_source_and_reads_in_plain_words() {
        let parse = |v| serde_json::from_value::<DrawFilter>(v);
        assert!(parse(serde_json::json!({"source": "Bad Source"})).is_err());
        assert!(parse(serde_json::json!({"state": "waiting"})).is_err());
        let f = parse(serde_json::json!({"source": "newsletter", "flag": "unflagged"})).unwrap();
        assert_eq!(f.describe(), "waiting entries from source “newsletter” without flags");
        assert_eq!(DrawFilter::default().describe(), "every waiting entry");
        assert_eq!(
            serde_json::to_value(DrawFilter::default()).unwrap(),
            serde_json::json!({"source": null, "flag": null})
        );
    }
}

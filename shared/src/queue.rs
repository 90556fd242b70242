//! The queue's filter on an entry's live invitation (issue 19): the two figures an owner
//! must act on before a code is wasted. Both count only an `issued` invitation that has
//! not expired by the database clock, exactly as the program's `notSent` and
//! `expiringSoon` figures do, so a figure and its filtered queue agree.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// "Expiring soon" means within this many hours of the database clock.
pub const EXPIRING_WITHIN_HOURS: i64 = 48;

/// `?invitation=` on the queue's listing, search and export.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum InvitationFilter {
    /// An unexpired issued invitation whose delivery is not recorded (it cannot be redeemed yet).
    Unsent,
    /// An unexpired issued invitation that expires within [`EXPIRING_WITHIN_HOURS`].
    Expiring,
}

impl InvitationFilter {
    pub const ALL: [InvitationFilter; 2] = [InvitationFilter::Unsent, InvitationFilter::Expiring];

    pub fn as_str(self) -> &'static str {
        match self {
            InvitationFilter::Unsent => "unsent",
            InvitationFilter::Expiring => "expiring",
        }
    }
}

impl fmt::Display for InvitationFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for InvitationFilter {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        InvitationFilter::ALL.into_iter().find(|f| f.as_str() == s).ok_or(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wire_names_round_trip_and_nothing_else_parses() {
        for f in InvitationFilter::ALL {
            assert_eq!(f.as_str().parse::<InvitationFilter>(), Ok(f));
            assert_eq!(serde_json::to_string(&f).unwrap(), format!("\"{f}\""));
        }
        for bad in ["", "Unsent", "sent", "expired", "unsent "] {
            assert!(bad.parse::<InvitationFilter>().is_err(), "{bad:?}");
        }
    }
}

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

/// Whether a live code's badge says "Expires soon", as an owner reads it: less than a
/// quarter of its lifetime is left *and* less than [`EXPIRING_WITHIN_HOURS`]. A code just
/// issued never does, however short its lifetime (a one-day code has all its day); a
/// one-day code does in its last 6 hours, a week-long one in its last 42, longer ones in
/// their last 48 (where the "expiring within 48 hours" figure and filter count it too).
/// An expired code is not "soon" (it is expired). Times are milliseconds since the epoch,
/// as the browser's clock gives them.
pub fn expires_soon(issued_ms: f64, expires_ms: f64, now_ms: f64) -> bool {
    let (left, lifetime) = (expires_ms - now_ms, expires_ms - issued_ms);
    let hours = EXPIRING_WITHIN_HOURS as f64 * 3_600_000.0;
    left > 0.0 && left < lifetime / 4.0 && left < hours
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOUR: f64 = 3_600_000.0;

    #[test]
    fn a_fresh_code_is_not_expiring_soon_and_one_near_its_end_is() {
        let now = 1_800_000_000_000.0;
        // Just issued, for a day, a week, a month: none is "soon".
        for days in [1.0, 7.0, 30.0] {
            assert!(!expires_soon(now, now + days * 24.0 * HOUR, now), "{days} days");
        }
        // A one-day code: soon in its last 6 hours, not before.
        let issued = now - 18.5 * HOUR;
        assert!(expires_soon(issued, issued + 24.0 * HOUR, now));
        let issued = now - 17.5 * HOUR;
        assert!(!expires_soon(issued, issued + 24.0 * HOUR, now));
        // A week-long code: its last 42 hours; a month-long code: its last 48.
        let week = 7.0 * 24.0 * HOUR;
        assert!(expires_soon(now - week + 41.0 * HOUR, now + 41.0 * HOUR, now));
        assert!(!expires_soon(now - week + 43.0 * HOUR, now + 43.0 * HOUR, now));
        let month = 30.0 * 24.0 * HOUR;
        assert!(expires_soon(now - month + 47.0 * HOUR, now + 47.0 * HOUR, now));
        assert!(!expires_soon(now - month + 49.0 * HOUR, now + 49.0 * HOUR, now));
        // Expired is not "soon".
        assert!(!expires_soon(now - 25.0 * HOUR, now - HOUR, now));
    }

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

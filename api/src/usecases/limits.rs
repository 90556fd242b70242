//! A program's limits as pure decisions: whether seats are free, and whether an expiry
//! lies in the window an owner may give an invitation or a cohort code. The use cases
//! take these on the values their transaction read under its locks, with its clock; the
//! tests here need no database (the end-to-end tests check the wiring).

use chrono::{DateTime, Duration, Utc};

/// Whether `more` seats fit beside the `in_use` ones under `seat_cap`. What is in use is
/// the caller's count: active grants and unexpired issued invitations, and for a draw the
/// entries already selected as well.
pub fn seats_free(in_use: i64, more: i64, seat_cap: i32) -> bool {
    in_use + more <= i64::from(seat_cap)
}

/// Whether an invitation or a cohort code may expire at `expires_at`, decided at `now`:
/// after `now`, and at most the program's `max_invite_days` later.
pub fn expiry_in_window(expires_at: DateTime<Utc>, now: DateTime<Utc>, max_invite_days: i32) -> bool {
    expires_at > now && expires_at <= now + Duration::days(i64::from(max_invite_days))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seats_are_free_up_to_the_cap_and_not_beyond() {
        assert!(seats_free(0, 1, 1));
        assert!(seats_free(3, 2, 5));
        assert!(!seats_free(3, 3, 5));
        assert!(!seats_free(5, 1, 5));
        assert!(seats_free(5, 0, 5), "lowering a cap to the seats in use is allowed");
        assert!(!seats_free(6, 0, 5), "but not below them");
    }

    #[test]
    fn an_expiry_lies_after_now_and_within_the_programs_days() {
        let now = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        let day = Duration::days(1);
        assert!(expiry_in_window(now + Duration::microseconds(1), now, 7));
        assert!(expiry_in_window(now + day * 7, now, 7), "the last day is in");
        assert!(!expiry_in_window(now + day * 7 + Duration::microseconds(1), now, 7));
        assert!(!expiry_in_window(now, now, 7), "now is not the future");
        assert!(!expiry_in_window(now - day, now, 30));
    }
}

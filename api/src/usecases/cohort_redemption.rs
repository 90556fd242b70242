//! A signed-in user redeems a cohort code: with a verified email and no entry in the
//! code's program, after accepting the program's current notice, they get an entry
//! (already `active`, source `cohort`, recording the notice and the choice time) and a
//! grant. Policy: the same [`Refused::NotFound`] for every reason the code does not
//! open the program for this user (unknown, revoked, expired, used up, no seat, an
//! entry or grant already there, no notice), so the answer is today's redemption
//! failure (`super::redemption`, the caller, turns it into its `Denied`; this module
//! knows nothing of its caller). A usable code without acceptance of the current notice
//! writes nothing and answers [`Redeemed::NoticeRequired`] with that notice.
//! Questions (issue 31): a cohort code skips the queue, not the notice, so the answers to
//! the accepted notice's questions are checked as on the waitlist form (a bad one is
//! [`Refused::InvalidAnswer`], nothing written) and stored with the entry, which also
//! records that its address was verified at join (it is one of the account's verified
//! addresses, by the rule above).
//!
//! Locks: workspace `FOR KEY SHARE` → program `FOR UPDATE` → the caller's entry (none
//! may exist) → the code `FOR UPDATE`; then the clock, and fresh reads of seats, the
//! caller's grants and the current notice — all one pipeline (`db::cohorts`), and the
//! writes another. Every writer of the program's entries, grants and codes holds the
//! program row first, so uses and seats are exact under any concurrency, across
//! instances; the `uses <= max_uses` CHECK is the backstop.

use super::cohorts::{state_at, CohortCodeRow};
use super::limits;
use super::use_case_error;
use crate::db;
use crate::db::cohorts::{self, CohortUse};
use crate::db::programs::NoticeRow;
use chrono::{DateTime, Utc};
use deadpool_postgres::Pool;
use shared::cohort::CohortCodeState;
use shared::questions::{check_answers, AnswerError, Answers};

/// What a redemption ended with.
#[derive(Debug)]
pub enum Redeemed {
    /// The grant is active; the program's slug.
    Active(String),
    /// Nothing written: the user must accept this notice of the program `slug` first.
    NoticeRequired { slug: String, notice: NoticeRow },
}

use_case_error! {
    /// Why a cohort redemption wrote nothing: `NotFound` for every reason the code does
    /// not open the program for this user (the caller's one denial), an answer that does
    /// not fit the accepted notice's questions, or the database.
    pub enum Refused {
        #[error("invalid answer: {0}")]
        InvalidAnswer(#[from] AnswerError),
    }
}

/// What the user accepted: the notice version whose box they ticked, if they did, and
/// their answers to its questions.
#[derive(Debug, Clone, Copy)]
pub struct Acceptance<'a> {
    pub version: Option<i32>,
    pub answers: &'a Answers,
}

/// Redeems the cohort code `route` points from (`db::cohorts::route_by_digest`, read by
/// the caller) for `user_id`, whose verified emails are `emails` (sorted; the first
/// becomes the entry's), with what they `accepted`.
pub async fn redeem(
    pool: &Pool,
    route: cohorts::Route,
    user_id: &str,
    emails: &[&str],
    accepted: Acceptance<'_>,
) -> Result<Redeemed, Refused> {
    use Refused::NotFound as Denied;
    let email = *emails.first().ok_or(Denied)?;
    db::transaction(pool, async |tx| {
        // The locks and every read the decision needs, in one round trip (`db::cohorts`).
        let locked = cohorts::lock_for_use(tx, route, user_id, emails).await?;
        if locked.workspace_active != Some(true) {
            return Err(Denied);
        }
        let program = locked.program.ok_or(Denied)?;
        let code = locked.code.as_ref().ok_or(Denied)?;
        if locked.has_entry || !opens(code, locked.seats_in_use, program.seat_cap, locked.granted, locked.now) {
            return Err(Denied);
        }
        // The current notice, by the program row this transaction holds locked.
        let notice = locked.notice.ok_or(Denied)?;
        if accepted.version != program.current_notice_version {
            return Ok(Redeemed::NoticeRequired { slug: program.slug, notice });
        }
        let answers = check_answers(&notice.questions, accepted.answers)?;
        let answers = serde_json::to_value(&answers).expect("answers serialize");
        let one = CohortUse {
            program_id: program.id,
            code_id: route.code_id,
            email,
            notice_id: notice.id,
            notice_version: notice.version,
            clerk_user_id: user_id,
            now: locked.now,
            answers,
        };
        // Written in one round trip; a guard that missed returns `None`, and the refusal
        // rolls back what went out after it.
        cohorts::record_use(tx, &one).await?.ok_or(Denied)?;
        Ok(Redeemed::Active(program.slug))
    })
    .await
}

/// Whether a cohort code opens its program for this user, decided on what the
/// transaction read under its locks at `now`: the code is active (not revoked, expired or
/// used up), a seat is free beside the `in_use` ones under `seat_cap`, and the user holds
/// no grant of the program yet (`granted`). Every `false` is the same [`Refused::NotFound`].
fn opens(code: &CohortCodeRow, in_use: i64, seat_cap: i32, granted: bool, now: DateTime<Utc>) -> bool {
    state_at(code, now) == CohortCodeState::Active && limits::seats_free(in_use, 1, seat_cap) && !granted
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usecases::cohorts::tests::code;
    use chrono::Duration;

    #[test]
    fn a_cohort_code_opens_only_while_active_with_a_free_seat_and_no_grant() {
        let now = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        let later = now + Duration::days(1);
        assert!(opens(&code(2, 5, later, false), 9, 10, false, now));

        assert!(!opens(&code(2, 5, later, false), 10, 10, false, now), "no free seat");
        assert!(!opens(&code(2, 5, later, false), 0, 10, true, now), "a grant already");
        assert!(!opens(&code(5, 5, later, false), 0, 10, false, now), "used up");
        assert!(!opens(&code(2, 5, now, false), 0, 10, false, now), "expired");
        assert!(!opens(&code(2, 5, later, true), 0, 10, false, now), "revoked");
    }
}

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
//! may exist) → the code `FOR UPDATE`; then the clock, and fresh reads of seats and the
//! caller's grants. Every writer of the program's entries, grants and codes holds the
//! program row first, so uses and seats are exact under any concurrency, across
//! instances; the `uses <= max_uses` CHECK is the backstop.

use super::cohorts::{state_at, CohortCodeRow};
use super::limits;
use super::use_case_error;
use crate::db::audit::{self, Actor, Detail, EventType};
use crate::db::cohorts::{self, CohortUse};
use crate::db::locks::{self, Strength};
use crate::db::programs::NoticeRow;
use crate::db::{self, entries, invitations};
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

/// Redeems the cohort code whose digest is `digest` for `user_id`, whose verified emails
/// are `emails` (sorted; the first becomes the entry's), with what they `accepted`.
pub async fn redeem(
    pool: &Pool,
    digest: &[u8],
    user_id: &str,
    emails: &[&str],
    accepted: Acceptance<'_>,
) -> Result<Redeemed, Refused> {
    use Refused::NotFound as Denied;
    let email = *emails.first().ok_or(Denied)?;
    db::transaction(pool, async |tx| {
        let (code_id, program_id, workspace_id) = cohorts::route_by_digest(tx, digest).await?.ok_or(Denied)?;
        if locks::workspace(tx, workspace_id, Strength::KeyShare).await? != Some(true) {
            return Err(Denied);
        }
        let program = locks::program(tx, workspace_id, program_id, Strength::Update).await?.ok_or(Denied)?;
        if entries::lock_own(tx, program.id, emails).await?.is_some() {
            return Err(Denied);
        }
        let code = cohorts::lock(tx, program.id, code_id).await?.ok_or(Denied)?;
        let now = locks::now(tx).await?;
        let notice_id = program.current_notice_id.ok_or(Denied)?;
        let in_use = invitations::seats_in_use(tx, program.id, now).await?;
        let granted = cohorts::user_has_grant(tx, program.id, user_id).await?;
        if !opens(&code, in_use, program.seat_cap, granted, now) {
            return Err(Denied);
        }
        let notice = cohorts::notice(tx, program.id, notice_id).await?.ok_or(Denied)?;
        if accepted.version != program.current_notice_version {
            return Ok(Redeemed::NoticeRequired { slug: program.slug, notice });
        }
        let answers = check_answers(&notice.questions, accepted.answers)?;
        let answers = serde_json::to_value(&answers).expect("answers serialize");
        let one = CohortUse { program_id: program.id, code_id, email, notice_id, clerk_user_id: user_id, now, answers };
        let (entry, grant) = cohorts::record_use(tx, &one).await?.ok_or(Denied)?;
        let version = i64::from(program.current_notice_version.unwrap_or_default());
        let signup = [("noticeVersion", Detail::Number(version)), ("source", Detail::Code("cohort"))];
        audit::record(tx, program.id, Some(entry), Actor::Recipient, EventType::Signup, now, &signup).await?;
        let used = [("cohortCodeId", Detail::Id(code_id)), ("grantId", Detail::Id(grant))];
        audit::record(tx, program.id, Some(entry), Actor::Recipient, EventType::Redeemed, now, &used).await?;
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

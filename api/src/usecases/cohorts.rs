//! The owner's cohort codes: create (the code exists in clear only inside
//! [`FreshCohortCode`], revealed once by the route after COMMIT), list with uses, read
//! one, revoke. Policy: every write runs through `owner::write` (workspace → program →
//! code), is decided on the database clock, and leaves one audit event; the expiry lies
//! within the program's `maxInviteDays`, like an invitation's. Revoking stops further
//! uses; grants already made stay (revoke those one by one).

use super::limits;
use super::owner::{self, Scope};
use super::use_case_error;
use crate::crypto;
use crate::db::audit::{self, Detail, EventType};
use crate::db::cohorts::{self, NewCohortCode};
use chrono::{DateTime, Utc};
use deadpool_postgres::Pool;
use shared::cohort::CohortCodeState;
use uuid::Uuid;

pub use crate::db::cohorts::CohortCodeRow;

use_case_error! {
    pub enum CohortError {
        #[error("expiry out of range")]
        ExpiryOutOfRange,
    }
}

/// A freshly generated cohort code; its `Debug` is redacted so it cannot reach a log.
pub struct FreshCohortCode(String);

impl FreshCohortCode {
    pub fn reveal(self) -> String {
        self.0
    }
}

impl std::fmt::Debug for FreshCohortCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FreshCohortCode(<redacted>)")
    }
}

/// A code as the owner asked for it (bounded at the edge).
#[derive(Debug, Clone)]
pub struct CohortCodeSpec {
    pub label: String,
    pub note: Option<String>,
    pub max_uses: i32,
    pub expires_at: DateTime<Utc>,
}

/// A code with its state at the transaction's clock.
pub type CohortCodeView = (CohortCodeRow, CohortCodeState);

/// A code's state at `now`: revoked first, then expired, then used up; else active (one
/// more use may be taken — the seats are the redeemer's to check).
pub fn state_at(row: &CohortCodeRow, now: DateTime<Utc>) -> CohortCodeState {
    if row.revoked_at.is_some() {
        CohortCodeState::Revoked
    } else if row.expires_at <= now {
        CohortCodeState::Expired
    } else if row.uses >= row.max_uses {
        CohortCodeState::Exhausted
    } else {
        CohortCodeState::Active
    }
}

pub async fn create(
    pool: &Pool,
    user_id: &str,
    program_id: Uuid,
    spec: &CohortCodeSpec,
) -> Result<(CohortCodeView, FreshCohortCode), CohortError> {
    owner::write(pool, user_id, Scope::Program(program_id), async |o| {
        if !limits::expiry_in_window(spec.expires_at, o.now, o.program.max_invite_days) {
            return Err(CohortError::ExpiryOutOfRange);
        }
        let (code, digest) = crypto::new_cohort_code();
        let new = NewCohortCode {
            digest: &digest,
            label: &spec.label,
            note: spec.note.as_deref(),
            max_uses: spec.max_uses,
            expires_at: spec.expires_at,
        };
        let row = cohorts::insert(o.tx, o.program.id, o.staff_id, &new, o.now).await?;
        let details = [
            ("cohortCodeId", Detail::Id(row.id)),
            ("maxUses", Detail::Number(i64::from(row.max_uses))),
            ("expiresAt", Detail::Time(row.expires_at)),
        ];
        audit::record(o.tx, o.program.id, None, o.actor(), EventType::CohortCodeCreated, o.now, &details).await?;
        let state = state_at(&row, o.now);
        Ok(((row, state), FreshCohortCode(code)))
    })
    .await
}

/// The program's codes with their uses, newest first.
pub async fn list(pool: &Pool, user_id: &str, program_id: Uuid) -> Result<Vec<CohortCodeView>, CohortError> {
    owner::read(pool, user_id, Scope::Program(program_id), async |o| {
        let rows = cohorts::of_program(o.tx, o.program.id).await?;
        Ok(rows.into_iter().map(|r| (state_at(&r, o.now), r)).map(|(state, row)| (row, state)).collect())
    })
    .await
}

pub async fn get(pool: &Pool, user_id: &str, program_id: Uuid, code_id: Uuid) -> Result<CohortCodeView, CohortError> {
    owner::read(pool, user_id, Scope::Program(program_id), async |o| {
        let row = cohorts::get(o.tx, o.program.id, code_id).await?.ok_or(CohortError::NotFound)?;
        let state = state_at(&row, o.now);
        Ok((row, state))
    })
    .await
}

/// Stops further uses. Revoking a revoked code answers the same, without a second event.
pub async fn revoke(
    pool: &Pool,
    user_id: &str,
    program_id: Uuid,
    code_id: Uuid,
) -> Result<CohortCodeView, CohortError> {
    owner::write(pool, user_id, Scope::Program(program_id), async |o| {
        let row = cohorts::lock(o.tx, o.program.id, code_id).await?.ok_or(CohortError::NotFound)?;
        let row = match cohorts::revoke(o.tx, row.id, o.now).await? {
            Some(revoked) => {
                let details =
                    [("cohortCodeId", Detail::Id(code_id)), ("uses", Detail::Number(i64::from(revoked.uses)))];
                audit::record(o.tx, o.program.id, None, o.actor(), EventType::CohortCodeRevoked, o.now, &details)
                    .await?;
                revoked
            }
            None => row,
        };
        let state = state_at(&row, o.now);
        Ok((row, state))
    })
    .await
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use chrono::Duration;

    pub fn code(uses: i32, max_uses: i32, expires_at: DateTime<Utc>, revoked: bool) -> CohortCodeRow {
        CohortCodeRow {
            id: Uuid::from_u128(3),
            program_id: Uuid::nil(),
            label: "Beta".to_owned(),
            note: None,
            max_uses,
            uses,
            created_at: expires_at - Duration::days(7),
            expires_at,
            revoked_at: revoked.then_some(expires_at - Duration::days(1)),
        }
    }

    #[test]
    fn a_codes_state_is_revoked_then_expired_then_used_up_else_active() {
        let now = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        let later = now + Duration::days(1);
        assert_eq!(state_at(&code(0, 5, later, false), now), CohortCodeState::Active);
        assert_eq!(state_at(&code(4, 5, later, false), now), CohortCodeState::Active);
        assert_eq!(state_at(&code(5, 5, later, false), now), CohortCodeState::Exhausted);
        assert_eq!(state_at(&code(0, 5, now, false), now), CohortCodeState::Expired, "expiring now is expired");
        assert_eq!(state_at(&code(5, 5, now, false), now), CohortCodeState::Expired);
        assert_eq!(state_at(&code(5, 5, now, true), now), CohortCodeState::Revoked);
    }
}

//! The owner's decisions on entries: select, decline, withdraw (on the applicant's
//! request), bulk select, and revoking a grant. Policy: the transition is decided under
//! workspace → program → entry locks by the transition table; a decline also needs no
//! issued invitation and no grant; each entry that changes gets exactly one event. Bulk
//! select is set-based: one statement locks the first N waiting entries in queue order,
//! one moves them, one appends their events. One entry is named as the route names it:
//! `(program_id, entry_id)`.

use super::owner::{self, Scope};
use super::use_case_error;
use super::withdrawal::{self, Withdrawal};
use crate::db::audit::{self, Detail, EventType};
use crate::db::entries::{self, LockedEntry};
use crate::db::grants;
use crate::db::invitations;
use crate::domain::{EntryMove, EntryState};
use deadpool_postgres::Pool;
use uuid::Uuid;

pub use crate::db::grants::GrantRow;

use_case_error! {
    pub enum DecisionError with transitions {}
}

/// A reason code or basis from the fixed allow-lists of `shared::api`.
pub type Code = &'static str;

/// waiting → selected, with the owner's reason.
pub async fn select(pool: &Pool, user_id: &str, entry: (Uuid, Uuid), reason: Code) -> Result<(), DecisionError> {
    owner::write_entry(pool, user_id, entry, async |o, entry| {
        move_and_record(o, &[entry], EntryState::Selected, EventType::Selected, reason).await
    })
    .await
}

/// waiting or selected → declined, when the entry has no issued invitation and no grant.
pub async fn decline(pool: &Pool, user_id: &str, entry: (Uuid, Uuid), reason: Code) -> Result<(), DecisionError> {
    owner::write_entry(pool, user_id, entry, async |o, entry| {
        EntryMove::new(entry.state, EntryState::Declined)?;
        let ids = [entry.id];
        let issued = invitations::lock_issued(o.tx, &ids).await?;
        let granted = grants::lock_of_entries(o.tx, &ids).await?;
        if !issued.is_empty() || !granted.is_empty() {
            return Err(DecisionError::InvalidTransition);
        }
        move_and_record(o, &[entry], EntryState::Declined, EventType::Declined, reason).await
    })
    .await
}

/// The applicant's withdrawal, recorded by an owner; repeating it answers the same.
pub async fn withdraw(
    pool: &Pool,
    user_id: &str,
    entry: (Uuid, Uuid),
    basis: Code,
) -> Result<Withdrawal, DecisionError> {
    owner::write_entry(pool, user_id, entry, async |o, entry| {
        withdrawal::withdraw(o.tx, o.program.id, &entry, o.actor(), basis, o.now).await
    })
    .await
}

/// Selects the first `count` waiting entries in queue order; returns them in that order.
pub async fn select_first_waiting(
    pool: &Pool,
    user_id: &str,
    program_id: Uuid,
    count: i64,
    reason: Code,
) -> Result<Vec<Uuid>, DecisionError> {
    owner::write(pool, user_id, Scope::Program(program_id), async |o| {
        let waiting = entries::lock_first_waiting(o.tx, o.program.id, count).await?;
        move_and_record(o, &waiting, EntryState::Selected, EventType::Selected, reason).await?;
        Ok(waiting.iter().map(|e| e.id).collect())
    })
    .await
}

/// Declines the first `count` waiting entries carrying `flag` (issue 15), in queue
/// order, with one reason code; returns them in that order. A waiting entry has no
/// invitation or grant, so no further check applies.
pub async fn decline_first_flagged(
    pool: &Pool,
    user_id: &str,
    program_id: Uuid,
    flag: shared::api::EntryFlag,
    count: i64,
    reason: Code,
) -> Result<Vec<Uuid>, DecisionError> {
    owner::write(pool, user_id, Scope::Program(program_id), async |o| {
        let flagged = entries::lock_first_flagged(o.tx, o.program.id, flag, count).await?;
        move_and_record(o, &flagged, EntryState::Declined, EventType::Declined, reason).await?;
        Ok(flagged.iter().map(|e| e.id).collect())
    })
    .await
}

/// Moves locked entries (all in the same state) to `to` in one statement and appends
/// one `kind` event per entry with the state it came from and the owner's reason.
async fn move_and_record(
    o: &owner::Owned<'_, '_>,
    locked: &[LockedEntry],
    to: EntryState,
    kind: EventType,
    reason: Code,
) -> Result<(), DecisionError> {
    let Some(first) = locked.first() else { return Ok(()) };
    let step = EntryMove::new(first.state, to)?;
    let ids: Vec<Uuid> = locked.iter().map(|e| e.id).collect();
    if locked.iter().any(|e| e.state != first.state)
        || entries::set_states(o.tx, &ids, step, o.now).await? != ids.len() as u64
    {
        return Err(DecisionError::InvalidTransition);
    }
    let details = |_| vec![("from", Detail::Code(first.state.as_str())), ("reasonCode", Detail::Code(reason))];
    let events: Vec<_> = ids.iter().map(|id| (*id, details(id))).collect();
    audit::record_many(o.tx, o.program.id, &events, o.actor(), kind, o.now).await?;
    Ok(())
}

/// An active grant becomes inactive and its entry `revoked`: the recipient's next read
/// is denied. A revoked entry is final (a new cycle needs a new program).
pub async fn revoke_grant(pool: &Pool, user_id: &str, grant_id: Uuid) -> Result<GrantRow, DecisionError> {
    owner::write(pool, user_id, Scope::Grant(grant_id), async |o| {
        let entry_id = o.entry_id.ok_or(DecisionError::NotFound)?;
        let entry = entries::lock(o.tx, o.program.id, entry_id).await?.ok_or(DecisionError::NotFound)?;
        let grant = grants::lock(o.tx, o.program.id, grant_id).await?.ok_or(DecisionError::NotFound)?;
        if !grant.active {
            return Err(DecisionError::InvalidTransition);
        }
        let step = EntryMove::new(entry.state, EntryState::Revoked)?;
        if !entries::set_state(o.tx, entry.id, step, o.now).await? {
            return Err(DecisionError::InvalidTransition);
        }
        let grant = grants::deactivate(o.tx, grant_id, o.now).await?.ok_or(DecisionError::InvalidTransition)?;
        let details = [("grantId", Detail::Id(grant_id))];
        audit::record(o.tx, o.program.id, Some(entry.id), o.actor(), EventType::GrantRevoked, o.now, &details).await?;
        Ok(grant)
    })
    .await
}

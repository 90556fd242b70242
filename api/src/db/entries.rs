//! Entry transitions shared by several audiences. The withdrawal is one transition,
//! whoever records it (the applicant or an owner on their request): it revokes an
//! issued invitation and deactivates an active grant in the same transaction, and
//! repeating it answers the same.

use crate::db::audit::{self, Actor, Detail, EventType};
use crate::db::locks::ProgramRow;
use crate::domain::EntryState;
use crate::error::{ApiError, Result};
use chrono::{DateTime, Utc};
use deadpool_postgres::Transaction;
use shared::ErrorCode;
use uuid::Uuid;

/// Locks an entry of `program_id` (after the workspace and program locks) and returns
/// its state as read under the lock; `None` when it is not this program's.
pub async fn lock(tx: &Transaction<'_>, program_id: Uuid, entry_id: Uuid) -> Result<Option<EntryState>> {
    let stmt = tx.prepare_cached("SELECT state FROM entries WHERE id = $1 AND program_id = $2 FOR UPDATE").await?;
    let row = tx.query_opt(&stmt, &[&entry_id, &program_id]).await?;
    Ok(row.map(|r| r.get::<_, &str>(0).parse::<EntryState>().expect("entries_state constraint")))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Withdrawal {
    /// The entry is now withdrawn (with what was revoked along the way).
    Done { invitation_revoked: Option<Uuid>, grant_revoked: Option<Uuid> },
    /// It was withdrawn already: nothing changed, the same answer is given.
    AlreadyWithdrawn,
}

/// Withdraws `entry_id` of the locked `program`. Takes the entry, invitation and grant
/// locks in the global order. `basis` is from the allow-list (SPEC §6.4).
pub async fn withdraw(
    tx: &Transaction<'_>,
    program: &ProgramRow,
    entry_id: Uuid,
    actor: Actor,
    basis: &'static str,
    now: DateTime<Utc>,
) -> Result<Withdrawal> {
    let state = lock(tx, program.id, entry_id).await?.ok_or(ApiError::NotFound)?;
    if state == EntryState::Withdrawn {
        return Ok(Withdrawal::AlreadyWithdrawn);
    }
    if !state.may_become(EntryState::Withdrawn) {
        return Err(ApiError::Conflict(ErrorCode::InvalidTransition));
    }
    let stmt =
        tx.prepare_cached("SELECT id FROM invitations WHERE entry_id = $1 AND state = 'issued' FOR UPDATE").await?;
    let invitation: Option<Uuid> = tx.query_opt(&stmt, &[&entry_id]).await?.map(|r| r.get(0));
    let stmt = tx.prepare_cached("SELECT id FROM grants WHERE entry_id = $1 AND active FOR UPDATE").await?;
    let grant: Option<Uuid> = tx.query_opt(&stmt, &[&entry_id]).await?.map(|r| r.get(0));
    if let Some(id) = invitation {
        let stmt =
            tx.prepare_cached("UPDATE invitations SET state = 'revoked', terminal_at = $2 WHERE id = $1").await?;
        tx.execute(&stmt, &[&id, &now]).await?;
    }
    if let Some(id) = grant {
        let stmt = tx.prepare_cached("UPDATE grants SET active = false, revoked_at = $2 WHERE id = $1").await?;
        tx.execute(&stmt, &[&id, &now]).await?;
    }
    let stmt = tx.prepare_cached("UPDATE entries SET state = 'withdrawn', updated_at = $2 WHERE id = $1").await?;
    tx.execute(&stmt, &[&entry_id, &now]).await?;
    // Every state but withdrawn counts toward the queue cap.
    let stmt = tx.prepare_cached("UPDATE programs SET queue_count = queue_count - 1 WHERE id = $1").await?;
    tx.execute(&stmt, &[&program.id]).await?;
    let mut details = vec![("from", Detail::Code(state.as_str())), ("basis", Detail::Code(basis))];
    if let Some(id) = invitation {
        details.push(("invitationRevoked", Detail::Id(id)));
    }
    if let Some(id) = grant {
        details.push(("grantRevoked", Detail::Id(id)));
    }
    audit::record(tx, program.id, Some(entry_id), actor, EventType::Withdrawn, now, &details).await?;
    Ok(Withdrawal::Done { invitation_revoked: invitation, grant_revoked: grant })
}

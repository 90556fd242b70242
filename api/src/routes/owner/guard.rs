//! The owner check, done inside the request's transaction so it holds for the whole
//! of it: lock the workspace (FOR UPDATE for writers, FOR SHARE for readers), then read
//! the caller's membership fresh, then lock the program. Every failure is `NotFound`.

use crate::db::locks::{self, ProgramRow, Strength};
use crate::db::staff;
use crate::error::{ApiError, Result};
use crate::identity::Session;
use deadpool_postgres::Transaction;
use uuid::Uuid;

/// An owner who passed the check, named by their staff member id (what events record).
#[derive(Debug, Clone, Copy)]
pub struct Owner {
    pub staff_id: Uuid,
    pub workspace_id: Uuid,
}

/// Locks the workspace with `strength` and checks the caller owns it.
pub async fn workspace(
    tx: &Transaction<'_>,
    session: &Session,
    workspace_id: Uuid,
    strength: Strength,
) -> Result<Owner> {
    match locks::workspace(tx, workspace_id, strength).await? {
        Some(true) => {}
        _ => return Err(ApiError::NotFound),
    }
    let staff_id = staff::active_owner(tx, workspace_id, &session.user_id).await?.ok_or(ApiError::NotFound)?;
    Ok(Owner { staff_id, workspace_id })
}

/// Finds the program's workspace (for lock routing only), locks the workspace with
/// `strength`, checks ownership, then locks the program (`FOR UPDATE` for writers,
/// `FOR SHARE` for readers) and returns it as read after the lock.
pub async fn program(
    tx: &Transaction<'_>,
    session: &Session,
    program_id: Uuid,
    strength: Strength,
) -> Result<(Owner, ProgramRow)> {
    let stmt = tx.prepare_cached("SELECT workspace_id FROM programs WHERE id = $1").await?;
    let workspace_id: Uuid = tx.query_opt(&stmt, &[&program_id]).await?.ok_or(ApiError::NotFound)?.get(0);
    let owner = workspace(tx, session, workspace_id, strength).await?;
    let program_strength = if strength == Strength::Update { Strength::Update } else { Strength::Share };
    let program = locks::program(tx, workspace_id, program_id, program_strength).await?.ok_or(ApiError::NotFound)?;
    Ok((owner, program))
}

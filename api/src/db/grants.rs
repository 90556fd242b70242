//! `grants` rows: one per entry and one per (program, user), made by a redemption,
//! deactivated by a revocation or a withdrawal. Callers hold the workspace, program,
//! entry and invitation locks first.

use super::Result;
use chrono::{DateTime, Utc};
use deadpool_postgres::Transaction;
use tokio_postgres::Row;
use uuid::Uuid;

#[derive(Debug, Clone)]
pub struct GrantRow {
    pub id: Uuid,
    pub entry_id: Uuid,
    pub active: bool,
    pub granted_at: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
}

const COLUMNS: &str = "id, entry_id, active, granted_at, revoked_at";

/// The unique constraint that allows one grant per (program, user).
pub const ONE_PER_USER: &str = "grants_program_user_key";

impl From<&Row> for GrantRow {
    fn from(r: &Row) -> Self {
        GrantRow { id: r.get(0), entry_id: r.get(1), active: r.get(2), granted_at: r.get(3), revoked_at: r.get(4) }
    }
}

/// (program, entry) of a grant, for lock routing only (immutable; rechecked under lock).
pub async fn route(tx: &Transaction<'_>, id: Uuid) -> Result<Option<(Uuid, Uuid)>> {
    let stmt = tx.prepare_cached("SELECT program_id, entry_id FROM grants WHERE id = $1").await?;
    Ok(tx.query_opt(&stmt, &[&id]).await?.map(|r| (r.get(0), r.get(1))))
}

/// Locks a grant of `program_id` (after its entry and any invitation lock).
pub async fn lock(tx: &Transaction<'_>, program_id: Uuid, id: Uuid) -> Result<Option<GrantRow>> {
    let sql = format!("SELECT {COLUMNS} FROM grants WHERE id = $1 AND program_id = $2 FOR UPDATE");
    let stmt = tx.prepare_cached(&sql).await?;
    Ok(tx.query_opt(&stmt, &[&id, &program_id]).await?.as_ref().map(GrantRow::from))
}

pub(crate) fn lock_of_entries_sql() -> String {
    format!("SELECT {COLUMNS} FROM grants WHERE entry_id = ANY($1) ORDER BY entry_id FOR UPDATE")
}

/// Locks the grants (active or not) of the listed locked entries, in entry id order.
pub async fn lock_of_entries(tx: &Transaction<'_>, sorted_entry_ids: &[Uuid]) -> Result<Vec<GrantRow>> {
    let stmt = tx.prepare_cached(&lock_of_entries_sql()).await?;
    Ok(tx.query(&stmt, &[&sorted_entry_ids]).await?.iter().map(GrantRow::from).collect())
}

pub async fn of_entry(tx: &Transaction<'_>, entry_id: Uuid) -> Result<Option<GrantRow>> {
    let sql = format!("SELECT {COLUMNS} FROM grants WHERE entry_id = $1");
    let stmt = tx.prepare_cached(&sql).await?;
    Ok(tx.query_opt(&stmt, &[&entry_id]).await?.as_ref().map(GrantRow::from))
}

pub(crate) const INSERT_SQL: &str =
    "INSERT INTO grants (id, program_id, entry_id, invitation_id, clerk_user_id, granted_at) \
     VALUES ($1, $2, $3, $4, $5, $6)";

/// Creates the active grant `id` of a redemption (the id is chosen by the caller, so a
/// statement pipelined after this one can name it); a second grant of this user in the
/// program is `DbError::Unique(ONE_PER_USER)`.
pub async fn insert(
    tx: &Transaction<'_>,
    id: Uuid,
    program_id: Uuid,
    entry_id: Uuid,
    invitation_id: Uuid,
    clerk_user_id: &str,
    now: DateTime<Utc>,
) -> Result<()> {
    let stmt = tx.prepare_cached(INSERT_SQL).await?;
    tx.execute(&stmt, &[&id, &program_id, &entry_id, &invitation_id, &clerk_user_id, &now]).await?;
    Ok(())
}

/// Deactivates a locked grant at `now`; `None` when it was not active.
pub async fn deactivate(tx: &Transaction<'_>, id: Uuid, now: DateTime<Utc>) -> Result<Option<GrantRow>> {
    let sql = format!("UPDATE grants SET active = false, revoked_at = $2 WHERE id = $1 AND active RETURNING {COLUMNS}");
    let stmt = tx.prepare_cached(&sql).await?;
    Ok(tx.query_opt(&stmt, &[&id, &now]).await?.as_ref().map(GrantRow::from))
}

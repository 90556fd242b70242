//! Row locks in the one global order: workspace → program → entry → invitation → grant.
//! Each function takes one lock in its own statement and returns the row as it is after
//! the lock was granted, so callers decide on fresh data. Callers take them in order.

use super::Result;
use chrono::{DateTime, Utc};
use deadpool_postgres::Transaction;
use shared::edge::PowLevel;
use shared::questions::JoinWith;
use tokio_postgres::Row;
use uuid::Uuid;

/// How strongly a row is locked (SPEC §5: owner writers `Update` the workspace; signups,
/// redemptions, withdrawals need it unchanged (`KeyShare`); readers take `Share`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strength {
    Update,
    Share,
    KeyShare,
}

/// Locks the workspace row; `None` when it does not exist. Returns whether it is active.
pub async fn workspace(tx: &Transaction<'_>, id: Uuid, strength: Strength) -> Result<Option<bool>> {
    let stmt = tx.prepare_cached(workspace_sql(strength)).await?;
    Ok(tx.query_opt(&stmt, &[&id]).await?.map(|r| r.get(0)))
}

/// The statement [`workspace`] runs (exposed so a caller can prepare it ahead of a pipeline).
pub fn workspace_sql(strength: Strength) -> &'static str {
    match strength {
        Strength::Update => "SELECT active FROM workspaces WHERE id = $1 FOR UPDATE",
        Strength::Share => "SELECT active FROM workspaces WHERE id = $1 FOR SHARE",
        Strength::KeyShare => "SELECT active FROM workspaces WHERE id = $1 FOR KEY SHARE",
    }
}

/// A program row read under its lock.
#[derive(Debug, Clone)]
pub struct ProgramRow {
    pub id: Uuid,
    pub workspace_id: Uuid,
    pub slug: String,
    pub purpose: String,
    pub signup_open: bool,
    pub access_enabled: bool,
    pub queue_cap: i32,
    pub hourly_cap: i32,
    pub seat_cap: i32,
    pub max_invite_days: i32,
    pub revision: i64,
    pub current_notice_id: Option<Uuid>,
    pub current_notice_version: Option<i32>,
    pub created_at: DateTime<Utc>,
    pub title: Option<String>,
    pub description: Option<String>,
    pub pow_level: PowLevel,
    pub embed_origins: Vec<String>,
    pub join_with: JoinWith,
}

pub const PROGRAM_COLUMNS: &str = "id, workspace_id, public_slug, purpose, signup_open, access_enabled, queue_cap, \
     hourly_cap, seat_cap, max_invite_days, revision, current_notice_id, current_notice_version, created_at, title, description, pow_level, embed_origins, \
     join_with";

impl From<&Row> for ProgramRow {
    fn from(r: &Row) -> Self {
        ProgramRow {
            id: r.get(0),
            workspace_id: r.get(1),
            slug: r.get(2),
            purpose: r.get(3),
            signup_open: r.get(4),
            access_enabled: r.get(5),
            queue_cap: r.get(6),
            hourly_cap: r.get(7),
            seat_cap: r.get(8),
            max_invite_days: r.get(9),
            revision: r.get(10),
            current_notice_id: r.get(11),
            current_notice_version: r.get(12),
            created_at: r.get(13),
            title: r.get(14),
            description: r.get(15),
            pow_level: r.get::<_, &str>(16).parse().expect("programs_pow_level constraint"),
            embed_origins: r.get(17),
            join_with: r.get::<_, &str>(18).parse().expect("programs_join_with constraint"),
        }
    }
}

/// Locks the program row, which must belong to `workspace_id` (the binding is rechecked
/// after the wait, in the same statement that takes the lock).
pub async fn program(
    tx: &Transaction<'_>,
    workspace_id: Uuid,
    id: Uuid,
    strength: Strength,
) -> Result<Option<ProgramRow>> {
    let stmt = tx.prepare_cached(&program_sql(strength)).await?;
    Ok(tx.query_opt(&stmt, &[&id, &workspace_id]).await?.as_ref().map(ProgramRow::from))
}

/// The statement [`program`] runs (exposed so a caller can prepare it ahead of a pipeline).
pub fn program_sql(strength: Strength) -> String {
    let suffix = match strength {
        Strength::Update => " FOR UPDATE",
        Strength::Share => " FOR SHARE",
        Strength::KeyShare => " FOR KEY SHARE",
    };
    format!("SELECT {PROGRAM_COLUMNS} FROM programs WHERE id = $1 AND workspace_id = $2{suffix}")
}

pub(crate) const NOW_SQL: &str = "SELECT clock_timestamp()";

/// The database clock, captured once after the locks (SPEC §5).
pub async fn now(tx: &Transaction<'_>) -> Result<DateTime<Utc>> {
    let stmt = tx.prepare_cached(NOW_SQL).await?;
    Ok(tx.query_one(&stmt, &[]).await?.get(0))
}

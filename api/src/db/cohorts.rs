//! `cohort_codes` rows and what a cohort redemption writes: the entry (already active,
//! source `cohort`), its grant and the code's use count. Policy: the table keeps only
//! the SHA-256 of a code's canonical text and no statement reads it back. A code sits
//! at the invitation's place in the lock order (workspace → program → entry → code →
//! grant); every writer of a code holds its program `FOR UPDATE` first, so `uses` is
//! decided on under that lock and the `uses <= max_uses` CHECK is only the backstop.

use super::programs::NoticeRow;
use super::Result;
use chrono::{DateTime, Utc};
use deadpool_postgres::Transaction;
use tokio_postgres::Row;
use uuid::Uuid;

#[derive(Debug, Clone)]
pub struct CohortCodeRow {
    pub id: Uuid,
    pub program_id: Uuid,
    pub label: String,
    pub note: Option<String>,
    pub max_uses: i32,
    pub uses: i32,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
}

/// Every column but the digest, which is never read back.
const COLUMNS: &str = "id, program_id, label, note, max_uses, uses, created_at, expires_at, revoked_at";

impl From<&Row> for CohortCodeRow {
    fn from(r: &Row) -> Self {
        CohortCodeRow {
            id: r.get(0),
            program_id: r.get(1),
            label: r.get(2),
            note: r.get(3),
            max_uses: r.get(4),
            uses: r.get(5),
            created_at: r.get(6),
            expires_at: r.get(7),
            revoked_at: r.get(8),
        }
    }
}

/// A code to store: its digest and the owner's fields.
#[derive(Debug, Clone)]
pub struct NewCohortCode<'a> {
    pub digest: &'a [u8],
    pub label: &'a str,
    pub note: Option<&'a str>,
    pub max_uses: i32,
    pub expires_at: DateTime<Utc>,
}

pub async fn insert(
    tx: &Transaction<'_>,
    program_id: Uuid,
    staff_id: Uuid,
    code: &NewCohortCode<'_>,
    now: DateTime<Utc>,
) -> Result<CohortCodeRow> {
    let sql = format!(
        "INSERT INTO cohort_codes (program_id, code_sha256, label, note, max_uses, created_at, expires_at, created_by) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING {COLUMNS}"
    );
    let stmt = tx.prepare_cached(&sql).await?;
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 8] =
        [&program_id, &code.digest, &code.label, &code.note, &code.max_uses, &now, &code.expires_at, &staff_id];
    Ok(CohortCodeRow::from(&tx.query_one(&stmt, &params).await?))
}

/// The program's codes, newest first.
pub async fn of_program(tx: &Transaction<'_>, program_id: Uuid) -> Result<Vec<CohortCodeRow>> {
    let sql = format!("SELECT {COLUMNS} FROM cohort_codes WHERE program_id = $1 ORDER BY created_at DESC, id");
    let stmt = tx.prepare_cached(&sql).await?;
    Ok(tx.query(&stmt, &[&program_id]).await?.iter().map(CohortCodeRow::from).collect())
}

pub async fn get(tx: &Transaction<'_>, program_id: Uuid, id: Uuid) -> Result<Option<CohortCodeRow>> {
    let sql = format!("SELECT {COLUMNS} FROM cohort_codes WHERE id = $1 AND program_id = $2");
    let stmt = tx.prepare_cached(&sql).await?;
    Ok(tx.query_opt(&stmt, &[&id, &program_id]).await?.as_ref().map(CohortCodeRow::from))
}

/// Locks one code of `program_id` (after the program and any entry lock).
pub async fn lock(tx: &Transaction<'_>, program_id: Uuid, id: Uuid) -> Result<Option<CohortCodeRow>> {
    let sql = format!("SELECT {COLUMNS} FROM cohort_codes WHERE id = $1 AND program_id = $2 FOR UPDATE");
    let stmt = tx.prepare_cached(&sql).await?;
    Ok(tx.query_opt(&stmt, &[&id, &program_id]).await?.as_ref().map(CohortCodeRow::from))
}

/// Revokes a locked code at `now`; `None` when it was revoked already.
pub async fn revoke(tx: &Transaction<'_>, id: Uuid, now: DateTime<Utc>) -> Result<Option<CohortCodeRow>> {
    let sql =
        format!("UPDATE cohort_codes SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING {COLUMNS}");
    let stmt = tx.prepare_cached(&sql).await?;
    Ok(tx.query_opt(&stmt, &[&id, &now]).await?.as_ref().map(CohortCodeRow::from))
}

/// Where a code points — (code, program, workspace) — for lock routing only.
pub async fn route_by_digest(tx: &Transaction<'_>, digest: &[u8]) -> Result<Option<(Uuid, Uuid, Uuid)>> {
    let stmt = tx
        .prepare_cached(
            "SELECT c.id, c.program_id, p.workspace_id FROM cohort_codes c \
             JOIN programs p ON p.id = c.program_id WHERE c.code_sha256 = $1",
        )
        .await?;
    Ok(tx.query_opt(&stmt, &[&digest]).await?.map(|r| (r.get(0), r.get(1), r.get(2))))
}

/// The notice with this id (the program's current one, read under the program lock).
pub async fn notice(tx: &Transaction<'_>, program_id: Uuid, notice_id: Uuid) -> Result<Option<NoticeRow>> {
    let stmt = tx
        .prepare_cached(
            "SELECT id, version, purpose, contact_text, retention_text, published_at, questions FROM notices \
             WHERE id = $1 AND program_id = $2",
        )
        .await?;
    Ok(tx.query_opt(&stmt, &[&notice_id, &program_id]).await?.map(|r| NoticeRow {
        id: r.get(0),
        version: r.get(1),
        purpose: r.get(2),
        contact_text: r.get(3),
        retention_text: r.get(4),
        published_at: r.get(5),
        questions: super::programs::questions_of(r.get(6)),
    }))
}

/// Whether this user holds a grant (active or not) in the program: one per (program, user).
pub async fn user_has_grant(tx: &Transaction<'_>, program_id: Uuid, clerk_user_id: &str) -> Result<bool> {
    let stmt = tx.prepare_cached("SELECT 1 FROM grants WHERE program_id = $1 AND clerk_user_id = $2").await?;
    Ok(tx.query_opt(&stmt, &[&program_id, &clerk_user_id]).await?.is_some())
}

/// What one use writes.
#[derive(Debug, Clone)]
pub struct CohortUse<'a> {
    pub program_id: Uuid,
    pub code_id: Uuid,
    pub email: &'a str,
    pub notice_id: Uuid,
    pub clerk_user_id: &'a str,
    pub now: DateTime<Utc>,
    /// The checked answers to the accepted notice's questions (`{}` for none).
    pub answers: serde_json::Value,
}

/// One use: the entry (active, the notice accepted at `now`), the program's queue count,
/// the grant, the code's use count (guarded: `false` when it would pass `max_uses`,
/// which the caller's lock already ruled out), and the entry's answers with its address
/// recorded as verified at `now` (V130's `entry_answers`). Returns (entry, grant) ids.
pub async fn record_use(tx: &Transaction<'_>, u: &CohortUse<'_>) -> Result<Option<(Uuid, Uuid)>> {
    let stmt = tx
        .prepare_cached("UPDATE cohort_codes SET uses = uses + 1 WHERE id = $1 AND uses < max_uses RETURNING uses")
        .await?;
    if tx.query_opt(&stmt, &[&u.code_id]).await?.is_none() {
        return Ok(None);
    }
    let stmt = tx
        .prepare_cached(
            "INSERT INTO entries (program_id, email_key, notice_id, permission_at, state, source, created_at, updated_at) \
             VALUES ($1, $2, $3, $4, 'active', 'cohort', $4, $4) RETURNING id",
        )
        .await?;
    let entry: Uuid = tx.query_one(&stmt, &[&u.program_id, &u.email, &u.notice_id, &u.now]).await?.get(0);
    super::entries::adjust_queue_count(tx, u.program_id, 1).await?;
    let stmt = tx
        .prepare_cached(
            "INSERT INTO grants (program_id, entry_id, cohort_code_id, clerk_user_id, granted_at) \
             VALUES ($1, $2, $3, $4, $5) RETURNING id",
        )
        .await?;
    let grant: Uuid = tx.query_one(&stmt, &[&u.program_id, &entry, &u.code_id, &u.clerk_user_id, &u.now]).await?.get(0);
    let stmt = tx
        .prepare_cached(
            "INSERT INTO entry_answers (entry_id, program_id, answers, verified_at_join) VALUES ($1, $2, $3, $4)",
        )
        .await?;
    tx.execute(&stmt, &[&entry, &u.program_id, &u.answers, &u.now]).await?;
    Ok(Some((entry, grant)))
}

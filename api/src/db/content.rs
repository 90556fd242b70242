//! A program's private early-access content: one row, replaced whole under the
//! program lock. Policy: optimistic concurrency by revision — the first write expects
//! revision 0 and creates revision 1, each later write names the revision it replaces;
//! anything else changes nothing. The body is stored as text and never logged
//! or put in an event (the event holds the new revision only).

use super::Result;
use chrono::{DateTime, Utc};
use deadpool_postgres::Transaction;
use uuid::Uuid;

#[derive(Debug, Clone)]
pub struct ContentRow {
    pub revision: i64,
    pub body: String,
    pub updated_at: DateTime<Utc>,
}

pub async fn get(client: &Transaction<'_>, program_id: Uuid) -> Result<Option<ContentRow>> {
    let stmt = client
        .prepare_cached("SELECT revision, body, updated_at FROM early_access_content WHERE program_id = $1")
        .await?;
    Ok(client.query_opt(&stmt, &[&program_id]).await?.map(|r| ContentRow {
        revision: r.get(0),
        body: r.get(1),
        updated_at: r.get(2),
    }))
}

/// Writes the body if `expected` is the current revision (0: none yet); `None` when it
/// is not (a stale write). Call under the program's `FOR UPDATE` lock.
pub async fn put(
    tx: &Transaction<'_>,
    program_id: Uuid,
    expected: i64,
    body: &str,
    now: DateTime<Utc>,
) -> Result<Option<ContentRow>> {
    const INSERT: &str = r"
        INSERT INTO early_access_content (program_id, revision, body, updated_at) VALUES ($1, 1, $2, $3)
        ON CONFLICT (program_id) DO NOTHING RETURNING revision, body, updated_at";
    const UPDATE: &str = r"
        UPDATE early_access_content SET revision = revision + 1, body = $3, updated_at = $4
        WHERE program_id = $1 AND revision = $2 RETURNING revision, body, updated_at";
    let row = if expected == 0 {
        let stmt = tx.prepare_cached(INSERT).await?;
        tx.query_opt(&stmt, &[&program_id, &body, &now]).await?
    } else {
        let stmt = tx.prepare_cached(UPDATE).await?;
        tx.query_opt(&stmt, &[&program_id, &expected, &body, &now]).await?
    };
    Ok(row.map(|r| ContentRow { revision: r.get(0), body: r.get(1), updated_at: r.get(2) }))
}

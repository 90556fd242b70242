//! The audit chain's columns (issue 16), read back. The chain is written by the
//! database itself (the `audit_chain` trigger of migration V50, inside the writing
//! transaction, under the program lock), so no writer in this crate computes a hash.

use super::Result;
use deadpool_postgres::Transaction;
use uuid::Uuid;

/// The newest event of a program's chain.
#[derive(Debug, Clone)]
pub struct ChainHead {
    pub last_event_id: i64,
    /// Events in the chain, up to and including the last.
    pub count: i64,
    pub hash: Vec<u8>,
}

/// The program's chain head; `None` for a program without events.
pub async fn head(tx: &Transaction<'_>, program_id: Uuid) -> Result<Option<ChainHead>> {
    let stmt = tx
        .prepare_cached("SELECT id, chain_seq, hash FROM audit_events WHERE program_id = $1 ORDER BY id DESC LIMIT 1")
        .await?;
    let row = tx.query_opt(&stmt, &[&program_id]).await?;
    Ok(row.map(|r| ChainHead { last_event_id: r.get(0), count: r.get(1), hash: r.get(2) }))
}

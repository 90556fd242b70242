//! The audit chain's columns (issue 16), read back. The chain is written by the
//! database itself (the `audit_chain` trigger of migration V50, inside the writing
//! transaction, under the program lock), so no writer in this crate computes a hash.

use super::Result;
use crate::chain::StoredEvent;
use deadpool_postgres::Transaction;
use tokio_postgres::Row;
use uuid::Uuid;

/// The columns of a [`StoredEvent`], in the order [`stored_event`] reads them; `details`
/// as the jsonb's own text, the bytes the chain hashes.
pub const EVENT_COLUMNS: &str = "id, program_id, chain_seq, prev_id, entry_id, actor_kind, actor_staff_id, \
     event_type, event_at, details::text, prev_hash, hash";

/// One row selected with [`EVENT_COLUMNS`].
pub fn stored_event(r: &Row) -> StoredEvent {
    StoredEvent {
        id: r.get(0),
        program_id: r.get(1),
        chain_seq: r.get(2),
        prev_id: r.get(3),
        entry_id: r.get(4),
        actor_kind: r.get(5),
        actor_staff_id: r.get(6),
        event_type: r.get(7),
        event_at: r.get(8),
        details: r.get(9),
        prev_hash: r.get(10),
        hash: r.get(11),
    }
}

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

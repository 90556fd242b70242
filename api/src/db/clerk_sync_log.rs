//! `clerk_sync_calls` (V33): the delivery log of "on grant, in Clerk" — each Backend API
//! call a `clerk_sync` attempt made, with its result. Policy: only the call's name,
//! outcome, status and time are stored; the grant and entry ids are read from the outbox
//! event, and nothing that names the Clerk user (id, email, response body) is ever kept.

use super::Result;
use chrono::{DateTime, Utc};
use deadpool_postgres::Transaction;
use uuid::Uuid;

/// One call as the handler saw it, recorded with its attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedCall {
    /// `metadata_add`, `metadata_remove`, `membership_check`, `membership_add`,
    /// `membership_remove`.
    pub call: &'static str,
    /// `succeeded`, `http_status` or `connection`.
    pub outcome: &'static str,
    pub status_code: Option<i32>,
    /// How long before the attempt is recorded the call ended.
    pub ago_ms: i32,
}

/// Records an attempt's calls (under the transaction that records the attempt).
pub async fn insert(tx: &Transaction<'_>, attempt_id: i64, program_id: Uuid, calls: &[RecordedCall]) -> Result<()> {
    if calls.is_empty() {
        return Ok(());
    }
    let names: Vec<&str> = calls.iter().map(|c| c.call).collect();
    let outcomes: Vec<&str> = calls.iter().map(|c| c.outcome).collect();
    let statuses: Vec<Option<i32>> = calls.iter().map(|c| c.status_code).collect();
    let ago: Vec<i32> = calls.iter().map(|c| c.ago_ms).collect();
    let stmt = tx
        .prepare_cached(
            "INSERT INTO clerk_sync_calls (attempt_id, program_id, call, outcome, status_code, called_at) \
             SELECT $1, $2, c.call, c.outcome, c.status, clock_timestamp() - make_interval(secs => c.ago / 1000.0) \
             FROM unnest($3::text[], $4::text[], $5::int[], $6::int[]) WITH ORDINALITY AS c(call, outcome, status, ago, n) \
             ORDER BY c.n",
        )
        .await?;
    tx.execute(&stmt, &[&attempt_id, &program_id, &names, &outcomes, &statuses, &ago]).await?;
    Ok(())
}

/// A logged call with what the owner's log shows about it.
#[derive(Debug, Clone)]
pub struct CallRow {
    pub id: i64,
    pub delivery_id: i64,
    pub call: String,
    pub event_type: String,
    pub grant_id: Option<Uuid>,
    pub entry_id: Option<Uuid>,
    /// The attempt's ordinal within its delivery (1 = first).
    pub attempt: i64,
    pub outcome: String,
    pub status_code: Option<i32>,
    pub at: DateTime<Utc>,
    /// The call's attempt is its delivery's latest.
    pub latest: bool,
    pub delivery_state: String,
    pub next_attempt_at: DateTime<Utc>,
}

/// Up to `limit` calls of the program's `clerk_sync` deliveries with an id below
/// `before`, newest first.
pub async fn page(tx: &Transaction<'_>, program_id: Uuid, before: i64, limit: i64) -> Result<Vec<CallRow>> {
    let stmt = tx
        .prepare_cached(
            "SELECT c.id, a.delivery_id, c.call, e.event_type, e.payload -> 'data' ->> 'grantId', \
               e.payload -> 'data' ->> 'entryId', \
               (SELECT count(*) FROM outbox_attempts o WHERE o.delivery_id = a.delivery_id AND o.id <= a.id), \
               c.outcome, c.status_code, c.called_at, \
               NOT EXISTS (SELECT 1 FROM outbox_attempts o WHERE o.delivery_id = a.delivery_id AND o.id > a.id), \
               d.state, d.next_attempt_at \
             FROM clerk_sync_calls c JOIN outbox_attempts a ON a.id = c.attempt_id \
             JOIN outbox_deliveries d ON d.id = a.delivery_id JOIN outbox_events e ON e.id = d.event_id \
             WHERE c.program_id = $1 AND c.id < $2 ORDER BY c.id DESC LIMIT $3",
        )
        .await?;
    let rows = tx.query(&stmt, &[&program_id, &before, &limit]).await?;
    let id = |s: Option<String>| s.and_then(|s| Uuid::parse_str(&s).ok());
    Ok(rows
        .iter()
        .map(|r| CallRow {
            id: r.get(0),
            delivery_id: r.get(1),
            call: r.get(2),
            event_type: r.get(3),
            grant_id: id(r.get(4)),
            entry_id: id(r.get(5)),
            attempt: r.get(6),
            outcome: r.get(7),
            status_code: r.get(8),
            at: r.get(9),
            latest: r.get(10),
            delivery_state: r.get(11),
            next_attempt_at: r.get(12),
        })
        .collect())
}

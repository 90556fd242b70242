//! `entries` rows as writers see them: row locks (taken after the workspace and program
//! locks, in id order when several), the one writer of `entries.state`, and the queue
//! counter on the program row. Policy: [`set_state`] and [`set_states`] take an
//! [`EntryMove`], which only the transition table can make, and write only rows still in
//! the move's `from` state; every state change in the server goes through them.

use super::Result;
use crate::domain::{EntryMove, EntryState};
use chrono::{DateTime, Utc};
use deadpool_postgres::Transaction;
use tokio_postgres::Row;
use uuid::Uuid;

/// An entry as read under its lock.
#[derive(Debug, Clone)]
pub struct LockedEntry {
    pub id: Uuid,
    pub state: EntryState,
    pub email: String,
}

impl From<&Row> for LockedEntry {
    fn from(r: &Row) -> Self {
        LockedEntry {
            id: r.get(0),
            state: r.get::<_, &str>(1).parse().expect("entries_state constraint"),
            email: r.get(2),
        }
    }
}

pub(crate) const LOCK_SQL: &str =
    "SELECT id, state, email_key FROM entries WHERE id = $1 AND program_id = $2 FOR UPDATE";

/// Locks an entry of `program_id` and returns it as read under the lock; `None` when it
/// is not this program's.
pub async fn lock(tx: &Transaction<'_>, program_id: Uuid, entry_id: Uuid) -> Result<Option<LockedEntry>> {
    let stmt = tx.prepare_cached(LOCK_SQL).await?;
    Ok(tx.query_opt(&stmt, &[&entry_id, &program_id]).await?.as_ref().map(LockedEntry::from))
}

/// Locks the named entries of the program in ascending id order (one statement, so the
/// rows are locked in that order); `None` when any of them is not this program's.
pub async fn lock_many(
    tx: &Transaction<'_>,
    program_id: Uuid,
    sorted_ids: &[Uuid],
) -> Result<Option<Vec<LockedEntry>>> {
    let stmt = tx
        .prepare_cached(
            "SELECT id, state, email_key FROM entries WHERE program_id = $1 AND id = ANY($2) ORDER BY id FOR UPDATE",
        )
        .await?;
    let rows = tx.query(&stmt, &[&program_id, &sorted_ids]).await?;
    Ok((rows.len() == sorted_ids.len()).then(|| rows.iter().map(LockedEntry::from).collect()))
}

/// Locks the first `count` waiting entries in queue order.
pub async fn lock_first_waiting(tx: &Transaction<'_>, program_id: Uuid, count: i64) -> Result<Vec<LockedEntry>> {
    let stmt = tx
        .prepare_cached(
            "SELECT id, state, email_key FROM entries WHERE program_id = $1 AND state = 'waiting' \
             ORDER BY created_at, id LIMIT $2 FOR UPDATE",
        )
        .await?;
    Ok(tx.query(&stmt, &[&program_id, &count]).await?.iter().map(LockedEntry::from).collect())
}

/// Locks the first `count` waiting entries carrying `flag`, in queue order (issue 15).
pub async fn lock_first_flagged(
    tx: &Transaction<'_>,
    program_id: Uuid,
    flag: shared::edge::EntryFlag,
    count: i64,
) -> Result<Vec<LockedEntry>> {
    let stmt = tx
        .prepare_cached(
            "SELECT id, state, email_key FROM entries WHERE program_id = $1 AND state = 'waiting' \
               AND (($2 = 'disposable_domain' AND disposable_domain) \
                 OR ($2 = 'possible_duplicate' AND duplicate_of IS NOT NULL)) \
             ORDER BY created_at, id LIMIT $3 FOR UPDATE",
        )
        .await?;
    Ok(tx.query(&stmt, &[&program_id, &flag.as_str(), &count]).await?.iter().map(LockedEntry::from).collect())
}

/// The caller's entry in a locked program (the earliest, if several emails match).
pub async fn lock_own(tx: &Transaction<'_>, program_id: Uuid, emails: &[&str]) -> Result<Option<LockedEntry>> {
    let stmt = tx.prepare_cached(LOCK_OWN_SQL).await?;
    Ok(tx.query_opt(&stmt, &[&program_id, &emails]).await?.as_ref().map(LockedEntry::from))
}

/// The lookup is V134's `lock_own_entry`: each address by the whole (program, address)
/// key, on plans made once per session that cannot walk a program's entries whatever the
/// statistics said of it (the prepared statement it replaces did, for a program newer than
/// the last analyze — every entry, under the program lock, when no address matched).
pub(crate) const LOCK_OWN_SQL: &str = "SELECT entry_id, entry_state, entry_email FROM lock_own_entry($1, $2)";

/// Moves one locked entry; `false` when it is no longer in the move's `from` state.
pub async fn set_state(tx: &Transaction<'_>, id: Uuid, step: EntryMove, now: DateTime<Utc>) -> Result<bool> {
    Ok(set_states(tx, &[id], step, now).await? == 1)
}

pub(crate) const SET_STATES_SQL: &str =
    "UPDATE entries SET state = $3, updated_at = $4 WHERE id = ANY($1) AND state = $2";

/// Moves every listed locked entry that is in the move's `from` state; returns how many.
pub async fn set_states(tx: &Transaction<'_>, ids: &[Uuid], step: EntryMove, now: DateTime<Utc>) -> Result<u64> {
    let stmt = tx.prepare_cached(SET_STATES_SQL).await?;
    Ok(tx.execute(&stmt, &[&ids, &step.from().as_str(), &step.to().as_str(), &now]).await?)
}

/// Merges the queue search index's pending list into the index (V143's
/// `entry_search_merge`, which only `vestibule_app` may call), outside any admission, so
/// no signup merges it under its program's lock; answers the pending pages it merged. Run
/// twice a second by the server.
pub async fn merge_search_index(client: &tokio_postgres::Client) -> Result<i64> {
    Ok(client.query_one("SELECT entry_search_merge()", &[]).await?.get(0))
}

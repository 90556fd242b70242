//! The owner's reads of a program's entries: the queue in pages (filtered by state, source,
//! flag, live invitation and, for a search, an email fragment), one entry with everything
//! about it, and the export (the same filters but the fragment; the audit history is
//! [`super::history`]). Policy: readers hold the workspace and program
//! `FOR SHARE` and check ownership inside the transaction; an entry of another program is
//! the uniform 404; no code or digest is ever read.

use super::decisions::GrantRow;
use super::history::EventRow;
use super::invitations::InvitationRow;
use super::owner::{self, Scope};
use super::programs::NoticeRow;
use super::ReadError;
use crate::db::{audit, grants, invitations, locks, queue};
use deadpool_postgres::Pool;
use shared::questions::Question;
use uuid::Uuid;

// What a route hands in and gets back: the queue's filter and cursor, and its rows.
pub use crate::db::queue::{Cursor, EntryRow, Filter};

/// One page of the queue and the cursor of the next, if there is one.
pub async fn page(
    pool: &Pool,
    user_id: &str,
    program_id: Uuid,
    filter: &Filter,
    limit: i64,
) -> Result<(Vec<EntryRow>, Option<Cursor>), ReadError> {
    // One row more than asked tells whether another page follows.
    let mut rows = owner::read::<_, ReadError, _>(pool, user_id, Scope::Program(program_id), async |o| {
        Ok(queue::page(o.tx, o.program.id, filter, o.now, limit + 1).await?)
    })
    .await?;
    let more = rows.len() as i64 > limit;
    rows.truncate(limit as usize);
    let next = rows.last().filter(|_| more).map(|e| Cursor { created_at: e.created_at, id: e.id });
    Ok((rows, next))
}

/// An entry with its notice snapshot, invitations (oldest first), grant and events.
pub struct EntryDetail {
    pub entry: EntryRow,
    pub notice: NoticeRow,
    pub invitations: Vec<InvitationRow>,
    pub grant: Option<GrantRow>,
    pub events: Vec<EventRow>,
    /// The owners who acted in `events`, to be named after the read.
    pub actors: super::history::Actors,
}

pub async fn detail(pool: &Pool, user_id: &str, program_id: Uuid, entry_id: Uuid) -> Result<EntryDetail, ReadError> {
    owner::read(pool, user_id, Scope::Program(program_id), async |o| {
        let (entry, notice) = queue::one(o.tx, o.program.id, entry_id).await?.ok_or(ReadError::NotFound)?;
        let events = audit::of_entry(o.tx, o.program.id, entry_id).await?;
        let actors = super::history::actors(o.tx, o.program.id, &events).await?;
        Ok(EntryDetail {
            entry,
            notice,
            invitations: invitations::of_entry(o.tx, entry_id).await?,
            grant: grants::of_entry(o.tx, entry_id).await?,
            events,
            actors,
        })
    })
    .await
}

/// Rows per batch of the export: about 130 kB of CSV.
const EXPORT_BATCH: i32 = 1000;

/// The entries `filter` admits (every entry for the empty filter; a cursor or an email
/// fragment is not an export's), in queue order, on one snapshot and without row locks
/// (`owner::snapshot`: a download must not hold signups up), handed to `sink` in
/// batches as they are read; `sink` answers `false` to stop (its reader has gone).
/// Ownership is decided before the first batch: a `NotFound` comes before any row.
/// Before the rows, `start` gets the question columns (every question of the program's
/// notice versions, newest version first, from the same snapshot) and answers `false`
/// to stop.
pub async fn export<S, F>(
    pool: &Pool,
    user_id: &str,
    program_id: Uuid,
    filter: &Filter,
    start: S,
    sink: F,
) -> Result<(), ReadError>
where
    S: FnOnce(Vec<Question>) -> bool,
    F: AsyncFnMut(Vec<EntryRow>) -> bool,
{
    owner::snapshot(pool, user_id, program_id, async |tx, program_id| {
        let now = locks::now(tx).await?;
        if start(queue::question_columns(tx, program_id).await?) {
            queue::export(tx, program_id, filter, now, EXPORT_BATCH, sink).await?;
        }
        Ok(())
    })
    .await
}

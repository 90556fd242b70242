//! The owner's read of a program's audit history, page by page in either order and
//! narrowed by event type and actor, and the names of the owners who acted in it.
//! Policy: the events and their acting staff members are read under the owner read's
//! shared locks, in one transaction; names are looked up after it has ended (never a
//! network call under a lock), only for staff members of the program's own workspace, and
//! an applicant is never named.

use super::owner::{self, Scope};
use super::ReadError;
use crate::db::audit;
use crate::db::{staff, DbError};
use crate::identity::OwnerNames;
use deadpool_postgres::{Pool, Transaction};
use std::collections::HashMap;
use uuid::Uuid;

pub use crate::db::audit::{EventFilter, EventRow, Start};

/// The staff members who acted in some events, with their Clerk user ids: read in the
/// events' own transaction, named after it ([`owner_names`]).
#[derive(Debug, Default)]
pub struct Actors(Vec<(Uuid, String)>);

/// The acting owners of `events` that belong to the program's workspace.
pub async fn actors(tx: &Transaction<'_>, program_id: Uuid, events: &[EventRow]) -> Result<Actors, DbError> {
    let mut staff_ids: Vec<Uuid> = events.iter().filter_map(|e| e.actor_staff_id).collect();
    if staff_ids.is_empty() {
        return Ok(Actors::default());
    }
    staff_ids.sort_unstable();
    staff_ids.dedup();
    Ok(Actors(staff::of_program(tx, program_id, &staff_ids).await?))
}

/// Up to `limit` events from `start` in its direction that match `filter`, whether more
/// follow, and who of the owners acted in them.
pub async fn events(
    pool: &Pool,
    user_id: &str,
    program_id: Uuid,
    start: Start,
    filter: &EventFilter,
    limit: i64,
) -> Result<(Vec<EventRow>, bool, Actors), ReadError> {
    let (mut rows, actors) = owner::read::<_, ReadError, _>(pool, user_id, Scope::Program(program_id), async |o| {
        // One row more than asked tells whether another page follows; it is not shown.
        let rows = audit::page(o.tx, o.program.id, start, filter, limit + 1).await?;
        let shown = &rows[..rows.len().min(limit as usize)];
        let actors = actors(o.tx, o.program.id, shown).await?;
        Ok((rows, actors))
    })
    .await?;
    let more = rows.len() as i64 > limit;
    rows.truncate(limit as usize);
    Ok((rows, more, actors))
}

/// The display names of `actors`, by staff member id; an owner the provider cannot name
/// is left out. Call it after the read's transaction has ended: it may ask the provider.
pub async fn owner_names(names: &OwnerNames, actors: Actors) -> HashMap<Uuid, String> {
    let by_user = names.resolve(actors.0.iter().map(|(_, user)| user.as_str())).await;
    actors.0.into_iter().filter_map(|(id, user)| by_user.get(&user).map(|n| (id, n.clone()))).collect()
}

//! The owner's read of a program's audit history, page by page in either order and
//! narrowed by event type and actor, and the names of the owners who acted in it.
//! Policy: the events are read under the owner read's shared locks; names are looked up
//! after that transaction has ended (never a network call under a lock), only for staff
//! members of the program's own workspace, and an applicant is never named.

use super::owner::{self, Scope};
use super::ReadError;
use crate::db::audit::{self, EventRow};
use crate::db::{staff, DbError};
use crate::identity::OwnerNames;
use deadpool_postgres::Pool;
use std::collections::HashMap;
use uuid::Uuid;

pub use crate::db::audit::{EventFilter, Start};

/// Up to `limit` events from `start` in its direction that match `filter`, and whether
/// more follow.
pub async fn events(
    pool: &Pool,
    user_id: &str,
    program_id: Uuid,
    start: Start,
    filter: &EventFilter,
    limit: i64,
) -> Result<(Vec<EventRow>, bool), ReadError> {
    let mut rows = owner::read::<_, ReadError, _>(pool, user_id, Scope::Program(program_id), async |o| {
        Ok(audit::page(o.tx, o.program.id, start, filter, limit + 1).await?)
    })
    .await?;
    let more = rows.len() as i64 > limit;
    rows.truncate(limit as usize);
    Ok((rows, more))
}

/// The display names of the owners who acted in `events` (already read by an owner of
/// `program_id`), by staff member id; an owner the provider cannot name is left out.
pub async fn owner_names(
    pool: &Pool,
    names: &OwnerNames,
    program_id: Uuid,
    events: &[EventRow],
) -> Result<HashMap<Uuid, String>, ReadError> {
    let mut staff_ids: Vec<Uuid> = events.iter().filter_map(|e| e.actor_staff_id).collect();
    if staff_ids.is_empty() {
        return Ok(HashMap::new());
    }
    staff_ids.sort_unstable();
    staff_ids.dedup();
    let members = {
        let client = pool.get().await.map_err(DbError::from)?;
        staff::of_program(&client, program_id, &staff_ids).await?
        // The connection goes back to the pool here, before any lookup.
    };
    let by_user = names.resolve(members.iter().map(|(_, user)| user.as_str())).await;
    Ok(members.into_iter().filter_map(|(id, user)| by_user.get(&user).map(|n| (id, n.clone()))).collect())
}

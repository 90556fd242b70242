//! An invitation code's redemption transaction in few round trips (issue 28): after the
//! code's route, its locks and fresh reads go out as one pipeline, and its writes as
//! another, so the program row is locked for two round trips and the commit instead of
//! one round trip per statement (ten before). The decision between them is the use
//! case's (`usecases::redemption`), on the rows [`lock`] read under the locks.
//!
//! Pipelined statements run on the server one after another, in the order they were
//! sent, each after the one before has finished; so the locks are still taken in the
//! one global order (workspace → program → entry → invitation → grant) and every read
//! after a lock is fresh. What keeps the order on the wire: every statement of a
//! pipeline is prepared first ([`super::prepare_all`]), so each helper's
//! `prepare_cached` answers from the cache at once and its request is written when
//! `join!` first polls it, in argument order. A failed statement aborts the
//! transaction: the ones after it fail too, and the first error (checked in order) is
//! the real one; the caller's transaction then rolls back.

use super::audit::{self, Actor, Detail, EventType};
use super::entries::{self, LockedEntry};
use super::invitations::{self, InvitationRow};
use super::locks::{self, ProgramRow, Strength};
use super::{grants, prepare_all, Result};
use crate::domain::{EntryMove, InvitationMove};
use chrono::{DateTime, Utc};
use deadpool_postgres::Transaction;
use uuid::Uuid;

/// Where a code points, from [`invitations::route_by_digest`] (read without a lock).
#[derive(Debug, Clone, Copy)]
pub struct Route {
    pub invitation_id: Uuid,
    pub program_id: Uuid,
    pub entry_id: Uuid,
    pub workspace_id: Uuid,
}

/// The rows of a redemption as read under their locks, and the database clock after them.
#[derive(Debug)]
pub struct Locked {
    /// The workspace's `active`; `None` when it is gone.
    pub workspace_active: Option<bool>,
    pub program: Option<ProgramRow>,
    pub entry: Option<LockedEntry>,
    pub invitation: Option<InvitationRow>,
    /// Whether the entry already holds a grant (active or not).
    pub granted: bool,
    pub now: DateTime<Utc>,
}

/// Takes the redemption's locks in the global order (workspace `FOR KEY SHARE`, program
/// `FOR UPDATE`, entry, invitation, the entry's grants) and reads the clock, in one
/// round trip.
pub async fn lock(tx: &Transaction<'_>, route: Route) -> Result<Locked> {
    let program_sql = locks::program_sql(Strength::Update);
    let (invitation_sql, grants_sql) = (invitations::lock_sql(), grants::lock_of_entries_sql());
    let sqls = [
        locks::workspace_sql(Strength::KeyShare),
        &program_sql,
        entries::LOCK_SQL,
        &invitation_sql,
        &grants_sql,
        locks::NOW_SQL,
    ];
    prepare_all(tx, &sqls).await?;
    let entry_ids = [route.entry_id];
    let (workspace, program, entry, invitation, grants, now) = futures_util::join!(
        locks::workspace(tx, route.workspace_id, Strength::KeyShare),
        locks::program(tx, route.workspace_id, route.program_id, Strength::Update),
        entries::lock(tx, route.program_id, route.entry_id),
        invitations::lock(tx, route.program_id, route.invitation_id),
        grants::lock_of_entries(tx, &entry_ids),
        locks::now(tx),
    );
    Ok(Locked {
        workspace_active: workspace?,
        program: program?,
        entry: entry?,
        invitation: invitation?,
        granted: !grants?.is_empty(),
        now: now?,
    })
}

/// What the redemption's writes did.
#[derive(Debug)]
pub enum Recorded {
    /// The grant exists, the entry moved, the `redeemed` event is recorded.
    Granted,
    /// The account already holds a grant for this program (one per program); the
    /// transaction is aborted and must be rolled back.
    AlreadyHeld,
    /// The entry was no longer in the move's `from` state; the writes must be rolled back.
    EntryMoved,
}

/// The redemption's writes, in one round trip: the invitation ends as `redeemed`, the
/// grant is created, the entry moves (`active`), and the `redeemed` event is recorded
/// (chained and enqueued by its triggers, `audit::record`).
pub async fn record(
    tx: &Transaction<'_>,
    route: Route,
    user_id: &str,
    redeemed: InvitationMove,
    active: EntryMove,
    now: DateTime<Utc>,
) -> Result<Recorded> {
    let finish_sql = invitations::finish_sql();
    prepare_all(tx, &[&finish_sql, grants::INSERT_SQL, entries::SET_STATES_SQL, audit::RECORD_SQL]).await?;
    let grant = Uuid::new_v4();
    let invitation_ids = [route.invitation_id];
    let details = [("invitationId", Detail::Id(route.invitation_id)), ("grantId", Detail::Id(grant))];
    let (finished, inserted, moved, recorded) = futures_util::join!(
        invitations::finish(tx, &invitation_ids, redeemed, now),
        grants::insert(tx, grant, route.program_id, route.entry_id, route.invitation_id, user_id, now),
        entries::set_state(tx, route.entry_id, active, now),
        audit::record(tx, route.program_id, Some(route.entry_id), Actor::Recipient, EventType::Redeemed, now, &details),
    );
    finished?;
    match inserted {
        Err(e) if e.is_unique(grants::ONE_PER_USER) => return Ok(Recorded::AlreadyHeld),
        other => other?,
    }
    if !moved? {
        // The caller refuses, and its transaction rolls back the writes pipelined with it.
        return Ok(Recorded::EntryMoved);
    }
    recorded?;
    Ok(Recorded::Granted)
}

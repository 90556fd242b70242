//! The withdrawal, one transition whoever records it (the applicant, or an owner on the
//! applicant's request): it revokes an issued invitation and deactivates an active grant
//! in the same transaction, frees the entry's place in the queue, and repeating it
//! answers the same without a second event.

use crate::db::audit::{self, Actor, Detail, EventType};
use crate::db::entries::{self, LockedEntry};
use crate::db::{grants, invitations, DbError};
use crate::domain::{EntryMove, EntryState, InvalidTransition, InvitationMove, InvitationState};
use chrono::{DateTime, Utc};
use deadpool_postgres::Transaction;
use uuid::Uuid;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Withdrawal {
    /// The entry is now withdrawn (with what was revoked along the way).
    Done { invitation_revoked: Option<Uuid>, grant_revoked: Option<Uuid> },
    /// It was withdrawn already: nothing changed, the same answer is given.
    AlreadyWithdrawn,
}

/// Withdraws a locked entry of the locked program; takes the invitation and grant locks
/// next, in the global order. `basis` is from the allow-list (SPEC §6.4).
pub async fn withdraw<E>(
    tx: &Transaction<'_>,
    program_id: Uuid,
    entry: &LockedEntry,
    actor: Actor,
    basis: &'static str,
    now: DateTime<Utc>,
) -> Result<Withdrawal, E>
where
    E: From<DbError> + From<InvalidTransition>,
{
    if entry.state == EntryState::Withdrawn {
        return Ok(Withdrawal::AlreadyWithdrawn);
    }
    let step = EntryMove::new(entry.state, EntryState::Withdrawn)?;
    let ids = [entry.id];
    let issued = invitations::lock_issued(tx, &ids).await?;
    let grant = grants::lock_of_entries(tx, &ids).await?.into_iter().find(|g| g.active);
    let invitation = issued.first().map(|i| i.id);
    if let Some(id) = invitation {
        let revoke = InvitationMove::new(InvitationState::Issued, InvitationState::Revoked)?;
        invitations::finish(tx, &[id], revoke, now).await?;
    }
    if let Some(g) = &grant {
        grants::deactivate(tx, g.id, now).await?;
    }
    if !entries::set_state(tx, entry.id, step, now).await? {
        return Err(InvalidTransition.into());
    }
    // The queue (every state but withdrawn) is the entries' counts, which the state
    // change itself moves (V101, V145).
    let mut details = vec![("from", Detail::Code(entry.state.as_str())), ("basis", Detail::Code(basis))];
    if let Some(id) = invitation {
        details.push(("invitationRevoked", Detail::Id(id)));
    }
    if let Some(g) = &grant {
        details.push(("grantRevoked", Detail::Id(g.id)));
    }
    audit::record(tx, program_id, Some(entry.id), actor, EventType::Withdrawn, now, &details).await?;
    Ok(Withdrawal::Done { invitation_revoked: invitation, grant_revoked: grant.map(|g| g.id) })
}

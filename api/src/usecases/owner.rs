//! The one owner path. Every owner operation runs inside [`write`] or [`read`] (or their
//! workspace forms), which open the transaction, take the locks in the global order,
//! check ownership on the row read after the workspace lock, read the clock once, and
//! hand the operation an [`Owned`] context. A non-owner, a revoked owner, an owner of
//! another workspace and an absent object are all [`NotFound`], the uniform 404.
//!
//! Locks: workspace `FOR UPDATE` for writers (`FOR SHARE` for readers), the caller's
//! membership read fresh after it, then the program `FOR UPDATE` (`FOR SHARE`). The
//! clock is read right after the program lock: every writer of a program's entries,
//! invitations and grants holds that program row `FOR UPDATE` first, so the entry,
//! invitation and grant locks an operation takes next are never waited for, and the
//! clock read here follows every wait of the transaction.

use crate::db::audit::Actor;
use crate::db::entries::{self, LockedEntry};
use crate::db::locks::{self, ProgramRow, Strength};
use crate::db::{self, grants, invitations, staff, DbError, TxError};
use chrono::{DateTime, Utc};
use deadpool_postgres::{Pool, Transaction};
use uuid::Uuid;

/// The uniform 404 of the owner routes: absent, foreign or not permitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("not found")]
pub struct NotFound;

/// What an owner request names; the program (and, for an invitation or a grant, its
/// entry) is found from it to route the locks, and every lock statement checks it again.
#[derive(Debug, Clone, Copy)]
pub enum Scope {
    Program(Uuid),
    Invitation(Uuid),
    Grant(Uuid),
}

/// An owner operation's context: its transaction, the acting owner, the program as read
/// under its lock, the entry the scope named (for an invitation or a grant), and the
/// clock.
pub struct Owned<'a, 'c> {
    pub tx: &'a Transaction<'c>,
    pub staff_id: Uuid,
    pub program: ProgramRow,
    pub entry_id: Option<Uuid>,
    pub now: DateTime<Utc>,
}

impl Owned<'_, '_> {
    /// Who the audit history names for this operation.
    pub fn actor(&self) -> Actor {
        Actor::Owner(self.staff_id)
    }
}

/// A workspace-level owner operation's context (creating or listing programs).
pub struct OwnedWorkspace<'a, 'c> {
    pub tx: &'a Transaction<'c>,
    pub staff_id: Uuid,
    pub workspace_id: Uuid,
    pub now: DateTime<Utc>,
}

/// Runs an owner's write on the program `scope` names.
pub async fn write<T, E, F>(pool: &Pool, user_id: &str, scope: Scope, body: F) -> Result<T, E>
where
    E: TxError + From<NotFound>,
    F: AsyncFnMut(&Owned<'_, '_>) -> Result<T, E>,
{
    run(pool, user_id, scope, Strength::Update, body).await
}

/// Runs an owner's write on one entry of the program: [`write`], then the entry locked
/// (the next lock in the global order) and handed to `body`. An entry of another program
/// is the same [`NotFound`] as an absent one.
pub async fn write_entry<T, E, F>(
    pool: &Pool,
    user_id: &str,
    (program_id, entry_id): (Uuid, Uuid),
    mut body: F,
) -> Result<T, E>
where
    E: TxError + From<NotFound>,
    F: AsyncFnMut(&Owned<'_, '_>, LockedEntry) -> Result<T, E>,
{
    write(pool, user_id, Scope::Program(program_id), async |o| {
        let entry = entries::lock(o.tx, o.program.id, entry_id).await?.ok_or(NotFound)?;
        body(o, entry).await
    })
    .await
}

/// Runs an owner's read on the program `scope` names (shared locks).
pub async fn read<T, E, F>(pool: &Pool, user_id: &str, scope: Scope, body: F) -> Result<T, E>
where
    E: TxError + From<NotFound>,
    F: AsyncFnMut(&Owned<'_, '_>) -> Result<T, E>,
{
    run(pool, user_id, scope, Strength::Share, body).await
}

async fn run<T, E, F>(pool: &Pool, user_id: &str, scope: Scope, strength: Strength, mut body: F) -> Result<T, E>
where
    E: TxError + From<NotFound>,
    F: AsyncFnMut(&Owned<'_, '_>) -> Result<T, E>,
{
    db::transaction(pool, async |tx| {
        let owned = enter::<E>(tx, user_id, scope, strength).await?;
        body(&owned).await
    })
    .await
}

/// Runs an owner's long read of a program on one snapshot (`db::snapshot`), without row
/// locks: a download that lasts as long as the client takes to read it must not hold
/// the program `FOR SHARE`, which every signup and owner write would wait behind. The
/// ownership checks read the same snapshot as the body, so the read is exactly what an
/// owner could see at that instant. `body` gets the transaction and the program's id.
pub async fn snapshot<T, E, F>(pool: &Pool, user_id: &str, program_id: Uuid, body: F) -> Result<T, E>
where
    E: From<DbError> + From<NotFound>,
    F: AsyncFnOnce(&Transaction<'_>, Uuid) -> Result<T, E>,
{
    db::snapshot(pool, async |tx| {
        let workspace_id = crate::db::programs::workspace_of(tx, program_id).await?.ok_or(NotFound)?;
        staff::active_owner(tx, workspace_id, user_id).await?.ok_or(NotFound)?;
        body(tx, program_id).await
    })
    .await
}

/// Runs an owner's operation on a workspace (`FOR UPDATE` when `strength` says so).
pub async fn on_workspace<T, E, F>(
    pool: &Pool,
    user_id: &str,
    workspace_id: Uuid,
    strength: Strength,
    mut body: F,
) -> Result<T, E>
where
    E: TxError + From<NotFound>,
    F: AsyncFnMut(&OwnedWorkspace<'_, '_>) -> Result<T, E>,
{
    db::transaction(pool, async |tx| {
        let staff_id = owner_of::<E>(tx, user_id, workspace_id, strength).await?;
        let now = locks::now(tx).await?;
        body(&OwnedWorkspace { tx, staff_id, workspace_id, now }).await
    })
    .await
}

/// Locks the workspace with `strength` and reads the caller's membership fresh.
async fn owner_of<E>(tx: &Transaction<'_>, user_id: &str, workspace_id: Uuid, strength: Strength) -> Result<Uuid, E>
where
    E: TxError + From<NotFound>,
{
    if locks::workspace(tx, workspace_id, strength).await? != Some(true) {
        return Err(NotFound.into());
    }
    Ok(staff::active_owner(tx, workspace_id, user_id).await?.ok_or(NotFound)?)
}

async fn enter<'a, 'c, E>(
    tx: &'a Transaction<'c>,
    user_id: &str,
    scope: Scope,
    strength: Strength,
) -> Result<Owned<'a, 'c>, E>
where
    E: TxError + From<NotFound>,
{
    let (program_id, entry_id) = match scope {
        Scope::Program(id) => (id, None),
        Scope::Invitation(id) => invitations::route(tx, id).await?.map(|(p, e)| (p, Some(e))).ok_or(NotFound)?,
        Scope::Grant(id) => grants::route(tx, id).await?.map(|(p, e)| (p, Some(e))).ok_or(NotFound)?,
    };
    let workspace_id = crate::db::programs::workspace_of(tx, program_id).await?.ok_or(NotFound)?;
    let staff_id = owner_of::<E>(tx, user_id, workspace_id, strength).await?;
    let program_strength = if strength == Strength::Update { Strength::Update } else { Strength::Share };
    let program = locks::program(tx, workspace_id, program_id, program_strength).await?.ok_or(NotFound)?;
    let now = locks::now(tx).await?;
    Ok(Owned { tx, staff_id, program, entry_id, now })
}

//! Owner membership: which workspaces a user owns, who owns a workspace (with the
//! membership history), and the maintenance channel's changes (SPEC §7). Policy: public
//! sign-up never creates staff; changes happen only through the CLI, under the
//! workspace's `FOR UPDATE` lock, each appended to `staff_admin_events` with its approval
//! reference; the last active owner who can still sign in is never removed (an owner row
//! whose Clerk user is gone does not count: nobody can act through it).

use super::owner;
use super::{use_case_error, ReadError};
use crate::db::locks::{self, Strength};
use crate::db::staff::{self, HistoryEvent, Member};
use crate::db::{self, api_keys, webhooks, DbError};
use deadpool_postgres::Pool;
use uuid::Uuid;

/// The user's active workspaces (id, name); the uniform 404 when they own none.
pub async fn workspaces(pool: &Pool, user_id: &str) -> Result<Vec<(Uuid, String)>, ReadError> {
    let client = pool.get().await.map_err(DbError::from)?;
    let owned = staff::owned_workspaces(&client, user_id).await?;
    if owned.is_empty() {
        return Err(ReadError::NotFound);
    }
    Ok(owned)
}

/// A workspace's members and its membership history, for one of its owners.
pub async fn owners(
    pool: &Pool,
    user_id: &str,
    workspace_id: Uuid,
) -> Result<(Vec<Member>, Vec<HistoryEvent>), ReadError> {
    owner::on_workspace(pool, user_id, workspace_id, Strength::Share, async |w| {
        Ok((staff::members(w.tx, w.workspace_id).await?, staff::history(w.tx, w.workspace_id).await?))
    })
    .await
}

/// A workspace's members and history for the maintenance channel (no owner check: the
/// CLI runs with the database's credentials); the 404 when it has no members.
pub async fn members(pool: &Pool, workspace_id: Uuid) -> Result<(Vec<Member>, Vec<HistoryEvent>), ReadError> {
    let client = pool.get().await.map_err(DbError::from)?;
    let members = staff::members(&client, workspace_id).await?;
    if members.is_empty() {
        return Err(ReadError::NotFound);
    }
    Ok((members, staff::history(&client, workspace_id).await?))
}

use_case_error! {
    /// Why the maintenance channel refused a change (`NotFound`: no such workspace).
    pub enum MembershipError {
        #[error("refusing to remove the last active owner who can still sign in")]
        LastOwner,
        #[error("that user already has that membership state")]
        Unchanged,
    }
}

/// Creates a workspace and its first owner, audited; returns the workspace id.
pub async fn bootstrap(pool: &Pool, name: &str, user_id: &str, approval_ref: &str) -> Result<Uuid, MembershipError> {
    db::transaction(pool, async |tx| Ok(staff::bootstrap(tx, name, user_id, approval_ref).await?)).await
}

/// A membership change. A revoke carries the other active owners whose Clerk user the
/// caller found still existing (asked before the transaction: no network call under a
/// lock), and whether the API keys the leaving owner created stay valid.
pub enum Change {
    Grant,
    Revoke { remaining_who_can_sign_in: Vec<String>, keep_api_keys: bool },
}

/// What a revocation did besides ending the membership (issue 26 item 6): a removed
/// owner's API keys stop with them — an integration they set up is otherwise a door left
/// open — unless the operator keeps them; the webhook endpoints they created are listed
/// for review (they post only ids to a URL the owner chose, so they are not switched off).
#[derive(Debug, Default)]
pub struct Revoked {
    /// Keys revoked now, or with `keep_api_keys` the live keys left valid.
    pub api_keys: u64,
    pub api_keys_kept: bool,
    /// (endpoint id, URL, enabled) of the endpoints the owner created.
    pub webhooks: Vec<(Uuid, String, bool)>,
}

/// Makes `user_id` an active owner or removes them, audited.
pub async fn change(
    pool: &Pool,
    workspace_id: Uuid,
    user_id: &str,
    approval_ref: &str,
    change: &Change,
) -> Result<Revoked, MembershipError> {
    let active = matches!(change, Change::Grant);
    db::transaction(pool, async |tx| {
        locks::workspace(tx, workspace_id, Strength::Update).await?.ok_or(MembershipError::NotFound)?;
        let members = staff::members(tx, workspace_id).await?;
        let current = members.iter().find(|m| m.clerk_user_id == user_id);
        if current.map(|m| m.active) == Some(active) || (!active && current.is_none()) {
            return Err(MembershipError::Unchanged);
        }
        if let Change::Revoke { remaining_who_can_sign_in: able, .. } = change {
            // Fresh under the lock: still active, not the one leaving, and able to sign in.
            let remaining = members
                .iter()
                .filter(|m| m.active && m.clerk_user_id != user_id && able.contains(&m.clerk_user_id))
                .count();
            if remaining == 0 {
                return Err(MembershipError::LastOwner);
            }
        }
        let member = staff::upsert_member(tx, workspace_id, user_id, active).await?;
        staff::record(tx, workspace_id, member, if active { "grant" } else { "revoke" }, approval_ref).await?;
        let Change::Revoke { keep_api_keys, .. } = change else { return Ok(Revoked::default()) };
        let now = locks::now(tx).await?;
        Ok(Revoked {
            api_keys: api_keys::revoke_created_by(tx, workspace_id, member, now, *keep_api_keys).await?,
            api_keys_kept: *keep_api_keys,
            webhooks: webhooks::created_by(tx, workspace_id, member).await?,
        })
    })
    .await
}

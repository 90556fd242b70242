//! Owner membership: `staff_members` and its append-only history `staff_admin_events`.
//! Membership is read fresh after the workspace lock by every owner request, and
//! changed only by the maintenance CLI under the workspace's `FOR UPDATE` lock.

use super::Result;
use chrono::{DateTime, Utc};
use deadpool_postgres::GenericClient;
use deadpool_postgres::Transaction;
use uuid::Uuid;

/// The staff member id of an active owner of an active workspace, or `None`.
/// Call after locking the workspace.
pub async fn active_owner(tx: &Transaction<'_>, workspace_id: Uuid, clerk_user_id: &str) -> Result<Option<Uuid>> {
    let stmt = tx
        .prepare_cached(
            "SELECT s.id FROM staff_members s JOIN workspaces w ON w.id = s.workspace_id \
             WHERE s.workspace_id = $1 AND s.clerk_user_id = $2 AND s.active AND s.role = 'owner' AND w.active",
        )
        .await?;
    Ok(tx.query_opt(&stmt, &[&workspace_id, &clerk_user_id]).await?.map(|r| r.get(0)))
}

/// Active workspaces the user currently owns, by name.
pub async fn owned_workspaces(client: &impl GenericClient, clerk_user_id: &str) -> Result<Vec<(Uuid, String)>> {
    let rows = client
        .query(
            "SELECT w.id, w.name FROM staff_members s JOIN workspaces w ON w.id = s.workspace_id \
             WHERE s.clerk_user_id = $1 AND s.active AND s.role = 'owner' AND w.active ORDER BY w.name, w.id",
            &[&clerk_user_id],
        )
        .await?;
    Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
}

#[derive(Debug, Clone)]
pub struct Member {
    pub id: Uuid,
    pub clerk_user_id: String,
    pub active: bool,
}

pub async fn members(client: &impl GenericClient, workspace_id: Uuid) -> Result<Vec<Member>> {
    let rows = client
        .query(
            "SELECT id, clerk_user_id, active FROM staff_members WHERE workspace_id = $1 ORDER BY clerk_user_id",
            &[&workspace_id],
        )
        .await?;
    Ok(rows.iter().map(|r| Member { id: r.get(0), clerk_user_id: r.get(1), active: r.get(2) }).collect())
}

/// Of the staff members `ids`, those of the program's workspace, with their Clerk user
/// ids (the acting owners of its events; a staff member of any other workspace is left out).
pub async fn of_program(client: &impl GenericClient, program_id: Uuid, ids: &[Uuid]) -> Result<Vec<(Uuid, String)>> {
    let stmt = client
        .prepare_cached(
            "SELECT s.id, s.clerk_user_id FROM staff_members s JOIN programs p ON p.workspace_id = s.workspace_id \
             WHERE p.id = $1 AND s.id = ANY($2)",
        )
        .await?;
    Ok(client.query(&stmt, &[&program_id, &ids]).await?.iter().map(|r| (r.get(0), r.get(1))).collect())
}

#[derive(Debug, Clone)]
pub struct HistoryEvent {
    pub id: i64,
    pub action: String,
    pub clerk_user_id: String,
    pub approval_ref: String,
    pub at: DateTime<Utc>,
}

pub async fn history(client: &impl GenericClient, workspace_id: Uuid) -> Result<Vec<HistoryEvent>> {
    let rows = client
        .query(
            "SELECT e.id, e.action, s.clerk_user_id, e.approval_ref, e.event_at FROM staff_admin_events e \
             JOIN staff_members s ON s.id = e.staff_member_id WHERE e.workspace_id = $1 ORDER BY e.id",
            &[&workspace_id],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|r| HistoryEvent {
            id: r.get(0),
            action: r.get(1),
            clerk_user_id: r.get(2),
            approval_ref: r.get(3),
            at: r.get(4),
        })
        .collect())
}

/// Creates a workspace and its first owner, audited, in the caller's transaction.
pub async fn bootstrap(tx: &Transaction<'_>, name: &str, clerk_user_id: &str, approval_ref: &str) -> Result<Uuid> {
    let workspace: Uuid =
        tx.query_one("INSERT INTO workspaces (name) VALUES ($1) RETURNING id", &[&name]).await?.get(0);
    // Lock the new row like every membership writer does.
    tx.query_one("SELECT id FROM workspaces WHERE id = $1 FOR UPDATE", &[&workspace]).await?;
    let member = upsert_member(tx, workspace, clerk_user_id, true).await?;
    record(tx, workspace, member, "bootstrap", approval_ref).await?;
    Ok(workspace)
}

/// Sets a member's active flag (creating the row on first grant); returns its id.
pub async fn upsert_member(
    tx: &Transaction<'_>,
    workspace_id: Uuid,
    clerk_user_id: &str,
    active: bool,
) -> Result<Uuid> {
    Ok(tx
        .query_one(
            "INSERT INTO staff_members (workspace_id, clerk_user_id, role, active) VALUES ($1, $2, 'owner', $3) \
             ON CONFLICT (workspace_id, clerk_user_id) DO UPDATE SET active = EXCLUDED.active RETURNING id",
            &[&workspace_id, &clerk_user_id, &active],
        )
        .await?
        .get(0))
}

pub async fn record(
    tx: &Transaction<'_>,
    workspace_id: Uuid,
    member: Uuid,
    action: &str,
    approval_ref: &str,
) -> Result<()> {
    tx.execute(
        "INSERT INTO staff_admin_events (workspace_id, staff_member_id, action, approval_ref, event_at) \
         VALUES ($1, $2, $3, $4, clock_timestamp())",
        &[&workspace_id, &member, &action, &approval_ref],
    )
    .await?;
    Ok(())
}

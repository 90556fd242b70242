//! `program_clerk_sync`: a program's "on grant, in Clerk" setting (absent = off), and
//! what the `clerk_sync` outbox handler reads about a grant. An organization saved before
//! V81 was never checked against the organization's admins: every read here (and the
//! program summary's) takes it as absent until an admin saves it again. Policy: the handler decides
//! from the grant's state *now* and the setting *now*, so deliveries that are retried or
//! arrive out of order still converge.

use super::Result;
use chrono::{DateTime, Utc};
use deadpool_postgres::GenericClient;
use deadpool_postgres::Transaction;
use uuid::Uuid;

/// The setting: metadata on/off and an optional (organization id, role).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClerkSync {
    pub public_metadata: bool,
    pub organization: Option<(String, String)>,
}

/// Replaces a locked program's setting (`None` removes it). An organization is stored
/// with the staff member whose `org:admin` membership was checked for it and the time
/// (V81): the caller asked Clerk before the transaction.
pub async fn set(
    tx: &Transaction<'_>,
    program_id: Uuid,
    setting: Option<&ClerkSync>,
    checked_by: Uuid,
    now: DateTime<Utc>,
) -> Result<()> {
    let stmt = tx.prepare_cached("DELETE FROM program_clerk_sync WHERE program_id = $1").await?;
    tx.execute(&stmt, &[&program_id]).await?;
    if let Some(s) = setting {
        let (org, role) = s.organization.clone().unzip();
        let checked = org.is_some().then_some((checked_by, now)).unzip();
        let stmt = tx
            .prepare_cached(
                "INSERT INTO program_clerk_sync (program_id, public_metadata, organization_id, organization_role, \
                   organization_checked_by, organization_checked_at) VALUES ($1, $2, $3, $4, $5, $6)",
            )
            .await?;
        tx.execute(&stmt, &[&program_id, &s.public_metadata, &org, &role, &checked.0, &checked.1]).await?;
    }
    Ok(())
}

/// The program's setting, read under its lock.
pub async fn get(tx: &Transaction<'_>, program_id: Uuid) -> Result<Option<ClerkSync>> {
    let stmt = tx
        .prepare_cached(
            "SELECT cs.public_metadata, CASE WHEN cs.organization_checked_at IS NOT NULL THEN cs.organization_id END, \
               cs.organization_role FROM program_clerk_sync cs WHERE cs.program_id = $1",
        )
        .await?;
    Ok(tx.query_opt(&stmt, &[&program_id]).await?.map(|r| ClerkSync {
        public_metadata: r.get(0),
        organization: r.get::<_, Option<String>>(1).zip(r.get::<_, Option<String>>(2)),
    }))
}

/// A grant as the handler needs it: its state, its program's slug and current setting,
/// and what has been put into Clerk for it (the ledger row, V32).
#[derive(Debug, Clone)]
pub struct GrantTarget {
    /// `None` once redaction has replaced it (the ledger keeps it while it is needed).
    pub clerk_user_id: Option<String>,
    pub active: bool,
    pub slug: String,
    pub setting: Option<ClerkSync>,
    pub synced: Option<Synced>,
}

/// A ledger row: the user and the setting the grant was synced with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Synced {
    pub clerk_user_id: String,
    pub public_metadata: bool,
    /// (organization id, role).
    pub organization: Option<(String, String)>,
}

/// The ledger columns from `at` on, when the (left-joined) row is there.
fn synced(r: &tokio_postgres::Row, at: usize) -> Option<Synced> {
    r.get::<_, Option<String>>(at).map(|clerk_user_id| Synced {
        clerk_user_id,
        public_metadata: r.get::<_, Option<bool>>(at + 1).unwrap_or(false),
        organization: r.get::<_, Option<String>>(at + 2).zip(r.get::<_, Option<String>>(at + 3)),
    })
}

pub async fn grant_target(client: &impl GenericClient, grant_id: Uuid) -> Result<Option<GrantTarget>> {
    let stmt = client
        .prepare_cached(
            "SELECT g.clerk_user_id, g.active, p.public_slug, cs.public_metadata, \
               CASE WHEN cs.organization_checked_at IS NOT NULL THEN cs.organization_id END, cs.organization_role, s.clerk_user_id, s.public_metadata, s.organization_id, s.organization_role \
             FROM grants g JOIN programs p ON p.id = g.program_id \
             LEFT JOIN program_clerk_sync cs ON cs.program_id = g.program_id \
             LEFT JOIN clerk_sync_grants s ON s.grant_id = g.id WHERE g.id = $1",
        )
        .await?;
    Ok(client.query_opt(&stmt, &[&grant_id]).await?.map(|r| {
        let user: String = r.get(0);
        GrantTarget {
            clerk_user_id: (!user.starts_with("redacted_")).then_some(user),
            active: r.get(1),
            slug: r.get(2),
            setting: r.get::<_, Option<bool>>(3).map(|public_metadata| ClerkSync {
                public_metadata,
                organization: r.get::<_, Option<String>>(4).zip(r.get::<_, Option<String>>(5)),
            }),
            synced: synced(&r, 6),
        }
    }))
}

/// Writes the grant's ledger row unless it has one, and answers the row: the first
/// delivery pins the setting the grant is synced with, so putting and removing agree.
pub async fn pin(client: &impl GenericClient, grant_id: Uuid, row: &Synced) -> Result<Synced> {
    let (org, role) = row.organization.clone().unzip();
    let insert = client
        .prepare_cached(
            "INSERT INTO clerk_sync_grants (grant_id, clerk_user_id, public_metadata, organization_id, \
             organization_role) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (grant_id) DO NOTHING",
        )
        .await?;
    client.execute(&insert, &[&grant_id, &row.clerk_user_id, &row.public_metadata, &org, &role]).await?;
    let select = client
        .prepare_cached(
            "SELECT clerk_user_id, public_metadata, organization_id, organization_role FROM clerk_sync_grants \
             WHERE grant_id = $1",
        )
        .await?;
    let r = client.query_one(&select, &[&grant_id]).await?;
    Ok(Synced {
        clerk_user_id: r.get(0),
        public_metadata: r.get(1),
        organization: r.get::<_, Option<String>>(2).zip(r.get::<_, Option<String>>(3)),
    })
}

/// Removes the grant's ledger row once its removal is done.
pub async fn unpin(client: &impl GenericClient, grant_id: Uuid) -> Result<()> {
    let stmt = client.prepare_cached("DELETE FROM clerk_sync_grants WHERE grant_id = $1").await?;
    client.execute(&stmt, &[&grant_id]).await?;
    Ok(())
}

/// Whether Vestibule created the user's membership of `org`.
pub async fn membership_ours(client: &impl GenericClient, org: &str, user: &str) -> Result<bool> {
    let stmt = client
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM clerk_sync_memberships WHERE organization_id = $1 AND clerk_user_id = $2)",
        )
        .await?;
    Ok(client.query_one(&stmt, &[&org, &user]).await?.get(0))
}

/// Records (`true`, before creating it) or forgets (`false`, after removing it) that
/// Vestibule created the membership.
pub async fn set_membership_ours(client: &impl GenericClient, org: &str, user: &str, ours: bool) -> Result<()> {
    let sql = if ours {
        "INSERT INTO clerk_sync_memberships (organization_id, clerk_user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING"
    } else {
        "DELETE FROM clerk_sync_memberships WHERE organization_id = $1 AND clerk_user_id = $2"
    };
    let stmt = client.prepare_cached(sql).await?;
    client.execute(&stmt, &[&org, &user]).await?;
    Ok(())
}

/// The role of another active grant of the user pinned to `org`, if any: the membership
/// is still wanted.
pub async fn org_still_wanted(
    client: &impl GenericClient,
    org: &str,
    user: &str,
    except: Uuid,
) -> Result<Option<String>> {
    let stmt = client
        .prepare_cached(
            "SELECT s.organization_role FROM clerk_sync_grants s JOIN grants g ON g.id = s.grant_id \
             WHERE s.clerk_user_id = $2 AND s.organization_id = $1 AND g.active AND s.grant_id <> $3 LIMIT 1",
        )
        .await?;
    Ok(client.query_opt(&stmt, &[&org, &user, &except]).await?.map(|r| r.get(0)))
}

/// The advisory lock key of a grant's deliveries (a 64-bit hash of a tagged id; two
/// grants that collide only wait for each other).
const GRANT_LOCK_KEY: &str = "hashtextextended('vestibule.clerk_sync.grant:' || $1::uuid::text, 0)";

/// Takes the session advisory lock that serializes one grant's Clerk deliveries across
/// instances, without waiting: false when another session holds it. Held by the
/// connection until [`unlock_grant`] or until the connection closes.
pub async fn try_lock_grant(client: &impl GenericClient, grant_id: Uuid) -> Result<bool> {
    let stmt = client.prepare_cached(&format!("SELECT pg_try_advisory_lock({GRANT_LOCK_KEY})")).await?;
    Ok(client.query_one(&stmt, &[&grant_id]).await?.get(0))
}

/// Releases what [`try_lock_grant`] took on this connection; false when it held nothing.
pub async fn unlock_grant(client: &impl GenericClient, grant_id: Uuid) -> Result<bool> {
    let stmt = client.prepare_cached(&format!("SELECT pg_advisory_unlock({GRANT_LOCK_KEY})")).await?;
    Ok(client.query_one(&stmt, &[&grant_id]).await?.get(0))
}

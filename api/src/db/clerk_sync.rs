//! `program_clerk_sync`: a program's "on grant, in Clerk" setting (absent = off), and
//! what the `clerk_sync` outbox handler reads about a grant. Policy: the handler decides
//! from the grant's state *now* and the setting *now*, so deliveries that are retried or
//! arrive out of order still converge.

use super::Result;
use deadpool_postgres::GenericClient;
use deadpool_postgres::Transaction;
use uuid::Uuid;

/// The setting: metadata on/off and an optional (organization id, role).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClerkSync {
    pub public_metadata: bool,
    pub organization: Option<(String, String)>,
}

/// Replaces a locked program's setting (`None` removes it).
pub async fn set(tx: &Transaction<'_>, program_id: Uuid, setting: Option<&ClerkSync>) -> Result<()> {
    let stmt = tx.prepare_cached("DELETE FROM program_clerk_sync WHERE program_id = $1").await?;
    tx.execute(&stmt, &[&program_id]).await?;
    if let Some(s) = setting {
        let (org, role) = s.organization.clone().unzip();
        let stmt = tx
            .prepare_cached(
                "INSERT INTO program_clerk_sync (program_id, public_metadata, organization_id, organization_role) \
                 VALUES ($1, $2, $3, $4)",
            )
            .await?;
        tx.execute(&stmt, &[&program_id, &s.public_metadata, &org, &role]).await?;
    }
    Ok(())
}

/// The program's setting, read under its lock.
pub async fn get(tx: &Transaction<'_>, program_id: Uuid) -> Result<Option<ClerkSync>> {
    let stmt = tx
        .prepare_cached(
            "SELECT public_metadata, organization_id, organization_role FROM program_clerk_sync WHERE program_id = $1",
        )
        .await?;
    Ok(tx.query_opt(&stmt, &[&program_id]).await?.map(|r| ClerkSync {
        public_metadata: r.get(0),
        organization: r.get::<_, Option<String>>(1).zip(r.get::<_, Option<String>>(2)),
    }))
}

/// A grant as the handler needs it, with its program's slug and current setting.
#[derive(Debug, Clone)]
pub struct GrantTarget {
    pub clerk_user_id: String,
    pub active: bool,
    pub slug: String,
    pub setting: Option<ClerkSync>,
    /// Whether the user holds another active grant in a program synced to the same org.
    pub org_still_granted: bool,
}

pub async fn grant_target(client: &impl GenericClient, grant_id: Uuid) -> Result<Option<GrantTarget>> {
    let stmt = client
        .prepare_cached(
            "SELECT g.clerk_user_id, g.active, p.public_slug, cs.public_metadata, cs.organization_id, \
               cs.organization_role, EXISTS (SELECT 1 FROM grants g2 JOIN program_clerk_sync cs2 \
                 ON cs2.program_id = g2.program_id WHERE g2.clerk_user_id = g.clerk_user_id AND g2.active \
                 AND g2.id <> g.id AND cs2.organization_id = cs.organization_id) \
             FROM grants g JOIN programs p ON p.id = g.program_id \
             LEFT JOIN program_clerk_sync cs ON cs.program_id = g.program_id WHERE g.id = $1",
        )
        .await?;
    Ok(client.query_opt(&stmt, &[&grant_id]).await?.map(|r| GrantTarget {
        clerk_user_id: r.get(0),
        active: r.get(1),
        slug: r.get(2),
        setting: r.get::<_, Option<bool>>(3).map(|public_metadata| ClerkSync {
            public_metadata,
            organization: r.get::<_, Option<String>>(4).zip(r.get::<_, Option<String>>(5)),
        }),
        org_still_granted: r.get::<_, Option<bool>>(6).unwrap_or(false),
    }))
}

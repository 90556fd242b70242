//! The reads of the server API (`/api/v1`), always scoped to the calling key's
//! workspace: a program of another workspace is simply absent.

use super::Result;
use deadpool_postgres::GenericClient;
use uuid::Uuid;

/// The program `slug` of the workspace, if it is one.
pub async fn program(client: &impl GenericClient, workspace_id: Uuid, slug: &str) -> Result<Option<Uuid>> {
    let stmt = client.prepare_cached("SELECT id FROM programs WHERE public_slug = $1 AND workspace_id = $2").await?;
    Ok(client.query_opt(&stmt, &[&slug, &workspace_id]).await?.map(|r| r.get(0)))
}

/// Whether the user holds an active grant of the program, with its entry active, in an
/// active workspace — and, when `emails` is given, the entry's email among them.
pub async fn granted(
    client: &impl GenericClient,
    program_id: Uuid,
    user_id: &str,
    emails: Option<&[&str]>,
) -> Result<bool> {
    let stmt = client
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM programs p JOIN workspaces w ON w.id = p.workspace_id \
               JOIN grants g ON g.program_id = p.id JOIN entries e ON e.id = g.entry_id AND e.program_id = p.id \
               WHERE p.id = $1 AND w.active AND p.access_enabled AND g.active AND g.clerk_user_id = $2 \
                 AND e.state = 'active' \
                 AND ($3::text[] IS NULL OR e.email_key = ANY($3)))",
        )
        .await?;
    Ok(client.query_one(&stmt, &[&program_id, &user_id, &emails]).await?.get(0))
}

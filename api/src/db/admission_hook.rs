//! The admission hook's storage: the workspace's sealed hook secret, the message ids
//! seen recently (replays are refused), and the one question the hook asks — does this
//! email hold an unexpired issued invitation or an active grant in the workspace?

use super::Result;
use chrono::{DateTime, Utc};
use deadpool_postgres::{GenericClient, Transaction};
use uuid::Uuid;

/// The sealed secret of an active workspace's hook, and when it was set.
pub async fn secret(client: &impl GenericClient, workspace_id: Uuid) -> Result<Option<(Vec<u8>, DateTime<Utc>)>> {
    let row = client
        .query_opt(
            "SELECT h.secret_sealed, h.created_at FROM hook_secrets h JOIN workspaces w ON w.id = h.workspace_id \
             WHERE h.workspace_id = $1 AND w.active",
            &[&workspace_id],
        )
        .await?;
    Ok(row.map(|r| (r.get(0), r.get(1))))
}

/// Sets (or replaces) the workspace's hook secret.
pub async fn set_secret(tx: &Transaction<'_>, workspace_id: Uuid, sealed: &[u8], now: DateTime<Utc>) -> Result<()> {
    tx.execute(
        "INSERT INTO hook_secrets (workspace_id, secret_sealed, created_at) VALUES ($1, $2, $3) \
         ON CONFLICT (workspace_id) DO UPDATE SET secret_sealed = EXCLUDED.secret_sealed, created_at = EXCLUDED.created_at",
        &[&workspace_id, &sealed, &now],
    )
    .await?;
    Ok(())
}

/// A message id seen before: the binding and decision stored with it (`None` for a
/// receipt made before V82).
pub struct Receipt {
    pub binding: Option<Vec<u8>>,
    pub admitted: Option<bool>,
}

/// Records a message id with its binding and the decision given; answers `None` when it
/// is new, else the receipt stored the first time (a concurrent first delivery of the
/// same id is waited for: the unique key blocks until it commits). Forgets ids older than
/// `keep_secs` (past the timestamp window, a replay is refused by its timestamp).
pub async fn receipt(
    tx: &Transaction<'_>,
    workspace_id: Uuid,
    message_id: &str,
    binding: &[u8],
    admitted: bool,
    keep_secs: f64,
) -> Result<Option<Receipt>> {
    tx.execute(
        "DELETE FROM hook_receipts WHERE received_at < clock_timestamp() - make_interval(secs => $1)",
        &[&keep_secs],
    )
    .await?;
    let n = tx
        .execute(
            "INSERT INTO hook_receipts (workspace_id, message_id, received_at, binding, admitted) \
             VALUES ($1, $2, clock_timestamp(), $3, $4) ON CONFLICT DO NOTHING",
            &[&workspace_id, &message_id, &binding, &admitted],
        )
        .await?;
    if n == 1 {
        return Ok(None);
    }
    let row = tx
        .query_opt(
            "SELECT binding, admitted FROM hook_receipts WHERE workspace_id = $1 AND message_id = $2",
            &[&workspace_id, &message_id],
        )
        .await?;
    // Forgotten between the two statements (older than the window): a replay as before.
    Ok(Some(
        row.map_or(Receipt { binding: None, admitted: None }, |r| Receipt { binding: r.get(0), admitted: r.get(1) }),
    ))
}

/// Whether `email_key` holds an unexpired issued invitation or an active grant in a
/// program of the workspace.
pub async fn admitted(tx: &Transaction<'_>, workspace_id: Uuid, email_key: &str) -> Result<bool> {
    let row = tx
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM entries e JOIN programs p ON p.id = e.program_id \
               WHERE p.workspace_id = $1 AND e.email_key = $2 AND ( \
                 EXISTS (SELECT 1 FROM invitations i WHERE i.entry_id = e.id AND i.state = 'issued' \
                           AND i.expires_at > clock_timestamp()) \
                 OR EXISTS (SELECT 1 FROM grants g WHERE g.entry_id = e.id AND g.active)))",
            &[&workspace_id, &email_key],
        )
        .await?;
    Ok(row.get(0))
}

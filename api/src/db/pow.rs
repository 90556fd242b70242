//! `pow_spent`: the challenges whose solutions were used (`crate::pow`). One row per
//! challenge signature until the challenge expires; shared by every instance.

use super::Result;
use chrono::{DateTime, Utc};
use deadpool_postgres::{Client, Transaction};

/// Records the solution as used; `false` when it already was (a reuse). Inside the
/// admission's transaction, so a refused admission leaves no row.
pub async fn spend(tx: &Transaction<'_>, signature: &[u8], expires_at: DateTime<Utc>) -> Result<bool> {
    let stmt = tx
        .prepare_cached(
            "INSERT INTO pow_spent (signature, expires_at) VALUES ($1, $2) ON CONFLICT (signature) DO NOTHING",
        )
        .await?;
    Ok(tx.execute(&stmt, &[&signature, &expires_at]).await? == 1)
}

/// Drops rows of challenges that expired more than a minute ago (they can no longer
/// verify, so nothing needs to remember them); run by the server's pruner.
pub async fn prune(client: &Client) -> Result<u64> {
    Ok(client.execute("DELETE FROM pow_spent WHERE expires_at < clock_timestamp() - interval '1 minute'", &[]).await?)
}

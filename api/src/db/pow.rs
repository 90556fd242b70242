//! `pow_spent`: the challenges whose solutions were used (`crate::pow`). One row per
//! challenge signature until the challenge expires; shared by every instance. Admission
//! checks and records it inside its one call (V61's `admit_signup`); this module prunes.

use super::Result;
use deadpool_postgres::Client;

/// Drops rows of challenges that expired more than a minute ago (they can no longer
/// verify, so nothing needs to remember them); run by the server's pruner.
pub async fn prune(client: &Client) -> Result<u64> {
    Ok(client.execute("DELETE FROM pow_spent WHERE expires_at < clock_timestamp() - interval '1 minute'", &[]).await?)
}

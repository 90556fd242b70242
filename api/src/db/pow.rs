//! `pow_spent`: the challenges whose solutions were used (`crate::pow`). One row per
//! challenge signature until the challenge expires; shared by every instance. Admission
//! checks and records it inside its one call (V61's `admit_signup`); this module prunes.

use super::Result;
use deadpool_postgres::Client;

/// How long a spent solution is remembered past its challenge's expiry. A challenge is
/// checked against the verifying instance's own clock; an instance whose clock runs up to
/// this far behind the database's still finds the solution spent, so it cannot accept a
/// replay of a challenge the others consider expired.
pub const KEPT_PAST_EXPIRY_SECS: f64 = 600.0;

/// Drops rows of challenges that expired more than [`KEPT_PAST_EXPIRY_SECS`] ago by the
/// database clock; run by the server's pruner.
pub async fn prune(client: &Client) -> Result<u64> {
    Ok(client
        .execute(
            "DELETE FROM pow_spent WHERE expires_at < clock_timestamp() - make_interval(secs => $1)",
            &[&KEPT_PAST_EXPIRY_SECS],
        )
        .await?)
}

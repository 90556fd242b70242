//! Fixed-window attempt counters in PostgreSQL, so every API instance shares them.
//! Subjects are HMACs of the client address or account id, never the raw value.
//! Each call is its own short transaction on the request's connection, outside any
//! admission transaction.
//!
//! Counters are soft state: a crash that forgets the last few increments only gives a
//! client a few more attempts in a window that is about to end anyway. So an increment
//! commits without waiting for the WAL flush (`synchronous_commit` off for that one
//! transaction). That matters under load from one address: every attempt increments the
//! same row, and a flush-bound commit would hold that row's lock for a disk flush,
//! serializing all of that address's signups — across programs — at the disk's rate.

use super::Result;
use deadpool_postgres::Client;
use tokio_postgres::types::ToSql;

#[derive(Debug, Clone, Copy)]
pub enum Scope {
    SignupAddr,
    RedeemUser,
    RedeemAddr,
}

impl Scope {
    fn as_str(self) -> &'static str {
        match self {
            Scope::SignupAddr => "signup_addr",
            Scope::RedeemUser => "redeem_user",
            Scope::RedeemAddr => "redeem_addr",
        }
    }
}

/// The subject key for a scope: HMAC of the raw identifier under the server key.
pub fn subject(key: &[u8], scope: Scope, raw: &str) -> Vec<u8> {
    crate::crypto::binding(key, "rate-limit-v1", &[scope.as_str().as_bytes(), raw.as_bytes()])
}

/// Counts one attempt in the current window and answers whether it is within `limit`.
///
/// One round trip: BEGIN with the asynchronous commit, the upsert and COMMIT go out as
/// one pipeline (the statement is prepared first, so all three are written on the first
/// poll and the server runs them whatever happens to this future). A failed upsert
/// turns the COMMIT into a rollback and the error is returned.
pub async fn hit(client: &Client, scope: Scope, subject: &[u8], window_secs: i32, limit: u32) -> Result<bool> {
    let stmt = client
        .prepare_cached(
            "INSERT INTO rate_limit_counters (scope, subject, window_start, hits) \
             VALUES ($1, $2, to_timestamp(floor(extract(epoch FROM clock_timestamp())::float8 / $3::float8) * $3::float8), 1) \
             ON CONFLICT (scope, subject, window_start) DO UPDATE SET hits = rate_limit_counters.hits + 1 \
             RETURNING hits",
        )
        .await?;
    let params: [&(dyn ToSql + Sync); 3] = [&scope.as_str(), &subject, &f64::from(window_secs)];
    let (begin, row, commit) = futures_util::join!(
        client.batch_execute("BEGIN; SET LOCAL synchronous_commit TO off"),
        client.query_one(&stmt, &params),
        client.batch_execute("COMMIT"),
    );
    begin?;
    let hits: i32 = row?.get(0);
    commit?;
    Ok(u32::try_from(hits).unwrap_or(u32::MAX) <= limit)
}

/// The attempts counted in the current window, without counting one.
pub async fn current(client: &Client, scope: Scope, subject: &[u8], window_secs: i32) -> Result<u32> {
    let stmt = client
        .prepare_cached(
            "SELECT hits FROM rate_limit_counters WHERE scope = $1 AND subject = $2 \
             AND window_start = to_timestamp(floor(extract(epoch FROM clock_timestamp())::float8 / $3::float8) * $3::float8)",
        )
        .await?;
    let row = client.query_opt(&stmt, &[&scope.as_str(), &subject, &f64::from(window_secs)]).await?;
    Ok(row.map(|r| u32::try_from(r.get::<_, i32>(0)).unwrap_or(0)).unwrap_or(0))
}

/// Drops windows older than an hour; run periodically by the server.
pub async fn prune(client: &Client) -> Result<u64> {
    Ok(client
        .execute("DELETE FROM rate_limit_counters WHERE window_start < clock_timestamp() - interval '1 hour'", &[])
        .await?)
}

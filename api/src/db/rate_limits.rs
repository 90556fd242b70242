//! Fixed-window attempt counters in PostgreSQL, so every API instance shares them.
//! Subjects are HMACs of the client address or account id, never the raw value.
//! Each call is its own short autocommit statement, outside any admission transaction.

use crate::error::Result;
use deadpool_postgres::Pool;

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
pub async fn hit(pool: &Pool, scope: Scope, subject: &[u8], window_secs: i32, limit: u32) -> Result<bool> {
    let client = pool.get().await?;
    let stmt = client
        .prepare_cached(
            "INSERT INTO rate_limit_counters (scope, subject, window_start, hits) \
             VALUES ($1, $2, to_timestamp(floor(extract(epoch FROM clock_timestamp())::float8 / $3::float8) * $3::float8), 1) \
             ON CONFLICT (scope, subject, window_start) DO UPDATE SET hits = rate_limit_counters.hits + 1 \
             RETURNING hits",
        )
        .await?;
    let hits: i32 = client.query_one(&stmt, &[&scope.as_str(), &subject, &f64::from(window_secs)]).await?.get(0);
    Ok(u32::try_from(hits).unwrap_or(u32::MAX) <= limit)
}

/// The attempts counted in the current window, without counting one.
pub async fn current(pool: &Pool, scope: Scope, subject: &[u8], window_secs: i32) -> Result<u32> {
    let client = pool.get().await?;
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
pub async fn prune(pool: &Pool) -> Result<u64> {
    let client = pool.get().await?;
    Ok(client
        .execute("DELETE FROM rate_limit_counters WHERE window_start < clock_timestamp() - interval '1 hour'", &[])
        .await?)
}

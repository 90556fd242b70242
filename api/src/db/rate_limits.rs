//! Fixed-window attempt counters in PostgreSQL, so every API instance shares them.
//! Subjects are HMACs of the client address or account id, never the raw value.
//! Each call is its own short transaction on the connection it is given (the request's,
//! or for [`count_together`] the batch's of `crate::hits`), outside any admission
//! transaction.
//!
//! Counters are soft state: a crash that forgets the last few increments only gives a
//! client a few more attempts in a window that is about to end anyway. So an increment,
//! and a refund, commits without waiting for the WAL flush (`synchronous_commit` off for
//! that one transaction); the admission or redemption that follows commits synchronously,
//! and WAL is flushed in order, so nothing acknowledged depends on a lost count. That
//! matters under load from one address: every attempt increments the same row, and a
//! flush-bound commit would hold that row's lock for a disk flush, serializing all of that
//! address's signups — across programs — at the disk's rate.

use super::Result;
use chrono::{DateTime, Utc};
use deadpool_postgres::Client;
use tokio_postgres::types::ToSql;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scope {
    SignupAddr,
    ChallengeAddr,
    RedeemUser,
    RedeemAddr,
}

impl Scope {
    fn as_str(self) -> &'static str {
        match self {
            Scope::SignupAddr => "signup_addr",
            Scope::ChallengeAddr => "challenge_addr",
            Scope::RedeemUser => "redeem_user",
            Scope::RedeemAddr => "redeem_addr",
        }
    }

    /// The name its policy is published under (the `RateLimit-Policy` field).
    pub fn policy(self) -> &'static str {
        match self {
            Scope::SignupAddr => "signup",
            Scope::ChallengeAddr => "challenge",
            Scope::RedeemUser => "redeem-account",
            Scope::RedeemAddr => "redeem-address",
        }
    }
}

/// Where one counter stands after an attempt was counted: its policy (quota per window)
/// and what is left of the current window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    pub policy: &'static str,
    pub quota: u32,
    pub window_secs: u32,
    pub remaining: u32,
    /// Seconds until the current window ends (≥ 1).
    pub reset_secs: u32,
}

impl Usage {
    /// Where `scope`'s counter of `window_secs`-second windows stands at `hits` against
    /// `quota`, its window ending in `reset_secs`.
    fn at(scope: Scope, quota: u32, window_secs: i32, hits: u32, reset_secs: u32) -> Self {
        Usage {
            policy: scope.policy(),
            quota,
            window_secs: u32::try_from(window_secs).unwrap_or(0),
            remaining: quota.saturating_sub(hits),
            reset_secs,
        }
    }
}

/// Runs `statement` in a transaction of its own that commits without waiting for the WAL
/// flush (see the module policy), pipelined in one round trip: `BEGIN` and the setting, the
/// statement, `COMMIT`, sent in that order (`join!` polls them in order, and a statement is
/// sent when first polled).
async fn committed_asynchronously<T>(
    client: &Client,
    statement: impl std::future::Future<Output = std::result::Result<T, tokio_postgres::Error>>,
) -> Result<T> {
    let (begin, done, commit) = futures_util::join!(
        client.batch_execute("BEGIN; SET LOCAL synchronous_commit TO off"),
        statement,
        client.batch_execute("COMMIT"),
    );
    begin?;
    let done = done?;
    commit?;
    Ok(done)
}

/// The subject key for a scope: HMAC of the raw identifier under the server key.
pub fn subject(key: &[u8], scope: Scope, raw: &str) -> Vec<u8> {
    crate::crypto::binding(key, "rate-limit-v1", &[scope.as_str().as_bytes(), raw.as_bytes()])
}

/// A refusal: the counter's window that refused frees in `retry_after` seconds (≥ 1),
/// which is what the 429's `Retry-After` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub retry_after: u32,
    /// Every counter of the attempt.
    pub usage: Vec<Usage>,
}

/// One counted attempt: its window, so a refund lands in the window it was counted in,
/// and where each counter stands.
#[derive(Debug, Clone)]
pub struct Counted {
    window_start: DateTime<Utc>,
    pub usage: Vec<Usage>,
}

/// The start of the window of `$3` seconds the statement's time falls in (one instant
/// for every row of a statement, so the counters of one attempt share their window).
const WINDOW: &str = "to_timestamp(floor(extract(epoch FROM statement_timestamp())::float8 / $3::float8) * $3::float8)";

/// Counts one attempt in the current window of each `(scope, subject, limit)` — one
/// upsert, so parallel attempts each get their own count and no burst passes a check
/// that counts afterwards — and refuses when any counter is now past its limit. A
/// refused attempt stays counted (it was an attempt); see [`refund`] for the others.
///
/// One round trip: BEGIN with the asynchronous commit, the upsert and COMMIT go out as
/// one pipeline (the statement is prepared first, so all three are written on the first
/// poll and the server runs them whatever happens to this future). A failed upsert
/// turns the COMMIT into a rollback and the error is returned.
pub async fn count_first(
    client: &Client,
    counters: &[(Scope, &[u8], u32)],
    window_secs: i32,
) -> Result<std::result::Result<Counted, Refused>> {
    let stmt = client
        .prepare_cached(&format!(
            "INSERT INTO rate_limit_counters (scope, subject, window_start, hits) \
             SELECT c.scope, c.subject, {WINDOW}, 1 FROM unnest($1::text[], $2::bytea[]) AS c(scope, subject) \
             ON CONFLICT (scope, subject, window_start) DO UPDATE SET hits = rate_limit_counters.hits + 1 \
             RETURNING scope, hits, window_start, \
               greatest(1, ceil(extract(epoch FROM window_start - clock_timestamp()) + $3::float8))::int4"
        ))
        .await?;
    let scopes: Vec<&str> = counters.iter().map(|(scope, _, _)| scope.as_str()).collect();
    let subjects: Vec<&[u8]> = counters.iter().map(|(_, subject, _)| *subject).collect();
    let params: [&(dyn ToSql + Sync); 3] = [&scopes, &subjects, &f64::from(window_secs)];
    let rows = committed_asynchronously(client, client.query(&stmt, &params)).await?;
    let (mut window_start, mut usage, mut refused) = (None, Vec::new(), None);
    for row in &rows {
        let scope: &str = row.get(0);
        let hits = u32::try_from(row.get::<_, i32>(1)).unwrap_or(u32::MAX);
        let reset_secs = u32::try_from(row.get::<_, i32>(3)).unwrap_or(1);
        let Some((scope, _, limit)) = counters.iter().find(|(s, _, _)| s.as_str() == scope) else { continue };
        usage.push(Usage::at(*scope, *limit, window_secs, hits, reset_secs));
        if hits > *limit {
            refused = Some(refused.map_or(reset_secs, |r: u32| r.max(reset_secs)));
        }
        window_start = Some(row.get(2));
    }
    match (refused, window_start) {
        (None, Some(window_start)) => Ok(Ok(Counted { window_start, usage })),
        (retry_after, _) => Ok(Err(Refused { retry_after: retry_after.unwrap_or(1), usage })),
    }
}

/// Counts `n` attempts of one subject at once — one upsert, `hits + n` — for attempts
/// that arrived together (`crate::hits`). Answers, for each of them in order, what
/// [`count_first`] would have answered had they been counted one after another: the
/// k-th (from 0) stands at `hits − n + 1 + k`. Exact across instances, as the upsert is
/// atomic: each batch's `n` counts land in one serial order of the counter's writers.
pub async fn count_together(
    client: &Client,
    scope: Scope,
    subject: &[u8],
    limits: &[u32],
    window_secs: i32,
) -> Result<Vec<std::result::Result<Counted, Refused>>> {
    let n = i32::try_from(limits.len()).unwrap_or(i32::MAX);
    let stmt = client
        .prepare_cached(&format!(
            "INSERT INTO rate_limit_counters (scope, subject, window_start, hits) VALUES ($1, $2, {WINDOW}, $4) \
             ON CONFLICT (scope, subject, window_start) DO UPDATE SET hits = rate_limit_counters.hits + $4 \
             RETURNING hits, window_start, \
               greatest(1, ceil(extract(epoch FROM window_start - clock_timestamp()) + $3::float8))::int4"
        ))
        .await?;
    let params: [&(dyn ToSql + Sync); 4] = [&scope.as_str(), &subject, &f64::from(window_secs), &n];
    let row = committed_asynchronously(client, client.query_one(&stmt, &params)).await?;
    let total = i64::from(row.get::<_, i32>(0));
    let window_start: DateTime<Utc> = row.get(1);
    let reset_secs = u32::try_from(row.get::<_, i32>(2)).unwrap_or(1);
    Ok(limits
        .iter()
        .enumerate()
        .map(|(k, limit)| {
            let hits = u32::try_from(total - i64::from(n) + 1 + k as i64).unwrap_or(u32::MAX);
            let usage = vec![Usage::at(scope, *limit, window_secs, hits, reset_secs)];
            match hits > *limit {
                true => Err(Refused { retry_after: reset_secs, usage }),
                false => Ok(Counted { window_start, usage }),
            }
        })
        .collect())
}

/// Takes back one attempt counted by [`count_first`] in its window (an attempt that
/// turned out not to be a failure). Never below zero; a pruned window is left alone.
/// Commits asynchronously in one round trip, as [`count_first`] (a successful
/// redemption's refund, issue 28: the one synchronous counter write there was).
pub async fn refund(client: &Client, counters: &[(Scope, &[u8])], counted: &Counted) -> Result<()> {
    let stmt = client
        .prepare_cached(
            "UPDATE rate_limit_counters SET hits = hits - 1 \
             FROM unnest($1::text[], $2::bytea[]) AS c(scope, subject) \
             WHERE rate_limit_counters.scope = c.scope AND rate_limit_counters.subject = c.subject \
               AND rate_limit_counters.window_start = $3 AND rate_limit_counters.hits > 0",
        )
        .await?;
    let scopes: Vec<&str> = counters.iter().map(|(scope, _)| scope.as_str()).collect();
    let subjects: Vec<&[u8]> = counters.iter().map(|(_, subject)| *subject).collect();
    let params: [&(dyn ToSql + Sync); 3] = [&scopes, &subjects, &counted.window_start];
    committed_asynchronously(client, client.execute(&stmt, &params)).await?;
    Ok(())
}

/// Counts one attempt of one subject and answers whether it is within `limit` (the
/// one-counter form of [`count_first`], without the refusal's `Retry-After`).
pub async fn hit(client: &Client, scope: Scope, subject: &[u8], window_secs: i32, limit: u32) -> Result<bool> {
    Ok(count_first(client, &[(scope, subject, limit)], window_secs).await?.is_ok())
}

/// The attempts counted in the current window, without counting one. For reporting
/// only: a check on it followed by a separate count lets a parallel burst through —
/// limit with [`count_first`].
pub async fn current(client: &Client, scope: Scope, subject: &[u8], window_secs: i32) -> Result<u32> {
    let stmt = client
        .prepare_cached(&format!(
            "SELECT hits FROM rate_limit_counters WHERE scope = $1 AND subject = $2 AND window_start = {WINDOW}"
        ))
        .await?;
    let row = client.query_opt(&stmt, &[&scope.as_str(), &subject, &f64::from(window_secs)]).await?;
    Ok(row.map(|r| u32::try_from(r.get::<_, i32>(0)).unwrap_or(0)).unwrap_or(0))
}

/// Where a counter stands without counting an attempt (for an answer that replays an
/// earlier one, so it says the same policy): its current window's hits against `limit`.
pub async fn standing(client: &Client, scope: Scope, subject: &[u8], window_secs: i32, limit: u32) -> Result<Usage> {
    let stmt = client
        .prepare_cached(&format!(
            "SELECT coalesce((SELECT hits FROM rate_limit_counters WHERE scope = $1 AND subject = $2                AND window_start = {WINDOW}), 0),              greatest(1, ceil(extract(epoch FROM {WINDOW} - clock_timestamp()) + $3::float8))::int4"
        ))
        .await?;
    let row = client.query_one(&stmt, &[&scope.as_str(), &subject, &f64::from(window_secs)]).await?;
    let hits = u32::try_from(row.get::<_, i32>(0)).unwrap_or(0);
    Ok(Usage::at(scope, limit, window_secs, hits, u32::try_from(row.get::<_, i32>(1)).unwrap_or(1)))
}

/// Drops windows older than an hour; run periodically by the server.
pub async fn prune(client: &Client) -> Result<u64> {
    Ok(client
        .execute("DELETE FROM rate_limit_counters WHERE window_start < clock_timestamp() - interval '1 hour'", &[])
        .await?)
}

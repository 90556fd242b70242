//! The public reads, without a session: a program's signup form (its notice), a fresh
//! proof-of-work challenge for that form, and the origins allowed to frame its embedded
//! copy. Policy: only a program of an active workspace with a published notice exists
//! publicly; anything else — an unknown slug, an inactive workspace, no notice — is the
//! same [`ReadError::NotFound`], and so is a challenge for a program whose proof of work
//! is off (nothing to solve). Nothing here writes but the attempt counter: a challenge
//! is signed, not stored, and each client address may fetch [`CHALLENGE_FACTOR`] times
//! as many per minute as it may sign up (a form fetches one per load and per expiry).

use super::metering::Meter;
use super::ReadError;
use crate::db::rate_limits::{self, Scope};
use crate::db::{programs, DbError};
use crate::pow;
use deadpool_postgres::Pool;
use shared::api::Challenge;
use shared::Slug;
use std::net::IpAddr;

/// Challenges per client address per minute: this times the signup rate.
pub const CHALLENGE_FACTOR: u32 = 4;
const CHALLENGE_WINDOW_SECS: i32 = 60;

#[derive(Debug, thiserror::Error)]
pub enum ChallengeError {
    #[error("not found")]
    NotFound,
    /// Too many challenges from this address; its window frees in `retry_after` seconds.
    #[error("rate limited")]
    RateLimited { retry_after: u32 },
    #[error(transparent)]
    Db(#[from] DbError),
}

impl From<ReadError> for ChallengeError {
    fn from(e: ReadError) -> Self {
        match e {
            ReadError::NotFound => ChallengeError::NotFound,
            ReadError::Db(e) => ChallengeError::Db(e),
        }
    }
}

/// Who asks for a challenge, and how many the signup rate allows them.
#[derive(Clone, Copy)]
pub struct Asker<'k> {
    pub key: &'k [u8],
    pub signup_per_minute: u32,
    pub client: Option<IpAddr>,
    pub meter: &'k Meter,
    /// Where the challenge counter's hits are counted ([`crate::hits`]).
    pub hits: &'k crate::hits::Hits,
}

pub use crate::db::programs::PublicRow;

/// The program `slug` as its signup form shows it.
pub async fn program(pool: &Pool, slug: &Slug) -> Result<PublicRow, ReadError> {
    let client = pool.get().await.map_err(DbError::from)?;
    programs::public(&client, slug.as_str()).await?.ok_or(ReadError::NotFound)
}

/// A challenge for the signup form of `slug`, signed with `key` and valid from `now`
/// (seconds since the epoch) for `pow::TTL_SECS`, in ALTCHA's format.
/// Counted per client address once the program is known to ask for work.
pub async fn challenge(pool: &Pool, asker: Asker<'_>, slug: &Slug, now: i64) -> Result<Challenge, ChallengeError> {
    let found = program(pool, slug).await?;
    let challenge = pow::challenge(asker.key, slug.as_str(), found.pow_level, now).ok_or(ChallengeError::NotFound)?;
    let subject = rate_limits::subject(
        asker.key,
        Scope::ChallengeAddr,
        &asker.client.map(|ip| ip.to_string()).unwrap_or_default(),
    );
    let quota = asker.signup_per_minute.saturating_mul(CHALLENGE_FACTOR);
    match asker.hits.count(Scope::ChallengeAddr, subject, quota, CHALLENGE_WINDOW_SECS).await? {
        Ok(counted) => asker.meter.record(&counted.usage),
        Err(refused) => {
            asker.meter.record(&refused.usage);
            return Err(ChallengeError::RateLimited { retry_after: refused.retry_after });
        }
    }
    Ok(challenge)
}

/// The origins allowed to frame the embedded form of `slug`. Empty — the page is then
/// not framable at all — for anything that is not a public program with origins, and
/// when the database cannot say: framing is only ever allowed on a positive answer.
pub async fn embed_origins(pool: &Pool, slug: &Slug) -> Vec<String> {
    let origins = match pool.get().await {
        Ok(client) => programs::embed_origins(&client, slug.as_str()).await.ok().flatten(),
        Err(_) => None,
    };
    origins.unwrap_or_default()
}

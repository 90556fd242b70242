//! The public reads, without a session: a program's signup form (its notice), a fresh
//! proof-of-work challenge for that form, and the origins allowed to frame its embedded
//! copy. Policy: only a program of an active workspace with a published notice exists
//! publicly; anything else — an unknown slug, an inactive workspace, no notice — is the
//! same [`ReadError::NotFound`], and so is a challenge for a program whose proof of work
//! is off (nothing to solve). Nothing here writes: a challenge is signed, not stored.

use super::ReadError;
use crate::db::{programs, DbError};
use crate::pow;
use deadpool_postgres::Pool;
use shared::api::Challenge;
use shared::Slug;

pub use crate::db::programs::PublicRow;

/// The program `slug` as its signup form shows it.
pub async fn program(pool: &Pool, slug: &Slug) -> Result<PublicRow, ReadError> {
    let client = pool.get().await.map_err(DbError::from)?;
    programs::public(&client, slug.as_str()).await?.ok_or(ReadError::NotFound)
}

/// A challenge for the signup form of `slug`, signed with `key` and valid from `now`
/// (seconds since the epoch) for `pow::TTL_SECS`, in ALTCHA's format.
pub async fn challenge(pool: &Pool, key: &[u8], slug: &Slug, now: i64) -> Result<Challenge, ReadError> {
    let found = program(pool, slug).await?;
    pow::challenge(key, slug.as_str(), found.pow_level, now).ok_or(ReadError::NotFound)
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

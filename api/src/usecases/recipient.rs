//! A signed-in user acting on their own data: their entry in a program, their entries
//! across programs, withdrawing, and a program's private content. Policy: entries are
//! found only through the emails the identity provider reports as verified right now
//! (looked up before any transaction, by the caller); no match is the same 404 as no
//! program. Withdrawal is the shared transition under workspace `FOR KEY SHARE` →
//! program `FOR UPDATE`, and repeating it answers the same.
//!
//! The status and list reads are one statement each, without the share locks SPEC §5
//! names for readers, and that is equivalent here. A share lock serves a reader that
//! decides or writes on what it read, keeping those rows unchanged until it is done;
//! these reads decide and write nothing — the answer *is* the read. What they need is
//! an answer that was true at one instant, and a single statement gives exactly that: it
//! runs on one snapshot, so it never mixes rows from before and after a writer's commit.
//! With share locks the same read would only first wait for a writer in progress and
//! then answer its outcome — an answer this read gives too, an instant later.
//! `applicant::status_reads_are_one_snapshot_never_blocked_never_mixed` (e2e) shows both:
//! no wait behind a writer holding the rows, and no mixed answer while writers commit
//! an entry's and its invitation's states together. (The private content read, which
//! does decide on a grant, takes its shared locks: `early_access` below.)

use super::use_case_error;
use super::withdrawal;
use super::NotFound;
use crate::db::audit::Actor;
use crate::db::entries::{self, LockedEntry};
use crate::db::locks::{self, Strength};
use crate::db::signups;
use crate::db::{self, early_access, DbError, TxError};
use crate::identity::VerifiedUser;
use chrono::{DateTime, Utc};
use deadpool_postgres::{Pool, Transaction};
use uuid::Uuid;

pub use crate::db::early_access::Content;
pub use crate::db::signups::OwnEntry;

use_case_error! {
    pub enum RecipientError with transitions {}
}

/// The caller's entry in the program `slug`.
pub async fn status(pool: &Pool, user: &VerifiedUser, slug: &str) -> Result<OwnEntry, RecipientError> {
    let client = pool.get().await.map_err(DbError::from)?;
    let own = signups::own_entries(&client, &user.email_keys(), Some(slug)).await?;
    own.into_iter().next().ok_or(RecipientError::NotFound)
}

/// The caller's entries across programs.
pub async fn entries(pool: &Pool, user: &VerifiedUser) -> Result<Vec<OwnEntry>, RecipientError> {
    let client = pool.get().await.map_err(DbError::from)?;
    Ok(signups::own_entries(&client, &user.email_keys(), None).await?)
}

/// Withdraws the caller's entry in the program `slug`.
pub async fn withdraw(pool: &Pool, user: &VerifiedUser, slug: &str) -> Result<(), RecipientError> {
    on_own_entry(pool, user, slug, async |tx, program_id, entry, now| {
        withdrawal::withdraw::<RecipientError>(tx, program_id, entry, Actor::Recipient, "applicant_request", now)
            .await?;
        Ok(())
    })
    .await
}

/// Runs a write on the caller's own entry in the program `slug` (withdrawing, erasing):
/// workspace `FOR KEY SHARE` → program `FOR UPDATE` → the entry of one of the caller's
/// verified emails, then the clock. `body` gets the transaction, the program's id, the
/// locked entry and the clock; an inactive workspace, no program or no entry is the
/// same [`NotFound`].
pub(super) async fn on_own_entry<T, E, F>(pool: &Pool, user: &VerifiedUser, slug: &str, mut body: F) -> Result<T, E>
where
    E: TxError + From<NotFound>,
    F: AsyncFnMut(&Transaction<'_>, Uuid, &LockedEntry, DateTime<Utc>) -> Result<T, E>,
{
    let emails = user.email_keys();
    let mut client = pool.get().await.map_err(DbError::from)?;
    let target = signups::locate(&client, slug).await?.ok_or(NotFound)?;
    db::transaction_on(&mut client, async |tx| {
        if locks::workspace(tx, target.workspace_id, Strength::KeyShare).await? != Some(true) {
            return Err(NotFound.into());
        }
        let program =
            locks::program(tx, target.workspace_id, target.program_id, Strength::Update).await?.ok_or(NotFound)?;
        let entry = entries::lock_own(tx, program.id, &emails).await?.ok_or(NotFound)?;
        let now = locks::now(tx).await?;
        body(tx, program.id, &entry, now).await
    })
    .await
}

/// The private content of `slug`, with the program's title, for the holder of its grant.
pub async fn early_access(pool: &Pool, user: &VerifiedUser, slug: &str) -> Result<Content, RecipientError> {
    let emails = user.email_keys();
    let user_id = user.session.user_id.as_str();
    // One statement, its own transaction (`db::early_access`); retried as a whole on a
    // deadlock or serialization failure, as `db::transaction` would.
    let client = pool.get().await.map_err(DbError::from)?;
    db::retrying(async || early_access::read(&client, slug, user_id, &emails).await?.ok_or(RecipientError::NotFound))
        .await
}

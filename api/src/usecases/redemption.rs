//! A signed-in recipient turns a code into a grant for that code's program: an
//! invitation code here, a cohort code in [`super::cohort_redemption`]. Policy:
//! every failure — unknown, foreign, unverified, used, revoked, expired, no delivery
//! record — is the same [`RedeemError::Denied`], and failed attempts are counted per
//! account and per client address (in PostgreSQL, shared by every instance) so codes
//! cannot be guessed at volume. Every attempt is counted *first*, in one upsert, and
//! refused past the limit; one that turns out not to be a failure (a grant, an outage)
//! is refunded. So a parallel burst cannot pass a check that counts afterwards. The
//! identity provider is asked for the user's verified emails before the transaction;
//! the transaction takes the locks workspace → program → entry → invitation → grant
//! and decides on fresh reads.
//!
//! Where: the counting and the code's route (where it points, immutable) are read on
//! the request's own pool; the transaction runs on the main runtime's pool, entered
//! through the code's workspace's gate ([`crate::gates`]), so one workspace's wave of
//! redemptions, each waiting its turn on its program's row, holds at most half of that
//! pool and the other workspaces' admission batches still find a connection.

use super::cohort_redemption::{self, Refused};
use super::invitations::{self as usecases_invitations, InvitationRow};
use crate::db::entries::LockedEntry;
use crate::db::rate_limits::{self, Counted, Scope};
use crate::db::{self, cohorts, invitations, redemptions, DbError, TxError};
use crate::domain::{EntryMove, EntryState, InvitationMove, InvitationState};
use crate::gates::GatedPool;
use crate::identity::{BackendClient, LookupError};
use chrono::{DateTime, Utc};
use deadpool_postgres::Pool;
use shared::questions::{AnswerError, Answers};
use std::net::IpAddr;

pub use super::cohort_redemption::Redeemed;

#[derive(Debug, thiserror::Error)]
pub enum RedeemError {
    /// The code does not open a program for this user, whatever the reason.
    #[error("denied")]
    Denied,
    /// The window that refused frees in `retry_after` seconds.
    #[error("too many failed attempts")]
    RateLimited { retry_after: u32 },
    /// A cohort code's answers do not fit the accepted notice's questions.
    #[error(transparent)]
    InvalidAnswer(AnswerError),
    #[error(transparent)]
    Identity(#[from] LookupError),
    #[error(transparent)]
    Db(#[from] DbError),
}

impl From<Refused> for RedeemError {
    fn from(refused: Refused) -> Self {
        match refused {
            Refused::NotFound => RedeemError::Denied,
            Refused::InvalidAnswer(e) => RedeemError::InvalidAnswer(e),
            Refused::Db(e) => RedeemError::Db(e),
        }
    }
}

impl TxError for RedeemError {
    fn retry(&self) -> bool {
        matches!(self, RedeemError::Db(DbError::Retry))
    }
}

/// Failed attempts are counted in windows of this many seconds (SPEC §2: per 15 minutes).
const WINDOW_SECS: i32 = 15 * 60;
/// The per-address allowance is this many times the per-account one.
const ADDRESS_FACTOR: u32 = 5;

/// A presented code, recognized at the edge by its shape; each holds its SHA-256.
#[derive(Debug, Clone)]
pub enum PresentedCode {
    /// A one-use invitation code.
    Invitation(Vec<u8>),
    /// A multi-use cohort code, with the notice version the user accepted, if any, and
    /// the answers to its questions.
    Cohort { digest: Vec<u8>, accepted: Option<i32>, answers: Answers },
}

/// The failed attempts allowed: `per_account` in each window for one account, and
/// [`ADDRESS_FACTOR`] times that for one client address; the counters' subjects are
/// keyed with the server `key`, so no account id or address is stored.
#[derive(Clone, Copy)]
pub struct Allowance<'k> {
    pub key: &'k [u8],
    pub per_account: u32,
    /// Where the account's and the address's counters stand after this attempt.
    pub meter: &'k super::metering::Meter,
}

/// The pools a redemption uses: the request's own for its one-statement reads and
/// writes, and the gated main runtime's pool for its transaction.
#[derive(Clone, Copy)]
pub struct Pools<'p> {
    pub request: &'p Pool,
    pub locking: &'p GatedPool,
}

/// Redeems `code` (see [`PresentedCode`]) for the signed-in `user_id`, asking `backend`
/// for their verified emails; a cohort code may first answer with the notice to accept
/// ([`Redeemed::NoticeRequired`], which is not a failed attempt).
pub async fn redeem(
    pools: Pools<'_>,
    backend: &BackendClient,
    allowance: Allowance<'_>,
    user_id: &str,
    client: Option<IpAddr>,
    code: &PresentedCode,
) -> Result<Redeemed, RedeemError> {
    let limits = Limits::new(allowance, user_id, client);
    let counted = match limits.count_attempt(pools.request).await {
        Ok(counted) => {
            allowance.meter.record(&counted.usage);
            counted
        }
        Err(RateRefused(refused)) => {
            allowance.meter.record(&refused.usage);
            return Err(RedeemError::RateLimited { retry_after: refused.retry_after });
        }
        Err(RateDb(e)) => return Err(e),
    };
    let outcome = attempt(pools, backend, user_id, code).await;
    match &outcome {
        Ok(Redeemed::Active(_)) => crate::metrics::count("redemption", "redeemed"),
        Ok(Redeemed::NoticeRequired { .. }) => crate::metrics::count("redemption", "notice_required"),
        Err(RedeemError::Denied) => crate::metrics::count("redemption", "denied"),
        Err(_) => {}
    }
    if !matches!(outcome, Err(RedeemError::Denied)) {
        limits.refund(pools.request, &counted).await;
        allowance.meter.refunded();
    }
    outcome
}

/// The identity lookup, the code's route, then the code's own transaction once its
/// workspace's gate lets it through.
async fn attempt(
    pools: Pools<'_>,
    backend: &BackendClient,
    user_id: &str,
    code: &PresentedCode,
) -> Result<Redeemed, RedeemError> {
    let emails = backend.verified_emails(user_id).await?;
    let emails: Vec<&str> = emails.iter().map(|e| e.as_str()).collect();
    let reads = pools.request.get().await.map_err(DbError::from)?;
    match code {
        PresentedCode::Invitation(digest) => {
            let route = invitations::route_by_digest(&reads, digest).await?.ok_or(RedeemError::Denied)?;
            drop(reads);
            let (_turn, pool) = pools.locking.enter(route.workspace_id).await;
            grant(pool, route, user_id, &emails).await.map(Redeemed::Active)
        }
        PresentedCode::Cohort { digest, accepted, answers } => {
            let route = cohorts::route_by_digest(&reads, digest).await?.ok_or(RedeemError::Denied)?;
            drop(reads);
            let acceptance = cohort_redemption::Acceptance { version: *accepted, answers };
            let (_turn, pool) = pools.locking.enter(route.workspace_id).await;
            Ok(cohort_redemption::redeem(pool, route, user_id, &emails, acceptance).await?)
        }
    }
}

/// The transaction; `Denied` for every reason the code does not open the program. Its
/// locks and reads are one round trip and its writes another (`db::redemptions`), so the
/// program row is held for two round trips and the commit.
async fn grant(pool: &Pool, route: redemptions::Route, user_id: &str, emails: &[&str]) -> Result<String, RedeemError> {
    use RedeemError::Denied;
    db::transaction(pool, async |tx| {
        let locked = redemptions::lock(tx, route).await?;
        if locked.workspace_active != Some(true) {
            return Err(Denied);
        }
        let (Some(program), Some(entry), Some(invitation)) = (locked.program, locked.entry, locked.invitation) else {
            return Err(Denied);
        };
        if !opens(&entry, &invitation, emails, locked.granted, locked.now) {
            return Err(Denied);
        }
        let redeemed = InvitationMove::new(invitation.state, InvitationState::Redeemed).map_err(|_| Denied)?;
        let active = EntryMove::new(EntryState::Invited, EntryState::Active).map_err(|_| Denied)?;
        match redemptions::record(tx, route, user_id, redeemed, active, locked.now).await? {
            redemptions::Recorded::Granted => Ok(program.slug),
            // One grant per account and program; or the entry moved: nothing is kept.
            redemptions::Recorded::AlreadyHeld | redemptions::Recorded::EntryMoved => Err(Denied),
        }
    })
    .await
}

/// Whether an invitation code opens its program for a user whose verified emails are
/// `emails`, decided on the rows locked for it at `now`: the entry is invited and holds
/// no grant yet (`granted`), its invitation may be redeemed ([`invitations::redeemable`]:
/// issued, marked sent, unexpired), and the entry's email is one of the user's. Every
/// `false` is the same [`RedeemError::Denied`].
fn opens(entry: &LockedEntry, invitation: &InvitationRow, emails: &[&str], granted: bool, now: DateTime<Utc>) -> bool {
    entry.state == EntryState::Invited
        && !granted
        && usecases_invitations::redeemable(invitation, now)
        && emails.contains(&entry.email.as_str())
}

/// Why an attempt was not counted: refused by a counter, or the database failed.
enum CountFailure {
    RateRefused(rate_limits::Refused),
    RateDb(RedeemError),
}
use CountFailure::{RateDb, RateRefused};

/// The rate-limit subjects of one attempt.
struct Limits {
    user: Vec<u8>,
    addr: Option<Vec<u8>>,
    per_user: u32,
}

impl Limits {
    fn new(allowance: Allowance<'_>, user_id: &str, client: Option<IpAddr>) -> Self {
        let key = allowance.key;
        Limits {
            user: rate_limits::subject(key, Scope::RedeemUser, user_id),
            addr: client.map(|ip| rate_limits::subject(key, Scope::RedeemAddr, &ip.to_string())),
            per_user: allowance.per_account,
        }
    }

    fn counters(&self) -> Vec<(Scope, &[u8], u32)> {
        let mut counters = vec![(Scope::RedeemUser, self.user.as_slice(), self.per_user)];
        if let Some(addr) = &self.addr {
            counters.push((Scope::RedeemAddr, addr.as_slice(), self.per_user.saturating_mul(ADDRESS_FACTOR)));
        }
        counters
    }

    /// Counts this attempt for the account and the address; refused when either is now
    /// past its allowance.
    async fn count_attempt(&self, pool: &Pool) -> Result<Counted, CountFailure> {
        let conn = pool.get().await.map_err(|e| RateDb(DbError::from(e).into()))?;
        match rate_limits::count_first(&conn, &self.counters(), WINDOW_SECS).await {
            Ok(Ok(counted)) => Ok(counted),
            Ok(Err(refused)) => Err(RateRefused(refused)),
            Err(e) => Err(RateDb(e.into())),
        }
    }

    /// Takes the attempt back: it was not a failed guess. Best effort — the answer is
    /// already decided, and a lost refund only costs one attempt in this window.
    async fn refund(&self, pool: &Pool, counted: &Counted) {
        let counters: Vec<(Scope, &[u8])> = self.counters().into_iter().map(|(s, subject, _)| (s, subject)).collect();
        let refunded = match pool.get().await {
            Ok(conn) => rate_limits::refund(&conn, &counters, counted).await,
            Err(e) => Err(DbError::from(e)),
        };
        if let Err(e) = refunded {
            tracing::warn!(error = %e, "redemption attempt not refunded");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usecases::invitations::tests::invitation;
    use chrono::Duration;
    use uuid::Uuid;

    fn entry(state: EntryState) -> LockedEntry {
        LockedEntry { id: Uuid::from_u128(1), state, email: "ann@example.com".to_owned() }
    }

    #[test]
    fn an_invitation_code_opens_only_with_every_condition_met() {
        let now = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        let sent = invitation(InvitationState::Issued, now + Duration::days(1), true);
        let mine = ["ann@example.com", "ann@work.example"];
        assert!(opens(&entry(EntryState::Invited), &sent, &mine, false, now));

        assert!(!opens(&entry(EntryState::Selected), &sent, &mine, false, now), "entry not invited");
        assert!(!opens(&entry(EntryState::Invited), &sent, &mine, true, now), "a grant already");
        assert!(!opens(&entry(EntryState::Invited), &sent, &["bob@example.com"], false, now), "another's email");
        assert!(!opens(&entry(EntryState::Invited), &sent, &[], false, now), "no verified email");
        let unsent = invitation(InvitationState::Issued, now + Duration::days(1), false);
        assert!(!opens(&entry(EntryState::Invited), &unsent, &mine, false, now), "not marked sent");
        let expired = invitation(InvitationState::Issued, now, true);
        assert!(!opens(&entry(EntryState::Invited), &expired, &mine, false, now), "expired");
        let revoked = invitation(InvitationState::Revoked, now + Duration::days(1), true);
        assert!(!opens(&entry(EntryState::Invited), &revoked, &mine, false, now), "revoked");
    }
}

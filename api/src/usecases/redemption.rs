//! A signed-in recipient turns a code into a grant for that code's program: an
//! invitation code here, a cohort code in [`super::cohort_redemption`]. Policy:
//! every failure — unknown, foreign, unverified, used, revoked, expired, no delivery
//! record — is the same [`RedeemError::Denied`], and failed attempts are counted per
//! account and per client address (in PostgreSQL, shared by every instance) so codes
//! cannot be guessed at volume. The identity provider is asked for the user's verified
//! emails before the transaction; the transaction takes the locks workspace → program →
//! entry → invitation → grant and decides on fresh reads.

use super::cohort_redemption::{self, Redeemed};
use crate::db::audit::{self, Actor, Detail, EventType};
use crate::db::locks::{self, Strength};
use crate::db::rate_limits::{self, Scope};
use crate::db::{self, entries, grants, invitations, DbError, TxError};
use crate::domain::{EntryMove, EntryState, InvitationMove, InvitationState};
use crate::identity::{LookupError, Session};
use crate::state::AppState;
use std::net::IpAddr;

#[derive(Debug, thiserror::Error)]
pub enum RedeemError {
    /// The code does not open a program for this user, whatever the reason.
    #[error("denied")]
    Denied,
    #[error("too many failed attempts")]
    RateLimited,
    #[error(transparent)]
    Identity(#[from] LookupError),
    #[error(transparent)]
    Db(#[from] DbError),
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
    /// A multi-use cohort code, with the notice version the user accepted, if any.
    Cohort { digest: Vec<u8>, accepted: Option<i32> },
}

/// Redeems `code` (see [`PresentedCode`]); a cohort code may first answer with the
/// notice to accept ([`Redeemed::NoticeRequired`], which is not a failed attempt).
pub async fn redeem(
    state: &AppState,
    session: &Session,
    client: Option<IpAddr>,
    code: &PresentedCode,
) -> Result<Redeemed, RedeemError> {
    let limits = Limits::new(state, session, client);
    limits.check(state).await?;
    let emails = state.identity.backend.verified_emails(&session.user_id).await?;
    let emails: Vec<&str> = emails.iter().map(|e| e.as_str()).collect();
    let outcome = match code {
        PresentedCode::Invitation(digest) => {
            grant(state, digest, &session.user_id, &emails).await.map(Redeemed::Active)
        }
        PresentedCode::Cohort { digest, accepted } => {
            cohort_redemption::redeem(&state.pool, digest, &session.user_id, &emails, *accepted).await
        }
    };
    match outcome {
        Ok(redeemed) => {
            let label = match redeemed {
                Redeemed::Active(_) => "redeemed",
                Redeemed::NoticeRequired { .. } => "notice_required",
            };
            crate::metrics::count("redemption", label);
            Ok(redeemed)
        }
        Err(RedeemError::Denied) => {
            crate::metrics::count("redemption", "denied");
            limits.count_failure(state).await?;
            Err(RedeemError::Denied)
        }
        Err(other) => Err(other),
    }
}

/// The transaction; `Denied` for every reason the code does not open the program.
async fn grant(state: &AppState, digest: &[u8], user_id: &str, emails: &[&str]) -> Result<String, RedeemError> {
    use RedeemError::Denied;
    db::transaction(&state.pool, async |tx| {
        let (invitation_id, program_id, entry_id, workspace_id) =
            invitations::route_by_digest(tx, digest).await?.ok_or(Denied)?;
        if locks::workspace(tx, workspace_id, Strength::KeyShare).await? != Some(true) {
            return Err(Denied);
        }
        let program = locks::program(tx, workspace_id, program_id, Strength::Update).await?.ok_or(Denied)?;
        let entry = entries::lock(tx, program.id, entry_id).await?.filter(|e| e.state == EntryState::Invited);
        let entry = entry.ok_or(Denied)?;
        let invitation = invitations::lock(tx, program.id, invitation_id).await?.ok_or(Denied)?;
        let existing_grant = grants::lock_of_entries(tx, &[entry_id]).await?;
        let now = locks::now(tx).await?;
        let usable = invitation.state == InvitationState::Issued
            && invitation.delivery_recorded_at.is_some()
            && now < invitation.expires_at
            && emails.contains(&entry.email.as_str())
            && existing_grant.is_empty();
        if !usable {
            return Err(Denied);
        }
        let redeemed = InvitationMove::new(invitation.state, InvitationState::Redeemed).map_err(|_| Denied)?;
        invitations::finish(tx, &[invitation_id], redeemed, now).await?;
        let grant = match grants::insert(tx, program.id, entry_id, invitation_id, user_id, now).await {
            Ok(id) => id,
            // This account already holds a grant for this program (one per program).
            Err(e) if e.is_unique(grants::ONE_PER_USER) => return Err(Denied),
            Err(e) => return Err(e.into()),
        };
        let active = EntryMove::new(EntryState::Invited, EntryState::Active).map_err(|_| Denied)?;
        if !entries::set_state(tx, entry_id, active, now).await? {
            return Err(Denied);
        }
        let details = [("invitationId", Detail::Id(invitation_id)), ("grantId", Detail::Id(grant))];
        audit::record(tx, program.id, Some(entry_id), Actor::Recipient, EventType::Redeemed, now, &details).await?;
        Ok(program.slug)
    })
    .await
}

/// The rate-limit subjects of one attempt.
struct Limits {
    user: Vec<u8>,
    addr: Option<Vec<u8>>,
    per_user: u32,
}

impl Limits {
    fn new(state: &AppState, session: &Session, client: Option<IpAddr>) -> Self {
        let key = &state.settings.hmac_key;
        Limits {
            user: rate_limits::subject(key, Scope::RedeemUser, &session.user_id),
            addr: client.map(|ip| rate_limits::subject(key, Scope::RedeemAddr, &ip.to_string())),
            per_user: state.settings.redeem_failures_per_15min,
        }
    }

    /// Refused when the account or the address has used up its failed attempts.
    async fn check(&self, state: &AppState) -> Result<(), RedeemError> {
        let conn = state.pool.get().await.map_err(DbError::from)?;
        if rate_limits::current(&conn, Scope::RedeemUser, &self.user, WINDOW_SECS).await? >= self.per_user {
            return Err(RedeemError::RateLimited);
        }
        if let Some(addr) = &self.addr {
            let limit = self.per_user.saturating_mul(ADDRESS_FACTOR);
            if rate_limits::current(&conn, Scope::RedeemAddr, addr, WINDOW_SECS).await? >= limit {
                return Err(RedeemError::RateLimited);
            }
        }
        Ok(())
    }

    async fn count_failure(&self, state: &AppState) -> Result<(), RedeemError> {
        let conn = state.pool.get().await.map_err(DbError::from)?;
        rate_limits::hit(&conn, Scope::RedeemUser, &self.user, WINDOW_SECS, u32::MAX).await?;
        if let Some(addr) = &self.addr {
            rate_limits::hit(&conn, Scope::RedeemAddr, addr, WINDOW_SECS, u32::MAX).await?;
        }
        Ok(())
    }
}
